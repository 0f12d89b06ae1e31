/**
 * What one backend process shares among its clients: the workspace's one EngineHost (editor
 * requests, CLI commands and agent hooks all use its engine: one journal handle, one set of warm
 * caches), the editor windows connected to it (over IPC or the socket), and which command runs now.
 *
 * Secrets and settings belong to the workspace, not to whichever window started the process: every
 * window that connects brings its settings (the last one to speak wins) and its SecretStorage is asked
 * in turn, newest window first, before the process's own environment. Data changes and `editor`
 * notifications go to every connected window.
 *
 * Several commands may hold the engine at once (the daemon's lanes, docs/daemon.md): what belongs to
 * one command — its environment, where its warnings go — is async-local, never per-process state.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import fs from 'node:fs';
import path from 'node:path';
import type { MessageConnection, NotificationType } from 'vscode-jsonrpc/node';
import type { BatonConfigInput } from '../engine/config';
import { Engine } from '../engine/engine';
import type { EditorPresenter } from '../engine/notifications/notificationService';
import type { Logger } from '../engine/ports';
import { logLine } from '../engine/text/controlChars';
import { envSecretSource, type SecretSource } from '../engine/secrets';
import type { NotificationShowDto } from '../protocol/notificationDto';
import { checkpointProgress, dataDidChange, notificationShow, secretGet } from '../protocol/rpc';
import { EngineGate } from './engineGate';
import { EngineHost } from './engineHost';
import { importProcess } from './importProcess';

/** How long one window may take to answer `secret/get` before the next source is asked. */
const secretAskMs = 2_000;

export interface EditorSettings {
	config: BatonConfigInput;
	hostEnvironment?: { version: string | null; extensions: Record<string, string> } | undefined;
}

interface DaemonBackendOptions {
	workspaceRoot: string;
	/** Where the process's own messages go (the forking window's output, or `.baton/logs/daemon.log`). */
	log: Logger;
	readOnly: boolean;
	pollMs?: number;
	/** The settings the process was started with (the forking window's, or none for a daemon a terminal started). */
	settings?: EditorSettings;
	checkpointTimer: boolean;
	/**
	 * The process's own environment is a last source of secrets: VS Code's, for a window's backend. A
	 * daemon a terminal started has that terminal's, which is no other client's: there it is not used.
	 */
	secretsFromProcessEnv: boolean;
	/** Baton's CLI script: large imports run in a process of their own with it (importProcess.ts). */
	cliPath?: string;
}

/** A command holding the engine: its warnings and its environment's secrets. */
interface CommandIo {
	stderr(text: string): void;
	env: NodeJS.ProcessEnv;
}

/** What one command's async call chain carries (see asCommand): its environment, and its io once it holds the engine. */
interface CommandScope {
	env: NodeJS.ProcessEnv;
	io: CommandIo | undefined;
}

interface Signature {
	snapshot: string;
	journal: { ino: number; size: number; mtimeMs: number } | undefined;
}

export class DaemonBackend {
	readonly host: EngineHost;
	/** Windows, oldest first: secrets are asked newest first. */
	private readonly editors: MessageConnection[] = [];
	/** Every connection that hears data changes and checkpoint progress (windows; CLI connections never listen). */
	private readonly listeners = new Set<MessageConnection>();
	/** The command this async call chain runs for (see asCommand). */
	private readonly commandScope = new AsyncLocalStorage<CommandScope>();
	/** Commands share the engine; reopening it waits for them and keeps new ones out meanwhile. */
	private readonly gate = new EngineGate();
	private signature: Signature | undefined;
	private readonly root: string;
	/** Engines opened for commands (the daemon's log says whether a command found the engine warm). */
	opened = 0;
	lent = 0;

