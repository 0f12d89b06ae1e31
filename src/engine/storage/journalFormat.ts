/**
 * The on-disk format of the append-only journal.
 *
 *   file   = header record*
 *   header = "BATONJNL" u32le(version) u32le(acknowledged) generation[16 ascii hex]   (32 bytes)
 *   record = u32le(0x4e544142 "BATN") u32le(payload length) u32le(crc32(payload)) payload
 *   payload = UTF-8 JSON {seq, at, stmts: [[sql, params], …]}                 (version 1)
 *           | UTF-8 JSON {seq, at, sql: [text, …], stmts: [[index, params], …]} (version 2)
 *
 * Version 2 writes each statement's text once per record: an import repeats a few INSERTs hundreds of
 * thousands of times, and their text was 42% of its record (81 of 193 MB at 50,000 sessions). A
 * journal's records are of its header's version (a version 1 journal, one an older Baton created, is
 * appended to in its own form until a compaction starts a version 2 one), so an older Baton refuses a
 * version 2 journal by its header rather than failing to replay a record. A record is at most
 * `maxPayload`: a write whose record would be larger is refused before anything is appended.
 *
 * The generation ties a journal to the snapshot it continues: compaction writes a new snapshot and a
 * fresh journal with a new generation, so a process whose journal generation changed knows to reload.
 *
 * `acknowledged` is the sequence number the journal is known to reach: the snapshot's when the journal
 * starts, then the last record of each append, written in place once that append's fdatasync returned
 * (so it never claims a record that is not durable; it reaches the disk with the next append's sync).
 * A journal whose records end before it was cut short: acknowledged writes are missing, not torn.
 * Journals written before this field hold 0 there, which claims nothing.
 */
import zlib from 'node:zlib';
import { BatonError } from '../errors';

export const headerSize = 32;
/** Where the header keeps the acknowledged sequence number (u32le). */
export const acknowledgedOffset = 12;
const headerMagic = 'BATONJNL';
/** The version new journals are written in; both are read. */
const formatVersion = 2;
const readableVersions: readonly number[] = [1, 2];
const recordMagic = 0x4e544142;
const recordHeaderSize = 12;
/** Larger than any sane transaction; a bigger length field means the bytes are not a record. */
const maxPayload = 256 * 1024 * 1024;

export type JournalParam = string | number | null | Uint8Array;
export interface JournalRecord {
	seq: number;
	at: string;
	stmts: [string, JournalParam[]][];
}

interface ScannedRecord {
	record: JournalRecord;
	/** Byte offset just past this record. */
	end: number;
}

interface ScanResult {
	records: ScannedRecord[];
	/** Offset just past the last valid record. */
	validEnd: number;
	/** `torn`: the bytes after validEnd are an unfinished last record; `corrupt`: damage before the end. */
	tail: 'clean' | 'torn' | 'corrupt';
	problem?: string;
}

export function encodeHeader(generation: string, acknowledged: number): Buffer {
	if (!/^[0-9a-f]{16}$/.test(generation)) {
		throw new Error(`invalid journal generation ${generation}`);
	}
	const buf = Buffer.alloc(headerSize);
	buf.write(headerMagic, 0, 'ascii');
	buf.writeUInt32LE(formatVersion, 8);
	encodeAcknowledged(acknowledged).copy(buf, acknowledgedOffset);
	buf.write(generation, 16, 'ascii');
	return buf;
}

/** The header's acknowledged field. Past u32 it stays at the largest value, which claims less, never more. */
export function encodeAcknowledged(seq: number): Buffer {
	const buf = Buffer.alloc(4);
	buf.writeUInt32LE(Math.min(Math.max(0, Math.floor(seq)), 0xffffffff));
	return buf;
}

/** The header's generation, acknowledged sequence and version, or a reason why the bytes are not a Baton journal header. */
export function decodeHeader(buf: Buffer): { generation: string; acknowledged: number; version: number } | { problem: string } {
	if (buf.length < headerSize) {
		return { problem: `header is ${buf.length} bytes, expected ${headerSize}` };
	}
	if (buf.toString('ascii', 0, 8) !== headerMagic) {
		return { problem: 'not a Baton journal (bad magic)' };
	}
	const version = buf.readUInt32LE(8);
	if (!readableVersions.includes(version)) {
		return { problem: `unsupported journal format version ${version}` };
	}
	const generation = buf.toString('ascii', 16, 32);
	if (!/^[0-9a-f]{16}$/.test(generation)) {
		return { problem: 'journal header has an invalid generation' };
	}
	return { generation, acknowledged: buf.readUInt32LE(acknowledgedOffset), version };
}

