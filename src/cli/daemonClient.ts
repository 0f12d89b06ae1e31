/**
 * The client side of the workspace daemon, small enough for dist/cli.js (node builtins only: no
 * engine, no drizzle, no sql.js). Finds the daemon through `.baton/daemon.json`, checks it is the
 * one the file names (`daemon/hello`), has it started when there is none (one client spawns it, the
 * others wait for it: daemonStart.ts), and sends one request. Every wait is bounded: a daemon being
 * started has `budgetMs` to answer, and a daemon that answers nothing — not the request, not the
 * `daemon/status` pings sent every second meanwhile — for `answerMs` is stopped or wedged: it is
 * ended, the person is told, and the caller (given `undefined`) runs the command in its own process.
 * The wire format is JSON-RPC with Content-Length framing, what vscode-jsonrpc speaks on the other end.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { ContentLengthFrames } from './contentLengthFrames';
import { pidAlive } from '../hookHost/pidAlive';
import { claimStart, releaseClaim, spawnDaemon, startState } from './daemonStart';
// The endpoint file is read only when it is this user's own, its socket only when this user's (engine/ownFiles.ts: a file a repository carried names any socket and pid).
import { daemonEndpointFile, isOwnSocket, readDaemonEndpoint as readEndpoint, runsDaemonOf, type DaemonEndpoint as Endpoint } from '../engine/ownFiles';

interface DaemonCallOptions {
	/** Start the daemon when none answers (`baton daemon status` only looks). */
	start: boolean;
	/** Milliseconds to wait for a daemon being started (by this client or another) to answer. */
	budgetMs: number;
	/**
	 * A daemon that answers nothing for this long (default `defaultAnswerMs`) is stopped or wedged. A
	 * request may take as long as its command takes while the daemon answers the pings.
	 */
	answerMs?: number;
	/** dist/backend.js, which starts dist/server.js through its code cache. */
	serverScript: string;
	version: string;
	/**
	 * Only a daemon of this same version runs the request (commands and hooks): after an update the
	 * previous version's daemon may still serve the workspace until it idles out, and it does not know
	 * what this version asks. Until then the caller runs the command in its own process.
	 */
	sameVersion?: boolean;
	/** Tells the person what happened when the daemon had to be given up on (its stderr, or the hooks' log). */
	notice?(message: string): void;
	/** The answer must come by then (ms since the epoch; a hook's budget): past it, `daemonTimedOut`. */
	deadline?: number;
}

/** callDaemon's answer when the daemon took the request and did not answer by the deadline (it may still run it). */
export const daemonTimedOut = Symbol('daemon timed out');

/** The default bound on a daemon's silence (`BATON_DAEMON_ANSWER_MS`): docs/daemon.md. */
const defaultAnswerMs = 5_000;
/** How often a waiting client asks the daemon whether it is there. */
const pingMs = 1_000;

/** The daemon answered nothing within the bound. */
class SilentDaemon extends Error {
	constructor(
		readonly silentMs: number,
		readonly why: 'stopped' | 'wedged',
	) {
		super(`no answer for ${silentMs} ms (${why})`);
	}
}

/**
 * What /proc says of a process: stopped (SIGSTOP, Ctrl-Z) and the CPU time it used so far (clock
 * ticks). Undefined where there is no /proc: a silent daemon there is ended at the plain bound.
 */
function processState(pid: number): { stopped: boolean; cpu: number } | undefined {
	try {
		const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
		const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
		// After the name: state (3rd field of the line), …, utime (14th) and stime (15th).
		return { stopped: fields[0] === 'T' || fields[0] === 't', cpu: Number(fields[11]) + Number(fields[12]) };
	} catch {
		return undefined;
	}
}

/** The promise, or a rejection 'timed out' after `ms`. */
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

/** One JSON-RPC connection over the daemon's socket. */
class RpcSocket {
	private readonly frames = new ContentLengthFrames();
	private nextId = 1;
	private readonly pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
	/** When the daemon last sent anything on this connection. */
	private heardAt = Date.now();
	private watch: NodeJS.Timeout | undefined;

