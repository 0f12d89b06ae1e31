/**
 * The client side of the workspace daemon, small enough for dist/cli.js (node builtins only: no
 * engine, no drizzle, no sql.js). Finds the daemon through `.baton/daemon.json`, checks it is the
 * one the file names (`daemon/hello`), starts it when there is none, and sends one request, all
 * within a short budget; a caller that gets `undefined` runs the command in its own process.
 * The wire format is JSON-RPC with Content-Length framing, what vscode-jsonrpc speaks on the other end.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { ContentLengthFrames } from './contentLengthFrames';

interface Endpoint {
	pid: number;
	socket: string;
	instance: string;
	workspace: string;
	version?: string;
}

export interface DaemonCallOptions {
	/** Start the daemon when none answers (`baton daemon status` only looks). */
	start: boolean;
	/** Milliseconds to reach (or start) the daemon; the request itself may take as long as it takes. */
	budgetMs: number;
	/** dist/server.js. */
	serverScript: string;
	version: string;
	/**
	 * Only a daemon of this same version runs the request (commands and hooks): after an update the
	 * previous version's daemon may still serve the workspace until it idles out, and it does not know
	 * what this version asks. Until then the caller runs the command in its own process.
	 */
	sameVersion?: boolean;
	/** The answer must come by then (ms since the epoch; a hook's budget): past it, `daemonTimedOut`. */
	deadline?: number;
}

/** callDaemon's answer when the daemon took the request and did not answer by the deadline (it may still run it). */
export const daemonTimedOut = Symbol('daemon timed out');

export function findBatonRoot(start: string): string | undefined {
	let dir = path.resolve(start);
	for (;;) {
		if (fs.statSync(path.join(dir, '.baton'), { throwIfNoEntry: false })?.isDirectory()) {
			return dir;
		}
		const parent = path.dirname(dir);
		if (parent === dir) {
			return undefined;
		}
		dir = parent;
	}
}

function readEndpoint(root: string): Endpoint | undefined {
	try {
		const value = JSON.parse(fs.readFileSync(path.join(root, '.baton', 'daemon.json'), 'utf8')) as Partial<Endpoint>;
		return typeof value.pid === 'number' && typeof value.socket === 'string' && typeof value.instance === 'string' ? (value as Endpoint) : undefined;
	} catch {
		return undefined;
	}
}

/** One JSON-RPC connection over the daemon's socket. */
class RpcSocket {
	private readonly frames = new ContentLengthFrames();
	private nextId = 1;
	private readonly pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
	/** The Baton version the endpoint file gives for this daemon (none, or 'unknown' when it was started without one). */
	version: string | undefined;

	private constructor(private readonly socket: net.Socket) {
		socket.on('data', (chunk: Buffer) => this.onData(chunk));
		const fail = (error: Error): void => {
			for (const p of this.pending.values()) {
				p.reject(error);
			}
			this.pending.clear();
		};
		socket.on('error', fail);
		socket.on('close', () => fail(new Error('the daemon closed the connection')));
	}

	static connect(socketPath: string, timeoutMs: number): Promise<RpcSocket> {
		return new Promise((resolve, reject) => {
			const socket = net.connect(socketPath);
			const timer = setTimeout(
				() => {
					socket.destroy();
					reject(new Error('timed out connecting to the daemon'));
				},
				Math.max(timeoutMs, 1),
			);
			socket.once('error', (error) => {
				clearTimeout(timer);
				reject(error);
			});
			socket.once('connect', () => {
				clearTimeout(timer);
				resolve(new RpcSocket(socket));
			});
		});
	}

