/**
 * Sync's own bookkeeping, per remote, in `.baton/sync/state.json` (written atomically: a crash leaves
 * the old or the new file). It is also the durable push queue: a ref is queued for a remote as long as
 * this machine's local tip differs from the oid that remote last confirmed for it. Refs only grow, so
 * an update that arrives during a push, a second remote, or a push killed half-way leave the ref
 * queued until a push confirms its new tip — nothing is ever removed from the queue except by a
 * confirmation of exactly that oid.
 */
import { ownMap, ownRecord } from '../storage/ownRecord';
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { BatonError } from '../errors';
import { atomicWriteFile } from '../storage/fsUtil';
import { batonDir, mkdirPrivate } from '../workspace';

export interface RemoteState {
	enabled: boolean;
	/** Share archived transcripts too (off by default). */
	transcripts: boolean;
	/** Checkpoints' shared trees may hold untracked files git would add (off by default: tracked files only; sharedTrees.ts). */
	untracked: boolean;
	/** Each agent step's changed files travel on the timeline ref, so a teammate's Replay can diff and revert it (off by default; timelineSync.ts). */
	timeline: boolean;
	/** ref → the oid this remote confirmed (`git push --porcelain`). */
	pushed: Record<string, string>;
	/** remote-tracking ref → the oid whose events are merged here. */
	pulled: Record<string, string>;
	lastPush: string | null;
	lastPull: string | null;
	lastError: string | null;
}

interface SyncStateFile {
	version: 1;
	remotes: Record<string, RemoteState>;
}

export function syncDir(workspaceRoot: string): string {
	return path.join(batonDir(workspaceRoot), 'sync');
}

function stateFile(workspaceRoot: string): string {
	return path.join(syncDir(workspaceRoot), 'state.json');
}

const oids = z.record(z.string(), z.string());
const remoteStateSchema = z.looseObject({
	enabled: z.boolean().optional(),
	transcripts: z.boolean().optional(),
	untracked: z.boolean().optional(),
	timeline: z.boolean().optional(),
	pushed: oids.optional(),
	pulled: oids.optional(),
	lastPush: z.string().nullish(),
	lastPull: z.string().nullish(),
	lastError: z.string().nullish(),
});
/** Remotes by own key (storage/ownRecord.ts): git takes `__proto__` and `constructor` as remote names. */
const stateFileSchema = z.looseObject({ remotes: ownRecord(remoteStateSchema).optional() });

/**
 * The state, or none yet. A file that cannot be read or does not fit is an error naming it, and is
 * left as it is: read as empty, it would turn sharing off without a word, and the next write would
 * replace it.
 */
export function readSyncState(workspaceRoot: string): SyncStateFile {
	const file = stateFile(workspaceRoot);
	let text: string;
	try {
		text = fs.readFileSync(file, 'utf8');
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
			return { version: 1, remotes: ownMap<RemoteState>() };
		}
		throw new BatonError('storageFailure', `${file} cannot be read: ${(error as Error).message}`, { file });
	}
	let problem: string;
	try {
		const parsed = stateFileSchema.safeParse(JSON.parse(text));
		if (parsed.success) {
			const remotes = ownMap<RemoteState>();
			for (const [name, value] of Object.entries(parsed.data.remotes ?? {})) {
				remotes[name] = { ...emptyRemote(), ...value } as RemoteState;
			}
			return { version: 1, remotes };
		}
		const issue = parsed.error.issues[0];
		problem = `${issue?.path.map(String).join('.') || 'the file'}: ${issue?.message ?? 'invalid'}`;
	} catch (error) {
		problem = `not JSON (${(error as Error).message})`;
	}
	throw new BatonError(
		'storageFailure',
		`${file} is damaged (${problem}): it says which remotes share and what was pushed and pulled. Fix it, or move it aside to start over (sharing is then off until \`baton sync enable REMOTE\`; a pull merges everything again, nothing is lost).`,
		{ file },
	);
}

function writeSyncState(workspaceRoot: string, state: SyncStateFile): void {
	mkdirPrivate(syncDir(workspaceRoot));
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
	return { enabled: false, transcripts: false, untracked: false, timeline: false, pushed: {}, pulled: {}, lastPush: null, lastPull: null, lastError: null };
}
