/**
 * Beads' `issues.jsonl` edited in place, without its `bd` CLI:
 *
 * - one issue per line; an edit rewrites only that line, every other line stays byte-identical
 *   (unknown fields, key order and malformed lines included);
 * - the file is replaced atomically (temp file, fsync, rename) under a Baton lock, so a crash leaves
 *   the old or the new file and two Baton processes never lose each other's edits;
 * - a torn last line (no newline, not JSON: a writer died or is still writing) is skipped when
 *   reading and makes edits refuse with a clear error: the outbox retries later, and nothing that
 *   other writer wrote is ever dropped.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { BatonError } from '../errors';
import { atomicWriteFile, ordinaryFileMode, readIfExists } from '../storage/fsUtil';
import { LockFile } from '../storage/lockFile';
import { mkdirPrivate } from '../workspace';
import type { TrackerIssue } from './trackerTypes';

export type BeadsRecord = Record<string, unknown> & { id: string };

interface Line {
	bytes: Buffer;
	record: BeadsRecord | null;
	/** The last line, without its newline. */
	last: boolean;
}

interface BeadsFileOptions {
	file: string;
	lockFile: string;
	nowIso: () => string;
	lockTimeoutMs?: number;
}

export class BeadsFile {
	constructor(private readonly options: BeadsFileOptions) {}

	get file(): string {
		return this.options.file;
	}

	/** Every well-formed issue, in file order. */
	readAll(): BeadsRecord[] {
		return this.lines().flatMap((l) => (l.record ? [l.record] : []));
	}

	find(id: string): BeadsRecord | null {
		return this.readAll().find((r) => r.id === id) ?? null;
	}

	/** Changes one issue (`change` edits a copy); throws `notFound` when the id is not in the file. */
	async update(id: string, change: (record: BeadsRecord) => BeadsRecord): Promise<BeadsRecord> {
		return this.locked(() => {
			const lines = this.lines();
			this.refuseTorn(lines);
			const at = lines.findIndex((l) => l.record?.id === id);
			const line = lines[at];
			if (!line?.record) {
				throw new BatonError('notFound', `Beads: no issue ${id} in ${this.file}`);
			}
			const updated = change(structuredClone(line.record));
			line.bytes = Buffer.from(JSON.stringify(updated), 'utf8');
			this.write(lines);
			return updated;
		});
	}

	/** Appends a new issue with a fresh `prefix-<hex>` id (content-hashed like Beads', lengthened on a clash). */
	async create(prefix: string, fields: Omit<BeadsRecord, 'id'>): Promise<BeadsRecord> {
		return this.locked(() => {
			const lines = this.lines();
			this.refuseTorn(lines);
			const taken = new Set(lines.flatMap((l) => (l.record ? [l.record.id] : [])));
			const hash = createHash('sha256').update(JSON.stringify(fields)).update(this.options.nowIso()).update(String(taken.size)).digest('hex');
			let length = 6;
			while (taken.has(`${prefix}-${hash.slice(0, length)}`)) {
				length++;
			}
			const record: BeadsRecord = { id: `${prefix}-${hash.slice(0, length)}`, ...fields };
			lines.push({ bytes: Buffer.from(JSON.stringify(record), 'utf8'), record, last: true });
			this.write(lines);
			return record;
		});
	}

	/** The prefix most ids in the file use, or null for an empty or missing file. */
	dominantPrefix(): string | null {
		const counts = new Map<string, number>();
		for (const record of this.readAll()) {
			const prefix = /^([a-z][a-z0-9_]*)-/.exec(record.id)?.[1];
			if (prefix) {
				counts.set(prefix, (counts.get(prefix) ?? 0) + 1);
			}
		}
		return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0] ?? null;
	}

	private lines(): Line[] {
		const bytes = readIfExists(this.file);
		if (!bytes || bytes.length === 0) {
			return [];
		}
		const out: Line[] = [];
		let start = 0;
		while (start < bytes.length) {
			const end = bytes.indexOf(0x0a, start);
			const last = end < 0;
			const chunk = bytes.subarray(start, last ? bytes.length : end);
			out.push({ bytes: Buffer.from(chunk), record: parseRecord(chunk), last });
			start = last ? bytes.length : end + 1;
		}
		return out;
	}

	private refuseTorn(lines: Line[]): void {
		const tail = lines[lines.length - 1];
		if (tail?.last && !tail.record && tail.bytes.toString('utf8').trim() !== '') {
			throw new BatonError(
				'storageFailure',
				`Beads: the last line (${lines.length}) of ${this.file} is incomplete (a write in progress or torn); not editing the file until it is whole`,
			);
		}
	}

	/** Joins the lines back: each ends in a newline (a complete last line gets one). */
	private write(lines: Line[]): void {
		const parts: Buffer[] = [];
		for (const line of lines) {
			parts.push(line.bytes, Buffer.from('\n'));
		}
		fs.mkdirSync(path.dirname(this.file), { recursive: true });
		atomicWriteFile(this.file, Buffer.concat(parts), ordinaryFileMode);
	}

	private async locked<T>(fn: () => T): Promise<T> {
		mkdirPrivate(path.dirname(this.options.lockFile));
		const lock = new LockFile(this.options.lockFile, this.options.lockTimeoutMs ?? 10_000);
		await lock.acquire();
		try {
			return fn();
		} finally {
			lock.release();
		}
	}
}

/** A Beads record (from the file or `bd --json`) as a tracker issue. */
export function beadsIssue(record: Record<string, unknown>): TrackerIssue {
	const text = (key: string): string | null => (typeof record[key] === 'string' ? (record[key] as string) : null);
	return { tracker: 'beads', id: String(record['id']), url: null, title: text('title'), state: text('status') };
}

function parseRecord(chunk: Buffer): BeadsRecord | null {
	const text = chunk.toString('utf8').trim();
	if (!text) {
		return null;
	}
	try {
		const value = JSON.parse(text) as unknown;
		return value && typeof value === 'object' && !Array.isArray(value) && typeof (value as { id?: unknown }).id === 'string'
			? (value as BeadsRecord)
			: null;
	} catch {
		return null;
	}
}
