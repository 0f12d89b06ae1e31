/**
 * Blob contents kept between attributions. Everything read here is named by content (a blob id, or
 * `tree:path` under a tree id), so a kept copy can never be stale: the next commit's attribution
 * re-reads only the versions it has not seen (its own step's), instead of every captured version of
 * its files again. A process start costs more than most of a commit's attribution on a loaded
 * machine, so each read avoided is worth keeping a few megabytes for.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import { textLines } from './repoGit';

/** Lines kept at most (least recently used dropped first): a few tens of megabytes of text. */
const maxKeptLines = 1_000_000;

export class KeptBlobs {
	private readonly entries = new Map<string, string[]>();
	private lines = 0;

	/** A kept version (null: never kept, or dropped). Reading it makes it the most recently used. */
	get(spec: string): string[] | null {
		const lines = this.entries.get(spec);
		if (lines === undefined) {
			return null;
		}
		this.entries.delete(spec);
		this.entries.set(spec, lines);
		return lines;
	}

	/** Keeps a version that was found (an absent one is not kept: a pruned tree may be rebuilt later). */
	set(spec: string, lines: string[]): void {
		if (this.entries.has(spec) || lines.length > maxKeptLines) {
			return;
		}
		this.entries.set(spec, lines);
		this.lines += lines.length;
		for (const [oldest, kept] of this.entries) {
			if (this.lines <= maxKeptLines) {
				break;
			}
			this.entries.delete(oldest);
			this.lines -= kept.length;
		}
	}
}

/**
 * The lines of the working tree's `file` when its content is exactly the blob `oid` (git's own
 * object hash, SHA-1 or SHA-256 by the id's length), else undefined: right after a commit the files it
 * committed are usually still there unchanged, and hashing them in process is cheaper than starting
 * git to read the same bytes. A file that differs (a later edit, a clean/smudge filter, line-ending
 * conversion) simply fails the check and is read from git.
 */
export function workTreeBlob(file: string, oid: string): string[] | null | undefined {
	let content: Buffer;
	try {
		content = fs.readFileSync(file);
	} catch {
		return undefined;
	}
	const hash = crypto.createHash(oid.length === 64 ? 'sha256' : 'sha1');
	hash.update(`blob ${content.length}\0`);
	hash.update(content);
	return hash.digest('hex') === oid ? textLines(content) : undefined;
}
