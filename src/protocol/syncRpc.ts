/**
 * Sync over JSON-RPC (docs/sync.md): the editor's Sync Now, its status bar item, the automatic
 * pull on focus and after `git fetch`, and turning sharing on and off per remote. The shapes are the
 * engine's (`syncShapes.ts`), named here by type only.
 */
import { RequestType } from 'vscode-jsonrpc';
import type { RpcErrorData } from './rpc';
import type { EnabledRemote, RemoteStatus, Retractable, RetractResult, SessionOrigin, SyncNowResult, SyncRemote } from '../engine/sync/syncShapes';

export type SyncRemoteStatusDto = RemoteStatus;
export type SyncNowResultDto = SyncNowResult;
export type SessionOriginDto = SessionOrigin;
export type SyncRemoteDto = SyncRemote;
export type SyncRetractResultDto = RetractResult;

/** Extension → server: per-remote sync state (no network). */
export const syncStatus = new RequestType<void, { remotes: RemoteStatus[] }, RpcErrorData>('sync/status');
/** Extension → server: pull then push every enabled remote. */
export const syncNow = new RequestType<void, SyncNowResult, RpcErrorData>('sync/now');
/** Extension → server: pull every enabled remote (focus, after `git fetch`). */
export const syncPull = new RequestType<void, SyncNowResult, RpcErrorData>('sync/pull');
/** Extension → server: who and where sessions ran. */
export const syncOrigins = new RequestType<{ sessionIds: string[] }, { origins: SessionOrigin[] }, RpcErrorData>('sync/origins');

/** Extension → server: the repository's git remotes and which of them share Baton's records. */
export const syncRemotes = new RequestType<void, { remotes: SyncRemote[] }, RpcErrorData>('sync/remotes');
/** Extension → server: share through `remote` (`baton sync enable REMOTE [--transcripts] [--untracked] [--timeline]`). */
export const syncEnable = new RequestType<{ remote: string; transcripts: boolean; untracked?: boolean; timeline?: boolean }, EnabledRemote, RpcErrorData>(
	'sync/enable',
);
/** Extension → server: stop sharing through `remote` (`baton sync disable REMOTE`). */
export const syncDisable = new RequestType<{ remote: string }, { remote: string }, RpcErrorData>('sync/disable');

/** Extension → server: this machine's shared checkpoints and sessions a retraction can name, newest first. */
export const syncRetractable = new RequestType<void, Retractable, RpcErrorData>('sync/retractable');
/** Extension → server: take back a checkpoint, a session, or everything since a time (`baton sync retract`). */
export const syncRetract = new RequestType<{ checkpoint?: string; session?: string; since?: string }, RetractResult, RpcErrorData>('sync/retract');
