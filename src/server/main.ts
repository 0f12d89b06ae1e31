/**
 * The backend process, language-server style: the extension forks it with an IPC channel, and it
 * owns the workspace's engine and answers JSON-RPC. stdout stays unused (IPC transport), so a stray
 * write cannot corrupt the protocol.
 *   node dist/server.js --workspace DIR [--config JSON] [--read-only]
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createMessageConnection, IPCMessageReader, IPCMessageWriter, type MessageConnection } from 'vscode-jsonrpc/node';
import type { BatonConfigInput } from '../engine/config';
import type { Logger } from '../engine/ports';
import { dataDidChange, serverLog } from '../protocol/rpc';
import { refreshLauncherSoon, registerAgentHandlers } from './agentHandlers';
import { runsOnEditorBinary } from '../engine/agentConfig/batonLauncher';
import { bundledCli } from './bundledCli';
import { startDaemon, type RunningDaemon } from './daemon';
import { DaemonBackend, type EditorSettings } from './daemonBackend';
import { isInitialized, mkdirPrivate, privateFileMode } from '../engine/workspace';
import { useGitSpawner } from '../engine/git/gitSpawner';
import { leanHeap } from './leanHeap';
import { registerCheckpointHandlers, registerHandlers } from './handlers';
import { registerInteropHandlers } from './interopHandlers';
import { registerProvenanceHandlers } from './provenanceHandlers';
import { registerSyncHandlers } from './syncHandlers';
import { registerNotificationHandlers } from './notificationHandlers';
import { registerTimelineHandlers } from './timelineHandlers';
import { registerSearchHandlers } from './searchHandlers';
import { registerBoardHandlers } from './boardHandlers';

function main(): void {
	// Set already when backend.js started this process; `node dist/server.js` sets it here.
	leanHeap();
	// Started while this process is small: its git calls then cost it no fork of a large heap (gitSpawner.ts).
	useGitSpawner();
	const values = serverArgs();
	if (values.workspace && values.daemon) {
		void runDaemon(values.workspace, values);
		return;
	}
	if (!values.workspace || !process.send) {
		process.stderr.write('usage: node server.js --workspace DIR [--config JSON] [--read-only] (started by the Baton extension with an IPC channel)\n');
		process.exit(2);
	}
	const connection = createMessageConnection(new IPCMessageReader(process), new IPCMessageWriter(process));
	const log: Logger = {
		info: (message) => void connection.sendNotification(serverLog, { level: 'info', message }),
		warn: (message) => void connection.sendNotification(serverLog, { level: 'warn', message }),
		error: (message) => void connection.sendNotification(serverLog, { level: 'error', message }),
	};
	const cliPath = path.resolve(values.cli ?? path.join(__dirname, 'cli.js'));
	const backend = new DaemonBackend({
		workspaceRoot: values.workspace,
		log,
		cliPath,
		readOnly: values['read-only'] === true,
		...(values['poll-ms'] ? { pollMs: Number(values['poll-ms']) } : {}),
		settings: {
			config: values.config ? (JSON.parse(values.config) as BatonConfigInput) : {},
			hostEnvironment: values['host-env'] ? (JSON.parse(values['host-env']) as EditorSettings['hostEnvironment']) : undefined,
		},
		checkpointTimer: values['checkpoint-timer'] === true,
		secretsFromProcessEnv: true,
	});
	// The forking window is the first editor: its SecretStorage is asked, and it hears every change.
	backend.addEditor(connection);
	// Forked by the editor: this Node is the editor's own binary, whatever it is.
	const shared = { workspace: values.workspace, cliPath, log, editorBinary: true };
	const agents = registerEditorHandlers(connection, backend, shared);
	const launcherRefresh = refreshLauncherSoon(shared);
	let daemon: RunningDaemon | undefined;
	const shutdown = (): void => {
		// The socket handed back (endpoint and lock removed), so the next window or command starts afresh.
		daemon?.stop();
		launcherRefresh.dispose();
		agents.dispose();
		backend.dispose();
		process.exit(0);
	};
	connection.onClose(shutdown);
	process.on('disconnect', shutdown);
	// The window restarts its backend with new settings by killing it: give the socket back first.
	process.on('SIGTERM', shutdown);
	connection.listen();
	log.info(`Baton server ${process.pid} serving ${values.workspace}${values['read-only'] ? ' (read-only: untrusted workspace)' : ''}`);
	if (values['serve-daemon'] && !values['read-only'] && isInitialized(values.workspace)) {
		// The editor's backend is the workspace's daemon too, when no other process is: the CLI and
		// hooks then run in this warm process, on this engine. Losing the election just means another one serves them.
		startDaemon({
			workspaceRoot: values.workspace,
			version: typeof values['baton-version'] === 'string' ? values['baton-version'] : 'unknown',
			cli: bundledCli,
			idleMs: 0,
			engines: backend,
			log: (level, message) =>
				level === 'debug' ? void connection.sendNotification(serverLog, { level, message: `daemon: ${message}` }) : log[level](`daemon: ${message}`),
			// Another window on this workspace connects here instead of starting a backend of its own.
			onConnection: (socketConnection) => socketClient(socketConnection, backend, shared),
			onHello: (socketConnection, hello) =>
				hello.client === 'editor' &&
				backend.addEditor(
					socketConnection,
					hello.editor && { config: hello.editor.config as BatonConfigInput, hostEnvironment: hello.editor.hostEnvironment },
				),
		}).then(
			(started) => {
				daemon = started;
			},
			(error: unknown) => log.warn(`could not serve the workspace's socket (the CLI and hooks run on their own): ${(error as Error).message}`),
		);
	}
}

/** The server's command line: the workspace, how the editor configured it, and whether it serves as the workspace's daemon. */
function serverArgs() {
	return parseArgs({
		options: {
			workspace: { type: 'string' },
			config: { type: 'string' },
			'read-only': { type: 'boolean' },
			'poll-ms': { type: 'string' },
			/** JSON {version, extensions}: what only the editor knows, recorded in checkpoints' environment. */
			'host-env': { type: 'string' },
			/** Keep the shadow index warm and take periodic checkpoints (the editor's backend does; tests may not). */
			'checkpoint-timer': { type: 'boolean' },
			/** Baton's CLI script, which agents run (default: `cli.js` beside this bundle). */
			cli: { type: 'string' },
			/** Serve every client of the workspace on its socket (see daemon.ts) instead of one editor over IPC. */
			daemon: { type: 'boolean' },
			/** Baton's version, recorded in the endpoint file (clients of another version start their own). */
			'baton-version': { type: 'string' },
			/** With IPC: also serve the workspace's socket as its daemon, if none does yet. */
			'serve-daemon': { type: 'boolean' },
		},
	}).values;
}

