/**
 * Push notifications: a domain-event subscriber that writes outbox rows inside the write that caused
 * them (notificationRules → notificationRouting), and the channel deliverers a host registers on the
 * outbox. Nothing here touches the network while a write is open; a failing channel is retried by
 * the outbox and never reaches the write.
 *
 * Hosts: the editor's backend attaches every enabled channel plus the editor itself; the CLI
 * attaches the channels whose secrets its environment has and flushes with a deadline; agent hooks
 * attach nothing (their rows wait for the next host).
 */
import path from 'node:path';
import { desc, eq } from 'drizzle-orm';
import { notificationChannels, type NotificationChannel, type NotificationConfig, type NotificationConfigInput } from '../config';
import type { EngineContext } from '../context';
import type { DomainEvent } from '../events';
import { RetryLater, type DeliveryOutcome, type OutboxDispatcher } from '../outbox/outbox';
import { secretNames, type SecretName, type SecretSource } from '../secrets';
import type { BatonDb } from '../storage/journalStore';
import type { NotificationOutboxRow } from '../storage/model';
import { checkpoints, notificationOutbox } from '../storage/schema';
import type { ChannelEnv } from './channels/channelEnv';
import { channelLabels, channelMissing, channelSenders } from './channels/channelRegistry';
import { maskDeliveryText } from './channels/httpPost';
import { readHostSettings, withHostSettings, writeHostSettings } from './hostSettings';
import { notificationMessageSchema, type NotificationMessage } from './notificationMessage';
import { enqueueNotification, routeFor } from './notificationRouting';
import { notificationsFor } from './notificationRules';

const editorMaxAgeMs = 3_600_000;
/** Events raised while the window's backend starts count as the window's own. */
const editorStartGraceMs = 5_000;

/** Shows a message in the editor (the server forwards it to the extension). */
export type EditorPresenter = (notification: { id: string; message: NotificationMessage }) => Promise<void>;

interface ChannelStatus {
	id: NotificationChannel;
	label: string;
	/** Listed in `notifications.channels`. */
	enabled: boolean;
	/** Secrets and settings it still lacks. */
	missing: string[];
}

interface TestResult {
	channel: NotificationChannel;
	ok: boolean;
	error: string | null;
	durationMs: number;
}

export class NotificationService {
	private editor: EditorPresenter | undefined;
	/** When a window first attached here (ms): older news is not toasted, only kept in the views. */
	private editorSince: number | undefined;
	/** Wall-clock time by which a flushing host must be done (the CLI's bounded wait). */
	private deadline: number | undefined;
	/** True in the editor's backend: its own settings are the ones in force (and recorded for the others). */
	private hostOwned = false;
	private recorded: { updatedAt: string; config: NotificationConfig } | undefined;
	/** The configuration deliveries use, read when channels are attached. */
	private deliveryConfig: NotificationConfig | undefined;

	constructor(
		private readonly ctx: EngineContext,
		private readonly outbox: OutboxDispatcher,
		private readonly secrets: SecretSource,
	) {
		ctx.events.on((event, db) => this.onEvent(event, db));
	}

	/**
	 * The editor's backend records its notification settings (`overrides`, non-secret) for the other
	 * processes of the workspace, and from then on uses its own (see hostSettings.ts).
	 */
	async publishHostSettings(overrides: NotificationConfigInput | undefined): Promise<void> {
		this.hostOwned = true;
		const value = overrides && Object.keys(overrides).length > 0 ? overrides : null;
		await this.ctx.store.write((db) => writeHostSettings(db, this.ctx.nowIso(), value));
	}

	/** This process's configuration, with the editor's recorded settings on top when it has none of its own. */
	private configIn(db: BatonDb): NotificationConfig {
		const own = this.ctx.config.notifications;
		const row = this.hostOwned ? undefined : readHostSettings(db);
		if (!row) {
			return own;
		}
		if (this.recorded?.updatedAt !== row.updatedAt) {
			try {
				this.recorded = { updatedAt: row.updatedAt, config: withHostSettings(own, row.value) };
			} catch (error) {
				this.ctx.log.warn(`notifications: ${(error as Error).message}`);
				this.recorded = { updatedAt: row.updatedAt, config: own };
			}
		}
		return this.recorded.config;
	}

