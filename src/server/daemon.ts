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
import { createMessageConnection, SocketMessageReader, SocketMessageWriter, type MessageConnection } from 'vscode-jsonrpc/node';
import { cliRun, daemonHello, daemonStatus, daemonStop, hookRun, type CliRunParams, type CliRunResult, type DaemonHelloParams } from '../protocol/rpc';
import { claudeLocalSettings, refreshClaudeLocal } from '../engine/agentConfig/connectAgent';
import { startHookHttp, type HookHttpEndpoint } from './hookHttp';
import type { CliBundle } from '../hookHost/cliBundle';
import { spoolDir } from '../hookHost/hookSpool';
import { commandRunner, type DaemonEngines } from './daemonCommands';
import { acquireStartLock, readEndpoint, releaseStartLock, removeEndpoint, socketPathFor, writeEndpoint } from './daemonEndpoint';

interface DaemonOptions {
	workspaceRoot: string;
	version: string;
	/** The CLI that executes commands, loaded on first use (the editor alone never needs it): bundledCli.ts. */
	cli: () => CliBundle;
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
	const socketPath = socketPathFor(root);
	const startedAt = Date.now();
	const connections = new Set<MessageConnection>();
	let stopped = false;
	// eslint-disable-next-line prefer-const -- stop() (declared above the assignment) clears it; a const there would be in its temporal dead zone
	let watchdog: NodeJS.Timeout | undefined;
	// eslint-disable-next-line prefer-const -- as watchdog
	let drainer: NodeJS.Timeout | undefined;
	let hookHttp: HookHttpEndpoint | undefined;

	const idle = new IdleShutdown(
		options.idleMs,
		() => connections.size === 0,
		() => {
			options.log('info', `no client for ${Math.round(options.idleMs / 1000)} s: shutting down`);
			stop();
		},
	);

	const { run, lanes } = commandRunner({
		log: options.log,
		cli: options.cli,
		engines: options.engines,
		onAgentSession: (hook, id) => {
			// An agent starts: its per-machine settings name this endpoint before its next start.
			idle.agentSession(id, hook === 'session-start' && followHookPort(root, hookHttp?.port, options));
		},
	});

	const server = net.createServer((socket) =>
		serveConnection(socket, {
			root,
			instance,
			socketPath,
			startedAt,
			connections,
			options,
			run,
			stop,
			opened: () => idle.clear(),
			closed: () => idle.arm(),
		}),
	);

	function stop(): void {
		if (stopped) {
			return;
		}
		stopped = true;
		idle.clear();
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

	await publish(server, { root, instance, socketPath, startedAt, version: options.version });
	if (options.hookHttp !== false) {
		hookHttp = await startHookEndpoint(root, options, run, idle);
	}
	// Hook events spooled while no daemon answered in time: recorded in order, between commands.
	drainer = spoolDrainer(root, options, (work) => {
		const next = lanes.short.queue.then(work);
		lanes.short.queue = next.catch(() => undefined);
		return next;
	});
	// The workspace (or its endpoint file) gone, or taken over by another daemon: this one serves nobody.
	watchdog = endpointWatchdog(root, instance, options, stop);
	options.log('info', servingLine(root, socketPath, hookHttp?.port, options.idleMs));
	idle.arm();
	return { socket: socketPath, instance, stop };
}

/** Listens on the socket and writes the endpoint file that names it; the start lock is given back when either fails. */
async function publish(
	server: net.Server,
	endpoint: { root: string; instance: string; socketPath: string; startedAt: number; version: string },
): Promise<void> {
	const { root, instance, socketPath, startedAt, version } = endpoint;
	try {
		await listenOn(server, socketPath);
		writeEndpoint(root, { pid: process.pid, socket: socketPath, startedAt: new Date(startedAt).toISOString(), version, instance, workspace: root });
	} catch (error) {
		releaseStartLock(root, instance);
		throw error;
	}
}

/** Every 2 s: once the endpoint file no longer names this daemon (the workspace gone, or another daemon took over), it stops. */
function endpointWatchdog(root: string, instance: string, options: DaemonOptions, stop: () => void): NodeJS.Timeout {
	const watchdog = setInterval(() => {
		if (readEndpoint(root)?.instance !== instance) {
			options.log('info', 'the endpoint file no longer names this daemon: shutting down');
			stop();
		}
	}, 2_000);
	watchdog.unref();
	return watchdog;
}

/** The log line a started daemon writes: where it serves, and until when. */
function servingLine(root: string, socketPath: string, hookPort: number | undefined, idleMs: number): string {
	return `daemon ${process.pid} serving ${root} on ${socketPath}${hookPort !== undefined ? ` and hook events on 127.0.0.1:${hookPort}` : ''} ${idleMs > 0 ? `(idle shutdown after ${Math.round(idleMs / 1000)} s)` : '(for as long as its editor runs)'}`;
}

/**
 * Shutting down after `idleMs` with no client connected. Agent sessions whose tool calls come over
 * HTTP (hookHttp.ts) show in no connection, so the daemon stays up from their start to their end
 * (bounded by a long silence), or a long tool call would find it gone.
 */
class IdleShutdown {
	private timer: NodeJS.Timeout | undefined;
	private readonly agentSessions = new Set<string>();
	private lastAgentEvent = 0;
	private readonly agentSilenceMs = Number(process.env['BATON_DAEMON_AGENT_IDLE_MS'] ?? '') || 12 * 3_600_000;

	constructor(
		private readonly idleMs: number,
		private readonly noClient: () => boolean,
		private readonly shutDown: () => void,
	) {}

