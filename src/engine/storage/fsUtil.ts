import fs from 'node:fs';
import path from 'node:path';

/** Write a file so that a crash leaves either the old or the new content: tmp, fsync, rename, fsync dir. */
export function atomicWriteFile(file: string, bytes: Uint8Array): void {
	const tmp = `${file}.tmp-${process.pid}`;
	const fd = fs.openSync(tmp, 'w');
	try {
		writeAll(fd, bytes);
		fs.fsyncSync(fd);
	} finally {
		fs.closeSync(fd);
	}
	fs.renameSync(tmp, file);
	fsyncDir(path.dirname(file));
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
