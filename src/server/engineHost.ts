/**
 * Owns the workspace's Engine inside the server: opens it lazily (a workspace without `.baton/`
 * has none until `workspace/init`), notices other processes' writes, and compacts when idle.
 */
import { AutoPush } from '../engine/sync/autoPush';
import { noSecrets, type SecretSource } from '../engine/secrets';
import { Engine } from '../engine/engine';
import type { ImportProcess } from '../engine/interop/importService';
import type { BatonConfigInput } from '../engine/config';
import { BatonError } from '../engine/errors';
import type { EditorPresenter } from '../engine/notifications/notificationService';
import type { Logger } from '../engine/ports';
import { maintainTimeline } from '../engine/timeline/timelineRetention';
import { isInitialized } from '../engine/workspace';

/** How often an idle backend looks at the checkpoint store's loose objects (one `git count-objects`). */
const shadowMaintenanceEveryMs = 10 * 60_000;

interface EngineHostOptions {
	workspaceRoot: string;
	config: BatonConfigInput;
	log: Logger;
	readOnly: boolean;
	/** Called after any data change, with whether another process made it. */
	onDidChange(external: boolean, sequence: number): void;
	pollMs?: number;
	idleCompactMs?: number;
	/** How long the store must be quiet before the background push looks (sync/autoPush.ts); 3 s by default. */
	autoPushQuietMs?: number;
	/** VS Code's version and extensions, for checkpoints' environment snapshots. */
	hostEnvironment?: { version: string | null; extensions: Record<string, string> } | undefined;
	/** Warm the shadow index in the background and take periodic checkpoints while a session is active. */
	checkpointTimer?: boolean;
	onCheckpointProgress?: (progress: { phase: string; done: number; total: number }) => void;
	/** Tokens, webhook URLs and passwords, asked for when a delivery needs one (never stored). */
	secrets?: SecretSource;
	/** Shows an `editor` notification (the server forwards it to the extension). */
	editorPresenter?: EditorPresenter;
	/**
	 * The settings are an editor window's: recorded for the workspace's other processes, every enabled
	 * channel (and the editor) delivered in the background. Without (a daemon a terminal started, no
	 * window yet): nothing is recorded (the windows' record stays) and nothing is delivered in the
	 * background; each command delivers with its own environment's secrets, as in a process of its own.
	 */
	editorSettings?: boolean;
	/** The engine's files are as it last read or wrote them (it opened, or compacted itself). */
	onFilesSettled?(): void;
	/** Others hold the open engine now (a daemon's commands, engineGate.ts): a damaged one is not closed under them. */
	inUse?(): boolean;
	/** Imports of large files run here (server/importProcess.ts): this process lives long and keeps what it grows to. */
	importProcess?: ImportProcess;
}

export class EngineHost {
	private engine: Engine | undefined;
	private opening: Promise<Engine> | undefined;
	/** Counts the engine's closings: an opening that a closing overtook is not this host's engine any more. */
	private generation = 0;
	private disposed = false;
	private reopens: Promise<unknown> = Promise.resolve();
	private queuedReopen: Promise<Engine> | undefined;
	/** A window's requests running now (`serve`). */
	private serving = 0;
	/** Engines closed by the host while requests still ran: they close once none runs. */
	private retired: Engine[] = [];
	private poll: NodeJS.Timeout | undefined;
	private lastWrite = Date.now();
	/** Writes and commands working with the engine now (`write`, `workBegan`): the backend is not idle while any runs. */
	private working = 0;
	private seenSequence = -1;
	private quietSince = Date.now();
	private pushCheckedAt = -1;
	private autoPush: { engine: Engine; push: AutoPush } | undefined;
	private autoPushing: Promise<unknown> | undefined;
	/** The store sequence the last idle sync export ran at (-1: none yet). */
	private exportedAt = -1;
	/** The store sequence derived data was last saved at for the next process (-1: not yet). */
	private derivedSavedAt = -1;
	private checkpointTimer: NodeJS.Timeout | undefined;
	private checkpointBusy = false;
	private busy = false;
	private lastShadowMaintenance = 0;
	/** The data sequence listeners were last told about. */
	private announced = -1;
	private deliveryTimer: NodeJS.Timeout | undefined;
	private deliveriesAttached = false;

