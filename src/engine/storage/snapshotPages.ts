/**
 * The snapshot as sql.js's in-memory file system sees it, read from disk a piece at a time.
 *
 * sql.js keeps a database as a file of its in-memory file system (Emscripten's MEMFS), whose contents
 * are one typed array: opening a 250 MB snapshot meant reading all of it into memory, and a process
 * holding the store never went below that. MEMFS touches a file's contents through four members only —
 * `slice` once when the file is created, `length` (its capacity), `subarray(from, to)` to read and
 * `set(bytes, at)` to write — so this object stands in for the array: reads come from the snapshot file
 * (the operating system's page cache keeps it warm), and the pages SQLite writes are kept, 4 KB
 * each, in a scratch file of this process's own until the next compaction writes a new snapshot from
 * them and `rebase`s onto it, the same SQLite connection going on. The memory a process holds is then
 * SQLite's page cache, not the history it read nor the pages it wrote.
 *
 * The scratch file (`<snapshot>.pages-<pid>-<random>`, private) is removed from its folder as soon as
 * it is open, so nothing of it outlives the process, whatever ends it: the pages it holds are not
 * durable anyway (the journal is, and a crash recovers from the snapshot and the journal). Held in
 * memory, they were the largest part of a long run of writes: a fresh clone's daemon pulling 10,000
 * sessions' history held 60-100 MB of them between compactions, 100 MB at 100,000 sessions.
 *
 * The snapshot is never written in place (compaction and repair replace it by rename), so the open
 * descriptor reads the snapshot this process opened even after another process replaced it.
 *
 * Should MEMFS ever replace the contents by a plain array (a truncation copies the file into one), the
 * database goes on from that copy, in memory: correct, only not lazy. Where MEMFS does not take this
 * object at all (`adopted` stays false after the database opens), the caller reads the file instead.
 */
import fs from 'node:fs';
import { BatonError } from '../errors';
import { randomBytes } from 'node:crypto';
import { readAll, writeAll } from './fsUtil';
import { crc32 } from './journalFormat';
import { checksumPieceBytes, descriptorChecksum, rangeChecksum, type LazySnapshot, type SnapshotPatch } from './snapshotFile';

const pageBytes = 4096;
const readAheadBytes = 128 * 1024;

export class SnapshotPages implements LazySnapshot, SnapshotPatch {
	/** Pages written since the snapshot was opened: page number → its slot in the scratch file. */
	private readonly written = new Map<number, number>();
	/** The scratch file the written pages are in, opened (and unlinked) at the first write. */
	private spill: number | undefined;
	private readonly pageBuffer = Buffer.alloc(pageBytes);
	private scratch = Buffer.allocUnsafe(64 * 1024);
	/** The read-ahead: file bytes from `windowAt`, `windowLength` of them. */
	private window: Buffer | undefined;
	private windowAt = 0;
	private windowLength = 0;
	/** Where the last read from the file ended. */
	private lastEnd = -1;
	private used: number;
	private fd: number | undefined;
	/** True once MEMFS took this object as the file's contents. */
	adopted = false;
	/** How many writes reached the pages: one seen after any other change proves SQLite still writes here. */
	writes = 0;
	/** The piece checksums the file may match (one list per recorded snapshot of its size), narrowed as pieces are read. */
	private candidates: number[][] | undefined;
	/** The size of the pieces `candidates` list. */
	private pieceBytes = checksumPieceBytes;
	/** Pieces of the file checked so far (1 = checked). */
	private checked = new Uint8Array(0);
	private checkBuffer: Buffer | undefined;
	/** Set once a piece failed its check: every later read of the file fails the same way. */
	private damage: BatonError | undefined;

	private constructor(
		fd: number,
		private fileSize: number,
		private readonly file: string,
	) {
		this.fd = fd;
		this.used = fileSize;
	}

