/**
 * Whether a fact has gone stale, computed from the workspace, never guessed (memories
 * otherwise quietly stop being true). A fact is stale when any of these holds:
 *
 * - **a file it names is missing**;
 * - **a file it names changed after the fact was last confirmed**: the file system says the file
 *   was written after `lastConfirmedAt` (its mtime), and, when Baton's checkpoints exist, the
 *   content really differs from the content the latest checkpoint taken at or before the
 *   confirmation holds (`ls-tree` of that snapshot against the git blob hash of the file now). The
 *   checkpoint turns mtime's "written" into "changed": a formatter, a branch switch and back, or a
 *   revert rewrite files without changing them. Without checkpoints (or when the snapshot does not
 *   hold the file: it was new, too large or excluded), the mtime decides alone;
 * - **nobody confirmed it for `memoryStaleAfter`** (default 30 days).
 *
 * Cheap by construction: one `lstat` per named file, one `ls-tree` per distinct baseline snapshot,
 * and a hash only of files written since their confirmation. It runs when a briefing is computed
 * and in `baton memory list`, never on every write.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { MemoryEntry } from '../storage/model';

interface SnapshotRef {
	commitSha: string;
	createdAt: string;
}

interface StalenessInput {
	entries: readonly MemoryEntry[];
	nowMs: number;
	staleAfterMs: number;
	workspaceRoot: string;
	/** The workspace's checkpoints, oldest first; empty when checkpoints are not in use. */
	snapshots: readonly SnapshotRef[];
	/** Blob ids of `paths` in snapshot `commit` (paths it does not hold are absent from the map). */
	blobsAt: (commit: string, paths: readonly string[]) => Promise<Map<string, string>>;
	/** Files larger than this are not hashed: their mtime decides. */
	maxHashBytes: number;
}

/** Fact id → why it is stale now, or null when it is not. */
export async function computeStaleness(input: StalenessInput): Promise<Map<string, string | null>> {
	const reasons = new Map<string, string[]>();
	/** Files written after their fact's confirmation, waiting for the baseline comparison. */
	const written: { id: string; file: string; commit: string | null; size: number }[] = [];
	for (const entry of input.entries) {
		const list: string[] = [];
		reasons.set(entry.id, list);
		const confirmedMs = Date.parse(entry.lastConfirmedAt);
		for (const file of entry.files) {
			let stat: fs.Stats;
			try {
				stat = fs.lstatSync(path.join(input.workspaceRoot, file));
			} catch {
				list.push(`${file} is missing`);
				continue;
			}
			if (stat.mtimeMs <= confirmedMs) {
				continue;
			}
			const baseline = stat.isDirectory() ? null : baselineOf(input.snapshots, entry.lastConfirmedAt);
			written.push({ id: entry.id, file, commit: baseline?.commitSha ?? null, size: stat.size });
		}
	}
	const byCommit = new Map<string, string[]>();
	for (const w of written) {
		if (w.commit && w.size <= input.maxHashBytes) {
			const paths = byCommit.get(w.commit) ?? [];
			if (!paths.includes(w.file)) {
				paths.push(w.file);
			}
			byCommit.set(w.commit, paths);
		}
	}
	const blobs = new Map<string, Map<string, string>>();
	for (const [commit, paths] of byCommit) {
		blobs.set(commit, await input.blobsAt(commit, paths));
	}
	for (const w of written) {
		const before = w.commit ? blobs.get(w.commit)?.get(w.file) : undefined;
		if (before && blobIdOf(path.join(input.workspaceRoot, w.file), before.length) === before) {
			continue;
		}
		reasons.get(w.id)?.push(`${w.file} changed since the fact was last confirmed`);
	}
	for (const entry of input.entries) {
		const age = input.nowMs - Date.parse(entry.lastConfirmedAt);
		if (input.staleAfterMs > 0 && age >= input.staleAfterMs) {
			reasons.get(entry.id)?.push(`not confirmed for ${describeAge(age)}`);
		}
	}
	return new Map([...reasons].map(([id, list]) => [id, list.length ? list.join('; ') : null]));
}

/** The latest snapshot taken at or before `iso`. */
function baselineOf(snapshots: readonly SnapshotRef[], iso: string): SnapshotRef | null {
	let found: SnapshotRef | null = null;
	for (const s of snapshots) {
		if (s.createdAt <= iso) {
			found = s;
		}
	}
	return found;
}

/** git's blob id of a file as Baton's shadow stores it (bytes as they are; a symlink's target). */
function blobIdOf(file: string, hexLength: number): string | null {
	let bytes: Buffer;
	try {
		bytes = fs.lstatSync(file).isSymbolicLink() ? Buffer.from(fs.readlinkSync(file)) : fs.readFileSync(file);
	} catch {
		return null;
	}
	return createHash(hexLength === 64 ? 'sha256' : 'sha1')
		.update(`blob ${bytes.length}\0`)
		.update(bytes)
		.digest('hex');
}

/** Parses `git ls-tree -z` output: path → object id of the blobs it lists. */
export function parseLsTree(output: Buffer): Map<string, string> {
	const out = new Map<string, string>();
	for (const record of output.toString('utf8').split('\0')) {
		const tab = record.indexOf('\t');
		const [, type, sha] = record.slice(0, tab).split(' ');
		if (tab > 0 && type === 'blob' && sha) {
			out.set(record.slice(tab + 1), sha);
		}
	}
	return out;
}

function describeAge(ms: number): string {
	const hours = ms / 3_600_000;
	if (hours >= 48) {
		return `${Math.floor(hours / 24)} days`;
	}
	return hours >= 2 ? `${Math.floor(hours)} hours` : `${Math.max(1, Math.floor(ms / 60_000))} minutes`;
}
