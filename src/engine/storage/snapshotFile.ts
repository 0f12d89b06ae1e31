/**
 * The snapshot file and its checksum sidecar (`baton.db.sum`). SQLite notices only the damage a query
 * happens to touch; the CRC-32 of the whole file (≈8 ms at 50 MB) catches any of it at open.
 *
 * The sidecar also lists the CRC-32 of each 128 KB piece. A store read a page at a time
 * (snapshotPages.ts) checks a piece the first time it reads from it instead of the whole file at
 * open: every byte SQLite reads is still checked before it is used, and an open costs what it reads
 * (at 800 MB the whole file's checksum was 230 ms of every process's first answer). A sidecar without
 * pieces (an older Baton's) is checked whole, as before; one whose entries do not say their piece size
 * listed 4 MB pieces, and is checked by those.
 *
 * The sidecar lists the checksums of the new and the previous snapshot and is replaced before the
 * snapshot is renamed into place, so a crash between the two renames leaves a pair that still matches.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { BatonError } from '../errors';
import { privateFileMode } from '../workspace';
import { atomicWriteFile, preserveCopy, readAll, readIfExists, writeAll } from './fsUtil';
import { crc32 } from './journalFormat';

interface SumEntry {
	size: number;
	crc32: number;
	/** The CRC-32 of each `pieceBytes` of the file, in order (the last piece may be shorter). */
	pieces?: number[];
	/** The size of the pieces `pieces` lists; absent in an older Baton's sidecar, whose pieces were 4 MB. */
	pieceBytes?: number;
}

/**
 * The piece size this Baton records. A table's pages lie all over the file after a large import (at
 * 100,000 sessions the 98 pages of one table spanned 57,000 pages), so a read of a few scattered
 * pages checked a whole piece for each: with 4 MB pieces the tree's first page checked 120 MB to read
 * 400 KB. A piece of 128 KB is the read-ahead's size (its check's read serves the reads that follow,
 * snapshotPages.ts) and keeps the sidecar small (1,700 sums at 210 MB).
 */
export const checksumPieceBytes = 128 * 1024;
/** The pieces of a sidecar entry that does not say their size (an older Baton's). */
export const legacyPieceBytes = 4 * 1024 * 1024;
/** Files are read for a whole checksum this much at a time, whatever the piece size. */
const readBufferBytes = 4 * 1024 * 1024;

/** A snapshot read a page at a time: its size, its whole checksum, or its pieces checked as they are read. */
export interface LazySnapshot {
	readonly size: number;
	checksum(): SumEntry;
	/** Check each `pieceBytes` piece against these lists (one per recorded snapshot of this size) when first read. */
	verifyPieces(candidates: number[][], pieceBytes: number): void;
}

/** `sumDamaged`: the sidecar exists but cannot be read — that is damage, never "no check". */
type SnapshotVerdict = 'verified' | 'unlisted' | 'mismatch' | 'sumDamaged';

export function sumFileOf(dbFile: string): string {
	return `${dbFile}.sum`;
}

/**
 * Does the snapshot match a checksum recorded for it? `unlisted`: no sidecar to say. `snapshot` is its
 * bytes, or its file read a piece at a time (snapshotPages.ts): then, when every recorded snapshot of
 * its size lists its pieces (of one piece size), `verified` means its size matched and each piece is
 * checked when first read (a damaged one fails that read, snapshotPages.ts).
 */
export function verifySnapshot(dbFile: string, snapshot: Uint8Array | LazySnapshot): SnapshotVerdict {
	const entries = readEntries(sumFileOf(dbFile));
	if (entries === 'damaged') {
		return 'sumDamaged';
	}
	if (!entries) {
		return 'unlisted';
	}
	if (snapshot instanceof Uint8Array) {
		const sum = crc32(snapshot);
		return entries.some((e) => e.size === snapshot.length && e.crc32 === sum) ? 'verified' : 'mismatch';
	}
	const sized = entries.filter((e) => e.size === snapshot.size);
	if (sized.length === 0) {
		return 'mismatch';
	}
	const pieceLists = sized.map((e) => e.pieces).filter((p): p is number[] => p !== undefined);
	const pieceBytes = sized[0]?.pieceBytes ?? legacyPieceBytes;
	// Lists of two piece sizes (an older Baton's entry next to this one's) cannot narrow each other: checked whole.
	if (pieceLists.length === sized.length && sized.every((e) => (e.pieceBytes ?? legacyPieceBytes) === pieceBytes)) {
		snapshot.verifyPieces(pieceLists, pieceBytes);
		return 'verified';
	}
	const { size, crc32: sum } = snapshot.checksum();
	return entries.some((e) => e.size === size && e.crc32 === sum) ? 'verified' : 'mismatch';
}

