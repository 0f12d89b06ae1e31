/**
 * Wire shapes of checkpoints: the engine's records and results (imported as types only, see dto.ts),
 * less the environment snapshot — it can hold thousands of package versions, so lists and
 * comparisons leave it out and comparisons carry its diff instead.
 */
import type { ApprovalSummary, Comparison, FileChange, RollbackResult, TeammateOpinion } from '../engine/checkpoints/checkpointShapes';
import type { CategoryDiff, EnvironmentCategory, EnvironmentDiff } from '../engine/checkpoints/environmentDiff';
import type { ApprovalStatus, Checkpoint } from '../engine/storage/records';

export type ApprovalStatusDto = ApprovalStatus;
export type TeammateOpinionDto = TeammateOpinion;
/** `opinions`: teammates' decisions about a checkpoint of this machine, shown and never applied (lists only; absent when none). */
export type CheckpointDto = Omit<Checkpoint, 'environment'> & { opinions?: TeammateOpinionDto[] };
export type FileChangeDto = FileChange;
export type CategoryDiffDto = CategoryDiff;
export type EnvironmentCategoryDto = EnvironmentCategory;
export type EnvironmentDiffDto = EnvironmentDiff;
export type ApprovalSummaryDto = ApprovalSummary;

/** Two checkpoints (or a checkpoint and the working tree: `to` null), file by file and environment by environment. */
export type ComparisonDto = Omit<Comparison, 'from' | 'to'> & { from: CheckpointDto; to: CheckpointDto | null };

export type RollbackResultDto = RollbackResult;
