/**
 * The outbox: deliveries to the outside world (a Slack message, an email, a comment on an issue)
 * written as rows inside the write that caused them, and delivered afterwards by a host process
 * (the editor's backend on every change and on a timer; the CLI before it exits).
 *
 * - `enqueue` runs inside `store.write` (a domain-event subscriber calls it).
 * - `OutboxDispatcher.deliverDue` claims due rows with a lease (one write), delivers them with no lock
 *   held, and records each outcome (one write each). Two processes never send the same row twice while
 *   a lease holds; a sender that dies mid-delivery leaves a lease that expires, and the row is retried.
 * - Failures retry with exponential backoff up to `maxAttempts`, then stay `failed` with the error.
 *   A failure is logged (secrets masked by the deliverer) and never reaches the write that enqueued it.
 *
 * Channels are strings: `slack`, `email`, `tracker:github`, … A deliverer registers for a channel or
 * a prefix ending in `:` (`tracker:`).
 */
import { and, asc, count, eq, gt, gte, inArray, isNull, lte, ne, or } from 'drizzle-orm';
import type { EngineContext } from '../context';
import { newOutboxId } from '../ids';
import type { BatonDb } from '../storage/journalStore';
import type { NotificationOutboxRow, NotificationPriority } from '../storage/model';
import { notificationOutbox } from '../storage/schema';
import { minOf } from '../arrays';

interface OutboxEntry {
	event: string;
	priority: NotificationPriority;
	channel: string;
	dedupKey: string;
	sessionId?: string | null;
	message: Record<string, unknown>;
	/** `suppressed` rows are kept (de-duplication and rate limits are visible) but never delivered. */
	status?: 'pending' | 'suppressed';
	/** Why it was suppressed, when it was. */
	note?: string;
}

export function enqueue(db: BatonDb, nowMs: number, entry: OutboxEntry): NotificationOutboxRow {
	const now = new Date(nowMs).toISOString();
	const row: NotificationOutboxRow = {
		id: newOutboxId(nowMs),
		event: entry.event,
		priority: entry.priority,
		channel: entry.channel,
		dedupKey: entry.dedupKey,
		sessionId: entry.sessionId ?? null,
		message: entry.message,
		status: entry.status ?? 'pending',
		attempts: 0,
		nextAttemptAt: now,
		leaseUntil: null,
		lastError: entry.note ?? null,
		createdAt: now,
		sentAt: null,
	};
	db.insert(notificationOutbox).values(row).run();
	return row;
}

/**
 * The oldest row of `channel` with `dedupKey`, created at or after `sinceIso`, that was not itself
 * suppressed (de-duplication): its id alone, through the (channel, dedup key, created) index.
 */
export function firstLiveWithKey(db: BatonDb, channel: string, dedupKey: string, sinceIso: string): string | undefined {
	return db
		.select({ id: notificationOutbox.id })
		.from(notificationOutbox)
		.where(
			and(
				eq(notificationOutbox.channel, channel),
				eq(notificationOutbox.dedupKey, dedupKey),
				gte(notificationOutbox.createdAt, sinceIso),
				ne(notificationOutbox.status, 'suppressed'),
			),
		)
		.orderBy(asc(notificationOutbox.createdAt))
		.limit(1)
		.get()?.id;
}

/** How many rows of `channel` created after `afterIso` were not suppressed (the rate limit counts them). */
export function liveCountAfter(db: BatonDb, channel: string, afterIso: string): number {
	return (
		db
			.select({ n: count() })
			.from(notificationOutbox)
			.where(and(eq(notificationOutbox.channel, channel), gt(notificationOutbox.createdAt, afterIso), ne(notificationOutbox.status, 'suppressed')))
			.get()?.n ?? 0
	);
}

/** Delivers one row; throws to fail it (the message says why, with secrets already masked). */
export type Deliverer = (row: NotificationOutboxRow) => Promise<void>;

/**
 * Thrown by a deliverer that was told when to come back (HTTP 429 with `Retry-After`, Discord's
 * `retry_after`): the next attempt waits that long instead of the backoff. `countsAsAttempt: false`
 * defers without spending an attempt (a host out of time before it could even try).
 */
export class RetryLater extends Error {
	constructor(
		message: string,
		readonly retryAfterMs: number,
		readonly countsAsAttempt = true,
	) {
		super(message);
	}
}