/** The size, CRC-32 and piece checksums of bytes added in order, in any chunks. */
class SumBuilder {
	private readonly entry = { size: 0, crc32: 0, pieces: [] as number[], pieceBytes: checksumPieceBytes };
	private piece = 0;
	private pieceFill = 0;

	add(chunk: Uint8Array): void {
		this.entry.crc32 = crc32(chunk, this.entry.crc32);
		this.entry.size += chunk.length;
		for (let at = 0; at < chunk.length;) {
			const n = Math.min(checksumPieceBytes - this.pieceFill, chunk.length - at);
			this.piece = crc32(chunk.subarray(at, at + n), this.piece);
			this.pieceFill += n;
			at += n;
			if (this.pieceFill === checksumPieceBytes) {
				this.entry.pieces.push(this.piece);
				this.piece = 0;
				this.pieceFill = 0;
			}
		}
	}

	done(): SumEntry {
		const { size, crc32: sum, pieces, pieceBytes } = this.entry;
		return { size, crc32: sum, pieces: this.pieceFill > 0 ? [...pieces, this.piece] : pieces, pieceBytes };
	}
}

/**
 * A new snapshot that is the one on disk with some of its pieces changed (snapshotPages.ts): what a
 * process wrote since it opened the snapshot, and where the database grew.
 */
export interface SnapshotPatch {
	/** The new snapshot's size (never less than the file's). */
	readonly size: number;
	/** Is `file` still the snapshot the changes were made over (the same file, not one put in its place)? */
	sameFile(file: string): boolean;
	/** The pieces of `pieceBytes` that differ from the file, in order, each a view valid until the next. */
	changedPieces(pieceBytes: number): Iterable<{ index: number; bytes: Uint8Array }>;
}

/**
 * Replace the snapshot with `bytes` — or pieces read once, each checksummed as it is written —
 * keeping the old one as `.prev` when asked (what `baton doctor --repair` falls back on). The new
 * content goes to a temp file first, then the sidecar, then the snapshot is renamed into place.
 *
 * Given a `patch` over a snapshot whose sidecar lists its pieces, the new file is a copy of the old
 * one made by the kernel (`copy_file_range`: no byte passes through this process) with the changed
 * pieces written over it, and only those are checksummed; the others keep the sums they were
 * written with, so damage the old file took since is not laundered into a fresh sum. `bytes` is then
 * never read. At 390 MB this took a compaction from 1.5 s to about 0.5 s, most of it the copy; a
 * copy made `ahead` of the lock (`copySnapshotAhead`) is written over instead when it is of this file.
 */
export function writeSnapshot(
	dbFile: string,
	bytes: Uint8Array | Iterable<Uint8Array>,
	keepPrevious: boolean,
	patch?: SnapshotPatch,
	ahead?: SnapshotCopy,
): 'copied ahead' | 'patched' | 'written' {
	const recorded = recordedChecksum(dbFile);
	const current = recorded ?? fileChecksum(dbFile);
	const settle = (written: SumEntry): void => {
		atomicWriteFile(sumFileOf(dbFile), Buffer.from(JSON.stringify({ entries: current ? [written, current] : [written] })));
		if (current && keepPrevious) {
			preserveCopy(dbFile, `${dbFile}.prev`);
		}
	};
	if (patch && recorded?.pieces && patch.size >= recorded.size && patch.sameFile(dbFile)) {
		return writePatched(dbFile, recorded as Required<SumEntry>, patch, settle, ahead) ? 'copied ahead' : 'patched';
	}
	writeWhole(dbFile, bytes, settle);
	return 'written';
}

function writeWhole(dbFile: string, bytes: Uint8Array | Iterable<Uint8Array>, settle: (written: SumEntry) => void): void {
	const sum = new SumBuilder();
	if (bytes instanceof Uint8Array) {
		sum.add(bytes);
		settle(sum.done());
		atomicWriteFile(dbFile, bytes);
		return;
	}
	const pieces: Iterable<Uint8Array> = bytes;
	function* counted(): Generator<Uint8Array> {
		for (const piece of pieces) {
			sum.add(piece);
			yield piece;
		}
	}
	atomicWriteFile(dbFile, counted(), privateFileMode, true, () => settle(sum.done()));
}

/**
 * The old snapshot copied (or its copy made `ahead`, when it is of this file), `patch`'s pieces written
 * over it: its sums are the old ones with theirs in place. Returns whether the copy made ahead was used.
 */