	constructor(private readonly options: DaemonBackendOptions) {
		this.root = path.resolve(options.workspaceRoot);
		const base = options.log;
		// The engine's warnings on a command's behalf are that command's, as in a process of its own;
		// the others (background work, a window's request) are the process's.
		const commandIo = (): CommandIo | undefined => this.commandScope.getStore()?.io;
		const log: Logger = {
			info: (message) => base.info(message),
			warn: (message) => {
				const io = commandIo();
				return io ? io.stderr(logLine('warning', message)) : base.warn(message);
			},
			error: (message) => {
				const io = commandIo();
				return io ? io.stderr(logLine('error', message)) : base.error(message);
			},
		};
		const secrets: SecretSource = { get: (name) => this.secret(name) };
		const presenter: EditorPresenter = async ({ id, message }) => {
			const dto: NotificationShowDto = { id, ...message };
			if (this.editors.length === 0) {
				throw new Error('no editor window is connected');
			}
			await Promise.all(this.editors.map((c) => c.sendNotification(notificationShow, dto).catch(() => undefined)));
		};
		this.host = new EngineHost({
			secrets,
			workspaceRoot: options.workspaceRoot,
			config: options.settings?.config ?? {},
			log,
			readOnly: options.readOnly,
			...(options.pollMs !== undefined ? { pollMs: options.pollMs } : {}),
			onDidChange: (external, sequence) => this.broadcast(dataDidChange, { external, sequence }),
			hostEnvironment: options.settings?.hostEnvironment,
			checkpointTimer: options.checkpointTimer,
			onCheckpointProgress: (p) => this.broadcast(checkpointProgress, { ...p, message: null }),
			editorPresenter: presenter,
			editorSettings: options.settings !== undefined,
			// The files as the engine itself left them: a command finds it warm unless someone else replaced them.
			onFilesSettled: () => {
				this.signature = signatureOf(this.root);
			},
			inUse: () => this.gate.held > 0,
			...(options.cliPath ? { importProcess: importProcess({ workspaceRoot: options.workspaceRoot, cliPath: options.cliPath, log: base }) } : {}),
		});
	}

	/** A window (IPC or socket): it hears changes and notifications, and its SecretStorage is asked. */
	addEditor(connection: MessageConnection, settings?: EditorSettings): void {
		if (!this.editors.includes(connection)) {
			this.editors.push(connection);
		}
		this.listeners.add(connection);
		if (settings) {
			// Never under a running command's feet: settings that reopen the engine wait until nobody holds
			// it (newcomers wait meanwhile); the same settings again (every window's hello) wait for nobody.
			const apply = (): Promise<void> => this.host.applySettings(settings.config, settings.hostEnvironment);
			void (this.host.reopensFor(settings.config) ? this.gate.exclusive(apply) : apply()).catch((error: unknown) =>
				this.options.log.warn(`could not apply a window's settings: ${(error as Error).message}`),
			);
		}
	}

	/** Any connection that registered the editor's handlers hears data changes too. */
	addListener(connection: MessageConnection): void {
		this.listeners.add(connection);
	}

	remove(connection: MessageConnection): void {
		const at = this.editors.indexOf(connection);
		if (at >= 0) {
			this.editors.splice(at, 1);
		}
		this.listeners.delete(connection);
	}

	get editorCount(): number {
		return this.editors.length;
	}

	broadcast<P>(type: NotificationType<P>, params: P): void {
		for (const c of this.listeners) {
			void c.sendNotification(type, params).catch(() => undefined);
		}
	}

	/** Runs a CLI command or hook as its client (daemon.ts): its own deliveries use its environment's secrets. */
	asCommand<T>(env: NodeJS.ProcessEnv, fn: () => Promise<T>): Promise<T> {
		return this.commandScope.run({ env, io: undefined }, fn);
	}

