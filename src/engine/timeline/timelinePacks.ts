/**
 * The blobs a session's steps wrote, kept in packs of the session's own (docs/replay.md, "Retention
 * and size"): no ref reaches them (a step's trees are not kept), so each such pack has a `.keep` file
 * beside it, which `git repack -a -d` leaves alone and `git prune` never looks into (it removes only
 * loose objects). The `.keep` file says whose pack it is (one line: listing the blobs there as well
 * cost about a third of what the pack itself takes), so the session's packs can be merged into one
 * and dropped when its trees are pruned. Dropping removes the
 * `.keep` file only: the next full repack then moves what anything else still reaches into the main
 * pack and deletes the rest, so no object another session or a checkpoint needs is lost.
 * All of this runs under the shadow's lock.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ShadowRepo } from '../shadow/shadowRepo';
import { batchCheck } from '../git/objectReader';
import type { KeptBlob } from './timelineState';

const keepHeader = 'baton timeline ';

/** The owner line of a session's `.keep` files (the session id as its ref and state file spell it). */
function owner(sessionId: string): string {
	return `${keepHeader}${sessionId.replace(/[^A-Za-z0-9_.-]/g, '_')}`;
}

function packDir(shadow: ShadowRepo): string {
	return path.join(shadow.gitDir, 'objects', 'pack');
}

/** A session's kept packs: their base paths (without extension). */
export function sessionPacks(shadow: ShadowRepo, sessionId: string): string[] {
	const dir = packDir(shadow);
	let names: string[];
	try {
		names = fs.readdirSync(dir).filter((f) => f.endsWith('.keep'));
	} catch {
		return [];
	}
	const packs: string[] = [];
	for (const name of names) {
		let text: string;
		try {
			text = fs.readFileSync(path.join(dir, name), 'utf8');
		} catch {
			continue;
		}
		if (text.split('\n')[0] !== owner(sessionId)) {
			continue;
		}
		packs.push(path.join(dir, name.slice(0, -'.keep'.length)));
	}
	return packs;
}

/** The objects a pack holds, from its index (`git show-index`: `<offset> <oid> (<crc>)` a line). */
export async function packObjects(shadow: ShadowRepo, base: string): Promise<string[]> {
	const out = await shadow.gitText(['show-index'], { input: fs.readFileSync(`${base}.idx`) });
	return out
		.split('\n')
		.map((l) => l.split(' ')[1] ?? '')
		.filter((sha) => /^[0-9a-f]{40,64}$/.test(sha));
}

/**
 * Writes `blobs` (those the store still holds) into one new pack marked as the session's, fed to
 * `git pack-objects` as `<oid> <path>` so a blob packs as a delta of the same file's other version in
 * the pack (git pairs delta bases by the end of the path). Returns the pack's base path, or null when
 * there was nothing to keep.
 */
async function writeSessionPack(shadow: ShadowRepo, sessionId: string, blobs: readonly KeptBlob[]): Promise<string | null> {
	const shas = [...new Set(blobs.map((b) => b[0]))];
	if (shas.length === 0) {
		return null;
	}
	const found = await batchCheck(async (args, input) => (await shadow.git(args, input !== undefined ? { input } : {})).stdout, shas);
	const present = new Set(found.filter((o) => o?.type === 'blob').map((o) => o?.oid));
	const seen = new Set<string>();
	const lines: string[] = [];
	for (const [sha, file] of blobs) {
		// A path with a line break cannot be fed on one line; its blob is kept all the same, unnamed.
		const name = file.replace(/[\r\n]/g, ' ');
		if (present.has(sha) && !seen.has(sha)) {
			seen.add(sha);
			lines.push(name ? `${sha} ${name}` : sha);
		}
	}
	if (lines.length === 0) {
		return null;
	}
	const dir = packDir(shadow);
	fs.mkdirSync(dir, { recursive: true });
	const hash = await shadow.gitText(['pack-objects', '-q', path.join(dir, 'pack')], { input: `${lines.join('\n')}\n` });
	const base = path.join(dir, `pack-${hash}`);
	fs.writeFileSync(`${base}.keep`, `${owner(sessionId)}\n`);
	return base;
}

/** Removes a pack's files (the `.keep` last, so a pack is never left unmarked while its objects are needed). */
function removePack(base: string): void {
	for (const ext of ['.pack', '.idx', '.rev', '.bitmap']) {
		fs.rmSync(`${base}${ext}`, { force: true });
	}
	fs.rmSync(`${base}.keep`, { force: true });
}

/**
 * Keeps `blobs` for the session and merges its kept packs into one (git reads every pack's index
 * when it looks an object up, so many small packs per session would slow every read). The new pack
 * is complete before the old ones go.
 */
export async function keepSessionBlobs(shadow: ShadowRepo, sessionId: string, blobs: readonly KeptBlob[], merge: boolean): Promise<void> {
	const old = merge ? sessionPacks(shadow, sessionId) : [];
	if (old.length <= 1 && blobs.length === 0) {
		return;
	}
	// The old packs' blobs go in unnamed: each old pack holds the versions its deltas need, and
	// pack-objects reuses those deltas as they are.
	const packed: KeptBlob[] = [];
	for (const base of old) {
		for (const sha of await packObjects(shadow, base)) {
			packed.push([sha, '']);
		}
	}
	const written = await writeSessionPack(shadow, sessionId, [...blobs, ...packed]);
	for (const base of old) {
		if (base !== written) {
			removePack(base);
		}
	}
}

/**
 * Releases a pruned session's packs: their `.keep` files go, so the full repack that follows keeps
 * what other refs reach (in the main pack) and deletes these packs. Returns how many were released.
 */
export function releaseSessionPacks(shadow: ShadowRepo, sessionId: string): number {
	const packs = sessionPacks(shadow, sessionId);
	for (const base of packs) {
		fs.rmSync(`${base}.keep`, { force: true });
	}
	return packs.length;
}

/** On-disk bytes of every session's kept packs (pack, index, reverse index, `.keep`). */
export function keptPackBytes(shadow: ShadowRepo): { bytes: number; packs: number } {
	const dir = packDir(shadow);
	let bytes = 0;
	let packs = 0;
	let names: string[];
	try {
		names = fs.readdirSync(dir);
	} catch {
		return { bytes, packs };
	}
	for (const name of names.filter((f) => f.endsWith('.keep'))) {
		const base = name.slice(0, -'.keep'.length);
		if (!fs.readFileSync(path.join(dir, name), 'utf8').startsWith(keepHeader)) {
			continue;
		}
		packs++;
		for (const ext of ['.pack', '.idx', '.rev', '.keep']) {
			try {
				bytes += fs.statSync(path.join(dir, `${base}${ext}`)).size;
			} catch {
				// No reverse index for this pack.
			}
		}
	}
	return { bytes, packs };
}