	constructor(private options: EngineHostOptions) {}

	/** The open engine, if any (never opens one). */
	get current(): Engine | undefined {
		return this.engine;
	}

	get log(): Logger {
		return this.options.log;
	}

	/**
	 * The settings of the window that spoke last (a shared backend serves several): an open engine is
	 * opened again with them, so routing, channels and intervals follow. Same settings: nothing happens.
	 */
	async applySettings(config: BatonConfigInput, hostEnvironment?: { version: string | null; extensions: Record<string, string> }): Promise<void> {
		const changed = JSON.stringify(config) !== JSON.stringify(this.options.config);
		const first = !this.options.editorSettings;
		this.options = { ...this.options, config, editorSettings: true, ...(hostEnvironment ? { hostEnvironment } : {}) };
		if (hostEnvironment) {
			this.engine?.checkpoints.setHostEnvironment({ vscode: hostEnvironment });
		}
		if ((changed || first) && this.engine) {
			this.options.log.info('a window brought other settings: reopening the engine with them');
			await this.reopen();
		}
	}

	/** Whether applySettings would open the engine again (other settings, or a window's first, while it is open). */
	reopensFor(config: BatonConfigInput): boolean {
		return this.engine !== undefined && (JSON.stringify(config) !== JSON.stringify(this.options.config) || !this.options.editorSettings);
	}

	/** An editor window joined a backend a terminal started: periodic checkpoints, as in the editor's own. */
	enableCheckpointTimer(): void {
		if (this.options.checkpointTimer) {
			return;
		}
		this.options = { ...this.options, checkpointTimer: true };
		if (this.engine) {
			this.startCheckpointTimer(this.engine);
		}
	}

	/**
	 * Closes the engine and opens it again (its files were replaced, or its settings changed), after
	 * the opening under way if one is and after any reopen before it; reopens asked for before its
	 * closing share it. Two at once ran both closings before either opening, and left two engines
	 * open, the first never closed.
	 */
	async reopen(): Promise<Engine> {
		if (this.queuedReopen) {
			return this.queuedReopen;
		}
		const queued: Promise<Engine> = this.reopens.then(async () => {
			await this.opening?.catch(() => undefined);
			// From this closing on, a reopen asked for is another opening, after this one.
			if (this.queuedReopen === queued) {
				this.queuedReopen = undefined;
			}
			this.closeEngine();
			return this.get();
		});
		this.queuedReopen = queued;
		this.reopens = queued.catch(() => undefined);
		return queued;
	}

	get secrets(): SecretSource {
		return this.options.secrets ?? noSecrets;
	}

	/** An untrusted workspace: Baton shows what is there and writes nothing. */
	get readOnly(): boolean {
		return this.options.readOnly;
	}

	get initialized(): boolean {
		return this.engine !== undefined || isInitialized(this.options.workspaceRoot);
	}