export interface DeliveryOutcome {
	id: string;
	channel: string;
	status: 'sent' | 'failed' | 'retry' | 'skipped';
	error?: string;
}

interface OutboxOptions {
	maxAttempts?: number;
	/** First retry delay; doubles each attempt (capped at 30 minutes). */
	backoffMs?: number;
	leaseMs?: number;
	/** Rows claimed per pass. */
	batch?: number;
}

export class OutboxDispatcher {
	private readonly deliverers = new Map<string, Deliverer>();
	private running: Promise<DeliveryOutcome[]> | undefined;
	private readonly maxAttempts: number;
	private readonly backoffMs: number;
	private readonly leaseMs: number;
	private readonly batch: number;

	constructor(
		private readonly ctx: EngineContext,
		options: OutboxOptions = {},
	) {
		this.maxAttempts = options.maxAttempts ?? 5;
		this.backoffMs = options.backoffMs ?? 2_000;
		this.leaseMs = options.leaseMs ?? 60_000;
		this.batch = options.batch ?? 20;
	}

	/** `channel` exactly, or every channel starting with it when it ends in `:`. */
	register(channel: string, deliverer: Deliverer): () => void {
		this.deliverers.set(channel, deliverer);
		return () => this.deliverers.delete(channel);
	}

	private delivererFor(channel: string): Deliverer | undefined {
		return this.deliverers.get(channel) ?? [...this.deliverers].find(([key]) => key.endsWith(':') && channel.startsWith(key))?.[1];
	}

	/** Delivers what is due now; concurrent calls share one pass. */
	deliverDue(): Promise<DeliveryOutcome[]> {
		this.running ??= this.pass().finally(() => {
			this.running = undefined;
		});
		return this.running;
	}

	/** Rows that are due and not leased by a live sender, for channels this process can deliver. */
	private async pass(): Promise<DeliveryOutcome[]> {
		if (this.deliverers.size === 0) {
			return [];
		}
		// A read first: nothing due for this process's channels takes no lock and writes nothing.
		if ((await this.ctx.store.read((db) => this.dueRows(db, this.ctx.clock.now()))).length === 0) {
			return [];
		}
		const claimed = await this.ctx.store.write((db) => {
			const nowMs = this.ctx.clock.now();
			const due = this.dueRows(db, nowMs);
			const leaseUntil = new Date(nowMs + this.leaseMs).toISOString();
			for (const row of due) {
				db.update(notificationOutbox).set({ status: 'sending', leaseUntil }).where(eq(notificationOutbox.id, row.id)).run();
			}
			return due;
		});
		const outcomes: DeliveryOutcome[] = [];
		for (const row of claimed) {
			outcomes.push(await this.deliverOne(row));
		}
		return outcomes;
	}

	/** Due, unleased rows of channels this process has a deliverer for, oldest first. */
	private dueRows(db: BatonDb, nowMs: number): NotificationOutboxRow[] {
		const now = new Date(nowMs).toISOString();
		return db
			.select()
			.from(notificationOutbox)
			.where(
				and(
					inArray(notificationOutbox.status, ['pending', 'sending']),
					lte(notificationOutbox.nextAttemptAt, now),
					or(isNull(notificationOutbox.leaseUntil), lte(notificationOutbox.leaseUntil, now)),
				),
			)
			.orderBy(asc(notificationOutbox.createdAt))
			.limit(this.batch * 4)
			.all()
			.filter((row) => this.delivererFor(row.channel))
			.slice(0, this.batch);
	}