	request(method: string, params: unknown): Promise<unknown> {
		const id = this.nextId++;
		const body = JSON.stringify({ jsonrpc: '2.0', id, method, params });
		return new Promise((resolve, reject) => {
			this.pending.set(id, { resolve, reject });
			this.socket.write(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
		});
	}

	close(): void {
		this.socket.destroy();
	}

	private onData(chunk: Buffer): void {
		let bodies: Buffer[];
		try {
			bodies = this.frames.push(chunk);
		} catch (error) {
			// Not the framing vscode-jsonrpc writes: nothing more can be read from this connection.
			this.socket.destroy(error as Error);
			return;
		}
		for (const body of bodies) {
			const message = JSON.parse(body.toString('utf8')) as { id?: number; method?: string; result?: unknown; error?: { message: string } };
			// Notifications (data changed, log lines) are the editor's business; requests to us have no answer.
			if (message.method !== undefined || typeof message.id !== 'number') {
				continue;
			}
			const pending = this.pending.get(message.id);
			this.pending.delete(message.id);
			if (message.error) {
				pending?.reject(new Error(message.error.message));
			} else {
				pending?.resolve(message.result);
			}
		}
	}
}

/** Connects to the daemon the endpoint file names, verified by `daemon/hello`; undefined when it is stale. */
async function connectVerified(root: string, timeoutMs: number): Promise<RpcSocket | undefined> {
	const endpoint = readEndpoint(root);
	if (!endpoint) {
		return undefined;
	}
	let rpc: RpcSocket | undefined;
	try {
		rpc = await RpcSocket.connect(endpoint.socket, timeoutMs);
		const hello = (await withTimeout(rpc.request('daemon/hello', { client: 'cli' }), timeoutMs)) as { instance?: string; workspace?: string };
		if (hello.instance === endpoint.instance && hello.workspace === path.resolve(root)) {
			rpc.version = endpoint.version;
			return rpc;
		}
	} catch {
		// Dead pid, reused pid, dead socket: all the same to a client.
	}
	rpc?.close();
	return undefined;
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
	return new Promise((resolve, reject) => {
		const timer = setTimeout(() => reject(new Error('timed out')), Math.max(ms, 1));
		promise.then(
			(v) => {
				clearTimeout(timer);
				resolve(v);
			},
			(e: unknown) => {
				clearTimeout(timer);
				reject(e as Error);
			},
		);
	});
}

/** Starts a daemon, detached, its output in `.baton/logs/daemon.log`; the election inside picks one. */
export function spawnDaemon(root: string, serverScript: string, version: string): void {
	const logs = path.join(root, '.baton', 'logs');
	// The store's private modes (engine/workspace.ts privateDirMode/privateFileMode), written out: the
	// hook client bundles no engine code (launcherBundle.test.ts).
	fs.mkdirSync(logs, { recursive: true, mode: 0o700 });
	const log = fs.openSync(path.join(logs, 'daemon.log'), 'a', 0o600);
	try {
		const child = spawn(process.execPath, [serverScript, '--daemon', '--workspace', root, '--baton-version', version], { detached: true, stdio: ['ignore', log, log], cwd: root, env: process.env });
		child.unref();
	} finally {
		fs.closeSync(log);
	}
}

/** Sends one request to the workspace's daemon; undefined when it cannot be reached within the budget. */
export async function callDaemon(root: string, method: string, params: unknown, options: DaemonCallOptions): Promise<unknown> {
	const deadline = Date.now() + options.budgetMs;
	let rpc = await connectVerified(root, options.budgetMs);
	if (rpc && options.sameVersion && rpc.version !== undefined && rpc.version !== 'unknown' && rpc.version !== options.version) {
		rpc.close();
		return undefined;
	}
	if (!rpc && options.start) {
		spawnDaemon(root, options.serverScript, options.version);
		while (!rpc && Date.now() < deadline) {
			await new Promise((resolve) => setTimeout(resolve, 10));
			rpc = await connectVerified(root, deadline - Date.now());
		}
	}
	if (!rpc) {
		return undefined;
	}
	try {
		const answer = rpc.request(method, params);
		if (options.deadline === undefined) {
			return await answer;
		}
		const late = Symbol('late');
		const first = await withTimeout(answer, options.deadline - Date.now()).catch((error: Error) => (error.message === 'timed out' ? late : Promise.reject(error)));
		return first === late ? daemonTimedOut : first;
	} catch {
		// The daemon died before answering: nothing was acknowledged, the caller runs it in process.
		return undefined;
	} finally {
		rpc.close();
	}
}
