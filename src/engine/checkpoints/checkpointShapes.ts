/**
 * What a comparison and a rollback return, declared once for the engine, the CLI's JSON and the
 * wire (a comparison's files are the store's diff, `shadow/shadowShapes.ts`). A leaf on purpose: it
 * imports only types from other shape files, so the protocol (and with it the extension and the
 * webviews) can use these types without pulling the engine in (docs/architecture.md §2).
 */
import type { ApprovalStatus, Checkpoint } from '../storage/records';
import type { EnvironmentDiff } from '../environment/environmentDiff';
import type { FileChange } from '../shadow/shadowShapes';

export interface ApprovalSummary {
	status: ApprovalStatus;
	user: string | null;
	at: string | null;
	reason: string | null;
}

export interface Comparison {
	/**
	 * Null: nothing before it. What the workspace's first checkpoint changed is compared with an empty
	 * workspace, since Baton holds no snapshot from before it (`to` is then that checkpoint).
	 */
	from: Checkpoint | null;
	/** Null: the working tree. */
	to: Checkpoint | null;
	files: FileChange[];
	environment: EnvironmentDiff;
	approval: { from: ApprovalSummary | null; to: ApprovalSummary | null };
}

export interface RollbackResult {
	rollbackId: string;
	safetyCheckpointId: string;
	/** Paths written with the target's content. */
	restored: string[];
	/** Paths removed (proven created after the target, or displaced by it; all of them are in the safety checkpoint). */
	removed: string[];
	/** Paths the target does not have, kept for lack of proof. */
	kept: string[];
	/** Content that stood where the target writes, moved to `preservedDir` (relative to the workspace). */
	preserved: string[];
	preservedDir: string | null;
}

/**
 * A teammate's decision about a checkpoint of this machine, pulled from a shared remote: kept and
 * shown, never applied (docs/sync.md, "Who decides").
 */
export interface TeammateOpinion {
	checkpointId: string;
	status: string;
	by: string | null;
	note: string | null;
	at: string;
	machine: string;
	machineName: string | null;
	author: string | null;
	eventId: string;
}