	/**
	 * The engine, opened on first use; `notInitialized` when the workspace has no `.baton/`. One whose
	 * store met damage in its snapshot (journalStore.ts `damage`: SQLite's connection is not to be
	 * trusted after it) is opened again, as a daemon's commands do (daemonBackend.ts `acquire`), unless
	 * others hold it now: a window's requests then answer what lies clear of the damage, and fail the same
	 * way on what reaches it, instead of failing on every read after the first that met it.
	 */
	async get(create = false): Promise<Engine> {
		const damage = this.engine?.store.damage;
		if (damage && !this.options.inUse?.()) {
			this.options.log.warn(`the store met damage (${damage.message}): opening it again`);
			// Closed here, before any await: requests that come meanwhile share the one opening below.
			this.closeEngine();
		}
		if (this.engine) {
			return this.engine;
		}
		if (!create && !isInitialized(this.options.workspaceRoot)) {
			throw new BatonError('notInitialized', `${this.options.workspaceRoot} has no .baton folder yet`);
		}
		const generation = this.generation;
		this.opening ??= Engine.open({
			workspaceRoot: this.options.workspaceRoot,
			log: this.options.log,
			create,
			config: this.options.config,
			secrets: this.secrets,
			...(this.options.readOnly ? { git: { read: async () => null }, readOnly: true } : {}),
		}).then(
			(engine) => {
				if (generation !== this.generation) {
					// Closed (reopened, or the backend disposed) while it opened.
					engine.close();
					if (this.disposed) {
						throw new BatonError('storageFailure', 'the backend closed the store while it was opening');
					}
					return this.get(create);
				}
				this.engine = engine;
				this.announced = engine.store.sequence;
				if (this.options.hostEnvironment) {
					engine.checkpoints.setHostEnvironment({ vscode: this.options.hostEnvironment });
				}
				if (this.options.importProcess) {
					engine.imports.inOwnProcess(this.options.importProcess);
				}
				this.options.onFilesSettled?.();
				this.startPolling();
				// Snapshots then look only at the paths that changed (a full scan when the watcher cannot say).
				// BATON_WATCHER=0 turns it off: every snapshot scans the whole workspace.
				if (!this.options.readOnly && process.env['BATON_WATCHER'] !== '0') {
					engine.checkpoints.dirty.start().catch((error: Error) => this.options.log.warn(`file watcher not started: ${error.message}`));
				}
				this.startCheckpointTimer(engine);
				void this.startDeliveries(engine);
				return engine;
			},
			(error: unknown) => {
				if (generation === this.generation) {
					this.opening = undefined;
				}
				throw error;
			},
		);
		return this.opening;
	}

	/**
	 * Runs a window's request. An engine the host closes (reopened after damage or a replacement of its
	 * files) while requests run is closed once none does, not under them: a request that had it went on
	 * to fail with "the database is closed" for a reopen it had no part in.
	 */
	async serve<T>(run: () => Promise<T>): Promise<T> {
		this.serving++;
		try {
			return await run();
		} finally {
			this.serving--;
			if (this.serving === 0) {
				for (const engine of this.retired.splice(0)) engine.close();
			}
		}
	}

	/** Run a write; refuses in untrusted workspaces and tells listeners afterwards. */
	async write<T>(fn: (engine: Engine) => Promise<T>, create = false): Promise<T> {
		if (this.options.readOnly) {
			throw new BatonError('invalidInput', 'this workspace is not trusted: Baton shows its data but changes nothing');
		}
		const engine = await this.get(create);
		this.workBegan();
		try {
			return await fn(engine);
		} finally {
			this.workEnded();
			this.changed(false, engine);
		}
	}

	/**
	 * Work with the engine began outside `write` (a CLI command or hook the daemon runs with it): until
	 * it ends the backend is not idle — a minute-long push is not the moment for the idle compaction
	 * and export, which would hold a second copy of the store beside the push's own work.
	 */
	workBegan(): void {
		this.working++;
	}

	/** That work ended: it counts as the last write, and the idle and quiet waits start from now. */
	workEnded(): void {
		this.working = Math.max(0, this.working - 1);
		this.lastWrite = Date.now();
		this.quietSince = Date.now();
	}

	dispose(): void {
		this.disposed = true;
		this.closeEngine();
		for (const engine of this.retired.splice(0)) engine.close();
	}

	private closeEngine(): void {
		clearInterval(this.poll);
		this.poll = undefined;
		clearInterval(this.checkpointTimer);
		this.checkpointTimer = undefined;
		clearTimeout(this.deliveryTimer);
		this.deliveriesAttached = false;
		this.engine?.checkpoints.dirty.stop();
		if (this.engine && this.serving > 0 && !this.disposed) {
			this.retired.push(this.engine);
		} else {
			this.engine?.close();
		}
		this.engine = undefined;
		this.opening = undefined;
		this.generation++;
	}

