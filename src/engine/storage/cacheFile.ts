/**
 * Data derived from the store and kept between processes under `.baton/cache/` (the search index,
 * the briefing's open tasks): the bytes, then a trailer that says what they are — a magic naming the
 * kind, the kind's format version, their length and their SHA-1. A file that is missing, cut short,
 * damaged, of another kind or of another version is never trusted: `readCacheFile` says why and the
 * caller derives the data again. Written whole or not at all (a temp file, fsynced, renamed), private
 * like everything under `.baton/`, and never synced: `.baton/` is ignored by git (its own
 * `.gitignore`) and sync carries records, not files.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { mkdirPrivate } from '../workspace';
import { atomicWriteFile, readAll } from './fsUtil';
import { openRegularFile } from './regularFile';

/** A kind of cache file: its 16-byte magic, the format this Baton writes and reads, and what a problem calls it. */
export interface CacheKind {
	magic: Buffer;
	format: number;
	name: string;
}

export type CacheRead = { bytes: Buffer } | { problem: string };

const trailerSize = (kind: CacheKind) => kind.magic.length + 4 + 8 + 20;

export function readCacheFile(file: string, kind: CacheKind): CacheRead {
	let data: Buffer;
	try {
		// Opened without blocking and read only when it is a regular file: a FIFO there would hang the reader.
		const { fd, stat } = openRegularFile(file);
		try {
			data = Buffer.allocUnsafe(stat.size);
			data = data.subarray(0, readAll(fd, data));
		} finally {
			fs.closeSync(fd);
		}
	} catch (error) {
		return { problem: (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'missing' : `unreadable (${(error as Error).message})` };
	}
	const { magic } = kind;
	if (data.length < trailerSize(kind)) return { problem: `cut short (${data.length} bytes)` };
	const trailer = data.subarray(data.length - trailerSize(kind));
	if (!trailer.subarray(0, magic.length).equals(magic)) return { problem: `not ${kind.name}, or cut short` };
	const format = trailer.readUInt32LE(magic.length);
	if (format !== kind.format) return { problem: `format ${format}, this Baton reads ${kind.format}` };
	const length = Number(trailer.readBigUInt64LE(magic.length + 4));
	if (length !== data.length - trailerSize(kind)) return { problem: `holds ${data.length - trailerSize(kind)} bytes of the ${length} it says` };
	const bytes = data.subarray(0, length);
	const sum = createHash('sha1').update(bytes).digest();
	if (!sum.equals(trailer.subarray(magic.length + 12))) return { problem: 'damaged (its checksum does not match)' };
	return { bytes };
}

export function writeCacheFile(file: string, kind: CacheKind, pieces: readonly Uint8Array[]): void {
	const { magic } = kind;
	const trailer = Buffer.alloc(trailerSize(kind));
	magic.copy(trailer, 0);
	trailer.writeUInt32LE(kind.format, magic.length);
	const hash = createHash('sha1');
	let length = 0;
	for (const piece of pieces) {
		hash.update(piece);
		length += piece.length;
	}
	trailer.writeBigUInt64LE(BigInt(length), magic.length + 4);
	hash.digest().copy(trailer, magic.length + 12);
	mkdirPrivate(path.dirname(file));
	atomicWriteFile(file, [...pieces, trailer]);
}
