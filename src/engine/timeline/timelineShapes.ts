/**
 * The timeline's records (docs/records.md `timeline.step` / `timeline.prompt`, docs/replay.md): the
 * bodies as stored in shared events, the per-session axis the CLI and the Replay view read, and what
 * the timeline service answers (one step's details, a revert). A shape file (docs/architecture.md §2,
 * "One shape per record"): types and constants only, so the protocol names them with `import type`.
 */
import type { ChangeKind } from '../shadow/shadowShapes';

export interface TimelineFile {
	path: string;
	change: ChangeKind;
	additions: number;
	deletions: number;
	/**
	 * The file's blob ids in Baton's store before and after the step (absent for the side where the
	 * file does not exist), so a step's files can be read without its trees, which only keyframe steps
	 * keep (docs/replay.md). Absent on records written before that.
	 */
	blobBefore?: string;
	blobAfter?: string;
	/** Git file modes, only where not a plain file (`100755`, `120000`). */
	modeBefore?: string;
	modeAfter?: string;
	/** Set when git sees the file as binary (no line counts). */
	binary?: boolean;
}

type StepActor = 'agent' | 'human';

/** A `timeline.step` body. */
export interface TimelineStep {
	step: number;
	turn: number;
	toolUseId: string | null;
	actor: StepActor;
	tool: string | null;
	summary: string;
	startedAt: string;
	treeBefore: string | null;
	treeAfter: string | null;
	files: TimelineFile[];
	captured: boolean;
	reason?: string;
	/** Files left out of `files` because the change was too large to list. */
	moreFiles?: number;
	/** The agent kind for agent steps (`claude-code`, `copilot`, `cline`). */
	agent?: string;
	/** The model that made an agent step, from the hook payload or the agent's transcript; absent when neither says. */
	model?: string;
	/**
	 * Set when read, never stored: why this store no longer holds the step's trees (pruned by the
	 * retention, or recorded elsewhere). The record stays; diff, revert and the file states are gone.
	 */
	treesGone?: string;
}

/** A `timeline.prompt` body. */
export interface TimelinePrompt {
	turn: number;
	text: string;
	at: string;
}

/** One entry on a session's axis, in the shared order of its events. */
export type TimelineEntry =
	| ({ type: 'prompt'; id: string } & TimelinePrompt)
	| ({ type: 'step'; id: string } & TimelineStep)
	/** `seq`: the checkpoint's number, how people name it ("#3"); the id stays for tools. */
	| { type: 'checkpoint'; id: string; checkpointId: string; seq: number; trigger: string; at: string; message: string | null }
	| { type: 'approval'; id: string; checkpointId: string; seq: number; status: string; user: string | null; at: string; reason: string | null };

export const stepKind = 'timeline.step';
export const promptKind = 'timeline.prompt';

/** A step as read back: its body, its shared event's id, its session and when it was recorded. */
export type StepRecord = TimelineStep & { id: string; sessionId: string; at: string };

/** A session's axis. */
export interface SessionTimeline {
	session: string;
	entries: TimelineEntry[];
}

/** A session's axis as the Replay view reads it: with the session's name, and this machine's user as the backend records a person (an approval of theirs reads "by you"). */
export interface TimelineView extends SessionTimeline {
	sessionName: string | null;
	you: string | null;
}

/** Where one of a step's files stands now, relative to what the step left. */
export type FileNow = 'unchanged' | 'changed' | 'deleted';

/** The transcript around a step: the turn's prompt and the archived excerpts next to its tool call. */
export interface TranscriptLine {
	role: 'user' | 'assistant' | 'tool' | 'error';
	text: string;
	/** True for the step's own tool call. */
	current: boolean;
}

/** One step with where its files stand now and the transcript around it. */
export interface StepDetail {
	step: StepRecord;
	filesNow: { path: string; now: FileNow }[];
	transcript: TranscriptLine[];
}

/** A file's text at a tree of a step (null when the tree does not hold it or it is binary). */
export interface StepFileText {
	text: string | null;
	binary: boolean;
}

export interface RevertOutcome {
	reverted: string[];
	skipped: { path: string; reason: string }[];
}

export interface RevertResult extends RevertOutcome {
	step: number;
	sessionId: string;
	dryRun: boolean;
	/** The safety checkpoint taken first (null in a dry run). */
	checkpoint: string | null;
}
