/**
 * Exactly once per hook event, whichever copy runs it: the live hook (in the daemon or in its own
 * process) or the spooled copy a drain runs later. All of an event's journal changes are one write
 * (`store.writeAsOne`, storage/oneWrite.ts): one transaction, appended as one record, with the event's
 * id recorded in `client_requests` at its first change, after checking that no copy recorded it. The
 * check and the record happen under the journal lock, held from that first change until the record is
 * durable, so two copies never both apply, and a process killed anywhere in the event (a daemon
 * SIGKILLed between a prompt's activity and its turn) leaves either all of it or nothing of it: the
 * copy that runs next records it whole.
 *
 * Why one write rather than recording the event's completion and re-running a half-applied event (the
 * way requestLedger.ts answers for commands): a re-run is exactly once only if every write a hook makes
 * is idempotent by event id, and they are not (a prompt appends a turn, a session start starts a
 * session); one write needs nothing of them. What it costs: other writers wait from the event's first
 * change to its end (its timeline capture included, bounded by the capture budget), and the
 * checkpoints an event asks for run after its write is durable (their git snapshot takes the shadow
 * store's lock, under which a checkpoint writes: taken inside the event, the two locks could be taken
 * in opposite orders). A process killed between the two loses the checkpoint, never the event.
 *
 * The id (`hookEventId`) is the name the hooks room already gives one event across hook files and
 * dialects (`eventKey`: agent session + kind + instant, or the tool call's id) and, for a payload that
 * names none (Claude Code's prompts), the id the client gave this call (dist/cli.js makes one and
 * passes it to the daemon, to its own fallback and into the spool record).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Engine } from '../engine/engine';
import { wrapWrites } from './writeWrappers';

/** Another copy of the event (live or spooled) recorded it first: this one changes nothing. */
export class AlreadyRecorded extends Error {}
/** The hook spooled its event after its budget ran out: the late run must change nothing. */
export class Abandoned extends Error {}

const current = new AsyncLocalStorage<EventOnce>();

export class EventOnce {
	/** Its first write holds the journal lock: the event is this copy's to record or to lose whole (it is never spooled now). */
	started = false;
	/** Set before spooling: a first write after this throws. */
	abandoned = false;
	/** Why its writes were refused (another copy recorded it; it was abandoned), even if a handler swallowed the error. */
	private refused: Error | undefined;

	constructor(
		readonly id: string,
		private readonly label: string,
		/** Called at the first write (a hook bounding its lock waits lifts the bound there). */
		private readonly onFirstWrite?: () => void,
		/** Test only (hookRunner's `testPause`): awaited once, before the event's second write (or, with one write, before its record is kept). */
		private pauseAfterFirstWrite?: () => Promise<void>,
	) {}

	/** Runs `fn` as this event: its writes (its async context) are one journal write, with the claim. */
	async run<T>(engine: Engine, fn: () => Promise<T>): Promise<T> {
		const store = engine.store;
		const restore = this.pauseAfterFirstWrite ? this.pauseBeforeSecondWrite(engine) : undefined;
		try {
			const result = await store.writeAsOne(
				async () => {
					const value = await current.run(this, fn);
					// An event of one write pauses after it, before its record is kept (the test seam, as before a second write).
					const pause = this.started ? this.pauseAfterFirstWrite : undefined;
					this.pauseAfterFirstWrite = undefined;
					await pause?.();
					return value;
				},
				{ first: () => this.claim(engine) },
			);
			if (this.refused) {
				throw this.refused;
			}
			return result;
		} finally {
			restore?.();
		}
	}

	/** Inside the event's first write, under the lock: refuse if another copy recorded it, else record its id. */
	private claim(engine: Engine): void {
		if (this.abandoned) {
			throw (this.refused = new Abandoned(`${this.label}: its budget ran out and it was spooled`));
		}
		const store = engine.store;
		const seen = store.sqlite.exec('SELECT 1 FROM client_requests WHERE id = ?', [this.id])[0]?.values.length ?? 0;
		if (seen > 0) {
			throw (this.refused = new AlreadyRecorded(`${this.label}: already recorded (${this.id})`));
		}
		store.execCaptured('INSERT OR IGNORE INTO client_requests (id, command, created_at) VALUES (?, ?, ?)', [this.id, this.label, new Date().toISOString()]);
		this.started = true;
		this.onFirstWrite?.();
	}

	private pauseBeforeSecondWrite(engine: Engine): () => void {
		const store = engine.store;
		const once = this.self();
		// Its own wrapper beside other commands' (the daemon runs several at once: writeWrappers.ts).
		return wrapWrites(store, (write, next) => {
			const pause = current.getStore() === once && once.started ? once.pauseAfterFirstWrite : undefined;
			if (!pause) {
				return next(write);
			}
			once.pauseAfterFirstWrite = undefined;
			return pause().then(() => next(write));
		});
	}

	private self(): EventOnce {
		return this;
	}
}
