/**
 * The per-workspace daemon: one backend process every client shares (the CLI, agent hooks, editor
 * windows), on a Unix socket (a named pipe on Windows) that only this user can open, never a TCP port
 * (hook events alone also come over HTTP on 127.0.0.1: hookHttp.ts).
 * The CLI and hooks send `cli/run` / `hook/run`: the same command functions run here, against an
 * engine kept open between commands, with the client's argv, cwd, environment and stdin. Durability
 * stays the journal's: every write is appended (and fsynced) before its answer goes back.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { createMessageConnection, SocketMessageReader, SocketMessageWriter, type MessageConnection } from 'vscode-jsonrpc/node';
import { cliRun, daemonHello, daemonStatus, daemonStop, hookRun, type CliRunParams, type CliRunResult, type DaemonHelloParams } from '../protocol/rpc';
import { claudeLocalSettings, refreshClaudeLocal } from '../engine/agentConfig/connectAgent';
import { startHookHttp, type HookHttpEndpoint } from './hookHttp';
import { acquireStartLock, readEndpoint, releaseStartLock, removeEndpoint, socketPathFor, writeEndpoint } from './daemonEndpoint';

interface DaemonOptions {
	workspaceRoot: string;
	version: string;
	/** The CLI bundle whose `runCli` executes commands (loaded on first use: the editor alone never needs it). */
	cliModule: string;
	/** Shut down after this long with no client connected; 0: never (the editor's backend lives as long as its window). */
	idleMs: number;
	/** `debug` is the line per command and hook call: the editor's output shows it at its Debug level only, daemon.log always. */
	log(level: 'debug' | 'info' | 'warn' | 'error', message: string): void;
	/** The process's engine, which every command and hook runs with (the same the windows use). */
	engines: DaemonEngines;
	/** Each new connection: the editor's handlers are registered on it. */
	onConnection?(connection: MessageConnection): { dispose(): void } | undefined;
	/** A client said who it is: a window brings its settings. */
	onHello?(connection: MessageConnection, params: DaemonHelloParams): void;
	onShutdown?(): void;
	/** Serve hook events over HTTP on 127.0.0.1 too (hookHttp.ts); default true. */
	hookHttp?: boolean;
}

interface CliIoLike {
	stdout(text: string): void;
	stderr(text: string): void;
	cwd: string;
	env: NodeJS.ProcessEnv;
	stdin?: NodeJS.ReadableStream;
	engines?: DaemonEngines;
	requestId?: string;
	eventId?: string;
	/**
	 * The command has answered and hands the rest of its work to the daemon (a hook's session end):
	 * the client gets its answer now, and the next command waits for that work.
	 */
	defer?: (work: Promise<unknown>) => void;
}

/** The process's warm engine as commands see it (the CLI's EngineSource, structurally). */
interface DaemonEngines {
	acquire(workspaceRoot: string, io: { stderr(text: string): void; env: NodeJS.ProcessEnv }): Promise<unknown>;
	release(engine: unknown, workspaceRoot: string): void;
	/** Engines opened and lent so far (the log line says whether a command found the engine warm). */
	readonly opened: number;
	readonly lent: number;
	/** Runs one command as that client: what it does on its own behalf uses its environment's secrets only. */
	asCommand<T>(env: NodeJS.ProcessEnv, fn: () => Promise<T>): Promise<T>;
}
type RunCli = (argv: string[], io: CliIoLike) => Promise<number>;

export interface RunningDaemon {
	socket: string;
	instance: string;
	stop(): void;
}

