/**
 * The snapshot file and its checksum sidecar (`baton.db.sum`). SQLite notices only the damage a query
 * happens to touch; the CRC-32 of the whole file (≈8 ms at 50 MB) catches any of it at open.
 *
 * The sidecar lists the checksums of the new and the previous snapshot and is replaced before the
 * snapshot is renamed into place, so a crash between the two renames leaves a pair that still matches.
 */
import fs from 'node:fs';
import { BatonError } from '../errors';
import { privateFileMode } from '../workspace';
import { atomicWriteFile, preserveCopy, readAll, readIfExists } from './fsUtil';
import { crc32 } from './journalFormat';

interface SumEntry {
	size: number;
	crc32: number;
}

/** `sumDamaged`: the sidecar exists but cannot be read — that is damage, never "no check". */
type SnapshotVerdict = 'verified' | 'unlisted' | 'mismatch' | 'sumDamaged';

export function sumFileOf(dbFile: string): string {
	return `${dbFile}.sum`;
}

/**
 * Does the snapshot match a checksum recorded for it? `unlisted`: no sidecar to say. `snapshot` is its
 * bytes, or its file read a piece at a time (snapshotPages.ts).
 */
export function verifySnapshot(dbFile: string, snapshot: Uint8Array | { checksum(): SumEntry }): SnapshotVerdict {
	const entries = readEntries(sumFileOf(dbFile));
	if (entries === 'damaged') {
		return 'sumDamaged';
	}
	if (!entries) {
		return 'unlisted';
	}
	const { size, crc32: sum } = snapshot instanceof Uint8Array ? { size: snapshot.length, crc32: crc32(snapshot) } : snapshot.checksum();
	return entries.some((e) => e.size === size && e.crc32 === sum) ? 'verified' : 'mismatch';
}

/**
 * Replace the snapshot with `bytes` — or pieces read once, each checksummed as it is written —
 * keeping the old one as `.prev` when asked (what `baton doctor --repair` falls back on). The new
 * content goes to a temp file first, then the sidecar, then the snapshot is renamed into place.
 */
export function writeSnapshot(dbFile: string, bytes: Uint8Array | Iterable<Uint8Array>, keepPrevious: boolean): void {
	const current = fileChecksum(dbFile);
	const settle = (written: SumEntry): void => {
		atomicWriteFile(sumFileOf(dbFile), Buffer.from(JSON.stringify({ entries: current ? [written, current] : [written] })));
		if (current && keepPrevious) {
			preserveCopy(dbFile, `${dbFile}.prev`);
		}
	};
	if (bytes instanceof Uint8Array) {
		settle({ size: bytes.length, crc32: crc32(bytes) });
		atomicWriteFile(dbFile, bytes);
		return;
	}
	const pieces: Iterable<Uint8Array> = bytes;
	const written: SumEntry = { size: 0, crc32: 0 };
	function* counted(): Generator<Uint8Array> {
		for (const piece of pieces) {
			written.crc32 = crc32(piece, written.crc32);
			written.size += piece.length;
			yield piece;
		}
	}
	atomicWriteFile(dbFile, counted(), privateFileMode, true, () => settle(written));
}

function piecesChecksum(pieces: Iterable<Uint8Array>): SumEntry {
	let size = 0;
	let sum = 0;
	for (const piece of pieces) {
		sum = crc32(piece, sum);
		size += piece.length;
	}
	return { size, crc32: sum };
}

/** The size and CRC-32 of a file, or undefined when there is no such file. */
function fileChecksum(file: string): SumEntry | undefined {
	let fd: number;
	try {
		fd = fs.openSync(file, 'r');
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
			return undefined;
		}
		throw error;
	}
	try {
		return descriptorChecksum(fd);
	} finally {
		fs.closeSync(fd);
	}
}

/**
 * The size and CRC-32 of what `fd` holds, read 4 MB at a time: a snapshot can be hundreds of
 * megabytes, never a second copy of it in memory.
 */
export function descriptorChecksum(fd: number): SumEntry {
	return piecesChecksum(descriptorPieces(fd));
}

function* descriptorPieces(fd: number): Generator<Uint8Array> {
	const piece = Buffer.allocUnsafe(4 * 1024 * 1024);
	for (let at = 0, n = readAll(fd, piece, at); n > 0; at += n, n = readAll(fd, piece, at)) {
		yield piece.subarray(0, n);
	}
}

/** The recorded checksums; undefined when there is no sidecar, `damaged` when it cannot be parsed. */
function readEntries(file: string): SumEntry[] | 'damaged' | undefined {
	const text = readIfExists(file);
	if (text === undefined) {
		return undefined;
	}
	let parsed: { entries?: unknown };
	try {
		parsed = JSON.parse(text.toString('utf8')) as { entries?: unknown };
	} catch {
		return 'damaged';
	}
	if (typeof parsed !== 'object' || parsed === null || !Array.isArray(parsed.entries) || parsed.entries.length === 0) {
		return 'damaged';
	}
	const entries = parsed.entries as unknown[];
	const valid = entries.filter(
		(e): e is SumEntry => typeof e === 'object' && e !== null && typeof (e as SumEntry).size === 'number' && typeof (e as SumEntry).crc32 === 'number',
	);
	// Every entry this code writes has both numbers: one without them is a garbled sidecar.
	return valid.length === entries.length ? valid : 'damaged';
}

/** The "damaged file" error for a sidecar that cannot be read. */
export function damagedSumError(dbFile: string): BatonError {
	const file = sumFileOf(dbFile);
	return new BatonError('corruptDatabase', `${file} cannot be read (damaged), so ${dbFile} cannot be verified; run \`baton doctor\``, { file });
}
