/**
 * Starting a process from Node costs the parent time in proportion to its own memory: libuv forks
 * on Linux, and fork copies the parent's page tables while the event loop waits. Measured here, a
 * `git --version` took 1.2 ms to start from a fresh Node and 25 ms once the process held 512 MB;
 * a long-running backend (the daemon, the editor's backend) holds the workspace database in
 * memory, so each of its git calls — several per sync, capture or checkpoint — blocked every client
 * for milliseconds.
 *
 * The spawner is a small Node process started while the backend is still small. Git calls go
 * through it: the request (args, working folder, environment) and the input go down its stdin,
 * git's output and exit come back up its stdout, as frames. A git call through it behaves as a
 * direct one (`runGit` cannot tell them apart); if the spawner goes, the calls in flight fail with
 * a clear error and every later call spawns directly (as do the calls made before it is ready).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import { hostEnv } from './gitEnv';

/** The spawner's own code (run with `node -e`: nothing to locate beside a bundle). */
const spawnerSource = `
process.title = 'baton git spawner';
const { spawn } = require('node:child_process');
const kids = new Map();
let pending = Buffer.alloc(0);
const send = (type, id, payload) => {
	const head = Buffer.alloc(9);
	head.writeUInt8(type, 0);
	head.writeUInt32LE(id, 1);
	head.writeUInt32LE(payload.length, 5);
	process.stdout.write(Buffer.concat([head, payload]));
};
const json = (value) => Buffer.from(JSON.stringify(value));
process.stdin.on('data', (chunk) => {
	pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
	while (pending.length >= 9) {
		const length = pending.readUInt32LE(5);
		if (pending.length < 9 + length) break;
		const type = pending[0];
		const id = pending.readUInt32LE(1);
		const payload = pending.subarray(9, 9 + length);
		pending = pending.subarray(9 + length);
		if (type === 1) {
			const request = JSON.parse(payload.toString('utf8'));
			let child;
			try {
				child = spawn(request.file, request.args, { cwd: request.cwd, env: request.env, stdio: ['pipe', 'pipe', 'pipe'], windowsHide: true });
			} catch (error) {
				send(8, id, json({ code: error.code, message: error.message }));
				continue;
			}
			kids.set(id, child);
			child.stdout.on('data', (data) => send(5, id, data));
			child.stderr.on('data', (data) => send(6, id, data));
			child.stdin.on('error', () => {});
			child.on('error', (error) => send(8, id, json({ code: error.code, message: error.message })));
			child.on('close', (code, signal) => {
				kids.delete(id);
				send(7, id, json({ code, signal }));
			});
		} else {
			const child = kids.get(id);
			if (!child) continue;
			if (type === 2) child.stdin.write(Buffer.from(payload));
			else if (type === 3) child.stdin.end();
			else if (type === 4) child.kill(payload.toString('utf8'));
		}
	}
});
process.stdin.on('end', () => process.exit(0));
send(9, 0, Buffer.alloc(0));
`;

const frame = { start: 1, input: 2, inputEnd: 3, kill: 4, stdout: 5, stderr: 6, exit: 7, error: 8, ready: 9 } as const;

/** What `runGit` uses of a child process; a call through the spawner provides the same. */
export interface GitChild extends EventEmitter {
	stdout: EventEmitter | null;
	stderr: EventEmitter | null;
	stdin: { end(data?: string | Buffer): void; on(event: 'error', listener: () => void): unknown } | null;
	kill(signal?: NodeJS.Signals): boolean;
}

class RemoteChild extends EventEmitter implements GitChild {
	readonly stdout = new EventEmitter();
	readonly stderr = new EventEmitter();
	readonly stdin;
	ended = false;

	constructor(
		private readonly spawner: GitSpawner,
		readonly id: number,
	) {
		super();
		this.stdin = {
			end: (data?: string | Buffer): void => {
				if (data !== undefined && data.length > 0) {
					spawner.send(frame.input, id, typeof data === 'string' ? Buffer.from(data) : data);
				}
				spawner.send(frame.inputEnd, id, Buffer.alloc(0));
			},
			on: (): unknown => this.stdin,
		};
	}

	kill(signal: NodeJS.Signals = 'SIGTERM'): boolean {
		if (!this.ended) {
			this.spawner.send(frame.kill, this.id, Buffer.from(signal));
		}
		return !this.ended;
	}
}

/** Input goes in frames of at most a pipe's chunk (the spawner gathers a whole frame before it forwards it). */
const maxFrame = 64 * 1024;

class GitSpawner {
	private readonly child: ChildProcess;
	private readonly calls = new Map<number, RemoteChild>();
	private next = 1;
	private received: Buffer = Buffer.alloc(0);
	private alive = true;
	/** Set by the spawner's first frame: until then (it is starting, or could not start) git is spawned directly. */
	private ready = false;
	private readonly settled: Promise<boolean>;
	private settle: (ready: boolean) => void = () => undefined;