	/**
	 * What a command does on its own behalf (its bounded flush) uses its environment only, as in a
	 * process of its own: never a window's SecretStorage, which could be busy (a window that runs the
	 * command synchronously would never answer). Everything else (background deliveries, a window's
	 * test send) asks each window's SecretStorage, newest first, then (a window's backend) VS Code's environment.
	 */
	private async secret(name: Parameters<SecretSource['get']>[0]): Promise<string | undefined> {
		const commandEnv = this.commandScope.getStore()?.env;
		if (commandEnv) {
			return envSecretSource(commandEnv).get(name);
		}
		for (const editor of [...this.editors].reverse()) {
			const value = await Promise.race([
				editor.sendRequest(secretGet, { name }).then(
					(r) => r.value ?? undefined,
					() => undefined,
				),
				new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), secretAskMs).unref()),
			]);
			if (value) {
				return value;
			}
		}
		return this.options.secretsFromProcessEnv ? envSecretSource(process.env).get(name) : undefined;
	}

	/**
	 * The engine a CLI command or hook runs with: the host's, the same the windows use. It is opened
	 * again when its files were replaced behind its back (a restore, a repair, a compaction by another
	 * process) or a read met damage in its snapshot, so a warm engine answers as a fresh process would;
	 * a journal that only grew is read by the engine itself. Another workspace (rare: `--workspace` naming one inside this one) gets an
	 * engine of its own for that command. Commands hold it side by side; a reopen happens only while
	 * none holds it, and two commands that find it stale at once reopen it once (engineGate.ts).
	 */
	async acquire(workspaceRoot: string, io: CommandIo): Promise<Engine> {
		const scope = this.commandScope.getStore();
		if (scope) {
			scope.io = io;
		}
		this.lent++;
		if (path.resolve(workspaceRoot) !== this.root) {
			this.opened++;
			return Engine.open({ workspaceRoot, log: this.host.log, secrets: { get: (name) => envSecretSource(io.env).get(name) } });
		}
		for (;;) {
			const open = this.host.current;
			this.ownCompactionSeen(open);
			// Held by another command already (a long one beside this): it is not closed under that one,
			// nor waited for. Its store reads what others appended, and reloads a new generation, by
			// itself; the reopen waits for a moment nobody holds it.
			if (open && (this.gate.held > 0 || (!open.store.damage && unchanged(this.signature, signatureOf(this.root))))) {
				await this.gate.enter();
				const current = this.host.current;
				if (current) {
					// Until its release the backend is not idle (engineHost.ts `workBegan`).
					this.host.workBegan();
					return current;
				}
				this.gate.leave();
			}
			let reopened = false;
			await this.gate.exclusive(async () => {
				// Another command may have reopened it while this one waited for the others to leave.
				const current = this.host.current;
				// A store that met damage in its snapshot is not read from again (journalStore.ts `damage`).
				if (!current || current.store.damage || !unchanged(this.signature, signatureOf(this.root))) {
					reopened = true;
					await (current ? this.host.reopen() : this.host.get());
				}
			});
			if (reopened) {
				this.opened++;
			}
		}
	}

	/**
	 * The files changed since the last command because the engine compacted them itself — a background
	 * push or the idle maintenance, between commands — are the engine's own, not replaced behind its
	 * back: reopening for them closed the store under the background push (its next write failed with
	 * "the database is closed", its work lost until a retry) and cost the command a cold open.
	 */
	private ownCompactionSeen(open: Engine | undefined): void {
		// An engine that never compacted costs a command nothing here (no stat of the files).
		const own = open && this.signature ? compactedSignature(open) : undefined;
		if (!own) {
			return;
		}
		const now = signatureOf(this.root);
		if (!unchanged(this.signature, now) && unchanged(own, now)) {
			this.signature = now;
		}
	}

	/** After a command: its own compaction (a new snapshot) is no reason to reopen; other engines close. */
	release(engine: Engine, workspaceRoot: string): void {
		const scope = this.commandScope.getStore();
		if (scope) {
			scope.io = undefined;
		}
		if (path.resolve(workspaceRoot) !== this.root) {
			// After the environment of a checkpoint it took is recorded (capture finishes in the background).
			void engine.checkpoints.settled().finally(() => engine.close());
			return;
		}
		if (engine === this.host.current) {
			this.signature = signatureOf(this.root);
		}
		this.host.workEnded();
		this.gate.leave();
	}

	dispose(): void {
		this.host.dispose();
	}
}

function signatureOf(workspaceRoot: string): Signature {
	const snapshot = fs.statSync(path.join(workspaceRoot, '.baton', 'baton.db'), { throwIfNoEntry: false });
	const journal = fs.statSync(path.join(workspaceRoot, '.baton', 'baton.db.journal'), { throwIfNoEntry: false });
	return {
		snapshot: snapshot ? `${snapshot.ino}:${snapshot.size}:${snapshot.mtimeMs}` : 'none',
		journal: journal && { ino: journal.ino, size: journal.size, mtimeMs: journal.mtimeMs },
	};
}

/** The signature of the files as `engine`'s store left them at its last compaction, if it made one. */
function compactedSignature(engine: Engine): Signature | undefined {
	const files = engine.store.compactedFiles;
	return files && { snapshot: `${files.snapshot.ino}:${files.snapshot.size}:${files.snapshot.mtimeMs}`, journal: files.journal };
}

/**
 * Still the files the engine read: the same snapshot, and the journal only grown (appends by other
 * processes, which the engine reads itself). A journal replaced, shortened or rewritten in place is
 * read again from the start, as a fresh process would.
 */
function unchanged(before: Signature | undefined, now: Signature): boolean {
	if (!before || before.snapshot !== now.snapshot || !before.journal || !now.journal) {
		return false;
	}
	return before.journal.ino === now.journal.ino && (now.journal.size > before.journal.size || now.journal.mtimeMs === before.journal.mtimeMs);
}
