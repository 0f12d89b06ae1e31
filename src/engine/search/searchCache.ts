/**
 * The search index kept between processes (docs/search.md, "Kept on disk"): `.baton/cache/search-index.db`,
 * the index's own SQLite database (sql.js's export) followed by a trailer that says what it is: a
 * magic, the cache's format version, the database's length and its SHA-1. A file that is missing,
 * cut short, damaged, of another format or of another version is never trusted: `readSearchCache`
 * says why and the caller builds the index again. Written whole or not at all (a temp file, fsynced,
 * renamed), private like everything under `.baton/`, and never synced: `.baton/` is ignored by git
 * (its own `.gitignore`) and sync carries records, not files.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { atomicWriteFile, readAll } from '../storage/fsUtil';
import { openRegularFile } from '../transcripts/regularFile';
import { mkdirPrivate } from '../workspace';

/** Bumped whenever the index's tables, the feed's marks or the way a record is indexed change (2: a whole-document transcript is read again whole, so a cache of 1 may hold what its chat no longer does). */
export const searchCacheFormat = 2;
const magic = Buffer.from('BATONSEARCHIDX\n\0', 'latin1');
const trailerSize = magic.length + 4 + 8 + 20;

type CacheRead = { bytes: Uint8Array } | { problem: string };

export function readSearchCache(file: string): CacheRead {
	let data: Buffer;
	try {
		// Opened without blocking and read only when it is a regular file: a FIFO there would hang the first search.
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
	if (data.length < trailerSize) return { problem: `cut short (${data.length} bytes)` };
	const trailer = data.subarray(data.length - trailerSize);
	if (!trailer.subarray(0, magic.length).equals(magic)) return { problem: 'not a search cache, or cut short' };
	const format = trailer.readUInt32LE(magic.length);
	if (format !== searchCacheFormat) return { problem: `format ${format}, this Baton reads ${searchCacheFormat}` };
	const length = Number(trailer.readBigUInt64LE(magic.length + 4));
	if (length !== data.length - trailerSize) return { problem: `holds ${data.length - trailerSize} bytes of the ${length} it says` };
	const bytes = data.subarray(0, length);
	const sum = createHash('sha1').update(bytes).digest();
	if (!sum.equals(trailer.subarray(magic.length + 12))) return { problem: 'damaged (its checksum does not match)' };
	return { bytes };
}

export function writeSearchCache(file: string, bytes: Uint8Array): void {
	const trailer = Buffer.alloc(trailerSize);
	magic.copy(trailer, 0);
	trailer.writeUInt32LE(searchCacheFormat, magic.length);
	trailer.writeBigUInt64LE(BigInt(bytes.length), magic.length + 4);
	createHash('sha1')
		.update(bytes)
		.digest()
		.copy(trailer, magic.length + 12);
	mkdirPrivate(path.dirname(file));
	atomicWriteFile(file, [bytes, trailer]);
}
