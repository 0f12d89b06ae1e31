/**
 * Wire shapes of checkpoints: the engine's records and results (imported as types only, see dto.ts),
 * less the environment snapshot — it can hold thousands of package versions, so lists and
 * comparisons leave it out and comparisons carry its diff instead.
 */
import type { ApprovalSummary, Comparison, RollbackResult, TeammateOpinion } from '../engine/checkpoints/checkpointShapes';
import type { CategoryDiff, EnvironmentCategory } from '../engine/environment/environmentDiff';
import type { FileChange } from '../engine/shadow/shadowShapes';
import type { ApprovalStatus, Checkpoint } from '../engine/storage/records';

export type ApprovalStatusDto = ApprovalStatus;
type TeammateOpinionDto = TeammateOpinion;
/** `opinions`: teammates' decisions about a checkpoint of this machine, shown and never applied (lists only; absent when none). */
export type CheckpointDto = Omit<Checkpoint, 'environment'> & { opinions?: TeammateOpinionDto[] };
export type FileChangeDto = FileChange;
export type CategoryDiffDto = CategoryDiff;
export type EnvironmentCategoryDto = EnvironmentCategory;
export type ApprovalSummaryDto = ApprovalSummary;

/**
 * Two checkpoints (or a checkpoint and the working tree: `to` null; or nothing and the workspace's
 * first checkpoint: `from` null), file by file and environment by environment.
 */
export type ComparisonDto = Omit<Comparison, 'from' | 'to'> & {
	from: CheckpointDto | null;
	to: CheckpointDto | null;
	/** The names of the sides' sessions, so the page names them as people know them (their ids go in hovers). */
	sessions: { id: string; name: string }[];
	/** This machine's user as the backend records a person's actor (`vscode:<you>`): shown as "you" (protocol/people.ts). */
	you: string | null;
};

export type RollbackResultDto = RollbackResult;