	/** (Re)starts the wait, when no client is connected. */
	arm(): void {
		clearTimeout(this.timer);
		if (this.noClient() && this.idleMs > 0) {
			this.timer = setTimeout(() => {
				if (this.agentSessions.size > 0 && Date.now() - this.lastAgentEvent < this.agentSilenceMs) {
					this.arm();
					return;
				}
				this.shutDown();
			}, this.idleMs);
		}
	}

	clear(): void {
		clearTimeout(this.timer);
	}

	agentActivity(): void {
		this.lastAgentEvent = Date.now();
		this.arm();
	}

	/** A hook said an agent's session starts (`overHttp`: its tool calls come over HTTP) or ends. */
	agentSession(id: string | undefined, overHttp: boolean): void {
		if (overHttp && id) {
			this.agentSessions.add(id);
			this.lastAgentEvent = Date.now();
		} else if (id) {
			this.agentSessions.delete(id);
		}
	}
}

interface ConnectionContext {
	root: string;
	instance: string;
	socketPath: string;
	startedAt: number;
	connections: Set<MessageConnection>;
	options: DaemonOptions;
	run(params: CliRunParams, hook: boolean): Promise<CliRunResult>;
	stop(): void;
	opened(): void;
	closed(): void;
}

/** One client on the socket: hello, status and stop, its commands and hooks, and the editor's handlers. */
function serveConnection(socket: net.Socket, ctx: ConnectionContext): void {
	const { options, connections } = ctx;
	const connection = createMessageConnection(new SocketMessageReader(socket), new SocketMessageWriter(socket));
	connections.add(connection);
	ctx.opened();
	connection.onRequest(daemonHello, (params) => {
		options.onHello?.(connection, params);
		return { workspace: ctx.root, instance: ctx.instance, pid: process.pid, version: options.version };
	});
	connection.onRequest(daemonStatus, () => ({
		running: true,
		pid: process.pid,
		socket: ctx.socketPath,
		uptime: Math.round((Date.now() - ctx.startedAt) / 1000),
		clients: connections.size,
	}));
	connection.onRequest(daemonStop, () => {
		// Stop once the asker has its answer (it hangs up) — exiting at once could beat the reply
		// out of the process, and the asker would report that no daemon ran. A silent asker gets 1 s.
		socket.once('close', () => ctx.stop());
		setTimeout(() => ctx.stop(), 1_000).unref();
		return { stopping: true };
	});
	connection.onRequest(cliRun, (params) => ctx.run(params, false));
	connection.onRequest(hookRun, (params) => ctx.run(params, true));
	const editor = options.onConnection?.(connection);
	const close = (): void => {
		if (connections.delete(connection)) {
			editor?.dispose();
			connection.dispose();
			ctx.closed();
		}
	};
	connection.onClose(close);
	socket.on('close', close);
	socket.on('error', () => close());
	connection.listen();
}

/** Listens on the socket, which only this user can open. */
async function listenOn(server: net.Server, socketPath: string): Promise<void> {
	if (process.platform !== 'win32') {
		// A socket file left by a daemon that died (the caller holds the start lock, so it is no live daemon's).
		fs.rmSync(socketPath, { force: true });
	}
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		// Private from its creation (the bind is synchronous): the umask is narrowed for it alone. The
		// daemon keeps its starter's umask otherwise, so what it writes in the person's tree (an agent's
		// settings, an export) gets the modes a command run in its own process gives it; Baton's own files
		// are written private whatever the umask (engine/workspace.ts).
		const umask = process.platform === 'win32' ? undefined : process.umask(0o077);
		try {
			server.listen(socketPath, () => resolve());
		} finally {
			if (umask !== undefined) {
				process.umask(umask);
			}
		}
	});
	if (process.platform !== 'win32') {
		fs.chmodSync(socketPath, 0o600);
	}
}

/** Hook events over HTTP on 127.0.0.1 (hookHttp.ts), with Claude Code's local settings following its port; undefined when it cannot serve. */
async function startHookEndpoint(
	root: string,
	options: DaemonOptions,
	run: (params: CliRunParams, hook: boolean) => Promise<CliRunResult>,
	idle: IdleShutdown,
): Promise<HookHttpEndpoint | undefined> {
	// Hosts that call hooks over HTTP (Claude Code's tool calls) reach this process with no process per call.
	const endpoint = await startHookHttp({
		workspaceRoot: root,
		run: (params) => run(params, true),
		log: (level, message) => options.log(level, message),
		onActivity: () => idle.agentActivity(),
		env: Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => typeof e[1] === 'string')),
	}).catch((error: Error) => {
		options.log('warn', `hook endpoint: not serving HTTP hooks (the command hooks still work): ${error.message}`);
		return undefined;
	});
	followHookPort(root, endpoint?.port, options);
	return endpoint;
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

/**
 * Every second while hook events wait in the spool, the daemon records them between commands (on
 * its one-command queue), with the CLI bundle's drain: docs/daemon.md, "The hook spool".
 */
function spoolDrainer(root: string, options: DaemonOptions, enqueue: (work: () => Promise<void>) => Promise<void>): NodeJS.Timeout {
	let draining = false;
	const drain = async (): Promise<void> => {
		const cli = options.cli();
		const result = await options.engines.asCommand(process.env, () => cli.drainSpool(root, options.engines));
		if (result.drained + result.dropped > 0) {
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

/** Whether hook events wait in the spool (hookHost/hookSpool.ts): one readdir. */
function spoolWaiting(root: string): boolean {
	try {
		return fs.readdirSync(spoolDir(root)).some((name) => name.endsWith('.rec') || name.endsWith('.tmp'));
	} catch {
		return false;
	}
}
