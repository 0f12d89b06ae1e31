/**
 * Exactly once per hook event, whichever copy runs it: the live hook (in the daemon or in its own
 * process) or the spooled copy a drain runs later. The event's id is recorded in `client_requests`
 * inside the same journal write as its first change, after checking that no copy recorded it
 * before: both happen under the journal lock in one transaction, so two copies never both apply, and
 * a crash mid-drain leaves the id durable exactly when the change is. Its later writes are not
 * checked again: a copy that got past the first write owns the event.
 *
 * The id (`hookEventId`) is the name the hooks room already gives one event across hook files and
 * dialects (`eventKey`: agent session + kind + instant, or the tool call's id) and, for a payload that
 * names none (Claude Code's prompts), the id the client gave this call (dist/cli.js makes one and
 * passes it to the daemon, to its own fallback and into the spool record).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Engine } from '../engine/engine';
import type { HookEvent } from '../engine/hookEvent';
import { eventKey } from '../engine/hooks/hookClaims';
import { wrapWrites } from './writeWrappers';

/** Another copy of the event (live or spooled) recorded it first: this one changes nothing. */
export class AlreadyRecorded extends Error {}
/** The hook spooled its event after its budget ran out: the late run must change nothing. */
export class Abandoned extends Error {}

const current = new AsyncLocalStorage<EventOnce>();

export function hookEventId(event: HookEvent, raw: unknown, clientId: string): string {
	return `hook:${eventKey(event, raw) ?? clientId}`;
}

export class EventOnce {
	/** The first write went under the lock: the event is this copy's (it is never spooled now). */
	started = false;
	/** Set before spooling: a first write after this throws. */
	abandoned = false;

	constructor(
		readonly id: string,
		private readonly label: string,
		/** Called at the first write (a hook bounding its lock waits lifts the bound there). */
		private readonly onFirstWrite?: () => void,
	) {}

	private self(): EventOnce {
		return this;
	}

	/** Runs `fn` as this event: only writes on its behalf (its async context) are checked and tagged. */
	async run<T>(engine: Engine, fn: () => Promise<T>): Promise<T> {
		const store = engine.store;
		const once = this.self();
		// Its own wrapper beside other commands' (the daemon runs several at once: writeWrappers.ts).
		const remove = wrapWrites(store, (write, next) => {
			if (current.getStore() !== once || once.started) {
				return next(write);
			}
			return next((db) => {
				if (once.started) {
					// An earlier write of this event in the same group commit recorded the id.
					return write(db);
				}
				if (once.abandoned) {
					throw new Abandoned(`${once.label}: its budget ran out and it was spooled`);
				}
				const seen = store.sqlite.exec('SELECT 1 FROM client_requests WHERE id = ?', [once.id])[0]?.values.length ?? 0;
				if (seen > 0) {
					throw new AlreadyRecorded(`${once.label}: already recorded (${once.id})`);
				}
				const result = write(db);
				store.execCaptured('INSERT OR IGNORE INTO client_requests (id, command, created_at) VALUES (?, ?, ?)', [once.id, once.label, new Date().toISOString()]);
				once.started = true;
				once.onFirstWrite?.();
				return result;
			});
		});
		try {
			return await current.run(this, fn);
		} finally {
			remove();
		}
	}
}