/** Daemon mode: clients come and go over the socket; the editor's handlers serve each connection. */
async function runDaemon(workspace: string, values: Record<string, string | boolean | undefined>): Promise<void> {
	const write = daemonLogWriter(workspace);
	// Its output is daemon.log: a full disk must not end the daemon through an unhandled write error.
	process.stdout.on('error', () => undefined);
	process.stderr.on('error', () => undefined);
	const log: Logger = { info: (m) => write('info', m), warn: (m) => write('warn', m), error: (m) => write('error', m) };
	const cliPath = path.resolve(typeof values['cli'] === 'string' ? values['cli'] : path.join(__dirname, 'cli.js'));
	const backend = new DaemonBackend({
		workspaceRoot: workspace,
		log,
		cliPath,
		readOnly: values['read-only'] === true,
		...(typeof values['poll-ms'] === 'string' ? { pollMs: Number(values['poll-ms']) } : {}),
		...(typeof values['config'] === 'string' ? { settings: { config: JSON.parse(values['config']) as BatonConfigInput } } : {}),
		checkpointTimer: values['checkpoint-timer'] === true,
		secretsFromProcessEnv: false,
	});
	const idle = Number(process.env['BATON_DAEMON_IDLE_MS'] ?? '');
	// Started by a `baton` client on the Node it runs on: a terminal's, unless that client ran on the editor's.
	const shared = { workspace, cliPath, log, editorBinary: runsOnEditorBinary() };
	refreshLauncherSoon(shared);
	try {
		const daemon = await startDaemon({
			workspaceRoot: workspace,
			version: typeof values['baton-version'] === 'string' ? values['baton-version'] : 'unknown',
			cli: bundledCli,
			idleMs: Number.isFinite(idle) && idle > 0 ? idle : 10 * 60_000,
			engines: backend,
			log: (level, message) => (level === 'debug' ? write('debug', message) : log[level](message)),
			onConnection: (connection) => socketClient(connection, backend, shared),
			onHello: (connection, hello) => {
				if (hello.client === 'editor') {
					// A window joined a backend a terminal started: its settings, secrets and periodic checkpoints from now on.
					backend.addEditor(
						connection,
						hello.editor && { config: hello.editor.config as BatonConfigInput, hostEnvironment: hello.editor.hostEnvironment },
					);
					backend.host.enableCheckpointTimer();
				}
			},
			onShutdown: () => {
				backend.dispose();
				process.exit(0);
			},
		});
		if (!daemon) {
			process.exit(0);
		}
		for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
			process.on(signal, () => daemon.stop());
		}
	} catch (error) {
		log.error(`the daemon could not start: ${(error as Error).message}`);
		process.exit(1);
	}
}