function replacer(this: unknown, key: string, value: unknown): unknown {
	const raw = (this as Record<string, unknown>)[key];
	return raw instanceof Uint8Array ? { $b64: Buffer.from(raw).toString('base64') } : value;
}

function reviver(_key: string, value: unknown): unknown {
	if (value !== null && typeof value === 'object' && typeof (value as { $b64?: unknown }).$b64 === 'string') {
		return new Uint8Array(Buffer.from((value as { $b64: string }).$b64, 'base64'));
	}
	return value;
}

/**
 * A record as its journal's `version` writes it. A record past `limit` bytes (or past the longest
 * string V8 makes) is refused with `limitReached`: it could be appended, but never read back.
 */
export function encodeRecord(record: JournalRecord, version = formatVersion, limit = maxPayload): Buffer {
	const payload = version >= 2 ? compactPayload(record) : record;
	let json: string;
	try {
		// A replacer runs for every key and value: only records that hold bytes pay for it.
		json = hasBytes(record) ? JSON.stringify(payload, replacer) : JSON.stringify(payload);
	} catch (error) {
		if (error instanceof RangeError) {
			throw tooLarge(record, `more than the ${sizeText(limit)} one journal record holds`);
		}
		throw error;
	}
	const length = Buffer.byteLength(json, 'utf8');
	if (length > limit) {
		throw tooLarge(record, `${sizeText(length)}, more than the ${sizeText(limit)} one journal record holds`);
	}
	const buf = Buffer.allocUnsafe(recordHeaderSize + length);
	buf.write(json, recordHeaderSize, 'utf8');
	buf.writeUInt32LE(recordMagic, 0);
	buf.writeUInt32LE(length, 4);
	buf.writeUInt32LE(crc32(buf.subarray(recordHeaderSize)), 8);
	return buf;
}

function sizeText(bytes: number): string {
	return bytes >= 1024 * 1024 ? `${Math.round(bytes / 1024 / 1024)} MB` : `${Math.ceil(bytes / 1024)} KB`;
}

function tooLarge(record: JournalRecord, what: string): BatonError {
	return new BatonError(
		'limitReached',
		`one write of ${record.stmts.length} statements is ${what}; nothing was written (an import: split its file into smaller ones)`,
		{ statements: record.stmts.length },
	);
}

/** Version 2's payload: each statement text once, the statements naming it by index. */
function compactPayload(record: JournalRecord): { seq: number; at: string; sql: string[]; stmts: [number, JournalParam[]][] } {
	const sql: string[] = [];
	const index = new Map<string, number>();
	const stmts = new Array<[number, JournalParam[]]>(record.stmts.length);
	for (let i = 0; i < record.stmts.length; i++) {
		const [text, params] = record.stmts[i] as [string, JournalParam[]];
		let at = index.get(text);
		if (at === undefined) {
			at = sql.length;
			sql.push(text);
			index.set(text, at);
		}
		stmts[i] = [at, params];
	}
	return { seq: record.seq, at: record.at, sql, stmts };
}

/** A parsed payload of either version as a record; undefined when its statements are not well formed. */
function recordOf(payload: { seq?: unknown; at?: unknown; sql?: unknown; stmts?: unknown }): JournalRecord | undefined {
	if (typeof payload.seq !== 'number' || !Array.isArray(payload.stmts)) {
		return undefined;
	}
	if (payload.sql === undefined) {
		return payload as JournalRecord;
	}
	const sql = payload.sql;
	if (!Array.isArray(sql) || !sql.every((text) => typeof text === 'string')) {
		return undefined;
	}
	const stmts = new Array<[string, JournalParam[]]>(payload.stmts.length);
	for (let i = 0; i < stmts.length; i++) {
		const stmt: unknown = (payload.stmts as unknown[])[i];
		if (!Array.isArray(stmt) || typeof stmt[0] !== 'number' || !Array.isArray(stmt[1])) {
			return undefined;
		}
		const text = sql[stmt[0]] as string | undefined;
		if (text === undefined) {
			return undefined;
		}
		stmts[i] = [text, stmt[1] as JournalParam[]];
	}
	return { seq: payload.seq, at: payload.at as string, stmts };
}

/**
 * Whether `records` would take at least `bytes` in the journal, counted from their parameters (a
 * string by its length, bytes as their base64, a number or null as a few characters) and stopped as
 * soon as they do: a small write costs a glance, a large one is not encoded to find out.
 */
