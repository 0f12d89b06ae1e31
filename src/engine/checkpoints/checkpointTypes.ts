/**
 * What the checkpoint service takes and gives, for its callers (the server, the CLI, tests).
 */
import type { FileStats, LinkedIssue } from '../storage/jsonShapes';
import type { Checkpoint } from '../storage/model';
import type { HostEnvironment } from '../environment/environmentCapture';
import type { SyncProgress } from '../shadow/indexSync';
import type { RestoreFaults } from '../shadow/restorer';

export type { ApprovalSummary, Comparison } from './checkpointShapes';

export interface CreateCheckpointInput {
	/** Defaults to `manual`. Unknown triggers are kept as given and always need review. */
	trigger?: string;
	message?: string | null;
	tags?: string[];
	/** Someone asked a person to judge this state: it waits for review whatever the policy or changes. */
	reviewRequested?: boolean;
	/** The `complete` checkpoint of a session no agent ran, which a person ended: nothing for them to review (onSessionEnded). */
	personsOwnEnd?: boolean;
	/** Defaults to the sole active session; none when no session is active. */
	sessionId?: string | null;
	/** The session's cost so far (USD), e.g. from its transcript; replaces the stored figure. */
	costUsd?: number;
	/** The session's error count so far; replaces the stored figure. */
	errorCount?: number;
	linkedIssues?: LinkedIssue[];
	/** What only the editor knows (VS Code version, extensions); defaults to what setHostEnvironment() gave. */
	host?: HostEnvironment;
	actor: string;
	onProgress?: (progress: SyncProgress) => void;
}

export interface PeriodicResult {
	checkpoint: Checkpoint | null;
	/** Why none was taken: `not active`, `not due`, `no changes`. */
	reason: string | null;
}

export interface PrepareResult {
	filesIndexed: number;
	skipped: FileStats['skipped'];
	degradedReason: string | null;
	durationMs: number;
}

/** Test and diagnostics hooks; never set in production. */
export interface CheckpointFaults extends RestoreFaults {
	/** Replaces the host's PATH for environment capture. */
	searchPath?: string;
	/** Smaller update-index batches (shows budget handling on small workspaces). */
	batchFiles?: number;
}