	private async currentConfig(): Promise<NotificationConfig> {
		return this.ctx.store.read((db) => this.configIn(db));
	}

	private onEvent(event: DomainEvent, db: BatonDb): void {
		const config = this.configIn(db);
		if (!config.enabled) {
			return;
		}
		const nowMs = this.ctx.clock.now();
		let planned: ReturnType<typeof notificationsFor>;
		try {
			planned = notificationsFor(event, {
				db,
				config: { ...this.ctx.config, notifications: config },
				nowMs,
				workspaceRoot: this.ctx.workspaceRoot,
				routed: (priority) => routeFor(config, priority).length > 0,
			});
		} catch (error) {
			// Preparing is reads only: a notification lost here must not cost the change that caused it.
			this.ctx.log.warn(`notifications: could not prepare one for ${event.type}: ${(error as Error).message}`);
			return;
		}
		for (const notification of planned) {
			enqueueNotification(db, nowMs, config, notification);
		}
	}

	/**
	 * Registers deliverers on the outbox for the enabled channels (and the editor when a presenter is
	 * given). `onlyReady` skips channels that lack a secret or setting here, so a CLI without the
	 * editor's secrets leaves their rows for the editor instead of failing them. Returns what it registered.
	 */
	async attach(options: { editor?: EditorPresenter; onlyReady?: boolean } = {}): Promise<NotificationChannel[]> {
		this.editor = options.editor ?? this.editor;
		if (options.editor && this.editorSince === undefined) {
			this.editorSince = this.ctx.clock.now();
		}
		const config = await this.currentConfig();
		this.deliveryConfig = config;
		const attached: NotificationChannel[] = [];
		for (const channel of config.enabled ? config.channels : []) {
			if (channel === 'editor' ? !this.editor : options.onlyReady && (await channelMissing(channel, this.env(config))).length > 0) {
				continue;
			}
			this.outbox.register(channel, (row) => this.deliver(channel, row));
			attached.push(channel);
		}
		return attached;
	}

	/** Delivers due rows within `budgetMs` (each request's timeout shrinks to fit); what is left waits. */
	async flush(budgetMs: number): Promise<DeliveryOutcome[]> {
		this.deadline = Date.now() + budgetMs;
		try {
			return await this.outbox.deliverDue();
		} finally {
			this.deadline = undefined;
		}
	}

	/** Sends a test message to one channel now, outside the outbox, and says how it went. */
	async test(channel: NotificationChannel): Promise<TestResult> {
		const started = Date.now();
		const message: NotificationMessage = {
			event: 'test',
			priority: 'notice',
			title: 'Test notification',
			summary: `If you can read this, Baton reaches you on ${channelLabels[channel]}.`,
			workspace: path.basename(this.ctx.workspaceRoot),
			session: null,
			filesChanged: null,
			checkpoint: null,
			actions: [{ label: 'See recent notifications', cli: 'baton notify list', editor: 'Baton: Send Test Notification' }],
			at: this.ctx.nowIso(),
		};
		try {
			await this.send(channel, message, `test_${started}`, await this.currentConfig());
			this.ctx.log.info(`test notification sent to ${channel}`);
			return { channel, ok: true, error: null, durationMs: Date.now() - started };
		} catch (error) {
			const text = (error as Error).message;
			this.ctx.log.warn(`test notification to ${channel} failed: ${text}`);
			return { channel, ok: false, error: text, durationMs: Date.now() - started };
		}
	}

	async channels(): Promise<ChannelStatus[]> {
		const config = await this.currentConfig();
		const env = this.env(config);
		const out: ChannelStatus[] = [];
		for (const id of notificationChannels) {
			const missing = id === 'editor' ? (this.editor ? [] : ['an open VS Code window']) : await channelMissing(id, env);
			out.push({ id, label: channelLabels[id], enabled: config.enabled && config.channels.includes(id), missing });
		}
		return out;
	}

	/** Recent outbox rows, newest first. */
	async list(options: { limit?: number; status?: NotificationOutboxRow['status'] } = {}): Promise<NotificationOutboxRow[]> {
		return this.ctx.store.read((db) =>
			db
				.select()
				.from(notificationOutbox)
				.where(options.status ? eq(notificationOutbox.status, options.status) : undefined)
				.orderBy(desc(notificationOutbox.createdAt), desc(notificationOutbox.id))
				.limit(options.limit ?? 50)
				.all(),
		);
	}

