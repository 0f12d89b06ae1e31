/**
 * Sync's own bookkeeping, per remote, in `.baton/sync/state.json` (written atomically: a crash leaves
 * the old or the new file). It is also the durable push queue: a ref is queued for a remote as long as
 * this machine's local tip differs from the oid that remote last confirmed for it. Refs only grow, so
 * an update that arrives during a push, a second remote, or a push killed half-way leave the ref
 * queued until a push confirms its new tip — nothing is ever removed from the queue except by a
 * confirmation of exactly that oid.
 */
import fs from 'node:fs';
import path from 'node:path';
import { atomicWriteFile } from '../storage/fsUtil';
import { batonDir } from '../workspace';

export interface RemoteState {
	enabled: boolean;
	/** Share archived transcripts too (off by default). */
	transcripts: boolean;
	/** ref → the oid this remote confirmed (`git push --porcelain`). */
	pushed: Record<string, string>;
	/** remote-tracking ref → the oid whose events are merged here. */
	pulled: Record<string, string>;
	lastPush: string | null;
	lastPull: string | null;
	lastError: string | null;
}

export interface SyncStateFile {
	version: 1;
	remotes: Record<string, RemoteState>;
}

export function syncDir(workspaceRoot: string): string {
	return path.join(batonDir(workspaceRoot), 'sync');
}

function stateFile(workspaceRoot: string): string {
	return path.join(syncDir(workspaceRoot), 'state.json');
}

export function readSyncState(workspaceRoot: string): SyncStateFile {
	let text: string;
	try {
		text = fs.readFileSync(stateFile(workspaceRoot), 'utf8');
	} catch {
		return { version: 1, remotes: {} };
	}
	const parsed = JSON.parse(text) as Partial<SyncStateFile>;
	const remotes: Record<string, RemoteState> = {};
	for (const [name, value] of Object.entries(parsed.remotes ?? {})) {
		remotes[name] = { ...emptyRemote(), ...value };
	}
	return { version: 1, remotes };
}

export function writeSyncState(workspaceRoot: string, state: SyncStateFile): void {
	fs.mkdirSync(syncDir(workspaceRoot), { recursive: true });
	atomicWriteFile(stateFile(workspaceRoot), Buffer.from(`${JSON.stringify(state, null, '\t')}\n`));
}

/** Read, change, write; the caller holds the sync lock. */
export function updateSyncState(workspaceRoot: string, change: (state: SyncStateFile) => void): SyncStateFile {
	const state = readSyncState(workspaceRoot);
	change(state);
	writeSyncState(workspaceRoot, state);
	return state;
}

export function emptyRemote(): RemoteState {
	return { enabled: false, transcripts: false, pushed: {}, pulled: {}, lastPush: null, lastPull: null, lastError: null };
}