export function recordBytesReach(records: readonly JournalRecord[], bytes: number): boolean {
	// Indexed loops: a process's first large write runs this before it is compiled, where iterators cost.
	let total = 0;
	for (let r = 0; r < records.length; r++) {
		const stmts = (records[r] as JournalRecord).stmts;
		for (let s = 0; s < stmts.length; s++) {
			const params = (stmts[s] as [string, JournalParam[]])[1];
			total += 8;
			for (let p = 0; p < params.length; p++) {
				const param = params[p];
				total += typeof param === 'string' ? param.length + 3 : param instanceof Uint8Array ? Math.ceil(param.length / 3) * 4 + 12 : 8;
			}
			if (total >= bytes) {
				return true;
			}
		}
	}
	return false;
}

function hasBytes(record: JournalRecord): boolean {
	const stmts = record.stmts;
	for (let s = 0; s < stmts.length; s++) {
		const params = (stmts[s] as [string, JournalParam[]])[1];
		for (let p = 0; p < params.length; p++) {
			if (params[p] instanceof Uint8Array) {
				return true;
			}
		}
	}
	return false;
}

/**
 * Reads records from `buf` (which starts at file offset `base`). Stops at the first record that is
 * not whole and valid, and says whether that is a torn tail (nothing valid can follow it) or damage.
 */
export function scanRecords(buf: Buffer, base: number): ScanResult {
	const records: ScannedRecord[] = [];
	let pos = 0;
	const stop = (tail: ScanResult['tail'], problem?: string): ScanResult => ({
		records,
		validEnd: base + pos,
		tail,
		...(problem === undefined ? {} : { problem }),
	});
	while (pos < buf.length) {
		const remaining = buf.length - pos;
		if (remaining < recordHeaderSize) {
			return stop('torn', `incomplete record header (${remaining} bytes) at end`);
		}
		if (buf.readUInt32LE(pos) !== recordMagic) {
			// A crash can leave zero-filled blocks at the end of a file: that is a torn tail, not damage.
			return isAllZero(buf, pos) ? stop('torn', 'zero-filled tail') : stop('corrupt', `bad record marker at offset ${base + pos}`);
		}
		const length = buf.readUInt32LE(pos + 4);
		if (length > maxPayload) {
			return stop('corrupt', `implausible record length ${length} at offset ${base + pos}`);
		}
		const end = pos + recordHeaderSize + length;
		if (end > buf.length) {
			return stop('torn', `record at offset ${base + pos} is cut short`);
		}
		const payload = buf.subarray(pos + recordHeaderSize, end);
		if (crc32(payload) !== buf.readUInt32LE(pos + 8)) {
			return end === buf.length
				? stop('torn', `last record at offset ${base + pos} fails its checksum`)
				: stop('corrupt', `checksum mismatch in record at offset ${base + pos}`);
		}
		let parsed: Parameters<typeof recordOf>[0];
		try {
			parsed = JSON.parse(payload.toString('utf8'), reviver) as Parameters<typeof recordOf>[0];
		} catch {
			return stop('corrupt', `record at offset ${base + pos} is not valid JSON`);
		}
		const record = parsed !== null && typeof parsed === 'object' ? recordOf(parsed) : undefined;
		if (!record) {
			return stop('corrupt', `record at offset ${base + pos} has no sequence number or statements`);
		}
		pos = end;
		records.push({ record, end: base + pos });
	}
	return stop('clean');
}

function isAllZero(buf: Buffer, from: number): boolean {
	for (let i = from; i < buf.length; i++) {
		if (buf[i] !== 0) {
			return false;
		}
	}
	return true;
}

let table: Uint32Array | undefined;

/**
 * zlib.crc32 where Node has it (≥ 20.15), else the same CRC-32 in JavaScript. `previous` continues
 * the checksum of the bytes before `data` (a file read in pieces).
 */
export function crc32(data: Uint8Array, previous = 0): number {
	const native = (zlib as { crc32?: (d: Uint8Array, value?: number) => number }).crc32;
	if (native) {
		return native(data, previous) >>> 0;
	}
	if (!table) {
		table = new Uint32Array(256);
		for (let n = 0; n < 256; n++) {
			let c = n;
			for (let k = 0; k < 8; k++) {
				c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
			}
			table[n] = c >>> 0;
		}
	}
	let crc = (previous ^ 0xffffffff) >>> 0;
	for (const byte of data) {
		crc = (table[(crc ^ byte) & 0xff] as number) ^ (crc >>> 8);
	}
	return (crc ^ 0xffffffff) >>> 0;
}