	private async deliver(channel: NotificationChannel, row: NotificationOutboxRow): Promise<void> {
		const parsed = notificationMessageSchema.safeParse(row.message);
		if (!parsed.success) {
			throw new Error(`${channel}: outbox row ${row.id} holds no valid message (${parsed.error.issues[0]?.message ?? 'invalid'})`);
		}
		await this.send(channel, parsed.data, row.id, this.deliveryConfig ?? this.ctx.config.notifications);
	}

	private async send(channel: NotificationChannel, message: NotificationMessage, id: string, config: NotificationConfig): Promise<void> {
		if (channel === 'editor') {
			if (!this.editor) {
				throw new Error('editor: no VS Code window is connected to this process');
			}
			// Queued while no editor was open (overnight hooks): news that old would only crowd the
			// window at start, and what still waits for a person shows in Pending Approvals anyway. News
			// (info, notice) from before the window opened is what its views already show: a session
			// that ended while no window was open toasted at the next start, the demo's seeded one too.
			const at = Date.parse(message.at);
			const beforeWindow =
				this.editorSince !== undefined && at < this.editorSince - editorStartGraceMs && (message.priority === 'info' || message.priority === 'notice');
			if (this.ctx.clock.now() - at > editorMaxAgeMs || beforeWindow) {
				this.noteStale(message.at);
				return;
			}
			// A review asked for while no window was open, and decided since (in another window, the CLI):
			// its toast would offer Approve and Reject on a checkpoint nobody has to review any more.
			if (message.checkpoint?.approvalStatus === 'pending') {
				const checkpointId = message.checkpoint.id;
				const now = await this.ctx.store.read((db) =>
					db.select({ status: checkpoints.approvalStatus }).from(checkpoints).where(eq(checkpoints.id, checkpointId)).get(),
				);
				if (now && now.status !== 'pending') {
					return;
				}
			}
			return this.editor({ id, message });
		}
		try {
			await channelSenders[channel](message, { ...this.env(config), deliveryId: id });
		} catch (error) {
			// The channels mask what they used; a last pass with every secret this host has is cheap insurance.
			const e = error as Error;
			const masked = await this.maskAll(e.message);
			if (e instanceof RetryLater) {
				throw new RetryLater(masked, e.retryAfterMs, e.countsAsAttempt);
			}
			// No `cause`: the original error carries the unmasked message, which must not leave this host.
			// eslint-disable-next-line preserve-caught-error
			throw new Error(masked);
		}
	}

	/** One log line for a backlog of stale editor notices (they arrive together at start-up), not one per item. */
	private stale: { count: number; newest: string } | undefined;

	private noteStale(at: string): void {
		if (this.stale) {
			this.stale.count += 1;
			this.stale.newest = at > this.stale.newest ? at : this.stale.newest;
			return;
		}
		this.stale = { count: 1, newest: at };
		setTimeout(() => {
			const { count, newest } = this.stale ?? { count: 0, newest: at };
			this.stale = undefined;
			this.ctx.log.info(
				`editor: not showing ${count} notification${count === 1 ? '' : 's'} from before the window opened or older than an hour (newest from ${newest}); pending approvals stay in their view`,
			);
		}, 1_000).unref();
	}

	/**
	 * Asks for every secret at once: a host may wait for each answer (the backend asks the editor,
	 * 2 s at most while its window is busy), and one after another that was 2 s per secret Baton knows.
	 */
	private async maskAll(text: string): Promise<string> {
		const names = Object.keys(secretNames) as SecretName[];
		const answers = await Promise.all(names.map(async (name) => [name, (await this.secrets.get(name))?.trim()] as const));
		const values = new Map<SecretName, string>();
		for (const [name, value] of answers) {
			if (value) values.set(name, value);
		}
		return maskDeliveryText(text, values);
	}

	private env(config: NotificationConfig): ChannelEnv {
		return {
			config,
			secrets: this.secrets,
			workspaceRoot: this.ctx.workspaceRoot,
			timeoutMs: () => {
				const left = this.deadline === undefined ? Infinity : this.deadline - Date.now();
				if (left < 100) {
					throw new RetryLater('deferred: this process ran out of time; the next host delivers it', 0, false);
				}
				return Math.min(config.timeout, left);
			},
		};
	}
}
