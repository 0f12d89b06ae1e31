/**
 * What sync hands the CLI and the wire (docs/architecture.md §2, "One shape per record"): each remote's
 * state, where sessions ran, what a push and a pull did, the answer of `sync retract` and the files a
 * push kept off the remote. A leaf: types only, so the protocol names them with `import type`.
 */

/** A ref a push wrote on the remote. */
export interface PushedRef {
	ref: string;
	oid: string;
}

/** One remote's sharing state (`baton sync status`). */
export interface RemoteStatus {
	name: string;
	enabled: boolean;
	transcripts: boolean;
	/** Checkpoints share untracked files git would add too (`sync enable --untracked`). */
	untracked: boolean;
	/** Each step's changed files travel too (`sync enable --timeline`). */
	timeline: boolean;
	ahead: number;
	behind: number;
	lastPush: string | null;
	lastPull: string | null;
	queued: number;
	lastError: string | null;
}

/** One of the repository's git remotes, or a remote sharing knows that the repository no longer has (`inGit` false). */
export interface SyncRemote {
	name: string;
	enabled: boolean;
	transcripts: boolean;
	/** Checkpoints carry untracked files git would add too (`--untracked`). */
	untracked: boolean;
	/** Each agent step's changed files travel too, for a teammate's Replay (`--timeline`). */
	timeline: boolean;
	inGit: boolean;
}

/** What `sync enable` turned on (a type, not an interface: the CLI prints it as a JSON record). */
export type EnabledRemote = {
	remote: string;
	url: string;
	enabled: true;
	transcripts: boolean;
	untracked: boolean;
	timeline: boolean;
};

/** Where a session ran: the machine, its name and the author of its `session.started` event. */
export interface SessionOrigin {
	sessionId: string;
	machine: string;
	machineName: string | null;
	author: string | null;
	/** Started on this machine. */
	local: boolean;
	/** The remote it was pulled from (null when local). */
	remote: string | null;
}

/** This machine's shared checkpoints and sessions a retraction can name, newest first. */
export interface Retractable {
	checkpoints: { id: string; message: string | null; at: string }[];
	sessions: { id: string; name: string | null; at: string }[];
}

/** What the editor's Sync Now (a pull, then a push of every enabled remote) and its automatic pull report. */
export interface SyncNowResult {
	pushed: (PushedRef & { remote: string })[];
	fetched: number;
	newEvents: number;
	sessions: { added: number; updated: number };
	/** Pulled lines and events that are no valid event, not merged (the first 20; `refusedCount` counts them all). */
	refused: { id: string; reason: string }[];
	refusedCount: number;
	/** Checkpoint and step files kept off the remote by the push (not what git would commit is never listed; these failed the credential scan or could not be read). */
	leftOut?: LeftOutFile[];
}

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