	/**
	 * The first snapshot of a large workspace takes seconds: warm the shadow index in the background
	 * (with progress), then offer a periodic checkpoint every minute; the engine takes one only when
	 * its interval elapsed, a session is active and files changed.
	 */
	private startCheckpointTimer(engine: Engine): void {
		if (!this.options.checkpointTimer || this.options.readOnly) {
			return;
		}
		const run = async (first: boolean): Promise<void> => {
			if (this.checkpointBusy || engine !== this.engine) {
				return;
			}
			this.checkpointBusy = true;
			try {
				if (first) {
					const prepared = await engine.checkpoints.prepare({
						...(this.options.onCheckpointProgress ? { onProgress: this.options.onCheckpointProgress } : {}),
					});
					this.options.log.info(
						`checkpoint index ready: ${prepared.filesIndexed} files in ${Math.round(prepared.durationMs)} ms${prepared.degradedReason ? ` (${prepared.degradedReason})` : ''}`,
					);
				}
				const periodic = await engine.checkpoints.maybePeriodic({ actor: 'baton:periodic' });
				if (periodic.checkpoint) {
					this.options.log.info(`periodic checkpoint ${periodic.checkpoint.id}`);
					this.changed(false, engine);
				}
			} catch (error) {
				this.options.log.warn(`background checkpoint work failed: ${(error as Error).message}`);
			} finally {
				this.checkpointBusy = false;
			}
		};
		setTimeout(() => void run(true), 2_000).unref();
		this.checkpointTimer = setInterval(() => void run(false), 60_000);
		this.checkpointTimer.unref();
	}

	/** Data changed (here or in another process): tell the listeners, then deliver what it queued. */
	private changed(external: boolean, engine: Engine): void {
		this.announced = engine.store.sequence;
		this.options.onDidChange(external, engine.store.sequence);
		this.kickDeliveries(engine);
	}

	/** Registers the enabled channels (and the editor) once the engine is open; untrusted workspaces deliver nothing. */
	private async startDeliveries(engine: Engine): Promise<void> {
		if (this.options.readOnly) {
			return;
		}
		try {
			if (!this.options.editorSettings) {
				this.options.log.info('notifications: no window yet; commands deliver with their own secrets');
				return;
			}
			// Hooks and the CLI route with the editor's settings too: record them in the workspace.
			await engine.notifications.publishHostSettings(this.options.config.notifications);
			const channels = await engine.notifications.attach(this.options.editorPresenter ? { editor: this.options.editorPresenter } : {});
			this.deliveriesAttached = true;
			this.options.log.info(`notifications: delivering to ${channels.join(', ') || 'no channel'}`);
			this.kickDeliveries(engine);
		} catch (error) {
			this.options.log.warn(`notifications: could not set up the channels: ${(error as Error).message}`);
		}
	}

	/**
	 * Delivers what is due, never on a request's path (fire and forget), then arms one timer for the
	 * next row that comes due (a retry's backoff). Concurrent kicks share the outbox's one pass.
	 */
	private kickDeliveries(engine: Engine): void {
		if (!this.deliveriesAttached || engine !== this.engine) {
			return;
		}
		void engine.outbox
			.deliverDue()
			.then(async () => {
				const at = await engine.outbox.nextDueAt();
				clearTimeout(this.deliveryTimer);
				if (at !== null && engine === this.engine) {
					this.deliveryTimer = setTimeout(() => this.kickDeliveries(engine), Math.min(Math.max(at - Date.now(), 1_000), 5 * 60_000));
					this.deliveryTimer.unref();
				}
			})
			.catch((error: unknown) => {
				if (engine === this.engine) {
					this.options.log.warn(`notifications: a delivery pass failed: ${(error as Error).message}`);
				}
			});
	}

	/** One stat of the journal per tick; a change made elsewhere is applied and announced. */
	private startPolling(): void {
		const pollMs = this.options.pollMs ?? 250;
		this.poll = setInterval(() => void this.tick(), pollMs);
		this.poll.unref();
	}

	/** What a fresh process would derive again, saved while nobody waits (the briefing's open tasks), once per store sequence. */
	private async saveDerived(engine: Engine): Promise<void> {
		if (engine.store.sequence === this.derivedSavedAt) return;
		this.derivedSavedAt = engine.store.sequence;
		try {
			if (await engine.saveDerived()) this.options.log.info('saved the open tasks for the next process');
		} catch (error) {
			this.options.log.warn(`could not save the open tasks for the next process: ${(error as Error).message}`);
		}
	}

