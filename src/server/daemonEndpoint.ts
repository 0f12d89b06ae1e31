/**
 * Where a workspace's daemon listens and how starters agree on one: the socket path (sun_path is
 * ~107 bytes, so a deep workspace falls back to a private per-user runtime folder), the endpoint file
 * `.baton/daemon.json` written atomically once listening, and the O_EXCL start lock `.baton/daemon.lock`
 * that makes concurrent starters elect one daemon.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { privateFileMode } from '../engine/workspace';
import { isAlive } from '../engine/storage/processAlive';
import { daemonEndpointFile, isOwnSocket, readDaemonEndpoint, type DaemonEndpoint } from '../engine/ownFiles';

/** Longest socket path we use: sun_path is 108 bytes on Linux (104 on macOS) including the NUL. */
const maxSocketPath = 100;

function endpointFile(workspaceRoot: string): string {
	return daemonEndpointFile(workspaceRoot);
}

export function startLockFile(workspaceRoot: string): string {
	return path.join(workspaceRoot, '.baton', 'daemon.lock');
}

function workspaceHash(workspaceRoot: string): string {
	return crypto.createHash('sha256').update(path.resolve(workspaceRoot)).digest('hex').slice(0, 16);
}

/** The socket for a workspace: `.baton/daemon.sock`, or a per-user 0700 folder when that path is too long. */
export function socketPathFor(workspaceRoot: string, env: NodeJS.ProcessEnv = process.env): string {
	if (process.platform === 'win32') {
		return `\\\\.\\pipe\\baton-${os.userInfo().username}-${workspaceHash(workspaceRoot)}`;
	}
	const local = path.join(workspaceRoot, '.baton', 'daemon.sock');
	if (Buffer.byteLength(local) <= maxSocketPath) {
		return local;
	}
	const uid = process.getuid?.() ?? 0;
	const base = env['XDG_RUNTIME_DIR'] ? path.join(env['XDG_RUNTIME_DIR'], 'baton') : path.join(os.tmpdir(), `baton-${uid}`);
	fs.mkdirSync(base, { recursive: true, mode: 0o700 });
	const stat = fs.lstatSync(base);
	// A shared temp folder: refuse one another user made (they could swap the socket under us).
	if (!stat.isDirectory() || stat.uid !== uid) {
		throw new Error(`${base} is not a folder owned by this user; cannot place the daemon's socket there`);
	}
	fs.chmodSync(base, 0o700);
	const socket = path.join(base, `${workspaceHash(workspaceRoot)}.sock`);
	if (Buffer.byteLength(socket) > maxSocketPath) {
		throw new Error(`no socket path under ${maxSocketPath} bytes for ${workspaceRoot}`);
	}
	return socket;
}

/** The endpoint file, when it is this user's own and whole (engine/ownFiles.ts). */
export const readEndpoint = readDaemonEndpoint;

/** Written after listening, atomically (temp + rename): a reader sees no file or a whole one. */
export function writeEndpoint(workspaceRoot: string, endpoint: DaemonEndpoint): void {
	const file = endpointFile(workspaceRoot);
	const temp = `${file}.${process.pid}.tmp`;
	fs.writeFileSync(temp, `${JSON.stringify(endpoint, null, '\t')}\n`, { mode: privateFileMode });
	fs.renameSync(temp, file);
}

/** Removes the endpoint file only while it still names this daemon (a successor may have replaced it). */
export function removeEndpoint(workspaceRoot: string, instance: string): void {
	if (readEndpoint(workspaceRoot)?.instance === instance) {
		fs.rmSync(endpointFile(workspaceRoot), { force: true });
	}
}

/**
 * Whether the daemon the endpoint file names answers `daemon/hello` with the same instance id and
 * workspace: a dead pid, a reused pid (a live unrelated process) or a dead socket all answer no.
 */
function endpointAnswers(workspaceRoot: string, endpoint: DaemonEndpoint, timeoutMs = 500): Promise<boolean> {
	if (!isAlive(endpoint.pid) || !isOwnSocket(endpoint.socket)) {
		return Promise.resolve(false);
	}
	return new Promise((resolve) => {
		let buffer = '';
		const socket = net.connect(endpoint.socket);
		const done = (ok: boolean): void => {
			clearTimeout(timer);
			socket.destroy();
			resolve(ok);
		};
		const timer = setTimeout(() => done(false), timeoutMs);
		socket.on('error', () => done(false));
		socket.on('connect', () => {
			const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'daemon/hello', params: { client: 'probe' } });
			socket.write(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
		});
		socket.on('data', (chunk) => {
			buffer += chunk.toString('utf8');
			const at = buffer.indexOf('\r\n\r\n');
			const length = /Content-Length: (\d+)/i.exec(buffer)?.[1];
			if (at < 0 || !length || Buffer.byteLength(buffer.slice(at + 4)) < Number(length)) {
				return;
			}
			try {
				const result = (JSON.parse(buffer.slice(at + 4)) as { result?: { instance?: string; workspace?: string } }).result;
				done(result?.instance === endpoint.instance && result.workspace === path.resolve(workspaceRoot));
			} catch {
				done(false);
			}
		});
	});
}

/**
 * Takes the start lock (O_EXCL): true when this process is the one daemon to start. A lock left by a
 * dead process, or by a live one that is no daemon and has held it longer than a start takes, is
 * stale and taken over.
 */
export async function acquireStartLock(workspaceRoot: string, instance: string): Promise<boolean> {
	const file = startLockFile(workspaceRoot);
	for (let attempt = 0; attempt < 3; attempt++) {
		// Created with its content in one step (a link of a finished file; it fails if the lock exists):
		// a rival never reads a lock that is still empty and takes it for a stale one.
		const mine = `${file}.${instance}`;
		fs.writeFileSync(mine, JSON.stringify({ pid: process.pid, instance, at: Date.now() }), { mode: privateFileMode });
		try {
			fs.linkSync(mine, file);
			return true;
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
				throw error;
			}
		} finally {
			fs.rmSync(mine, { force: true });
		}
		let holder: { pid?: number; instance?: string; at?: number } = {};
		try {
			holder = JSON.parse(fs.readFileSync(file, 'utf8')) as typeof holder;
		} catch {
			// Being written right now (or garbage): judge by its age below.
		}
		const endpoint = readEndpoint(workspaceRoot);
		if (endpoint && endpoint.instance === holder.instance && (await endpointAnswers(workspaceRoot, endpoint))) {
			return false;
		}
		const age = Date.now() - (holder.at ?? fs.statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? 0);
		// A young lock is held unless its holder is known dead (an unreadable one, e.g. written by an
		// older Baton that created it empty first, is not known dead).
		if (age < 10_000 && (typeof holder.pid !== 'number' || isAlive(holder.pid))) {
			return false;
		}
		fs.rmSync(file, { force: true });
	}
	return false;
}

export function releaseStartLock(workspaceRoot: string, instance: string): void {
	try {
		const holder = JSON.parse(fs.readFileSync(startLockFile(workspaceRoot), 'utf8')) as { instance?: string };
		if (holder.instance === instance) {
			fs.rmSync(startLockFile(workspaceRoot), { force: true });
		}
	} catch {
		// Already gone.
	}
}
