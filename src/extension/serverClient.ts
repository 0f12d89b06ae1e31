/**
 * The only place that knows the backend is a process. When the workspace's daemon already runs (the
 * CLI, a hook or another window started it), it connects to it over its socket; otherwise it forks a
 * backend of its own that also serves that socket (`--serve-daemon`), so one process per workspace
 * answers everybody. Untrusted workspaces get a private read-only backend that serves nobody.
 * Restarts with backoff when the backend crashes, and gives up (offering the log) when it keeps crashing.
 */
import { fork, type ChildProcess } from 'node:child_process';
import * as vscode from 'vscode';
import { createMessageConnection, IPCMessageReader, IPCMessageWriter, type MessageConnection, type RequestType } from 'vscode-jsonrpc/node';
import type { NotificationShowDto } from '../protocol/notificationDto';
import { checkpointProgress, dataDidChange, notificationShow, secretGet, serverLog, type RpcErrorData } from '../protocol/rpc';
import { CommandIds } from './ids';
import { connectDaemon, type DaemonLink } from './daemonSocket';
import { Disposable } from './lifecycle';
import { version } from '../../package.json';
import { showErrorMessage } from './messages';

type ServerState = 'idle' | 'starting' | 'running' | 'restarting' | 'failed' | 'stopped';

interface ServerOptions {
	serverPath: string;
	workspaceRoot: string;
	config: Record<string, unknown>;
	readOnly: boolean;
	log: vscode.LogOutputChannel;
	/** VS Code's version and extensions, recorded in checkpoints' environment snapshots. */
	hostEnvironment: { version: string | null; extensions: Record<string, string> };
	/** Answers the backend's `secret/get` (keys are stored as `baton.<name>`). */
	secrets?: vscode.SecretStorage;
}

/** How long a window tries the workspace's daemon before starting a backend of its own. */
const daemonBudgetMs = 300;

const maxCrashes = 5;
const crashWindowMs = 3 * 60_000;

export class ServerClient extends Disposable {
	private child: ChildProcess | undefined;
	/** The workspace daemon this window talks to, when it did not start the backend itself. */
	private daemon: DaemonLink | undefined;
	private connection: MessageConnection | undefined;
	private starting: Promise<MessageConnection> | undefined;
	private crashes: number[] = [];
	private restartTimer: NodeJS.Timeout | undefined;
	private stateValue: ServerState = 'idle';
	private readonly dataEmitter = this.register(new vscode.EventEmitter<{ external: boolean; sequence: number }>());
	private readonly stateEmitter = this.register(new vscode.EventEmitter<ServerState>());
	/** Data changed: a write here, or another process's write (the CLI, an agent hook, another window). */
	readonly onDidChangeData = this.dataEmitter.event;
	readonly onDidChangeState = this.stateEmitter.event;
	private readonly progressEmitter = this.register(new vscode.EventEmitter<{ phase: string; done: number; total: number }>());
	/** Progress of a long snapshot (the first one of a workspace), for a progress indicator. */
	readonly onCheckpointProgress = this.progressEmitter.event;
	private readonly notificationEmitter = this.register(new vscode.EventEmitter<NotificationShowDto>());
	/** The backend's `editor` notification channel: a message to show. */
	readonly onNotification = this.notificationEmitter.event;

	constructor(private readonly options: ServerOptions) {
		super();
	}

	get state(): ServerState {
		return this.stateValue;
	}

	get workspaceRoot(): string {
		return this.options.workspaceRoot;
	}

	get pid(): number | undefined {
		return this.child?.pid ?? this.daemon?.pid;
	}

	/** Typed by the shared RequestType: params and result are checked at compile time. */
	async request<P, R>(type: RequestType<P, R, RpcErrorData>, params: P, token?: vscode.CancellationToken): Promise<R> {
		const connection = await this.start();
		return connection.sendRequest(type, params, token);
	}

	start(): Promise<MessageConnection> {
		if (this.connection) {
			return Promise.resolve(this.connection);
		}
		if (this.stateValue === 'failed') {
			return Promise.reject(new Error('Baton’s backend stopped after repeated crashes; run “Baton: Show Log” and reload the window.'));
		}
		this.starting ??= this.spawn().finally(() => {
			this.starting = undefined;
		});
		return this.starting;
	}

	override dispose(): void {
		this.setState('stopped');
		clearTimeout(this.restartTimer);
		this.connection?.dispose();
		this.connection = undefined;
		this.child?.kill();
		this.child = undefined;
		this.daemon?.dispose();
		this.daemon = undefined;
		super.dispose();
	}

