/**
 * Sync over JSON-RPC (docs/sync.md): the editor's Sync Now, its status bar item, the automatic
 * pull on focus and after `git fetch`, and turning sharing on and off per remote.
 */
import { RequestType } from 'vscode-jsonrpc';
import type { RpcErrorData } from './rpc';
import type { LeftOutFile, RetractResult } from '../engine/sync/syncShapes';

export interface SyncRemoteStatusDto {
	name: string;
	enabled: boolean;
	ahead: number;
	behind: number;
	lastPush: string | null;
	lastPull: string | null;
	queued: number;
	lastError: string | null;
}

export interface SyncNowResultDto {
	pushed: { ref: string; oid: string; remote: string }[];
	fetched: number;
	newEvents: number;
	sessions: { added: number; updated: number };
	/** Pulled lines and events that are no valid event, not merged (the first 20; `refusedCount` counts them all). */
	refused: { id: string; reason: string }[];
	refusedCount: number;
	/** Checkpoint and step files kept off the remote by the push (not what git would commit is never listed; these failed the credential scan or could not be read). */
	leftOut?: LeftOutFile[];
}

export interface SessionOriginDto {
	sessionId: string;
	machineName: string | null;
	author: string | null;
	local: boolean;
}

/** Extension → server: per-remote sync state (no network). */
export const syncStatus = new RequestType<void, { remotes: SyncRemoteStatusDto[] }, RpcErrorData>('sync/status');
/** Extension → server: pull then push every enabled remote. */
export const syncNow = new RequestType<void, SyncNowResultDto, RpcErrorData>('sync/now');
/** Extension → server: pull every enabled remote (focus, after `git fetch`). */
export const syncPull = new RequestType<void, SyncNowResultDto, RpcErrorData>('sync/pull');
/** Extension → server: who and where sessions ran. */
export const syncOrigins = new RequestType<{ sessionIds: string[] }, { origins: SessionOriginDto[] }, RpcErrorData>('sync/origins');

export interface SyncRemoteDto {
	name: string;
	enabled: boolean;
	transcripts: boolean;
	/** Checkpoints carry untracked files git would add too (`--untracked`). */
	untracked: boolean;
	/** Each agent step's changed files travel too, for a teammate's Replay (`--timeline`). */
	timeline: boolean;
	/** False for a remote sharing was enabled for that the repository no longer has. */
	inGit: boolean;
}

/** Extension → server: the repository's git remotes and which of them share Baton's records. */
export const syncRemotes = new RequestType<void, { remotes: SyncRemoteDto[] }, RpcErrorData>('sync/remotes');
/** Extension → server: share through `remote` (`baton sync enable REMOTE [--transcripts] [--untracked] [--timeline]`). */
export const syncEnable = new RequestType<{ remote: string; transcripts: boolean; untracked?: boolean; timeline?: boolean }, { remote: string; transcripts: boolean; untracked: boolean; timeline: boolean }, RpcErrorData>('sync/enable');
/** Extension → server: stop sharing through `remote` (`baton sync disable REMOTE`). */
export const syncDisable = new RequestType<{ remote: string }, { remote: string }, RpcErrorData>('sync/disable');

/** `sync retract`'s answer, as the engine gives it. */
export type SyncRetractResultDto = RetractResult;

/** Extension → server: this machine's shared checkpoints and sessions a retraction can name, newest first. */
export const syncRetractable = new RequestType<void, { checkpoints: { id: string; message: string | null; at: string }[]; sessions: { id: string; name: string | null; at: string }[] }, RpcErrorData>('sync/retractable');
/** Extension → server: take back a checkpoint, a session, or everything since a time (`baton sync retract`). */
export const syncRetract = new RequestType<{ checkpoint?: string; session?: string; since?: string }, SyncRetractResultDto, RpcErrorData>('sync/retract');
