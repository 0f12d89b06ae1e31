/**
 * The snapshot file and its checksum sidecar (`baton.db.sum`). SQLite notices only the damage a query
 * happens to touch; the CRC-32 of the whole file (≈8 ms at 50 MB) catches any of it at open.
 *
 * The sidecar lists the checksums of the new and the previous snapshot and is replaced before the
 * snapshot is renamed into place, so a crash between the two renames leaves a pair that still matches.
 */
import { atomicWriteFile, preserveCopy, readIfExists } from './fsUtil';
import { crc32 } from './journalFormat';

interface SumEntry {
	size: number;
	crc32: number;
}

export type SnapshotVerdict = 'verified' | 'unlisted' | 'mismatch';

export function sumFileOf(dbFile: string): string {
	return `${dbFile}.sum`;
}

/** Does `bytes` match a checksum recorded for this snapshot? `unlisted`: no sidecar to say. */
export function verifySnapshot(dbFile: string, bytes: Uint8Array): SnapshotVerdict {
	const entries = readEntries(sumFileOf(dbFile));
	if (!entries) {
		return 'unlisted';
	}
	const sum = crc32(bytes);
	return entries.some((e) => e.size === bytes.length && e.crc32 === sum) ? 'verified' : 'mismatch';
}

/**
 * Replace the snapshot with `bytes`, keeping the old one as `.prev` (what `baton doctor --repair`
 * falls back on). The sidecar goes first, the snapshot last.
 */
export function writeSnapshot(dbFile: string, bytes: Uint8Array, keepPrevious: boolean): void {
	const current = readIfExists(dbFile);
	const entries: SumEntry[] = [{ size: bytes.length, crc32: crc32(bytes) }];
	if (current) {
		entries.push({ size: current.length, crc32: crc32(current) });
	}
	atomicWriteFile(sumFileOf(dbFile), Buffer.from(JSON.stringify({ entries })));
	if (current && keepPrevious) {
		preserveCopy(dbFile, `${dbFile}.prev`);
	}
	atomicWriteFile(dbFile, bytes);
}

function readEntries(file: string): SumEntry[] | undefined {
	const text = readIfExists(file);
	if (!text) {
		return undefined;
	}
	try {
		const parsed = JSON.parse(text.toString('utf8')) as { entries?: unknown };
		if (Array.isArray(parsed.entries)) {
			return parsed.entries.filter(
				(e): e is SumEntry => typeof e === 'object' && e !== null && typeof (e as SumEntry).size === 'number' && typeof (e as SumEntry).crc32 === 'number',
			);
		}
	} catch {
		// A damaged sidecar verifies nothing; the snapshot is then checked by SQLite itself.
	}
	return undefined;
}
