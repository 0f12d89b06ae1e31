/**
 * Read-only looks at an agent's files: whether one may be read at all (a regular file, inside the
 * agent's folder even through a symlink, not over the size limit) and its first records. Nothing here
 * opens a file for writing or changes its times.
 */
import fs from 'node:fs';
import { sessionIdsOf } from '../transcripts/claudeProjects';
import { readAll } from '../storage/fsUtil';
import { linkProblem, type RealFolders } from '../transcripts/agentFiles';
import { openRegularFile, type FileBytes } from '../storage/regularFile';
import { readJsonlFrom } from '../transcripts/jsonlReader';

/** The ids Baton keeps as file names in its archive (transcriptArchive.ts). */
export function safeId(id: string): boolean {
	return /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(id);
}

/** The entries of a folder; none when it is missing or unreadable. */
export function readDir(dir: string): fs.Dirent[] {
	try {
		return fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name));
	} catch {
		return [];
	}
}

/**
 * Why `file` must not be read (a sentence), or its stats when it may. `within`: the agent's folder;
 * `folders`: the discovery's real paths of folders (`linkProblem`).
 */
export function sourceProblem(file: string, within: string, maxBytes: number, folders?: RealFolders): string | fs.Stats {
	let link: fs.Stats;
	try {
		link = fs.lstatSync(file);
	} catch (error) {
		return `it cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`;
	}
	const leadsOut = linkProblem(file, within, folders, !link.isSymbolicLink());
	if (leadsOut) {
		return leadsOut;
	}
	// A file that is not a symlink is what lstat saw: a second stat would say the same.
	let stat = link;
	if (link.isSymbolicLink()) {
		try {
			stat = fs.statSync(file);
		} catch {
			return 'it is a symlink to nothing';
		}
	}
	if (!stat.isFile()) {
		return stat.isFIFO() ? 'it is a FIFO, not a regular file' : 'it is not a regular file';
	}
	if (stat.size > maxBytes) {
		return `it is larger than the limit (${stat.size} bytes, at most ${maxBytes} are read)`;
	}
	return stat;
}

/**
 * The JSON objects on the first complete lines of `file` (at most `limit` bytes, `maxLines` lines); a
 * line that is not JSON is passed over. Read 64 KiB at a time, so a rollout of many megabytes costs
 * its first line. Empty when the file cannot be opened as a regular file.
 */
export function headLines(file: string, limit: number, maxLines: number): Record<string, unknown>[] {
	return readHead(file, limit, maxLines).records;
}

/**
 * `headLines`, and a file of at most `wholeUpTo` bytes read whole in one read and returned with its
 * stats (`whole`): the import archives it from these bytes rather than opening it again.
 */
export function readHead(file: string, limit: number, maxLines: number, wholeUpTo = 0): { records: Record<string, unknown>[]; whole?: FileBytes } {
	let head: { bytes: Buffer; end: number };
	let whole: FileBytes | undefined;
	try {
		const { fd, stat } = openRegularFile(file);
		try {
			if (stat.size <= wholeUpTo) {
				const bytes = Buffer.allocUnsafe(stat.size);
				const read = readAll(fd, bytes);
				// Cut short by a writer that truncated it since the stat: read as a head, not kept.
				whole = read === stat.size ? { bytes, size: stat.size, mtimeMs: stat.mtimeMs } : undefined;
				head = { bytes, end: whole ? read : bytes.lastIndexOf(10, read - 1) + 1 };
			} else {
				head = headBytesOf(fd, stat, limit, maxLines);
			}
		} finally {
			fs.closeSync(fd);
		}
	} catch {
		return { records: [] };
	}
	return { records: firstRecords(head.bytes, head.end, maxLines), ...(whole ? { whole } : {}) };
}

/** The first lines of an open file: 64 KiB at a time until `maxLines` newlines or `limit` bytes; `end` after the last whole line. */
function headBytesOf(fd: number, stat: fs.Stats, limit: number, maxLines: number): { bytes: Buffer; end: number } {
	const size = Math.min(limit, stat.size);
	let bytes = Buffer.alloc(Math.min(size, 64 * 1024));
	let read = 0;
	let lines = 0;
	while (read < size && lines < maxLines) {
		if (read === bytes.length) {
			const grown = Buffer.alloc(Math.min(size, bytes.length * 2));
			bytes.copy(grown, 0, 0, read);
			bytes = grown;
		}
		const n = fs.readSync(fd, bytes, read, bytes.length - read, read);
		if (n === 0) {
			break;
		}
		for (let i = read; i < read + n; i++) {
			if (bytes[i] === 10) lines++;
		}
		read += n;
	}
	return { bytes, end: read === stat.size ? read : bytes.lastIndexOf(10, read - 1) + 1 };
}

/** The JSON objects on the first `maxLines` non-blank lines of `bytes[0, end)`; a line that is not JSON is passed over. */
function firstRecords(bytes: Buffer, end: number, maxLines: number): Record<string, unknown>[] {
	const out: Record<string, unknown>[] = [];
	let start = 0;
	while (start < end && out.length < maxLines) {
		let nl = bytes.indexOf(10, start);
		if (nl === -1 || nl > end) {
			nl = end;
		}
		const line = bytes.toString('utf8', start, nl);
		start = nl + 1;
		if (!line.trim()) {
			continue;
		}
		try {
			const value: unknown = JSON.parse(line);
			if (value && typeof value === 'object' && !Array.isArray(value)) {
				out.push(value as Record<string, unknown>);
			}
		} catch {
			// A torn or damaged line: the others still say whose file it is.
		}
	}
	return out;
}

/**
 * The first bytes of `file` (at most `limit`), or undefined when it cannot be opened as a regular file;
 * `whole` when they are all of it (then `file` is the file's bytes with the stats they were read at).
 */
