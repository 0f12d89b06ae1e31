/**
 * The paths the shadow index holds, kept in memory by a long-lived process (the daemon) so that a
 * sync fed by the file watcher can tell a tracked file from a new one without a `git status`: a
 * tracked file goes straight to `update-index`, only new paths need git's ignore rules.
 *
 * The set belongs to one state of the index file, recognised by its stamp (identity, size, times,
 * trailing checksum). A writer that keeps the set current (a sync of its own paths, a `write-tree`
 * that only adds its cache of trees) carries it over to the new stamp; any other write (another
 * process, a restore) leaves a stamp nobody carried, and the set is read again with `ls-files`.
 */
import fs from 'node:fs';
import { splitNul } from '../git/gitRunner';
import type { ShadowRepo } from './shadowRepo';

interface Known {
	stamp: string;
	files: Set<string>;
	/** Every folder holding an index entry, so a path that is gone can be told from a removed folder. */
	dirs: Set<string>;
}

const known = new Map<string, Known>();

export interface IndexPaths {
	hasFile(rel: string): boolean;
	hasDir(rel: string): boolean;
}

/** The index's paths as of now: from memory when the index file is as last seen, else one `ls-files`. */
export async function readIndexPaths(repo: ShadowRepo): Promise<IndexPaths> {
	const stamp = indexStamp(repo.indexFile);
	let entry = stamp ? known.get(repo.indexFile) : undefined;
	if (!stamp || !entry || entry.stamp !== stamp) {
		const files = new Set(splitNul((await repo.git(['ls-files', '-z'])).stdout));
		const dirs = new Set<string>();
		for (const file of files) {
			addDirs(dirs, file);
		}
		entry = { stamp: stamp ?? '', files, dirs };
		// A stamp read before ls-files: a write meanwhile makes it stale, and the next read starts over.
		if (stamp) {
			known.set(repo.indexFile, entry);
		} else {
			known.delete(repo.indexFile);
		}
	}
	const { files, dirs } = entry;
	return { hasFile: (rel) => files.has(rel), hasDir: (rel) => dirs.has(rel) };
}

/**
 * The caller wrote the index from state `before` and knows what changed: `added` are now entries,
 * `removed` are not. A set kept for another state is dropped (it is read again when next needed).
 */
export function carryIndexPaths(repo: ShadowRepo, before: string | null, added: readonly string[], removed: readonly string[]): void {
	const entry = known.get(repo.indexFile);
	const after = indexStamp(repo.indexFile);
	if (!entry || before === null || entry.stamp !== before || after === null) {
		known.delete(repo.indexFile);
		return;
	}
	for (const rel of removed) {
		entry.files.delete(rel);
	}
	for (const rel of added) {
		entry.files.add(rel);
		addDirs(entry.dirs, rel);
	}
	// Folders are only added: one that lost its last entry is merely looked at once more by git.
	entry.stamp = after;
}

function addDirs(dirs: Set<string>, file: string): void {
	for (let i = file.lastIndexOf('/'); i > 0; i = file.lastIndexOf('/', i - 1)) {
		const dir = file.slice(0, i);
		if (dirs.has(dir)) {
			return;
		}
		dirs.add(dir);
	}
}

/** Identity, size, times and trailing checksum of the index file; null when it cannot be read. */
export function indexStamp(indexFile: string): string | null {
	let fd: number | undefined;
	try {
		fd = fs.openSync(indexFile, 'r');
		const stat = fs.fstatSync(fd, { bigint: true });
		const tail = Buffer.alloc(32);
		const length = Number(stat.size < 32n ? stat.size : 32n);
		fs.readSync(fd, tail, 0, length, Number(stat.size) - length);
		return `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}:${tail.subarray(0, length).toString('hex')}`;
	} catch {
		return null;
	} finally {
		if (fd !== undefined) {
			fs.closeSync(fd);
		}
	}
}
