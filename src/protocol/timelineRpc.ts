/**
 * The replay timeline over JSON-RPC (docs/replay.md): a session's axis, one step's details, a file at
 * one of a step's trees, and reverting a step. Shapes mirror `baton timeline --json`.
 */
import { RequestType } from 'vscode-jsonrpc';
import type { RpcErrorData } from './rpc';

export interface TimelineFileDto {
	path: string;
	change: 'added' | 'modified' | 'deleted';
	additions: number;
	deletions: number;
}

export interface TimelineStepDto {
	id: string;
	step: number;
	turn: number;
	toolUseId: string | null;
	actor: 'agent' | 'human';
	tool: string | null;
	summary: string;
	startedAt: string;
	treeBefore: string | null;
	treeAfter: string | null;
	files: TimelineFileDto[];
	captured: boolean;
	reason?: string;
	moreFiles?: number;
	agent?: string;
	/** The model that made an agent step, when its hook payload or transcript said. */
	model?: string;
	/** Why the store no longer holds the step's trees (pruned by the retention, or recorded elsewhere). */
	treesGone?: string;
}

export type TimelineEntryDto =
	| { type: 'prompt'; id: string; turn: number; text: string; at: string }
	| ({ type: 'step' } & TimelineStepDto)
	/** `seq`: the checkpoint's number, how people name it ("#3"); the id stays for tools. */
	| { type: 'checkpoint'; id: string; checkpointId: string; seq: number; trigger: string; at: string; message: string | null }
	| { type: 'approval'; id: string; checkpointId: string; seq: number; status: string; user: string | null; at: string; reason: string | null };

export interface TimelineDto {
	session: string;
	sessionName: string | null;
	entries: TimelineEntryDto[];
	/** This machine's user as the backend records a person's actor: an approval of theirs reads "by you" (protocol/people.ts). */
	you: string | null;
}

/** The transcript around a step: the turn's prompt and the archived excerpts next to its tool call. */
export interface TranscriptLineDto {
	role: 'user' | 'assistant' | 'tool' | 'error';
	text: string;
	/** True for the step's own tool call. */
	current: boolean;
}

export interface StepDetailDto {
	step: TimelineStepDto;
	filesNow: { path: string; now: 'unchanged' | 'changed' | 'deleted' }[];
	transcript: TranscriptLineDto[];
}

export interface RevertResultDto {
	step: number;
	sessionId: string;
	dryRun: boolean;
	checkpoint: string | null;
	reverted: string[];
	skipped: { path: string; reason: string }[];
}

export const timelineGet = new RequestType<{ sessionId?: string }, TimelineDto, RpcErrorData>('timeline/get');
export const timelineStep = new RequestType<{ id: string }, StepDetailDto, RpcErrorData>('timeline/step');
/** A file's text at a tree of a step (null when the tree does not hold it or it is binary). */
export const timelineFile = new RequestType<{ tree: string; path: string }, { text: string | null; binary: boolean }, RpcErrorData>('timeline/file');
export const timelineRevert = new RequestType<{ id: string; dryRun?: boolean }, RevertResultDto, RpcErrorData>('timeline/revert');
