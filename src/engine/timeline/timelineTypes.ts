/**
 * The timeline's records (docs/records.md `timeline.step` / `timeline.prompt`, docs/replay.md): the
 * bodies as stored in shared events, and the per-session axis the CLI and the Replay view read.
 */
import type { ChangeKind } from '../checkpoints/treeDiff';

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

export type StepActor = 'agent' | 'human';

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
