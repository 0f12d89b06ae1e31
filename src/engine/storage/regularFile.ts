/**
 * Opens a file for reading (a `transcript_path` a hook was told about, a cache Baton kept), but
 * only when it is a regular file. A plain open of a FIFO blocks until someone writes to it, and a
 * device (`/dev/zero`) never ends: either would hang the agent that waits for the hook. So the open
 * does not block (O_NONBLOCK where the platform has it) and fstat on the opened descriptor decides,
 * which also covers a symlink that points at such a thing.
 */
import fs from 'node:fs';

const nonBlocking = typeof fs.constants.O_NONBLOCK === 'number' && process.platform !== 'win32' ? fs.constants.O_NONBLOCK : 0;

class NotRegularFileError extends Error {
	constructor(file: string, kind: string) {
		super(`${file} is ${kind}, not a regular file: not read`);
	}
}

/** A read-only descriptor of `file` with its stats; throws when it is not a regular file. */
export function openRegularFile(file: string): { fd: number; stat: fs.Stats } {
	const fd = fs.openSync(file, fs.constants.O_RDONLY | nonBlocking);
	try {
		const stat = fs.fstatSync(fd);
		if (!stat.isFile()) {
			throw new NotRegularFileError(file, kindOf(stat));
		}
		return { fd, stat };
	} catch (error) {
		fs.closeSync(fd);
		throw error;
	}
}

function kindOf(stat: fs.Stats): string {
	if (stat.isFIFO()) {
		return 'a FIFO';
	}
	if (stat.isCharacterDevice() || stat.isBlockDevice()) {
		return 'a device';
	}
	if (stat.isSocket()) {
		return 'a socket';
	}
	return stat.isDirectory() ? 'a directory' : 'not a file';
}

/**
 * A regular file's bytes read whole, with the size and mtime of the descriptor they were read from: a
 * reader given these parses them instead of opening the file again (the agent-history import reads
 * each small file once, to see whose it is and to archive it).
 */
export interface FileBytes {
	bytes: Buffer;
	size: number;
	mtimeMs: number;
}
