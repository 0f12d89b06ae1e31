/**
 * Read-only looks at an agent's files: whether one may be read at all (a regular file, inside the
 * agent's folder even through a symlink, not over the size limit) and its first records. Nothing here
 * opens a file for writing or changes its times.
 */
import fs from 'node:fs';
import path from 'node:path';
import { openRegularFile } from '../transcripts/regularFile';

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

function realOr(file: string): string {
	try {
		return fs.realpathSync(file);
	} catch {
		return path.resolve(file);
	}
}

/** Why `file` must not be read (a sentence), or its stats when it may. `within`: the agent's folder. */
export function sourceProblem(file: string, within: string, maxBytes: number): string | fs.Stats {
	let link: fs.Stats;
	try {
		link = fs.lstatSync(file);
	} catch (error) {
		return `it cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`;
	}
	if (link.isSymbolicLink()) {
		const target = realOr(file);
		const root = realOr(within);
		if (target !== root && !target.startsWith(`${root}${path.sep}`)) {
			return `it is a symlink that leads out of ${within}`;
		}
	}
	let stat: fs.Stats;
	try {
		stat = fs.statSync(file);
	} catch {
		return 'it is a symlink to nothing';
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
	let text: string;
	try {
		const { fd, stat } = openRegularFile(file);
		try {
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
			const end = read === stat.size ? read : bytes.lastIndexOf(10, read - 1) + 1;
			text = bytes.toString('utf8', 0, end);
		} finally {
			fs.closeSync(fd);
		}
	} catch {
		return [];
	}
	const out: Record<string, unknown>[] = [];
	for (const line of text.split('\n')) {
		if (out.length >= maxLines) {
			break;
		}
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
