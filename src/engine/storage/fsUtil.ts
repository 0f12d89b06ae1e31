import fs from 'node:fs';
import path from 'node:path';
import { BatonError } from '../errors';
import { privateFileMode } from '../workspace';
import { isAlive } from './processAlive';

/** The mode of a file that is the user's rather than Baton's (an export, `.beads/`): what the umask allows. */
export const ordinaryFileMode = 0o666;

/**
 * Reads `length` bytes of `fd` from `position` into `bytes` at `offset` (by default: the whole buffer,
 * from the start of the file) until they are read or the file ends; how many bytes were read.
 */
export function readAll(fd: number, bytes: Buffer, position = 0, offset = 0, length = bytes.length - offset): number {
	let read = 0;
	while (read < length) {
		const n = fs.readSync(fd, bytes, offset + read, length - read, position + read);
		if (n === 0) {
			break;
		}
		read += n;
	}
	return read;
}

/**
 * Write a file so that a crash leaves either the old or the new content: tmp, fsync, rename, fsync dir.
 * The temp file is created afresh with `mode` (Baton's files are private), so the file renamed into
 * place has it already. `bytes` may come in pieces (a body and its trailer, written without joining
 * them, or a database read a piece at a time), or be a function that makes the temp file at the path
 * it is given (a copy it then changes) and returns it open for writing; `durable: false` leaves out
 * both fsyncs, for a file whose durable step is another's (a kill still leaves the old or the new, a
 * power cut may leave neither). `beforeRename` runs once the new content is durable in the temp file
 * and before it replaces `file`.
 */
export function atomicWriteFile(
	file: string,
	bytes: Uint8Array | Iterable<Uint8Array> | ((tmp: string) => number),
	mode = privateFileMode,
	durable = true,
	beforeRename?: () => void,
): void {
	const tmp = `${file}.tmp-${process.pid}`;
	fs.rmSync(tmp, { force: true }); // A leftover of a dead process with this pid would keep its mode.
	removeStaleTempsOnce(file);
	let fd: number | undefined;
	try {
		if (typeof bytes === 'function') {
			fd = bytes(tmp);
			fs.fchmodSync(fd, mode);
		} else {
			fd = fs.openSync(tmp, 'w', mode);
			for (const piece of bytes instanceof Uint8Array ? [bytes] : bytes) {
				writeAll(fd, piece);
			}
		}
		if (durable) {
			fs.fsyncSync(fd);
		}
	} catch (error) {
		// A full disk: the half-written copy would hold on to the space it took.
		if (fd !== undefined) fs.closeSync(fd);
		fs.rmSync(tmp, { force: true });
		throw error;
	}
	fs.closeSync(fd);
	try {
		beforeRename?.();
	} catch (error) {
		fs.rmSync(tmp, { force: true });
		throw error;
	}
	fs.renameSync(tmp, file);
	if (durable) {
		fsyncDir(path.dirname(file));
	}
}

/**
 * `removeStaleTemps` before a write, once per file and process: a crashed writer's temp is gone after
 * this process's first write of the file, and a folder of thousands of entries (the transcript
 * archive's) is not listed again on every write of a hot path.
 */
function removeStaleTempsOnce(file: string): void {
	if (!cleanedTemps.has(file)) {
		// Bounded: a daemon that writes a hundred thousand archive files looks again rather than keep them all.
		if (cleanedTemps.size >= 10_000) cleanedTemps.clear();
		cleanedTemps.add(file);
		removeStaleTemps(file);
	}
}

/** A temp file this old is no live writer's, whatever its pid says (a pid is reused): a writer writes its temp file from open to rename. */
const staleTempAge = 24 * 3600_000;
/** The files whose stale temps this process has looked for already. */
const cleanedTemps = new Set<string>();

/**
 * Removes what writers of `file` that crashed between open and rename left behind (`<file>.tmp-<pid>`,
 * as big as the file: hundreds of MB for the search cache): the temp files of processes that are gone,
 * or older than a day. Otherwise only a later process given the same pid would ever remove one. A temp
 * file of a live process may be its write in progress and is kept. Best effort: a write never fails for it.
 */