function writePatched(dbFile: string, old: Required<SumEntry>, patch: SnapshotPatch, settle: (written: SumEntry) => void, ahead?: SnapshotCopy): boolean {
	const { pieceBytes, size } = { pieceBytes: old.pieceBytes, size: patch.size };
	const pieces = old.pieces.slice(0, Math.ceil(size / pieceBytes));
	let copiedAhead = false;
	const fill = (tmp: string): number => {
		if (ahead?.of(dbFile)) {
			fs.renameSync(ahead.path, tmp);
			copiedAhead = true;
		} else {
			fs.copyFileSync(dbFile, tmp, fs.constants.COPYFILE_EXCL);
		}
		const fd = fs.openSync(tmp, 'r+');
		try {
			if (fs.fstatSync(fd).size !== old.size) {
				throw new Error(`snapshot: ${dbFile} changed while it was copied`);
			}
			fs.ftruncateSync(fd, size);
			for (const { index, bytes } of patch.changedPieces(pieceBytes)) {
				writeAll(fd, bytes, index * pieceBytes);
				pieces[index] = crc32(bytes);
			}
			return fd;
		} catch (error) {
			fs.closeSync(fd);
			throw error;
		}
	};
	atomicWriteFile(dbFile, fill, privateFileMode, true, () => {
		// A loop, not some(): some() skips the holes a grown list would have.
		for (let i = 0; i < Math.ceil(size / pieceBytes); i++) {
			if (pieces[i] === undefined) throw new Error(`snapshot: the changed pieces left ${dbFile}'s sums incomplete (piece ${i})`);
		}
		let whole = 0;
		pieces.forEach((piece, i) => {
			whole = crc32Combine(whole, piece, Math.min(pieceBytes, size - i * pieceBytes));
		});
		settle({ size, crc32: whole, pieces, pieceBytes });
	});
	return copiedAhead;
}

/** A copy of the snapshot on disk made ahead of a compaction (`copySnapshotAhead`). */
export interface SnapshotCopy {
	readonly path: string;
	/** Is `file` still the snapshot this is a copy of (the same file: a snapshot is replaced, never written in place)? */
	of(file: string): boolean;
	/** Removes the copy when the compaction did not use it. */
	discard(): void;
}

/**
 * The snapshot copied, and the copy flushed to disk, before a compaction takes the store's lock: the
 * copy (`uv_fs_copyfile`) and the flush run on libuv's threads while the store goes on answering,
 * and the compaction writes its changed pieces over it (`writePatched`). Copied under the lock it
 * held the daemon 0.6 s at 390 MB, the next hook waiting on it. Undefined when the snapshot's sums
 * list no pieces (it is written whole then) or the copy fails; a snapshot replaced meanwhile (another
 * process compacted) is not this one's copy, and the compaction copies the new one itself.
 */
export async function copySnapshotAhead(dbFile: string): Promise<SnapshotCopy | undefined> {
	// Its own stat, not identitiesOf: a FIFO put in its place is never copied (the copy would wait on it), and the device counts.
	const before = fs.statSync(dbFile, { throwIfNoEntry: false });
	if (!before?.isFile() || !recordedChecksum(dbFile)?.pieces) return undefined;
	// Named for this process (removeStaleTemps) and this copy: two stores of one file in a process each make their own.
	const copy = `${dbFile}.tmp-${process.pid}-ahead-${randomBytes(4).toString('hex')}`;
	const same = (file: string): boolean => {
		const now = fs.statSync(file, { throwIfNoEntry: false });
		return now !== undefined && now.dev === before.dev && now.ino === before.ino && now.size === before.size && now.mtimeMs === before.mtimeMs;
	};
	try {
		await fs.promises.copyFile(dbFile, copy, fs.constants.COPYFILE_EXCL);
		const handle = await fs.promises.open(copy, 'r+');
		try {
			await handle.datasync();
		} finally {
			await handle.close();
		}
		if (!same(dbFile)) throw new Error('replaced while it was copied');
	} catch {
		fs.rmSync(copy, { force: true });
		return undefined;
	}
	return { path: copy, of: same, discard: () => fs.rmSync(copy, { force: true }) };
}

/** Appending `length` zero bytes to a CRC-32, as a 32×32 matrix over GF(2) (zlib's crc32_combine), per length. */
const zerosOperators = new Map<number, Uint32Array>();

/** The CRC-32 of `a` then `b` from theirs and `b`'s length (zlib's crc32_combine), without the bytes. */
function crc32Combine(crcA: number, crcB: number, lengthB: number): number {
	let operator = zerosOperators.get(lengthB);
	if (!operator) {
		operator = zerosOperator(lengthB);
		if (zerosOperators.size < 16) zerosOperators.set(lengthB, operator);
	}
	return (gf2Times(operator, crcA) ^ crcB) >>> 0;
}

function gf2Times(matrix: Uint32Array, vector: number): number {
	let sum = 0;
	for (let i = 0, v = vector >>> 0; v !== 0; i++, v >>>= 1) {
		if (v & 1) sum ^= matrix[i] as number;
	}
	return sum >>> 0;
}