	private constructor(private readonly socket: net.Socket) {
		socket.on('data', (chunk: Buffer) => {
			this.heardAt = Date.now();
			this.onData(chunk);
		});
		socket.on('error', (error) => this.fail(error));
		socket.on('close', () => this.fail(new Error('the daemon closed the connection')));
	}

	private fail(error: Error): void {
		clearInterval(this.watch);
		for (const p of this.pending.values()) {
			p.reject(error);
		}
		this.pending.clear();
	}

	/**
	 * While a request waits, asks `daemon/status` every second (answered by the daemon's event loop
	 * whatever command runs) and fails every pending request with SilentDaemon once nothing at all
	 * came back for `answerMs` while the daemon used no CPU (wedged, or stopped). A daemon that keeps
	 * using the CPU is busy in a long synchronous step (an import or a first push of a large history),
	 * however long it takes: ending it threw its work away and ran the command again in the client's
	 * own process (at 10,000 sessions an import and a push outlasted any fixed bound).
	 */
	watchSilence(answerMs: number, pid: number): void {
		this.heardAt = Date.now();
		let cpu = processState(pid)?.cpu;
		this.watch = setInterval(
			() => {
				const silent = Date.now() - this.heardAt;
				const now = processState(pid);
				const busy = now !== undefined && !now.stopped && cpu !== undefined && now.cpu > cpu;
				cpu = now?.cpu;
				if (silent >= answerMs && !busy) {
					this.fail(new SilentDaemon(silent, now?.stopped ? 'stopped' : 'wedged'));
					return;
				}
				this.request('daemon/status', null).catch(() => undefined);
			},
			Math.min(pingMs, Math.max(answerMs / 4, 10)),
		);
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
		clearInterval(this.watch);
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

type Outcome = { kind: 'answered'; value: unknown } | { kind: 'unreachable' } | { kind: 'unusable' } | { kind: 'silent'; error: SilentDaemon };

/**
 * One attempt on the daemon the endpoint file names: verified by `daemon/hello`, then the request,
 * both watched for silence. `unreachable`: a stale endpoint (dead socket, another instance, gone while
 * greeting), start another; `unusable`: another version, or it died after taking the request.
 */
async function callEndpoint(root: string, endpoint: Endpoint, method: string, params: unknown, options: DaemonCallOptions, answerMs: number): Promise<Outcome> {
	if (!isOwnSocket(endpoint.socket)) {
		// Gone, or not this user's: the command line, environment and input a request carries go to no one else.
		return { kind: 'unreachable' };
	}
	let rpc: RpcSocket;
	try {
		rpc = await RpcSocket.connect(endpoint.socket, answerMs);
	} catch (error) {
		return (error as Error).message === 'timed out connecting to the daemon'
			? { kind: 'silent', error: new SilentDaemon(answerMs, processState(endpoint.pid)?.stopped ? 'stopped' : 'wedged') }
			: { kind: 'unreachable' };
	}
	rpc.watchSilence(answerMs, endpoint.pid);
	try {
		let hello: { instance?: string; workspace?: string };
		try {
			hello = (await rpc.request('daemon/hello', { client: 'cli' })) as typeof hello;
		} catch (error) {
			return error instanceof SilentDaemon ? { kind: 'silent', error } : { kind: 'unreachable' };
		}
		if (hello.instance !== endpoint.instance || hello.workspace !== path.resolve(root)) {
			return { kind: 'unreachable' };
		}
		if (options.sameVersion && endpoint.version !== undefined && endpoint.version !== 'unknown' && endpoint.version !== options.version) {
			return { kind: 'unusable' };
		}
		try {
			const answer = rpc.request(method, params);
			if (options.deadline === undefined) {
				return { kind: 'answered', value: await answer };
			}
			// A hook's budget: past its deadline the caller spools the event (the daemon may still run it; the event id keeps it once).
			const late = Symbol('late');
			const first = await withTimeout(answer, options.deadline - Date.now()).catch((error: Error) =>
				error.message === 'timed out' ? late : Promise.reject(error),
			);
			return { kind: 'answered', value: first === late ? daemonTimedOut : first };
		} catch (error) {
			// Silent: stopped or wedged. Otherwise it died before answering: nothing was acknowledged.
			return error instanceof SilentDaemon ? { kind: 'silent', error } : { kind: 'unusable' };
		}
	} finally {
		rpc.close();
	}
}

/**
 * A daemon that answers nothing is ended (SIGKILL reaches a stopped process too), so that it cannot
 * wake up later and run the request a second time, and its lock on the journal is stale at once; its
 * endpoint file goes with it, so the next client starts a new daemon.
 */
function endSilentDaemon(root: string, endpoint: Endpoint, silence: SilentDaemon, options: DaemonCallOptions): void {
	const now = readEndpoint(root);
	// Only a process the system says runs this workspace's daemon (where it can tell): a stale file's pid may be any process's now.
	const ours = runsDaemonOf(endpoint.pid, root) !== false;
	if (now?.instance === endpoint.instance && now.pid === endpoint.pid) {
		if (ours) {
			try {
				process.kill(endpoint.pid, 'SIGKILL');
			} catch {
				// Gone already.
			}
		}
		if (readEndpoint(root)?.instance === endpoint.instance) {
			fs.rmSync(daemonEndpointFile(root), { force: true });
		}
	}
	options.notice?.(
		`the workspace daemon (pid ${endpoint.pid}) answered nothing for ${Math.round(silence.silentMs / 1000)} s (${silence.why}): ${ours ? 'it was ended' : 'that pid runs no daemon of this workspace, so it was left alone'} and this command runs in its own process; the next command starts a new daemon`,
	);
}

/** Sends one request to the workspace's daemon; undefined when the caller should run it in its own process. */
export async function callDaemon(root: string, method: string, params: unknown, options: DaemonCallOptions): Promise<unknown> {
	const answerMs = options.answerMs ?? defaultAnswerMs;
	const deadline = Date.now() + options.budgetMs;
	let spawned = false;
	try {
		for (;;) {
			const endpoint = readEndpoint(root);
			if (endpoint && pidAlive(endpoint.pid)) {
				// A hook listens only until its deadline: a daemon silent that long may just be busy or
				// stopped for a moment; the hook spools its event and the daemon drains it when it can.
				const listenMs = options.deadline === undefined ? answerMs : Math.max(1, Math.min(answerMs, options.deadline - Date.now()));
				const outcome = await callEndpoint(root, endpoint, method, params, options, listenMs);
				if (outcome.kind === 'answered') {
					return outcome.value;
				}
				if (outcome.kind === 'unusable') {
					return undefined;
				}
				if (outcome.kind === 'silent') {
					// Only a client that may start daemons ends one (`baton daemon status` only looks), and only
					// after the whole silence bound: not a hook that stopped listening at its own deadline.
					if (options.start && listenMs >= answerMs) {
						endSilentDaemon(root, endpoint, outcome.error, options);
					}
					return undefined;
				}
			}
			if (!options.start || Date.now() >= deadline) {
				return undefined;
			}
			const state = startState(root);
			if (state === 'failed') {
				// The daemon spawned for this start exited, and no elected daemon holds the start lock. Either
				// one won the election instead and has just begun serving (it writes its endpoint before it lets
				// the lock go, so an endpoint read now shows it: the endpoint read above may have been a moment
				// too early), or none could start (its log says why) and this client runs the command itself.
				const serving = readEndpoint(root);
				if (serving && serving.instance !== endpoint?.instance && pidAlive(serving.pid)) {
					continue;
				}
				return undefined;
			}
			if (state === 'none' && !spawned && claimStart(root)) {
				spawned = true;
				// A daemon that began serving (and whose starter let the claim go) since the endpoint was read.
				const serving = readEndpoint(root);
				if (!serving || serving.instance === endpoint?.instance || !pidAlive(serving.pid)) {
					spawnDaemon(root, options.serverScript, options.version);
				}
			}
			await new Promise((resolve) => setTimeout(resolve, 20));
		}
	} catch {
		// The claim cannot be written (a full disk): no daemon could start there either.
		return undefined;
	} finally {
		if (spawned) {
			releaseClaim(root);
		}
	}
}