/** Starts the daemon, or resolves undefined when another process won the election. */
export async function startDaemon(options: DaemonOptions): Promise<RunningDaemon | undefined> {
	const root = path.resolve(options.workspaceRoot);
	const instance = crypto.randomUUID();
	if (!(await acquireStartLock(root, instance))) {
		options.log('info', `another daemon serves ${root} (or is starting); exiting`);
		return undefined;
	}
	// Every file the daemon creates (the socket first) is this user's only.
	process.umask(0o077);
	const socketPath = socketPathFor(root);
	if (process.platform !== 'win32') {
		// A socket file left by a daemon that died (we hold the start lock, so it is no live daemon's).
		fs.rmSync(socketPath, { force: true });
	}
	const startedAt = Date.now();
	const connections = new Set<MessageConnection>();
	const engines = options.engines;
	let runCli: RunCli | undefined;
	let idleTimer: NodeJS.Timeout | undefined;
	let stopped = false;
	// eslint-disable-next-line prefer-const -- stop() (declared above the assignment) clears it; a const there would be in its temporal dead zone
	let watchdog: NodeJS.Timeout | undefined;
	// eslint-disable-next-line prefer-const -- as watchdog
	let drainer: NodeJS.Timeout | undefined;
	let hookHttp: HookHttpEndpoint | undefined;

	// Agent sessions whose tool calls come over HTTP (hookHttp.ts): no connection shows them, so the
	// daemon stays up from their start to their end (bounded by a long silence), or a long tool call
	// would find it gone.
	const agentSessions = new Set<string>();
	let lastAgentEvent = 0;
	const agentSilenceMs = Number(process.env['BATON_DAEMON_AGENT_IDLE_MS'] ?? '') || 12 * 3_600_000;
	const armIdle = (): void => {
		clearTimeout(idleTimer);
		if (connections.size === 0 && options.idleMs > 0) {
			idleTimer = setTimeout(() => {
				if (agentSessions.size > 0 && Date.now() - lastAgentEvent < agentSilenceMs) {
					armIdle();
					return;
				}
				options.log('info', `no client for ${Math.round(options.idleMs / 1000)} s: shutting down`);
				stop();
			}, options.idleMs);
		}
	};
	const agentActivity = (): void => {
		lastAgentEvent = Date.now();
		armIdle();
	};

	const queueBound = Number(process.env['BATON_DAEMON_QUEUE_MS'] ?? '');
	const queueMs = Number.isFinite(queueBound) && queueBound > 0 ? queueBound : 60_000;
	// Two lanes, each one command at a time in arrival order: long work (a large checkpoint, sync,
	// import, a repair) runs in its own, so hooks and short commands keep answering beside it.
	const lanes: Record<LaneName, Lane> = { short: newLane(), long: newLane() };

	const run = (params: CliRunParams, hook: boolean): Promise<CliRunResult> => {
		const argv = hook && params.argv[0] !== 'hook' ? ['hook', ...params.argv] : params.argv;
		if (hook && (argv[1] === 'session-start' || argv[1] === 'session-end')) {
			// An agent starts: its per-machine settings name this endpoint before its next start.
			const http = argv[1] === 'session-start' && followHookPort(root, hookHttp?.port, options);
			const id = sessionIdOf(params.stdin);
			if (http && id) {
				agentSessions.add(id);
				lastAgentEvent = Date.now();
			} else if (id) {
				agentSessions.delete(id);
			}
		}
		// The command words only: options may carry secrets, and the environment always does.
		const words = argv
			.filter((a) => !a.startsWith('-'))
			.slice(0, 2)
			.join(' ');
		const lane = lanes[laneOf(argv)];
		// A command waits for its turn at most `queueMs` (hooks: their client's spool bounds them); past
		// it, it is refused before it did anything, naming the command that holds its lane.
		let refused = false;
		let refuse: (answer: CliRunResult) => void = () => undefined;
		const refusal = new Promise<CliRunResult>((resolve) => (refuse = resolve));
		lane.waiting++;
		const turnTimer = hook
			? undefined
			: setTimeout(() => {
					refused = true;
					const running = lane.running;
					const holder = running
						? `behind \`baton ${running.words}\` (running for ${Math.round((Date.now() - running.since) / 1000)} s) and ${Math.max(0, lane.waiting - 1)} other command(s)`
						: `behind ${Math.max(0, lane.waiting - 1)} other command(s)`;
					options.log('warn', `cli/run ${words} refused: no turn within ${queueMs} ms ${holder.replace(/`/g, '')}`);
					refuse({
						stdout: '',
						stderr: `baton: not run: it waited ${Math.round(queueMs / 1000)} s for its turn in the workspace daemon, ${holder}; nothing was done. Run it again, or in a process of its own with --no-daemon\n`,
						exitCode: 1,
					});
				}, queueMs);
		// One command at a time per lane: commands were written for a process of their own, and the
		// journal's lock serialises writers anyway.
		const next = lane.queue.then(async () => {
			clearTimeout(turnTimer);
			lane.waiting--;
			if (refused) {
				return { answer: undefined, deferred: undefined };
			}
			lane.running = { words, since: Date.now() };
			try {
				return await runOne(params, hook, argv, words, lane === lanes.long);
			} finally {
				lane.running = undefined;
			}
		});
		// Work a command handed over after answering holds its lane: the next command sees its result.
		lane.queue = next.then((r) => r.deferred).catch(() => undefined);
		return Promise.race([next.then((r) => r.answer ?? refusal), refusal]);
	};

	const runOne = async (params: CliRunParams, hook: boolean, argv: string[], words: string, long: boolean): Promise<{ answer: CliRunResult; deferred: Promise<unknown> | undefined }> => {
		if (process.env['BATON_TEST_FAULTS'] === '1' && Number(params.env['BATON_TEST_COMMAND_HOLDS_MS'] ?? 0) > 0) {
			// Fault injection for the queue-bound test (a daemon started with BATON_TEST_FAULTS=1 only): a command that takes long.
			await new Promise((resolve) => setTimeout(resolve, Number(params.env['BATON_TEST_COMMAND_HOLDS_MS'])));
		}
		const runCommand = (runCli ??= (require(options.cliModule) as { runCli: RunCli }).runCli);
		if (process.env['BATON_TEST_FAULTS'] === '1' && params.env['BATON_TEST_DAEMON_SLOW_MS']) {
			// Fault injection for the spool test (a daemon started with BATON_TEST_FAULTS=1 only): a daemon
			// busy past the client's budget, which still runs the request once it gets to it.
			await new Promise((resolve) => setTimeout(resolve, Number(params.env['BATON_TEST_DAEMON_SLOW_MS'])));
		}
		const began = Date.now();
		// Long work says when it begins, and how long it held the event loop at most (what the lanes
		// cannot help: every client waits that long), measured by Node's own event loop delay monitor.
		const loop = long ? monitorEventLoopDelay({ resolution: 10 }) : undefined;
		if (loop) {
			loop.enable();
			options.log('debug', `cli/run ${words} began in the long lane`);
		}
		let stdout = '';
		let stderr = '';
		const openedBefore = engines.opened;
		const lentBefore = engines.lent;
		let deferred: Promise<unknown> | undefined;
		const exitCode = await engines.asCommand(params.env, () =>
			runCommand(argv, {
				stdout: (t) => void (stdout += t),
				stderr: (t) => void (stderr += t),
				cwd: params.cwd,
				// The client's environment, never the daemon's: actor, secrets and agent homes come from it.
				env: { ...params.env },
				stdin: Readable.from([params.stdin ?? '']),
				engines,
				...(params.requestId ? { requestId: params.requestId } : {}),
				...(params.eventId ? { eventId: params.eventId } : {}),
				defer: (work) => {
					deferred = work;
				},
			}),
		);
		if (process.env['BATON_TEST_FAULTS'] === '1' && params.env['BATON_TEST_DAEMON_DIES_BEFORE_ANSWER'] === '1') {
			// Fault injection for the exactly-once test (a daemon started with BATON_TEST_FAULTS=1 only): the
			// command is done and recorded, and its answer never leaves.
			process.kill(process.pid, 'SIGKILL');
		}
		// Whether the command found the engine warm or had to open it (first use, or files replaced).
		const opened = engines.opened > openedBefore;
		loop?.disable();
		// A hook that came over HTTP gets its line from the endpoint (hookHttp.ts: `hook/http …`).
		const logged = params.env['BATON_HOOK_TRANSPORT'] === 'http' ? () => undefined : options.log;
		logged(
			'debug',
			`${hook ? 'hook/run' : 'cli/run'} ${words} → exit ${exitCode} in ${Date.now() - began} ms${opened ? ' (opened the engine)' : engines.lent > lentBefore ? ' (warm engine)' : ''}${deferred ? ' (answered; the rest runs after)' : ''}${loop ? ` (event loop held up to ${Math.round(loop.max / 1e6)} ms at a stretch)` : ''}`,
		);
		return { answer: { stdout, stderr, exitCode }, deferred };
	};

	const server = net.createServer((socket) => {
		const connection = createMessageConnection(new SocketMessageReader(socket), new SocketMessageWriter(socket));
		connections.add(connection);
		clearTimeout(idleTimer);
		connection.onRequest(daemonHello, (params) => {
			options.onHello?.(connection, params);
			return { workspace: root, instance, pid: process.pid, version: options.version };
		});
		connection.onRequest(daemonStatus, () => ({ running: true, pid: process.pid, socket: socketPath, uptime: Math.round((Date.now() - startedAt) / 1000), clients: connections.size }));
		connection.onRequest(daemonStop, () => {
			// Stop once the asker has its answer (it hangs up) — exiting at once could beat the reply
			// out of the process, and the asker would report that no daemon ran. A silent asker gets 1 s.
			socket.once('close', () => stop());
			setTimeout(() => stop(), 1_000).unref();
			return { stopping: true };
		});
		connection.onRequest(cliRun, (params) => run(params, false));
		connection.onRequest(hookRun, (params) => run(params, true));
		const editor = options.onConnection?.(connection);
		const close = (): void => {
			if (connections.delete(connection)) {
				editor?.dispose();
				connection.dispose();
				armIdle();
			}
		};
		connection.onClose(close);
		socket.on('close', close);
		socket.on('error', () => close());
		connection.listen();
	});

	function stop(): void {
		if (stopped) {
			return;
		}
		stopped = true;
		clearTimeout(idleTimer);
		clearInterval(watchdog);
		clearInterval(drainer);
		hookHttp?.close();
		removeEndpoint(root, instance);
		releaseStartLock(root, instance);
		server.close();
		for (const connection of connections) {
			connection.dispose();
		}
		options.onShutdown?.();
	}

	try {
		await new Promise<void>((resolve, reject) => {
			server.once('error', reject);
			server.listen(socketPath, () => resolve());
		});
		if (process.platform !== 'win32') {
			fs.chmodSync(socketPath, 0o600);
		}
		writeEndpoint(root, { pid: process.pid, socket: socketPath, startedAt: new Date(startedAt).toISOString(), version: options.version, instance, workspace: root });
	} catch (error) {
		releaseStartLock(root, instance);
		throw error;
	}
	if (options.hookHttp !== false) {
		// Hosts that call hooks over HTTP (Claude Code's tool calls) reach this process with no process per call.
		hookHttp = await startHookHttp({
			workspaceRoot: root,
			run: (params) => run(params, true),
			log: (level, message) => options.log(level, message),
			onActivity: agentActivity,
			env: Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => typeof e[1] === 'string')),
		}).catch((error: Error) => {
			options.log('warn', `hook endpoint: not serving HTTP hooks (the command hooks still work): ${error.message}`);
			return undefined;
		});
		followHookPort(root, hookHttp?.port, options);
	}
	// Hook events spooled while no daemon answered in time: recorded in order, between commands.
	drainer = spoolDrainer(root, options, (work) => {
		const next = lanes.short.queue.then(work);
		lanes.short.queue = next.catch(() => undefined);
		return next;
	});
	// The workspace (or its endpoint file) gone, or taken over by another daemon: this one serves nobody.
	watchdog = setInterval(() => {
		if (readEndpoint(root)?.instance !== instance) {
			options.log('info', 'the endpoint file no longer names this daemon: shutting down');
			stop();
		}
	}, 2_000);
	watchdog.unref();
	options.log(
		'info',
		`daemon ${process.pid} serving ${root} on ${socketPath}${hookHttp ? ` and hook events on 127.0.0.1:${hookHttp.port}` : ''} ${options.idleMs > 0 ? `(idle shutdown after ${Math.round(options.idleMs / 1000)} s)` : '(for as long as its editor runs)'}`,
	);
	armIdle();
	return { socket: socketPath, instance, stop };
}

/** Claude Code's local settings follow the hook endpoint's port (agentConfig/connectAgent.ts: refreshClaudeLocal). */
function followHookPort(root: string, port: number | undefined, options: DaemonOptions): boolean {
	if (port === undefined) {
		return false;
	}
	try {
		const written = refreshClaudeLocal(root, port);
		if (written && written.action !== 'unchanged') {
			options.log('info', `hook endpoint: ${written.path} ${written.action} for port ${port}`);
		}
		return written !== undefined;
	} catch (error) {
		options.log('warn', `hook endpoint: ${claudeLocalSettings} not updated: ${(error as Error).message}`);
		return false;
	}
}

/** The agent's session id in a hook payload (`session_id`), if it has one. */
function sessionIdOf(stdin: string | undefined): string | undefined {
	try {
		const id = (JSON.parse(stdin ?? '') as { session_id?: unknown }).session_id;
		return typeof id === 'string' && id ? id : undefined;
	} catch {
		return undefined;
	}
}

/**
 * Every second while hook events wait in the spool, the daemon records them between commands (on
 * its one-command queue), with the CLI bundle's drain: docs/daemon.md, "The hook spool".
 */
function spoolDrainer(root: string, options: DaemonOptions, enqueue: (work: () => Promise<void>) => Promise<void>): NodeJS.Timeout {
	let draining = false;
	const drain = async (): Promise<void> => {
		const cli = require(options.cliModule) as { drainSpool?(root: string, engines: DaemonEngines): Promise<{ drained: number; dropped: number; left: number }> };
		const result = await options.engines.asCommand(process.env, async () => cli.drainSpool?.(root, options.engines));
		if (result && result.drained + result.dropped > 0) {
			options.log('info', `hook spool: drained ${result.drained}, dropped ${result.dropped}, ${result.left} left`);
		}
	};
	const timer = setInterval(() => {
		if (!draining && spoolWaiting(root)) {
			draining = true;
			void enqueue(drain)
				.catch((error: Error) => options.log('warn', `hook spool: ${error.message}`))
				.finally(() => (draining = false));
		}
	}, 1_000);
	timer.unref();
	return timer;
}

/** Whether hook events wait in the spool (cli/hookSpool.ts): one readdir. */
function spoolWaiting(root: string): boolean {
	try {
		return fs.readdirSync(path.join(root, '.baton', 'hook-spool')).some((name) => name.endsWith('.rec') || name.endsWith('.tmp'));
	} catch {
		return false;
	}
}

type LaneName = 'short' | 'long';

/** One lane of the daemon: its queue, the command running in it and how many wait (for a refusal that names what held it). */
interface Lane {
	queue: Promise<unknown>;
	running: { words: string; since: number } | undefined;
	waiting: number;
}

function newLane(): Lane {
	return { queue: Promise.resolve(), running: undefined, waiting: 0 };
}

/**
 * Commands whose work can take minutes on a large workspace or a slow remote: snapshots of the whole
 * tree and restores, sync, import and export (`import agents` reads every agent's history), repairs,
 * and search (its first run in a process builds the index: tens of seconds at 10,000 sessions, see
 * docs/search.md). Everything else (hooks included) is short.
 */
const longCommands = new Set([
	'checkpoint create',
	'checkpoint rollback',
	'timeline prune',
	'sync push',
	'sync pull',
	'sync retract',
	'import',
	'export',
	'provenance import',
	'provenance export',
	'transcripts sync',
	'issue sync',
	'doctor',
	'search',
]);

export function laneOf(argv: readonly string[]): LaneName {
	const words = argv.filter((a) => !a.startsWith('-'));
	if (words[0] === 'hook') {
		return 'short';
	}
	return longCommands.has(words.slice(0, 2).join(' ')) || longCommands.has(words[0] ?? '') ? 'long' : 'short';
}