	private async spawn(): Promise<MessageConnection> {
		this.setState(this.crashes.length > 0 ? 'restarting' : 'starting');
		// A read-only (untrusted) window never shares: the daemon writes, and this window must not.
		// BATON_DAEMON=0 or BATON_NO_DAEMON=1 in VS Code's environment keeps every window's backend private.
		const sharing = !this.options.readOnly && process.env['BATON_DAEMON'] !== '0' && process.env['BATON_NO_DAEMON'] !== '1';
		// A window that joins brings its settings; the backend asks its SecretStorage for secrets like the first window's.
		const hello = { client: 'editor' as const, editor: { config: this.options.config, hostEnvironment: this.options.hostEnvironment } };
		const shared = sharing ? await connectDaemon(this.options.workspaceRoot, daemonBudgetMs, hello, version).catch(() => undefined) : undefined;
		if (shared) {
			return this.attach(shared);
		}
		const args = ['--workspace', this.options.workspaceRoot, '--config', JSON.stringify(this.options.config)];
		if (this.options.readOnly) {
			args.push('--read-only');
		} else {
			args.push('--checkpoint-timer', '--host-env', JSON.stringify(this.options.hostEnvironment));
			if (sharing) args.push('--serve-daemon');
			args.push('--baton-version', version);
		}
		const child = fork(this.options.serverPath, args, {
			stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
			// VS Code's binary is Electron: run it as plain Node (as vscode-languageclient does).
			env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
			execArgv: [],
		});
		this.child = child;
		child.stderr?.on('data', (chunk: Buffer) => this.options.log.error(`[server] ${chunk.toString().trimEnd()}`));
		const connection = createMessageConnection(new IPCMessageReader(child), new IPCMessageWriter(child));
		this.listenTo(connection);
		connection.listen();
		child.on('exit', (code, signal) => this.onExit(child, code, signal));
		await new Promise<void>((resolve, reject) => {
			child.once('spawn', () => resolve());
			child.once('error', reject);
		});
		this.connection = connection;
		this.setState('running');
		this.options.log.info(`backend started (pid ${child.pid}) for ${this.options.workspaceRoot}`);
		return connection;
	}

	/** Talks to the workspace's daemon over its socket; when it goes away (its window closed), starts again. */
	private attach(link: DaemonLink): MessageConnection {
		const connection = link.connection;
		this.listenTo(connection);
		this.daemon = link;
		this.connection = connection;
		this.setState('running');
		this.options.log.info(`connected to the workspace's backend (pid ${link.pid}) for ${this.options.workspaceRoot}`);
		void link.closed.then(() => {
			if (this.daemon !== link || this.stateValue === 'stopped') {
				return;
			}
			this.daemon = undefined;
			this.connection?.dispose();
			this.connection = undefined;
			// Not a crash: the process serving the workspace stopped. Another one (maybe this window's) takes over.
			this.options.log.info(`the workspace's backend (pid ${link.pid}) stopped; starting again`);
			this.setState('restarting');
			void this.start().then(
				() => this.dataEmitter.fire({ external: true, sequence: -1 }),
				(error: unknown) => this.options.log.error(`backend restart failed: ${(error as Error).message}`),
			);
		});
		return connection;
	}

	private listenTo(connection: MessageConnection): void {
		connection.onNotification(serverLog, ({ level, message }) => this.options.log[level](`[server] ${message}`));
		connection.onNotification(dataDidChange, (change) => this.dataEmitter.fire(change));
		connection.onNotification(checkpointProgress, (progress) => this.progressEmitter.fire(progress));
		connection.onNotification(notificationShow, (notification) => this.notificationEmitter.fire(notification));
		connection.onRequest(secretGet, async ({ name }) => ({ value: (await this.options.secrets?.get(secretStorageKey(name))) ?? null }));
	}

	private onExit(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
		if (child !== this.child || this.stateValue === 'stopped') {
			return;
		}
		this.connection?.dispose();
		this.connection = undefined;
		this.child = undefined;
		const now = Date.now();
		this.crashes = [...this.crashes.filter((t) => now - t < crashWindowMs), now];
		if (this.crashes.length >= maxCrashes) {
			this.setState('failed');
			this.options.log.error(
				`backend exited (${signal ?? `code ${code}`}) ${this.crashes.length} times in ${crashWindowMs / 60_000} minutes; not restarting it again`,
			);
			void showErrorMessage('Baton’s backend keeps crashing, so Baton stopped restarting it.', 'Show Log').then((choice) => {
				if (choice === 'Show Log') {
					void vscode.commands.executeCommand(CommandIds.showLog);
				}
			});
			return;
		}
		const delay = Math.min(500 * 2 ** (this.crashes.length - 1), 15_000);
		this.options.log.warn(`backend exited (${signal ?? `code ${code}`}); restarting in ${delay} ms (crash ${this.crashes.length} of ${maxCrashes})`);
		this.setState('restarting');
		this.restartTimer = setTimeout(() => {
			void this.start().then(
				() => this.dataEmitter.fire({ external: true, sequence: -1 }),
				(error: unknown) => this.options.log.error(`backend restart failed: ${(error as Error).message}`),
			);
		}, delay);
	}

	private setState(state: ServerState): void {
		if (state !== this.stateValue) {
			this.stateValue = state;
			this.stateEmitter.fire(state);
		}
	}
}

/** The SecretStorage key of one of the engine's secret names (`github.token` → `baton.github.token`). */
export function secretStorageKey(name: string): string {
	return `baton.${name}`;
}