	/** The snapshot `file` opened for reading, or undefined when there is none. */
	static open(file: string): SnapshotPages | undefined {
		let fd: number;
		try {
			// Non-blocking: a FIFO put in the snapshot's place is refused below rather than waited on.
			fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
				return undefined;
			}
			throw error;
		}
		try {
			const stat = fs.fstatSync(fd);
			if (!stat.isFile()) {
				throw new BatonError('corruptDatabase', `${file} is not a regular file (damaged); run \`baton doctor\``, { file });
			}
			return new SnapshotPages(fd, stat.size, file);
		} catch (error) {
			fs.closeSync(fd);
			throw error;
		}
	}

	/** The error a read met in a piece that fails its checksum (`verifyPieces`), if one did. */
	get damaged(): BatonError | undefined {
		return this.damage;
	}

	/** Reading a file whose descriptor stays open is what makes this lazy: not on Windows, where an open file cannot be replaced by rename. */
	static supported(): boolean {
		return process.platform !== 'win32';
	}

	/** The database's size as SQLite last wrote it (the snapshot file's, until it writes past its end). */
	get size(): number {
		return this.used;
	}

	/** Bytes held for the pages written since the snapshot was opened. */
	get writtenBytes(): number {
		return this.written.size * pageBytes;
	}

	/** MEMFS's capacity check: before adoption the file's size (what it writes at creation), then room for any growth. */
	get length(): number {
		return this.adopted ? Number.MAX_SAFE_INTEGER : this.used;
	}

	/** MEMFS's "first write to an empty file": the whole file, taken as it is. */
	slice(from = 0, to = this.used): this {
		if (this.adopted || from !== 0 || to !== this.used) {
			throw new Error(`snapshot pages: unexpected slice(${from}, ${to}) of ${this.used} bytes`);
		}
		this.adopted = true;
		return this;
	}

	/**
	 * MEMFS's read: a view valid until the next call (MEMFS copies it into SQLite's buffer at once).
	 * SQLite reads a page at a time; a larger read (MEMFS copying the whole file) gets a buffer of its own.
	 */
	subarray(from: number, to: number): Buffer {
		const length = Math.max(0, to - from);
		const out = length <= this.scratch.length ? this.scratch : Buffer.allocUnsafe(length);
		this.read(out, 0, from, length);
		return out.subarray(0, length);
	}

	/** MEMFS's write: the bytes land in this process's copies of the pages they touch, in its scratch file. */
	set(bytes: Uint8Array, at = 0): void {
		this.writes++;
		const spill = this.spillFile();
		let done = 0;
		while (done < bytes.length) {
			const position = at + done;
			const index = Math.floor(position / pageBytes);
			const within = position - index * pageBytes;
			const n = Math.min(pageBytes - within, bytes.length - done);
			const slot = this.written.get(index);
			if (slot !== undefined) {
				writeAll(spill, bytes.subarray(done, done + n), slot * pageBytes + within);
			} else {
				const fresh = this.written.size;
				if (within !== 0 || n !== pageBytes) {
					// Part of a page: the rest of it as it was (or zeros past the end) goes with it.
					this.read(this.pageBuffer, 0, index * pageBytes, pageBytes);
					this.pageBuffer.set(bytes.subarray(done, done + n), within);
					writeAll(spill, this.pageBuffer, fresh * pageBytes);
				} else {
					writeAll(spill, bytes.subarray(done, done + pageBytes), fresh * pageBytes);
				}
				this.written.set(index, fresh);
			}
			done += n;
		}
		this.used = Math.max(this.used, at + bytes.length);
	}

	/** The scratch file, opened on the first write: private, exclusive, and unlinked at once. */
	private spillFile(): number {
		if (this.spill === undefined) {
			const name = `${this.file}.pages-${process.pid}-${randomBytes(6).toString('hex')}`;
			const fd = fs.openSync(name, fs.constants.O_RDWR | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o600);
			fs.rmSync(name, { force: true });
			this.spill = fd;
		}
		return this.spill;
	}

	/**
	 * The database as SQLite last wrote it (the file with the pages written over it), a piece at a
	 * time: each piece is a view of one buffer, valid until the next.
	 */
	*contents(pieceBytes = 4 * 1024 * 1024): Generator<Uint8Array> {
		const piece = Buffer.allocUnsafe(pieceBytes);
		for (let at = 0; at < this.used; at += pieceBytes) {
			const n = Math.min(pieceBytes, this.used - at);
			this.read(piece, 0, at, n);
			yield piece.subarray(0, n);
		}
	}

	/** Is `file` the snapshot this reads (the same file, not one renamed into its place since it was opened)? */
	sameFile(file: string): boolean {
		if (this.fd === undefined) return false;
		const mine = fs.fstatSync(this.fd);
		const there = fs.statSync(file, { throwIfNoEntry: false });
		return there !== undefined && there.dev === mine.dev && there.ino === mine.ino && there.size === this.fileSize;
	}

	/**
	 * The pieces of `pieceBytes` where the database differs from the file (snapshotFile.ts
	 * `writeSnapshot`): those holding a page written since the snapshot was opened, and from the file's
	 * last piece on when the database grew past it. Read like `contents()`, so what they keep of the
	 * file is checked as it is read; each a view of one buffer, valid until the next.
	 */
	*changedPieces(pieceBytes: number): Generator<{ index: number; bytes: Uint8Array }> {
		const count = Math.ceil(this.used / pieceBytes);
		const changed = new Uint8Array(count);
		for (const page of this.written.keys()) {
			changed[Math.floor((page * pageBytes) / pieceBytes)] = 1;
		}
		if (this.used > this.fileSize) {
			changed.fill(1, Math.floor(this.fileSize / pieceBytes));
		}
		const piece = Buffer.allocUnsafe(pieceBytes);
		for (let index = 0; index < count; index++) {
			if (changed[index] !== 1) continue;
			const at = index * pieceBytes;
			const n = Math.min(pieceBytes, this.used - at);
			this.read(piece, 0, at, n);
			yield { index, bytes: piece.subarray(0, n) };
		}
	}

	/**
	 * Go on from `file`, a snapshot just written from `contents()` (under the store's lock): the pages
	 * written so far are in it, so they are let go. SQLite's connection and its file stay as they are.
	 */
	rebase(file: string): void {
		const fd = fs.openSync(file, 'r');
		const size = fs.fstatSync(fd).size;
		if (size !== this.used) {
			fs.closeSync(fd);
			throw new Error(`snapshot pages: ${file} holds ${size} bytes, not the ${this.used} written`);
		}
		if (this.fd !== undefined) {
			fs.closeSync(this.fd);
		}
		this.fd = fd;
		this.fileSize = size;
		// Written by this process from what it read (checked) and wrote: nothing of it is left to check.
		this.candidates = undefined;
		this.written.clear();
		if (this.spill !== undefined) {
			fs.ftruncateSync(this.spill, 0);
		}
		this.window = undefined;
		this.lastEnd = -1;
	}

	/** The size and CRC-32 of the snapshot file, read a piece at a time. */
	checksum(): { size: number; crc32: number } {
		return descriptorChecksum(this.descriptor());
	}

	/**
	 * From now on a piece of the file is checked the first time anything is read from it: its CRC-32
	 * must be the same piece's in one of `candidates` (one list per recorded snapshot of this size; the
	 * pieces read so far must all be one list's). A piece that is not fails that read, and every read
	 * of the file after it, with `corruptDatabase`.
	 */
	verifyPieces(candidates: number[][], pieceBytes: number): void {
		this.candidates = candidates;
		this.pieceBytes = pieceBytes;
		this.checked = new Uint8Array(Math.ceil(this.fileSize / pieceBytes));
	}

	close(): void {
		if (this.fd !== undefined) {
			fs.closeSync(this.fd);
			this.fd = undefined;
		}
		if (this.spill !== undefined) {
			fs.closeSync(this.spill);
			this.spill = undefined;
		}
		this.written.clear();
		this.window = undefined;
		this.checkBuffer = undefined;
	}

	/** `length` bytes at `position` of the file as written so far into `out` at `offset`; past the end, zeros. */
	private read(out: Buffer, offset: number, position: number, length: number): void {
		let done = 0;
		while (done < length) {
			const index = Math.floor((position + done) / pageBytes);
			const slot = this.written.get(index);
			const within = position + done - index * pageBytes;
			if (slot !== undefined) {
				const n = Math.min(pageBytes - within, length - done);
				const got = readAll(this.spill as number, out, slot * pageBytes + within, offset + done, n);
				if (got !== n) {
					throw new Error(`snapshot pages: the scratch file gave ${got} of ${n} bytes of page ${index}`);
				}
				done += n;
				continue;
			}
			// A run of pages this process has not written: one read from the file.
			let end = Math.min(length, done + pageBytes - within);
			while (end < length && !this.written.has(Math.floor((position + end) / pageBytes))) {
				end = Math.min(length, end + pageBytes);
			}
			const fromFile = Math.max(0, Math.min(position + end, this.fileSize) - (position + done));
			const got = fromFile > 0 ? this.fromFile(out, offset + done, position + done, fromFile) : 0;
			out.fill(0, offset + done + got, offset + end);
			done = end;
		}
	}

	/**
	 * Bytes of the snapshot file. A read that goes on forward from the last one (a scan over a table
	 * whose pages lie in order, as a compaction writes them) reads ahead, so a scan costs a system
	 * call every 32 pages rather than every page; the file never changes under its descriptor.
	 */
	private fromFile(out: Buffer, offset: number, position: number, length: number): number {
		if (this.candidates) {
			this.checkPieces(position, length);
		}
		const inWindow = position - this.windowAt;
		if (this.window && inWindow >= 0 && inWindow + length <= this.windowLength) {
			this.window.copy(out, offset, inWindow, inWindow + length);
			this.lastEnd = position + length;
			return length;
		}
		const forward = position >= this.lastEnd && position < this.lastEnd + readAheadBytes;
		this.lastEnd = position + length;
		if (forward && length < readAheadBytes) {
			const window = (this.window ??= Buffer.allocUnsafe(readAheadBytes));
			this.windowAt = position;
			this.windowLength = readAll(this.descriptor(), window, position, 0, Math.min(readAheadBytes, this.fileSize - position));
			const n = Math.min(length, this.windowLength);
			window.copy(out, offset, 0, n);
			return n;
		}
		return readAll(this.descriptor(), out, position, offset, length);
	}

	/** Checks every piece `length` bytes at `position` touch that has not been checked yet (see `verifyPieces`). */
	private checkPieces(position: number, length: number): void {
		if (this.damage) {
			throw this.damage;
		}
		const candidates = this.candidates as number[][];
		const { pieceBytes } = this;
		const last = Math.min(this.checked.length - 1, Math.floor((position + Math.max(length, 1) - 1) / pieceBytes));
		for (let piece = Math.floor(position / pieceBytes); piece <= last; piece++) {
			if (this.checked[piece] === 1) {
				continue;
			}
			const sum = this.pieceChecksum(piece);
			const matching = candidates.filter((list) => list[piece] === sum);
			if (matching.length === 0) {
				const from = piece * pieceBytes;
				this.damage = new BatonError(
					'corruptDatabase',
					`${this.file} does not match its recorded checksum (damaged between bytes ${from} and ${Math.min(this.fileSize, from + pieceBytes)}); run \`baton doctor\``,
					{ file: this.file },
				);
				throw this.damage;
			}
			this.candidates = matching;
			this.checked[piece] = 1;
		}
	}

	/**
	 * The CRC-32 of one piece of the file (a buffer of its own: a read's `out` may be the scratch). A
	 * piece no larger than the read-ahead is read into its window, so the read that asked for the
	 * check, and those after it in the same piece, come from what the check read; an older sidecar's
	 * 4 MB pieces are read a megabyte at a time.
	 */
	private pieceChecksum(piece: number): number {
		const from = piece * this.pieceBytes;
		// A file shorter than it was at open reads short, and its sum cannot match.
		const end = Math.min(this.fileSize, from + this.pieceBytes);
		if (this.pieceBytes <= readAheadBytes) {
			const window = (this.window ??= Buffer.allocUnsafe(readAheadBytes));
			this.windowAt = from;
			this.windowLength = readAll(this.descriptor(), window, from, 0, end - from);
			return crc32(window.subarray(0, this.windowLength));
		}
		return rangeChecksum(this.descriptor(), from, end, (this.checkBuffer ??= Buffer.allocUnsafe(1024 * 1024)));
	}

	private descriptor(): number {
		if (this.fd === undefined) {
			throw new Error('snapshot pages: read after close');
		}
		return this.fd;
	}
}
