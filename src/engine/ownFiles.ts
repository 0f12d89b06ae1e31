/**
 * This machine's files in `.baton/` (the daemon's endpoint, the hook secret and port, the machine's
 * id) are trusted only when this machine wrote them. A repository can carry `.baton/` files (a
 * `git add -f`, an archive of someone's workspace), and whoever wrote them chose what they say: the
 * socket a client sends its command line, environment and input to, the pid a client ends when that
 * socket is silent, the secret that authenticates hook calls, the port Claude Code sends them to, the
 * machine id this clone pushes as. Baton writes each of them 0600 in the 0700 `.baton/`; git and
 * archives write what they deliver with the umask's modes (0644, 0664). So such a file is read only
 * when it is a regular file (no link followed, no FIFO), owned by this user and private to it; any
 * other is left unread, as if absent, and the writer makes a new one. A socket is connected to only
 * when it is this user's. (Windows keeps no such modes: there the checks are the kind of file only,
 * and its sockets are named pipes.) Imports nothing of the engine: the editor reads the endpoint
 * through the protocol's re-export.
 */
import fs from 'node:fs';
import path from 'node:path';

const windows = process.platform === 'win32';
const noFollow = !windows && typeof fs.constants.O_NOFOLLOW === 'number' ? fs.constants.O_NOFOLLOW : 0;
const nonBlocking = !windows && typeof fs.constants.O_NONBLOCK === 'number' ? fs.constants.O_NONBLOCK : 0;

/** Why a file with these stats is not one this user wrote privately, or null. */
function ownPrivateProblem(stat: fs.Stats): string | null {
	if (!stat.isFile()) {
		return 'not a regular file';
	}
	if (windows) {
		return null;
	}
	const uid = process.getuid?.();
	if (uid !== undefined && stat.uid !== uid) {
		return `owned by user ${stat.uid}, not this user (${uid})`;
	}
	return (stat.mode & 0o077) !== 0 ? `mode ${(stat.mode & 0o777).toString(8)}: open to others, so not written by Baton` : null;
}

/**
 * The text of `file` when it is this user's private regular file (at most `maxBytes`), else undefined
 * with `onRefused` told why (not called when the file is missing).
 */
export function readOwnPrivateFile(file: string, onRefused?: (why: string) => void, maxBytes = 64 * 1024): string | undefined {
	let fd: number;
	try {
		fd = fs.openSync(file, fs.constants.O_RDONLY | noFollow | nonBlocking);
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		if (code === 'ELOOP' || code === 'EMLINK') {
			onRefused?.('a symbolic link');
		}
		return undefined;
	}
	try {
		const stat = fs.fstatSync(fd);
		const problem = ownPrivateProblem(stat) ?? (stat.size > maxBytes ? `larger than ${maxBytes} bytes` : null);
		if (problem) {
			onRefused?.(problem);
			return undefined;
		}
		const bytes = Buffer.alloc(stat.size);
		const read = fs.readSync(fd, bytes, 0, bytes.length, 0);
		return bytes.toString('utf8', 0, read);
	} catch {
		return undefined;
	} finally {
		fs.closeSync(fd);
	}
}

/** This machine's files in `.baton/` that say where to connect or what to trust: only ever written 0600 by Baton, never committed. */
export const ownFileNames = ['daemon.json', 'hook-secret', 'hook-http.json', 'machine.json'] as const;

/**
 * Removes those of this machine's files in `dir` (a `.baton/`) that this user did not write privately,
 * before the store's opening makes the folder private (which would give a checkout's 0644 copy the
 * mode of one of Baton's own); returns what it removed and why. Their writers make new ones.
 * `checkedOut` names those that are as a checkout of the repository wrote them (tracked and unchanged
 * from git's index), whatever their mode: a clone made with umask 077 writes 0600 files this user
 * owns, which the mode cannot tell from Baton's. The new file Baton writes there differs from the
 * index, so it is kept at the next opening.
 */
export function dropForeignOwnFiles(dir: string, checkedOut: ReadonlySet<string> = new Set()): string[] {
	const dropped: string[] = [];
	for (const name of ownFileNames) {
		const file = path.join(dir, name);
		const stat = fs.lstatSync(file, { throwIfNoEntry: false });
		const problem =
			stat && (stat.isSymbolicLink() ? 'a symbolic link' : checkedOut.has(name) ? 'tracked by git: a checkout wrote it' : ownPrivateProblem(stat));
		if (stat && problem && !stat.isDirectory()) {
			try {
				fs.rmSync(file, { force: true });
				dropped.push(`${name} (${problem})`);
			} catch {
				// Not ours to remove: its readers refuse it all the same.
			}
		}
	}
	return dropped;
}

/** Whether `socket` is a Unix socket this user owns (on Windows: a named pipe of Baton's). */
export function isOwnSocket(socket: string): boolean {
	if (windows) {
		return socket.startsWith('\\\\.\\pipe\\baton-');
	}
	try {
		const stat = fs.lstatSync(socket);
		const uid = process.getuid?.();
		return stat.isSocket() && (uid === undefined || stat.uid === uid);
	} catch {
		return false;
	}
}

/** What `.baton/daemon.json` says of the workspace's daemon (server/daemonEndpoint.ts writes it). */
export interface DaemonEndpoint {
	pid: number;
	socket: string;
	instance: string;
	startedAt?: string;
	version?: string;
	workspace?: string;
}

export function daemonEndpointFile(workspaceRoot: string): string {
	return path.join(workspaceRoot, '.baton', 'daemon.json');
}

/** The workspace's daemon endpoint, when this user's own private file names one (whole, with its fields). */
export function readDaemonEndpoint(workspaceRoot: string): DaemonEndpoint | undefined {
	const text = readOwnPrivateFile(daemonEndpointFile(workspaceRoot));
	if (text === undefined) {
		return undefined;
	}
	try {
		const value = JSON.parse(text) as Partial<DaemonEndpoint>;
		return typeof value.pid === 'number' && typeof value.socket === 'string' && typeof value.instance === 'string' ? (value as DaemonEndpoint) : undefined;
	} catch {
		return undefined;
	}
}

/**
 * Whether `pid` runs this workspace's daemon, as far as the system says: on Linux its command line
 * holds `--daemon` (a terminal's daemon) or `--serve-daemon` (a window's backend serving as one) and
 * this workspace (a pid from a planted or stale endpoint file may be any process of this user's);
 * elsewhere unknown (undefined).
 */
export function runsDaemonOf(pid: number, workspaceRoot: string): boolean | undefined {
	if (process.platform !== 'linux') {
		return undefined;
	}
	try {
		const args = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
		const at = args.indexOf('--workspace');
		const folder = at >= 0 ? args[at + 1] : undefined;
		return (args.includes('--daemon') || args.includes('--serve-daemon')) && folder !== undefined && sameFolder(folder, workspaceRoot);
	} catch {
		return false;
	}
}

function sameFolder(a: string, b: string): boolean {
	if (path.resolve(a) === path.resolve(b)) {
		return true;
	}
	try {
		return fs.realpathSync(a) === fs.realpathSync(b);
	} catch {
		return false;
	}
}