/** What every connection's handlers share: the workspace, the CLI agents run, the log, and whose Node this is. */
interface SharedOptions {
	workspace: string;
	cliPath: string;
	log: Logger;
	editorBinary: boolean;
}

/** The editor's handlers on one connection (a window over IPC or the socket), on the process's one engine. */
function registerEditorHandlers(connection: MessageConnection, backend: DaemonBackend, shared: SharedOptions): { dispose(): void } {
	const host = backend.host;
	registerHandlers(connection, host, shared.workspace);
	registerCheckpointHandlers(connection, host);
	registerInteropHandlers(connection, host);
	registerProvenanceHandlers(connection, host);
	registerSyncHandlers(connection, host);
	registerNotificationHandlers(connection, host);
	registerTimelineHandlers(connection, host, shared.log);
	registerSearchHandlers(connection, host, shared.log);
	registerBoardHandlers(connection, host);
	return registerAgentHandlers(connection, host, {
		workspaceRoot: shared.workspace,
		cliPath: shared.cliPath,
		log: shared.log,
		editorBinary: shared.editorBinary,
		onArchiveChange: () => backend.broadcast(dataDidChange, { external: true, sequence: -1 }),
	});
}

/** A client on the socket: any may use the editor's requests; a window (its hello says so) also hears changes. */
function socketClient(connection: MessageConnection, backend: DaemonBackend, shared: SharedOptions): { dispose(): void } {
	connection.onNotification(serverLog, () => undefined);
	backend.addListener(connection);
	const agents = registerEditorHandlers(connection, backend, shared);
	return {
		dispose: () => {
			backend.remove(connection);
			agents.dispose();
		},
	};
}

/**
 * The daemon's log is `.baton/logs/daemon.log`, whoever started it: a CLI client redirects the
 * daemon's stderr there, an editor or a test may not. When stderr already is that file, lines go to
 * stderr (one copy); otherwise they are appended to the file, and a file that cannot be written
 * leaves stderr as the only place.
 */
function daemonLogWriter(workspace: string): (level: string, message: string) => void {
	const file = path.join(workspace, '.baton', 'logs', 'daemon.log');
	let toFile = false;
	try {
		mkdirPrivate(path.dirname(file));
		const fd = fs.openSync(file, 'a', privateFileMode);
		fs.closeSync(fd);
		const target = fs.statSync(file);
		const stderr = fs.fstatSync(2);
		toFile = !(stderr.dev === target.dev && stderr.ino === target.ino);
	} catch {
		toFile = false;
	}
	return (level, message) => {
		const line = `${new Date().toISOString()} [${level}] ${message}\n`;
		if (toFile) {
			try {
				fs.appendFileSync(file, line, { mode: privateFileMode });
				return;
			} catch {
				// The folder went away (workspace deleted): stderr is what is left.
			}
		}
		try {
			// Synchronously and caught: stderr is a file here, and a write to a full disk emitted an error
			// that nothing handled, which ended the daemon in the middle of its clients' requests.
			fs.writeSync(2, line);
		} catch {
			// A full disk (or a closed stderr): the line is lost, the daemon goes on.
		}
	};
}

main();
