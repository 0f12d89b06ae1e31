/**
 * Wire shapes of checkpoints. They mirror the engine's records (test/unit/protocol/dto.test.ts keeps
 * them equal); lists carry no environment snapshot — comparisons carry its diff instead.
 */
import { z } from 'zod';

export const approvalStatusDto = z.enum(['pending', 'approved', 'rejected', 'auto_approved']);
export type ApprovalStatusDto = z.infer<typeof approvalStatusDto>;

export const fileStatsDto = z.object({
	added: z.number().int().nonnegative(),
	modified: z.number().int().nonnegative(),
	deleted: z.number().int().nonnegative(),
	totalFiles: z.number().int().nonnegative(),
	linesAdded: z.number().int().nonnegative().nullable(),
	linesRemoved: z.number().int().nonnegative().nullable(),
	skipped: z.array(z.object({ path: z.string(), size: z.number().int().nonnegative(), reason: z.string() })),
	skippedTotal: z.number().int().nonnegative(),
	degraded: z.boolean(),
	degradedReason: z.string().nullable(),
	nestedRepos: z.array(z.string()),
	durationMs: z.number().nonnegative(),
});

export const checkpointDto = z.object({
	id: z.string(),
	seq: z.number().int(),
	sessionId: z.string().nullable(),
	trigger: z.string(),
	parentCheckpointId: z.string().nullable(),
	commitSha: z.string(),
	treeSha: z.string(),
	message: z.string().nullable(),
	tags: z.array(z.string()),
	annotations: z.array(z.object({ at: z.string(), user: z.string(), text: z.string() })),
	linkedIssues: z.array(z.object({ tracker: z.string().min(1), id: z.string().min(1), url: z.string().nullable() })),
	fileStats: fileStatsDto,
	metrics: z.object({ costUsd: z.number().nonnegative(), errorCount: z.number().int().nonnegative(), sessionAgeMs: z.number().nonnegative() }),
	approvalStatus: approvalStatusDto,
	approvalUser: z.string().nullable(),
	approvalAt: z.string().nullable(),
	approvalReason: z.string().nullable(),
	approvalPolicy: z.enum(['auto', 'review', 'strict']),
	escalationReasons: z.array(z.string()),
	createdAt: z.string(),
});
export type CheckpointDto = z.infer<typeof checkpointDto>;

export const fileChangeDto = z.object({
	path: z.string(),
	change: z.string(),
	additions: z.number().nullable(),
	deletions: z.number().nullable(),
	binary: z.boolean(),
	oldMode: z.string().nullable(),
	newMode: z.string().nullable(),
	oldSha: z.string().nullable(),
	newSha: z.string().nullable(),
});
export type FileChangeDto = z.infer<typeof fileChangeDto>;

export const categoryDiffDto = z.object({
	added: z.array(z.object({ key: z.string(), value: z.string() })),
	removed: z.array(z.object({ key: z.string(), value: z.string() })),
	changed: z.array(z.object({ key: z.string(), from: z.string(), to: z.string() })),
});
export type CategoryDiffDto = z.infer<typeof categoryDiffDto>;

export const environmentCategoriesDto = ['agents', 'vscode', 'extensions', 'mcpServers', 'runtimes', 'packages', 'git'] as const;
export type EnvironmentDiffDto = Record<(typeof environmentCategoriesDto)[number], CategoryDiffDto> & {
	changed: boolean;
	note: string | null;
	/** What only one side could observe (a CLI-taken checkpoint sees no editor): unknown, neither added nor removed. */
	notCompared: { category: (typeof environmentCategoriesDto)[number]; key: string | null; reason: string }[];
};

export interface ApprovalSummaryDto {
	status: ApprovalStatusDto;
	user: string | null;
	at: string | null;
	reason: string | null;
}

/** Two checkpoints (or a checkpoint and the working tree: `to` null), file by file and environment by environment. */
export interface ComparisonDto {
	from: CheckpointDto;
	to: CheckpointDto | null;
	files: FileChangeDto[];
	environment: EnvironmentDiffDto;
	approval: { from: ApprovalSummaryDto; to: ApprovalSummaryDto | null };
}

export interface RollbackResultDto {
	rollbackId: string;
	safetyCheckpointId: string;
	restored: string[];
	removed: string[];
	kept: string[];
	preserved: string[];
	preservedDir: string | null;
}