function headBytes(file: string, limit: number): { bytes: Buffer; whole: boolean; file: FileBytes } | undefined {
	try {
		const { fd, stat } = openRegularFile(file);
		try {
			const bytes = Buffer.allocUnsafe(Math.min(limit, stat.size));
			const read = readAll(fd, bytes);
			return { bytes: bytes.subarray(0, read), whole: read === stat.size, file: { bytes, size: stat.size, mtimeMs: stat.mtimeMs } };
		} catch {
			return undefined;
		} finally {
			fs.closeSync(fd);
		}
	} catch {
		return undefined;
	}
}

/**
 * Calls `visit` with the JSON object on each complete line of `head` in order (and on its last line when
 * `whole`), until it returns false; a line that is not a JSON object is passed over. Returns the byte
 * offset where it stopped (the end of the line it stopped after).
 */
function eachHeadRecord(head: { bytes: Buffer; whole: boolean }, visit: (record: Record<string, unknown>) => boolean): number {
	const { bytes, whole } = head;
	let start = 0;
	while (start < bytes.length) {
		let nl = bytes.indexOf(10, start);
		if (nl === -1) {
			if (!whole) {
				break;
			}
			nl = bytes.length;
		}
		let value: unknown;
		try {
			value = nl > start ? JSON.parse(bytes.toString('utf8', start, nl)) : undefined;
		} catch {
			// A torn or damaged line: the others still say whose file it is.
		}
		start = nl + 1;
		if (value && typeof value === 'object' && !Array.isArray(value) && !visit(value as Record<string, unknown>)) {
			break;
		}
	}
	return Math.min(start, bytes.length);
}

/** The head of a Claude transcript read to tell whose it is (claudeProjects.ts reads as much for a resumed conversation's ids). */
export const claudeHeadBytes = 64 * 1024;

/**
 * The first folder (`cwd`) a Claude Code transcript records, read past its head when its first records
 * are longer than the head (a pasted file in the first request): at most `limit` bytes, only the lines
 * that hold the key parsed. Null when none is found there.
 */
export function firstCwd(file: string, limit: number): string | null {
	const found = new Error('found');
	let cwd: string | null = null;
	try {
		readJsonlFrom(
			file,
			0,
			(record) => {
				const value = record !== null && typeof record === 'object' ? (record as Record<string, unknown>)['cwd'] : undefined;
				if (typeof value === 'string') {
					cwd = value;
					throw found;
				}
			},
			{ maxBytes: limit, skipLine: (line) => !line.includes('"cwd"') },
		);
	} catch (error) {
		if (error !== found) {
			return null;
		}
	}
	return cwd;
}

/**
 * What the first 64 KiB of a Claude transcript say: the first `cwd` and `timestamp` they record, whether
 * every record is Claude's file-history bookkeeping (also when no record ends within them), and the other session ids they carry (a resumed
 * conversation starts with the records of the one it continues: claudeProjects.ts `earlierSessionIds`).
 * Records are parsed until these are known and the transcript's own records begin; the rest of the head
 * is parsed only when a `"sessionId"` key in it could name another session.
 */
export function claudeHead(
	file: string,
	ownId: string,
	wholeUpTo = 0,
): { cwd: unknown; startedAt: string | null; snapshotsOnly: boolean; earlierIds: string[]; whole?: FileBytes } {
	const out: ReturnType<typeof claudeHead> = { cwd: undefined, startedAt: null, snapshotsOnly: false, earlierIds: [] };
	const read = headBytes(file, Math.max(claudeHeadBytes, wholeUpTo));
	if (!read) {
		return out;
	}
	if (read.whole && read.bytes.length <= wholeUpTo) {
		out.whole = read.file; // The import archives these bytes; only the first 64 KiB say whose it is.
	}
	const head = read.bytes.length > claudeHeadBytes ? { bytes: read.bytes.subarray(0, claudeHeadBytes), whole: false } : read;
	const records: Record<string, unknown>[] = [];
	let snapshotsOnly = true;
	let ownSeen = false;
	const visit = (r: Record<string, unknown>): boolean => {
		records.push(r);
		out.cwd ??= typeof r['cwd'] === 'string' ? r['cwd'] : undefined;
		out.startedAt ??= typeof r['timestamp'] === 'string' ? r['timestamp'] : null;
		snapshotsOnly &&= r['type'] === 'file-history-snapshot';
		ownSeen ||= r['sessionId'] === ownId;
		return !(out.cwd !== undefined && out.startedAt !== null && !snapshotsOnly && ownSeen);
	};
	const stopped = eachHeadRecord(head, visit);
	if (stopped < head.bytes.length && mayNameOther(head.bytes.subarray(stopped), ownId)) {
		eachHeadRecord({ bytes: head.bytes.subarray(stopped), whole: head.whole }, (r) => records.push(r) > 0);
	}
	// No whole record in a head that is not the whole file (a first snapshot past 64 KiB): nothing contradicts a
	// bootstrap yet, and the caller's longer read (isBootstrapTranscript) decides, as it did before this head.
	out.snapshotsOnly = snapshotsOnly && (records.length > 0 || !head.whole);
	out.earlierIds = sessionIdsOf(records, ownId);
	return out;
}

/** Whether `bytes` hold a `"sessionId"` key that is not followed by `:"<ownId>"` exactly (then they are parsed). */
function mayNameOther(bytes: Buffer, ownId: string): boolean {
	const own = `:${JSON.stringify(ownId)}`;
	for (let at = bytes.indexOf('"sessionId"'); at !== -1; at = bytes.indexOf('"sessionId"', at + 1)) {
		if (bytes.toString('utf8', at + 11, at + 11 + Buffer.byteLength(own)) !== own) {
			return true;
		}
	}
	return false;
}
