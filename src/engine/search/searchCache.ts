/**
 * The search index kept between processes (docs/search.md, "Kept on disk"): `.baton/cache/search-index.db`,
 * the index's own SQLite database (sql.js's export) in a cache file (storage/cacheFile.ts: a trailer
 * with a magic, the format version, the length and a SHA-1; a file that is missing, cut short,
 * damaged, of another format or of another version is never trusted: `readSearchCache` says why and
 * the caller builds the index again).
 */
import { readCacheFile, writeCacheFile, type CacheKind, type CacheRead } from '../storage/cacheFile';

/** Bumped whenever the index's tables, the feed's marks or the way a record is indexed change (2: a whole-document transcript is read again whole, so a cache of 1 may hold what its chat no longer does). */
export const searchCacheFormat = 2;
const kind: CacheKind = { magic: Buffer.from('BATONSEARCHIDX\n\0', 'latin1'), format: searchCacheFormat, name: 'a search cache' };

export function readSearchCache(file: string): CacheRead {
	return readCacheFile(file, kind);
}

export function writeSearchCache(file: string, bytes: Uint8Array): void {
	writeCacheFile(file, kind, [bytes]);
}
