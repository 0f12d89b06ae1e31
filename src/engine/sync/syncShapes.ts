/**
 * What sync hands the CLI and the wire (docs/architecture.md §2, "One shape per record"): the answer
 * of `sync retract` and the files a push kept off the remote. A leaf: types only, so the protocol
 * names them with `import type`.
 */

/** A file of a checkpoint (sharedTrees.ts) or of a step (timelineSync.ts) that was not written for the remote, and why. */
export interface LeftOutFile {
	/** The local snapshot commit the shared tree stands for (a checkpoint's file). */
	snapshot?: string;
	/** The step whose file it is (a step's file, `sync enable --timeline`). */
	step?: { sessionId: string; step: number };
	path: string;
	reason: string;
}

/** What `sync retract` took back and where (retraction.ts). */
export interface RetractResult {
	/** What was taken back, in words. */
	retracted: string;
	/** This machine's events taken out of its shared refs. */
	events: number;
	checkpoints: string[];
	sessions: string[];
	since: string | null;
	/** The rewritten refs each enabled remote confirmed. */
	pushed: { remote: string; ref: string; oid: string }[];
	/** Remotes the push did not reach: the rewritten refs stay queued for them. */
	unreached: { remote: string; error: string }[];
	/** What no retraction can do (retraction.ts). */
	cannotUndo: string[];
}