export function removeStaleTemps(file: string): void {
	const prefix = `${path.basename(file)}.tmp-`;
	let names: string[];
	try {
		names = fs.readdirSync(path.dirname(file)).filter((name) => name.startsWith(prefix));
	} catch {
		return;
	}
	for (const name of names) {
		// `<pid>-ahead-<hex>`: a snapshot copied ahead of a compaction (snapshotFile.ts `copySnapshotAhead`).
		const pid = name.slice(prefix.length).replace(/-ahead-[0-9a-f]+$/, '');
		if (!/^[1-9][0-9]*$/.test(pid) || Number(pid) === process.pid) continue;
		const tmp = path.join(path.dirname(file), name);
		try {
			if (isAlive(Number(pid)) && Date.now() - fs.lstatSync(tmp).mtimeMs < staleTempAge) continue;
			fs.rmSync(tmp, { force: true });
		} catch {
			// Gone meanwhile, or not ours to remove: the write goes on.
		}
	}
}

export function writeAll(fd: number, bytes: Uint8Array, position?: number): void {
	let off = 0;
	while (off < bytes.length) {
		off += fs.writeSync(fd, bytes, off, bytes.length - off, position === undefined ? null : position + off);
	}
}

export function fsyncDir(dir: string): void {
	let fd: number | undefined;
	try {
		fd = fs.openSync(dir, 'r');
		fs.fsyncSync(fd);
	} catch {
		// Some platforms (Windows) cannot fsync a directory; the rename is still atomic there.
	} finally {
		if (fd !== undefined) {
			fs.closeSync(fd);
		}
	}
}

export function readIfExists(file: string): Buffer | undefined {
	try {
		return fs.readFileSync(file);
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
			return undefined;
		}
		throw error;
	}
}

/** Replace `target` with a copy of `source` without a moment where `target` is missing. */
export function preserveCopy(source: string, target: string): void {
	const tmp = `${target}.tmp-${process.pid}`;
	fs.rmSync(tmp, { force: true });
	removeStaleTempsOnce(target);
	try {
		fs.linkSync(source, tmp);
	} catch {
		fs.copyFileSync(source, tmp);
	}
	fs.renameSync(tmp, target);
}

/** A timestamped file name that sorts by time and is safe on every file system. */
export function stampName(ms: number): string {
	return new Date(ms).toISOString().replace(/[:.]/g, '-');
}

/**
 * Calls `visit` for every file below `dir` (depth first, in directory order) with its full path and
 * its path relative to `dir` joined by `/`. A folder that cannot be read (gone meanwhile, or never
 * there) is skipped.
 */
export function forEachFile(dir: string, visit: (full: string, rel: string, name: string) => void, rel = ''): void {
	let entries: fs.Dirent[];
	try {
		entries = fs.readdirSync(dir, { withFileTypes: true });
	} catch {
		return;
	}
	for (const entry of entries) {
		const full = path.join(dir, entry.name);
		if (entry.isDirectory()) {
			forEachFile(full, visit, `${rel}${entry.name}/`);
		} else {
			visit(full, `${rel}${entry.name}`, entry.name);
		}
	}
}

/** A full disk (or quota): nothing can be written until space is freed. */
function isDiskFull(error: unknown): boolean {
	const code = (error as NodeJS.ErrnoException | undefined)?.code;
	return code === 'ENOSPC' || code === 'EDQUOT';
}

/**
 * The refusal for a write that failed: a full disk says so, that nothing was written, and what to do;
 * anything else names the system's message.
 */
export function writeRefused(action: string, file: string, error: unknown): BatonError {
	const code = (error as NodeJS.ErrnoException | undefined)?.code;
	if (isDiskFull(error)) {
		return new BatonError(
			'storageFailure',
			`cannot ${action} ${file}: the disk is full (${code}); nothing was written. Free space on the disk that holds ${path.dirname(file)} and run it again`,
			{
				file,
				errno: code,
			},
		);
	}
	return new BatonError('storageFailure', `cannot ${action} ${file}: ${(error as Error).message}`, { file, ...(code ? { errno: code } : {}) });
}

/** A file as `stat` tells it apart: its inode, size and modification time. */
export interface FileIdentity {
	ino: number;
	size: number;
	mtimeMs: number;
}

/** The identities of `files` (by name), or undefined when one of them is not there. */
export function identitiesOf<K extends string>(files: Record<K, string>): Record<K, FileIdentity> | undefined {
	const out = {} as Record<K, FileIdentity>;
	for (const [name, file] of Object.entries(files) as [K, string][]) {
		const stat = fs.statSync(file, { throwIfNoEntry: false });
		if (!stat) {
			return undefined;
		}
		out[name] = { ino: stat.ino, size: stat.size, mtimeMs: stat.mtimeMs };
	}
	return out;
}