	constructor(execPath: string = process.execPath) {
		this.settled = new Promise((resolve) => (this.settle = resolve));
		this.child = spawn(execPath, ['-e', spawnerSource], {
			stdio: ['pipe', 'pipe', 'ignore'],
			windowsHide: true,
			// The host's few variables only (no NODE_OPTIONS a debugger's auto-attach set, no secrets):
			// each git call brings its own environment. An Electron host runs it as plain Node.
			env: hostEnv({ ELECTRON_RUN_AS_NODE: '1' }),
		});
		this.child.stdin?.on('error', () => this.gone('its input closed'));
		this.child.stdout?.on('data', (chunk: Buffer) => this.receive(chunk));
		this.child.on('error', (error) => this.gone(error.message));
		this.child.on('exit', (code, signal) => this.gone(`it exited (${signal ?? code ?? 'unknown'})`));
		// Held until it is ready (a few tens of milliseconds); then only while a call is in flight.
	}

	get usable(): boolean {
		return this.alive && this.ready;
	}

	/** True once calls go through it; false if it ended before that. */
	whenReady(): Promise<boolean> {
		return this.settled;
	}

	get pid(): number | undefined {
		return this.child.pid;
	}

	spawn(file: string, args: readonly string[], options: { cwd: string; env: NodeJS.ProcessEnv }): GitChild {
		const id = this.next++;
		const call = new RemoteChild(this, id);
		this.calls.set(id, call);
		this.busy();
		this.send(frame.start, id, Buffer.from(JSON.stringify({ file, args, cwd: options.cwd, env: options.env })));
		return call;
	}

	/** Ends the spawner (its git calls in flight fail). */
	dispose(): void {
		this.child.stdin?.end();
		this.gone('it was stopped');
	}

	send(type: number, id: number, payload: Buffer): void {
		if (!this.alive) {
			return;
		}
		for (let at = 0; at < payload.length || at === 0; at += maxFrame) {
			const part = payload.subarray(at, at + maxFrame);
			const head = Buffer.alloc(9);
			head.writeUInt8(type, 0);
			head.writeUInt32LE(id, 1);
			head.writeUInt32LE(part.length, 5);
			this.child.stdin?.write(Buffer.concat([head, part]));
			if (payload.length === 0) {
				break;
			}
		}
	}

	private receive(chunk: Buffer): void {
		this.received = this.received.length > 0 ? Buffer.concat([this.received, chunk]) : chunk;
		while (this.received.length >= 9) {
			const length = this.received.readUInt32LE(5);
			if (this.received.length < 9 + length) {
				break;
			}
			const type = this.received[0];
			const id = this.received.readUInt32LE(1);
			const payload = this.received.subarray(9, 9 + length);
			this.received = this.received.subarray(9 + length);
			if (type === frame.ready) {
				this.ready = true;
				this.settle(true);
				if (this.calls.size === 0) {
					this.idle();
				}
				continue;
			}
			const call = this.calls.get(id);
			if (!call) {
				continue;
			}
			if (type === frame.stdout) {
				call.stdout.emit('data', Buffer.from(payload));
			} else if (type === frame.stderr) {
				call.stderr.emit('data', Buffer.from(payload));
			} else if (type === frame.error) {
				const { code, message } = JSON.parse(payload.toString('utf8')) as { code?: string; message: string };
				// Final for the call, as for `runGit` (a close that may follow is not waited for).
				this.finish(call);
				call.emit('error', Object.assign(new Error(message), { code }));
			} else if (type === frame.exit) {
				const { code, signal } = JSON.parse(payload.toString('utf8')) as { code: number | null; signal: NodeJS.Signals | null };
				this.finish(call);
				call.emit('close', code, signal);
			}
		}
	}

	private finish(call: RemoteChild): void {
		call.ended = true;
		this.calls.delete(call.id);
		if (this.calls.size === 0) {
			this.idle();
		}
	}

	private gone(why: string): void {
		if (!this.alive) {
			return;
		}
		this.alive = false;
		this.settle(false);
		for (const call of [...this.calls.values()]) {
			this.finish(call);
			call.emit('error', new Error(`the git spawner process ended while git ran: ${why}`));
		}
		if (spawner === this) {
			spawner = undefined;
		}
	}

	/** Keeps this process alive only while a call is in flight. */
	private busy(): void {
		this.child.ref();
		(this.child.stdout as Socket | null)?.ref();
	}

	private idle(): void {
		this.child.unref();
		(this.child.stdout as Socket | null)?.unref();
		(this.child.stdin as Socket | null)?.unref();
	}
}

let spawner: GitSpawner | undefined;

/**
 * Git calls of this process go through a spawner from now on: for long-running processes, started
 * early (while this process is small). Idempotent.
 */
export function useGitSpawner(execPath?: string): GitSpawner {
	spawner ??= new GitSpawner(execPath);
	return spawner;
}

/** The spawner git calls go through, if any (and still alive). */
export function activeGitSpawner(): GitSpawner | undefined {
	return spawner?.usable ? spawner : undefined;
}

/** Back to direct spawns (tests). */
export function stopGitSpawner(): void {
	spawner?.dispose();
	spawner = undefined;
}
