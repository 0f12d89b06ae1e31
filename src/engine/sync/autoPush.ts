/**
 * Records travel on their own (docs/sync.md, "Records travel on their own"): with sharing on, the
 * backend pushes Baton's refs once a session has ended (its handoff written), a checkpoint has been
 * decided or a decision recorded — a teammate should not wait for the next code push to see them.
 *
 * - **Debounced**: the backend calls `tick` only once the store has been quiet for a few seconds, so
 *   a burst of writes (an agent's last steps, then its session end) is one push.
 * - **Durable**: what waits is what it always was, each ref's tip against the oid each remote
 *   confirmed (syncState.ts); a backend started later finds the same records worth pushing (it starts
 *   from nothing pushed) and a push with nothing queued costs no network.
 * - **Retried**: a push that fails (no network, the remote down) is tried again after a wait that
 *   doubles from 15 s up to 10 minutes, and said once per run of failures, not on every attempt.
 */
import { sql } from 'drizzle-orm';
import type { Logger } from '../ports';
import type { BatonDb } from '../storage/capturingDrizzle';

/** The local events a push is worth making for. */
const worthKinds = ['handoff.written', 'checkpoint.decided', 'decision.recorded'];

/**
 * The newest local event worth a push (its rowid; 0: none), and whether a decision waits to become
 * one (a decision with no `decision.recorded` event yet; the other worthy kinds are domain events,
 * written as they happen). Two indexed reads: the backend asks this a few seconds after every quiet
 * store, and comparing every record with its events (recordEvents.ts) took seconds after a large
 * import, in one synchronous read that held back every request behind it.
 */
export function pushWorthy(db: BatonDb): { top: number; pendingDecision: boolean } {
	const top =
		db.all<{ top: number | null }>(
			sql`SELECT max(rowid) AS top FROM shared_events WHERE source = 'local' AND kind IN (SELECT value FROM json_each(${JSON.stringify(worthKinds)}))`,
		)[0]?.top ?? 0;
	const waiting = db.all<{ one: number }>(
		sql`SELECT 1 AS one FROM decisions d WHERE NOT EXISTS (SELECT 1 FROM shared_events e WHERE e.kind = 'decision.recorded' AND e.subject = d.id) LIMIT 1`,
	);
	return { top, pendingDecision: waiting.length > 0 };
}

export interface AutoPushTarget {
	/** Whether any remote shares (nothing is pushed otherwise). */
	sharing(): boolean;
	worthy(): Promise<{ top: number; pendingDecision: boolean }>;
	push(): Promise<unknown>;
}

type AutoPushOutcome = 'off' | 'nothing' | 'waiting' | 'pushed' | 'failed';

export class AutoPush {
	/** The newest worthy event a push has carried (0: none yet in this process). */
	private carried = 0;
	private failures = 0;
	private retryAt = 0;

	constructor(
		private readonly target: AutoPushTarget,
		private readonly log: Logger,
		private readonly now: () => number = Date.now,
	) {}

	/** Whether a retry is waiting (the backend keeps calling while one is). */
	get retrying(): boolean {
		return this.failures > 0;
	}

	async tick(): Promise<AutoPushOutcome> {
		if (!this.target.sharing()) {
			this.failures = 0;
			return 'off';
		}
		if (this.failures > 0 && this.now() < this.retryAt) {
			return 'waiting';
		}
		const worthy = await this.target.worthy();
		if (this.failures === 0 && worthy.top <= this.carried && !worthy.pendingDecision) {
			return 'nothing';
		}
		try {
			await this.target.push();
		} catch (error) {
			this.failures++;
			const waitMs = Math.min(10 * 60_000, 15_000 * 2 ** (this.failures - 1));
			this.retryAt = this.now() + waitMs;
			if (this.failures === 1) {
				this.log.warn(
					`sync: the background push failed (${(error as Error).message}); it is tried again, first in ${Math.round(waitMs / 1000)} s (the records stay queued)`,
				);
			}
			return 'failed';
		}
		if (this.failures > 0) {
			this.log.info(`sync: the background push went through after ${this.failures} failed attempt(s)`);
		}
		this.failures = 0;
		// Read again: the push turned waiting decisions into events of their own.
		this.carried = Math.max(this.carried, (await this.target.worthy()).top);
		return 'pushed';
	}
}