	private async deliverOne(row: NotificationOutboxRow): Promise<DeliveryOutcome> {
		const deliverer = this.delivererFor(row.channel);
		if (!deliverer) {
			return { id: row.id, channel: row.channel, status: 'skipped' };
		}
		let error: string | undefined;
		let later: RetryLater | undefined;
		try {
			await deliverer(row);
		} catch (e) {
			error = (e as Error).message || String(e);
			later = e instanceof RetryLater ? e : undefined;
		}
		const nowMs = this.ctx.clock.now();
		if (later && !later.countsAsAttempt) {
			await this.ctx.store.write((db) => {
				db.update(notificationOutbox)
					.set({ status: 'pending', leaseUntil: null, nextAttemptAt: new Date(nowMs + later.retryAfterMs).toISOString() })
					.where(eq(notificationOutbox.id, row.id))
					.run();
			});
			return { id: row.id, channel: row.channel, status: 'retry', error };
		}
		const attempts = row.attempts + 1;
		const now = new Date(nowMs).toISOString();
		if (error === undefined) {
			await this.ctx.store.write((db) => {
				db.update(notificationOutbox)
					.set({ status: 'sent', attempts, sentAt: now, leaseUntil: null, lastError: null })
					.where(eq(notificationOutbox.id, row.id))
					.run();
			});
			return { id: row.id, channel: row.channel, status: 'sent' };
		}
		const giveUp = attempts >= this.maxAttempts;
		const delay = later ? Math.max(0, later.retryAfterMs) : Math.min(this.backoffMs * 2 ** (attempts - 1), 30 * 60_000);
		await this.ctx.store.write((db) => {
			db.update(notificationOutbox)
				.set({
					status: giveUp ? 'failed' : 'pending',
					attempts,
					leaseUntil: null,
					lastError: error.slice(0, 500),
					nextAttemptAt: new Date(nowMs + delay).toISOString(),
				})
				.where(eq(notificationOutbox.id, row.id))
				.run();
		});
		this.ctx.log.warn(
			`delivery to ${row.channel} (${row.event}) failed${giveUp ? ` after ${attempts} attempts; giving up` : `; retrying in ${Math.round(delay / 1000)} s`}: ${error}`,
		);
		return { id: row.id, channel: row.channel, status: giveUp ? 'failed' : 'retry', error };
	}

	/**
	 * Housekeeping for an idle moment: a row nobody could deliver for `expireAfterMs` (its channel was
	 * switched off, or no editor ever opened for the editor channel) is marked failed as expired, and
	 * finished rows older than `keepMs` are deleted. Returns how many rows each step touched.
	 */
	async prune(options: { expireAfterMs?: number; keepMs?: number } = {}): Promise<{ expired: number; deleted: number }> {
		const nowMs = this.ctx.clock.now();
		const expireBefore = new Date(nowMs - (options.expireAfterMs ?? 7 * 86_400_000)).toISOString();
		const deleteBefore = new Date(nowMs - (options.keepMs ?? 30 * 86_400_000)).toISOString();
		const waiting = and(eq(notificationOutbox.status, 'pending'), lte(notificationOutbox.createdAt, expireBefore));
		const finished = and(inArray(notificationOutbox.status, ['sent', 'failed', 'suppressed']), lte(notificationOutbox.createdAt, deleteBefore));
		const counts = await this.ctx.store.read((db) => ({
			expired: db.select({ id: notificationOutbox.id }).from(notificationOutbox).where(waiting).all().length,
			deleted: db.select({ id: notificationOutbox.id }).from(notificationOutbox).where(finished).all().length,
		}));
		if (counts.expired || counts.deleted) {
			await this.ctx.store.write((db) => {
				// Delete first: a row expired now stays visible (`baton notify list`) until a later prune.
				db.delete(notificationOutbox).where(finished).run();
				db.update(notificationOutbox)
					.set({ status: 'failed', lastError: 'expired: never delivered (its channel is off, or no process could deliver it)', leaseUntil: null })
					.where(waiting)
					.run();
			});
		}
		return counts;
	}

	/**
	 * The next time a waiting row of a channel this process delivers becomes due (for a host's timer),
	 * or null. A leased row counts from its lease's end.
	 */
	async nextDueAt(): Promise<number | null> {
		return this.ctx.store.read((db) => {
			const rows = db
				.select({ at: notificationOutbox.nextAttemptAt, leaseUntil: notificationOutbox.leaseUntil, channel: notificationOutbox.channel })
				.from(notificationOutbox)
				.where(inArray(notificationOutbox.status, ['pending', 'sending']))
				.orderBy(asc(notificationOutbox.nextAttemptAt))
				.limit(500)
				.all()
				.filter((row) => this.delivererFor(row.channel));
			const times = rows.map((row) => Math.max(Date.parse(row.at), row.leaseUntil ? Date.parse(row.leaseUntil) : 0));
			return times.length > 0 ? minOf(times, Infinity) : null;
		});
	}
}