	private async tick(): Promise<void> {
		const engine = this.engine;
		if (!engine || this.busy) {
			return;
		}
		this.busy = true;
		try {
			// Any read or write catches up with other processes too, so whether *this* refresh applied
			// something says little: what counts is a sequence nobody has announced yet.
			await engine.store.refresh();
			if (engine.store.sequence !== this.announced) {
				this.changed(true, engine);
			}
			const idleFor = Date.now() - this.lastWrite;
			const idle = !this.options.readOnly && this.working === 0 && idleFor > (this.options.idleCompactMs ?? 30_000);
			if (idle && (await engine.maintain())) {
				this.options.log.info(`compacted the journal after ${Math.round(idleFor / 1000)} s idle`);
				this.options.onFilesSettled?.();
			}
			if (engine.store.sequence !== this.seenSequence) {
				this.seenSequence = engine.store.sequence;
				this.quietSince = Date.now();
			}
			// Records travel on their own (sync/autoPush.ts): once the store has been quiet a moment, a
			// session's end, a decision or an approval is pushed; a failed push is retried later. The push
			// runs beside the poll (it may wait on the network), one at a time, and never begins while a
			// command works: a fresh daemon after a large import owes hundreds of thousands of record
			// events, and its first briefing waited 23 s behind a push that began under it.
			const quiet = this.working === 0 && Date.now() - this.quietSince > (this.options.autoPushQuietMs ?? 3_000);
			if (
				!this.options.readOnly &&
				quiet &&
				!this.autoPushing &&
				(this.pushCheckedAt !== engine.store.sequence || this.autoPush?.engine !== engine || this.autoPush.push.retrying)
			) {
				this.pushCheckedAt = engine.store.sequence;
				if (this.autoPush?.engine !== engine) {
					this.autoPush = { engine, push: new AutoPush(engine.sync.autoPushTarget(), this.options.log) };
				}
				const push = this.autoPush.push;
				this.autoPushing = push
					.tick()
					.catch((error: Error) => this.options.log.warn(`sync: the background push could not run: ${error.message}`))
					.finally(() => {
						this.autoPushing = undefined;
					});
			}
			if (idle) await this.saveDerived(engine);
			if (idle && engine.store.sequence !== this.exportedAt) {
				// Sync's export runs ahead while idle, so a push is then mostly git's own (docs/sync.md).
				this.exportedAt = engine.store.sequence;
				await engine.sync.exportAhead().catch((error: Error) => this.options.log.warn(`could not export the sync events ahead: ${error.message}`));
			}
			if (idle && this.options.checkpointTimer && Date.now() - this.lastShadowMaintenance > shadowMaintenanceEveryMs) {
				this.lastShadowMaintenance = Date.now();
				// Housekeeping in the background: old outbox rows go, and the shadow store's loose objects
				// are packed once there are many (beside snapshots).
				void engine.outbox.prune().then(
					(pruned) =>
						(pruned.expired || pruned.deleted) &&
						this.options.log.info(`outbox: ${pruned.expired} undeliverable row(s) expired, ${pruned.deleted} old row(s) removed`),
					(error: Error) => this.options.log.warn(`could not prune the outbox: ${error.message}`),
				);
				void engine.checkpoints
					.maintain()
					.then(
						(result) =>
							result.packed &&
							this.options.log.info(`packed ${result.looseObjects} loose objects and rolled up ${result.packs} packs of the checkpoint store`),
						(error: Error) => this.options.log.warn(`could not pack the checkpoint store: ${error.message}`),
					)
					// Then the replay's retention (docs/replay.md), never beside the checkpoint repack.
					.then(() => maintainTimeline(engine.ctx, engine.checkpoints.shadow))
					.then(
						(result) =>
							(result.pruned.length || result.packed) &&
							this.options.log.info(`timeline: pruned the trees of ${result.pruned.length} session(s); store packed: ${result.packed}`),
						(error: Error) => this.options.log.warn(`could not maintain the timeline store: ${error.message}`),
					);
			}
		} catch (error) {
			this.options.log.error(`could not read changes from other processes: ${(error as Error).message}`);
		} finally {
			this.busy = false;
		}
	}
}
