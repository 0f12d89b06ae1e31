/**
 * Incremental JSONL reading: 1 MiB reads from a remembered byte offset,
 * split on byte 0x0A (safe in UTF-8: it never occurs inside a multi-byte character), decode whole
 * lines only. A trailing line without its newline is left for the next read, so a live transcript
 * is never parsed half-written; the offset returned always sits just after a newline. ~1.7× faster
 * than readline, which spends most of its time splitting.
 */
import fs from 'node:fs';
import { openRegularFile } from '../storage/regularFile';

const jsonlChunkBytes = 1 << 20;

export interface JsonlReadResult {
	/** Where the next read starts: just after the last complete line consumed. */
	offset: number;
	/** Complete lines consumed (blank ones included). */
	lines: number;
	/** Lines that were not JSON (a torn write in the middle of a file, garbage): skipped. */
	badLines: number;
	/** Bytes after `offset` without a newline yet: an incomplete last line. */
	pendingBytes: number;
	/** Bytes in the file when it was read. */
	size: number;
	/** True when `maxBytes` stopped the read before the end of the file. */
	truncated: boolean;
}

export interface JsonlReadOptions {
	/** Stop after about this many bytes (at a line boundary); the rest is read next time. */
	maxBytes?: number;
	chunkBytes?: number;
	/**
	 * Looks at a line's bytes (a view, valid only during the call) before it is decoded: true skips
	 * it unparsed. JSON.parse is most of the cost, and most bytes of a transcript are lines nobody reads.
	 */
	skipLine?: (line: Buffer) => boolean;
}

/**
 * Calls `onRecord` with every JSON value on a complete line after `offset`. Throws only when the
 * file cannot be opened or read; a shrunken file (size < offset) reads nothing, the caller decides.
 */
export function readJsonlFrom(
	file: string,
	offset: number,
	onRecord: (record: unknown, lineStart: number) => void,
	options: JsonlReadOptions = {},
): JsonlReadResult {
	const chunk = options.chunkBytes ?? jsonlChunkBytes;
	// Regular files only: a FIFO or a device would block or never end (regularFile.ts).
	const { fd, stat } = openRegularFile(file);
	try {
		const size = stat.size;
		const result: JsonlReadResult = { offset, lines: 0, badLines: 0, pendingBytes: 0, size, truncated: false };
		if (size <= offset) {
			return result;
		}
		// Sized to what is left to read: a small file costs its size, not two chunks (an import reads a
		// thousand of them), and the search for a newline below never runs past the bytes read.
		let buf = Buffer.allocUnsafe(Math.min(chunk * 2, size - offset + 1));
		let len = 0;
		/** File position of buf[0]. */
		let base = offset;
		let position = offset;
		for (;;) {
			if (buf.length - len < Math.min(chunk, size - position + 1)) {
				// A line longer than the buffer: grow it.
				const grown = Buffer.allocUnsafe(Math.max(buf.length * 2, len + chunk));
				buf.copy(grown, 0, 0, len);
				buf = grown;
			}
			const n = fs.readSync(fd, buf, len, Math.min(chunk, buf.length - len), position);
			if (n === 0) {
				break;
			}
			position += n;
			const end = len + n;
			const start = scanLines(buf, end, base, offset, result, onRecord, options);
			if (start < 0) {
				return result;
			}
			buf.copy(buf, 0, start, end);
			len = end - start;
			base += start;
		}
		result.pendingBytes = len;
		return result;
	} finally {
		fs.closeSync(fd);
	}
}

/**
 * `readJsonlFrom` over bytes already read: `bytes` are the whole file as it was when `size` was taken
 * (the agent-history discovery read a small file whole to see whose it is; the archive parses the same
 * bytes instead of opening the file again).
 */
export function readJsonlBytes(
	bytes: Buffer,
	offset: number,
	onRecord: (record: unknown, lineStart: number) => void,
	options: JsonlReadOptions = {},
): JsonlReadResult {
	const size = bytes.length;
	const result: JsonlReadResult = { offset, lines: 0, badLines: 0, pendingBytes: 0, size, truncated: false };
	if (size <= offset) {
		return result;
	}
	const start = scanLines(bytes.subarray(offset), size - offset, offset, offset, result, onRecord, options);
	if (start >= 0) {
		result.pendingBytes = size - offset - start;
	}
	return result;
}

/**
 * Gives each complete line of `buf[0, end)` (file position `base`) to `onRecord`, counting lines and bad
 * ones in `result` and moving its offset past each. Returns where the unfinished last line starts, or -1
 * when `maxBytes` (counted from `offset`) stopped the read: `result` is then final.
 */
function scanLines(
	buf: Buffer,
	end: number,
	base: number,
	offset: number,
	result: JsonlReadResult,
	onRecord: (record: unknown, lineStart: number) => void,
	options: JsonlReadOptions,
): number {
	const maxBytes = options.maxBytes ?? Number.POSITIVE_INFINITY;
	let start = 0;
	const filled = buf.subarray(0, end);
	let nl = filled.indexOf(10, start);
	while (nl !== -1) {
		const lineEnd = nl > start && buf[nl - 1] === 13 ? nl - 1 : nl;
		result.lines++;
		if (lineEnd > start && !options.skipLine?.(buf.subarray(start, lineEnd))) {
			let record: unknown;
			let ok = true;
			try {
				record = JSON.parse(buf.toString('utf8', start, lineEnd));
			} catch {
				ok = false;
				result.badLines++;
			}
			if (ok) {
				onRecord(record, base + start);
			}
		}
		start = nl + 1;
		result.offset = base + start;
		if (result.offset - offset >= maxBytes) {
			result.truncated = result.offset < result.size;
			result.pendingBytes = 0;
			return -1;
		}
		nl = filled.indexOf(10, start);
	}
	return start;
}