/** `a` then `b`: each column of `b` taken through `a`. */
function gf2Compose(a: Uint32Array, b: Uint32Array): Uint32Array {
	return b.map((column) => gf2Times(a, column));
}

function zerosOperator(length: number): Uint32Array {
	// One zero bit: the reflected polynomial in the first column, a shift in the others.
	let power: Uint32Array = new Uint32Array(32);
	power[0] = 0xedb88320;
	for (let n = 1; n < 32; n++) power[n] = (1 << (n - 1)) >>> 0;
	// Eight squarings of one bit: one zero byte.
	for (let i = 0; i < 3; i++) power = gf2Compose(power, power);
	let result: Uint32Array = new Uint32Array(32).map((_, n) => (1 << n) >>> 0);
	for (let left = length; left > 0; left = Math.floor(left / 2)) {
		if (left % 2 === 1) result = gf2Compose(power, result);
		power = gf2Compose(power, power);
	}
	return result;
}

/**
 * The checksum the sidecar already records for the snapshot there now, when exactly one of its
 * entries has that file's size and lists this Baton's pieces: a compaction reads the old snapshot
 * whole otherwise (0.7 s of each at 390 MB, ten times in a fresh clone's pull of 50,000 sessions).
 * Two entries of that size (a crash between the sidecar's rename and the snapshot's) are told apart
 * by reading it. An old snapshot damaged since it was written keeps the sum it was written with, so
 * a process still reading it finds the damage rather than a sum taken from the damage.
 */
function recordedChecksum(dbFile: string): SumEntry | undefined {
	const size = fs.statSync(dbFile, { throwIfNoEntry: false })?.size;
	const entries = size === undefined ? undefined : readEntries(sumFileOf(dbFile));
	const sized = Array.isArray(entries) ? entries.filter((e) => e.size === size) : [];
	const only = sized.length === 1 ? sized[0] : undefined;
	return only?.pieces && only.pieceBytes === checksumPieceBytes ? only : undefined;
}

function piecesChecksum(pieces: Iterable<Uint8Array>): SumEntry {
	const sum = new SumBuilder();
	for (const piece of pieces) {
		sum.add(piece);
	}
	return sum.done();
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
 * The size, CRC-32 and piece checksums of what `fd` holds, read 4 MB at a time: a snapshot can be
 * hundreds of megabytes, never a second copy of it in memory.
 */
export function descriptorChecksum(fd: number): SumEntry {
	return piecesChecksum(descriptorPieces(fd));
}

/** The CRC-32 of `fd`'s bytes from `from` to `end` (or its end), read through `buffer`. */
export function rangeChecksum(fd: number, from: number, end: number, buffer: Buffer): number {
	let sum = 0;
	for (const piece of descriptorPieces(fd, from, end, buffer)) {
		sum = crc32(piece, sum);
	}
	return sum;
}

/** `fd`'s bytes from `from` to `end` (or the file's end), a buffer's worth at a time: each a view of `buffer`, valid until the next. */
function* descriptorPieces(fd: number, from = 0, end = Number.MAX_SAFE_INTEGER, buffer: Buffer = Buffer.allocUnsafe(readBufferBytes)): Generator<Uint8Array> {
	for (let at = from; at < end;) {
		const n = readAll(fd, buffer, at, 0, Math.min(buffer.length, end - at));
		if (n === 0) {
			return;
		}
		yield buffer.subarray(0, n);
		at += n;
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
	if (valid.length !== entries.length) {
		return 'damaged';
	}
	// Pieces that do not cover the size one to a piece are not trusted: that entry is checked whole.
	return valid.map((e) =>
		validPieces(e) ? { size: e.size, crc32: e.crc32, pieces: e.pieces, pieceBytes: e.pieceBytes ?? legacyPieceBytes } : { size: e.size, crc32: e.crc32 },
	);
}

function validPieces(entry: SumEntry): boolean {
	const { pieces, pieceBytes = legacyPieceBytes } = entry;
	return (
		Number.isInteger(pieceBytes) &&
		pieceBytes >= 4096 &&
		pieceBytes <= legacyPieceBytes &&
		pieceBytes % 4096 === 0 &&
		Array.isArray(pieces) &&
		pieces.length === Math.ceil(entry.size / pieceBytes) &&
		pieces.every((p) => Number.isInteger(p) && p >= 0 && p <= 0xffffffff)
	);
}

/** The "damaged file" error for a sidecar that cannot be read. */
export function damagedSumError(dbFile: string): BatonError {
	const file = sumFileOf(dbFile);
	return new BatonError('corruptDatabase', `${file} cannot be read (damaged), so ${dbFile} cannot be verified; run \`baton doctor\``, { file });
}
