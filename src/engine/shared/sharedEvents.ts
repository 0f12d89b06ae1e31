/**
 * Writing and reading shared events (see schema.ts `shared_events` and docs/records.md). Local writes
 * go through `appendSharedEvent(s)` inside the caller's `store.write`, so an event commits with the
 * change it records or not at all. Every string in a body is redacted before it is stored — the same
 * rules as the transcript archive — because an event may leave this machine. Events from a remote are
 * merged by `mergeSharedEvents`: a union by id, so receiving the same event twice, or in any order,
 * changes nothing.
 */
import { and, asc, eq, gt, inArray, sql } from 'drizzle-orm';
import { redactSecrets } from '../text/redactSecrets';
import { isoTime } from '../ids';
import type { BatonDb } from '../storage/journalStore';
import type { SharedEvent } from '../storage/model';
import { sharedEvents } from '../storage/schema';
import { eventMachine, eventTime, idTimeProblem, isEventId, maxClockAheadMs, newEventId, ulid } from './eventId';
import { insertEvents } from './eventInsert';
import { getPreparedOn } from '../storage/capturingDrizzle';
import { inJsonList } from './sqlJsonList';
import type { MachineIdentity } from './machineIdentity';
import { bodyProblem } from './eventBodies';
import { wireSizeProblem } from './wireLimits';

export interface NewSharedEvent {
	kind: string;
	subject: string;
	sessionId?: string | null;
	actor: string;
	body: Record<string, unknown>;
}

/** Body size a shared event may have: larger payloads belong in git objects the body points at. */
export const maxEventBodyBytes = 256 * 1024;

export function appendSharedEvent(db: BatonDb, machine: MachineIdentity, nowMs: number, event: NewSharedEvent): SharedEvent {
	return appendSharedEvents(db, machine, [{ nowMs, event }])[0] as SharedEvent;
}

/**
 * Appends events in order inside the caller's write, with one lookup for the whole batch (the
 * greatest id the store holds within `maxClockAheadMs` of the first event's time) and one prepared
 * multi-row insert: each new id sorts after the one before it, which the batch keeps in memory
 * (nothing else writes during the caller's write). With `ownOrder`, this machine's ids only ever go
 * up in time as well: an event's time is at least one millisecond after this machine's last id
 * (localEvents.ts). Ids from a remote whose clock is far ahead are never followed.
 */
export function appendSharedEvents(
	db: BatonDb,
	machine: MachineIdentity,
	events: readonly { nowMs: number; event: NewSharedEvent }[],
	options: { ownOrder?: boolean } = {},
): SharedEvent[] {
	if (events.length === 0) {
		return [];
	}
	let previous = greatestIdBefore(db, (events[0] as { nowMs: number }).nowMs + maxClockAheadMs);
	const rows: SharedEvent[] = [];
	for (const { nowMs, event } of events) {
		const body = redactDeep(event.body) as Record<string, unknown>;
		const size = Buffer.byteLength(JSON.stringify(body));
		if (size > maxEventBodyBytes) {
			throw new Error(`a ${event.kind} event of ${size} bytes is over the ${maxEventBodyBytes}-byte limit for shared events`);
		}
		const ownMs =
			options.ownOrder && previous && eventMachine(previous) === machine.id && eventTime(previous) <= nowMs + maxClockAheadMs
				? eventTime(previous) + 1
				: 0;
		const ms = Math.max(nowMs, ownMs);
		const id = newEventId(ms, machine.id, previous);
		previous = id;
		const at = isoTime(ms);
		rows.push({
			id,
			kind: event.kind,
			subject: event.subject,
			sessionId: event.sessionId ?? null,
			actor: event.actor,
			machine: machine.id,
			machineName: machine.name,
			author: machine.author,
			at,
			body,
			source: 'local',
			receivedAt: at,
		});
	}
	insertEvents(db, rows, 'local', 'at');
	return rows;
}

const greatestIdSql = 'SELECT max(id) FROM shared_events WHERE id < ?';

/**
 * The greatest event id the store holds from before `limitMs` (the primary key's index answers it):
 * a new local id sorts after it. Ids from a remote whose clock is far ahead are left out.
 */
function greatestIdBefore(db: BatonDb, limitMs: number): string | null {
	const top = getPreparedOn(db, greatestIdSql, [`evt_${ulid(limitMs, Buffer.alloc(10))}`])?.[0];
	return typeof top === 'string' ? top : null;
}

/** The shape of an event as it travels (no local bookkeeping). */
export type WireEvent = Omit<SharedEvent, 'source' | 'receivedAt'>;

export function toWire(event: SharedEvent): WireEvent {
	const { source: _source, receivedAt: _receivedAt, ...wire } = event;
	return wire;
}

/**
 * Adds the events not yet held (union by id); returns the ids that were new. An event whose id is
 * malformed or whose machine suffix disagrees with its `machine` field is refused with the reason,
 * the rest are merged.
 */
export function mergeSharedEvents(
	db: BatonDb,
	events: readonly WireEvent[],
	source: string,
	nowMs: number,
): { added: string[]; refused: { id: string; reason: string }[] } {
	const { fresh, refused } = newSharedEvents(db, events, nowMs);
	const rows: SharedEvent[] = fresh.map((event) => ({ ...event, source, receivedAt: isoTime(nowMs) }));
	// Many rows per statement: a pull of thousands of events must not prepare one statement each.
	for (let i = 0; i < rows.length; i += 200) {
		db.insert(sharedEvents)
			.values(rows.slice(i, i + 200))
			.run();
	}
	return { added: fresh.map((e) => e.id), refused };
}

/**
 * The lowest and highest id held, each from the primary key's index: SQLite finds a lone `min()` or
 * `max()` there at once, but `SELECT min(id), max(id)` in one query scans the whole index — a pull's
 * every page of 5,000 scanned every event already held (4.7 s of a 50,000-session pull's merge).
 */
export const heldIdRangeSql = sql`SELECT (SELECT min(id) FROM shared_events) AS low, (SELECT max(id) FROM shared_events) AS high`;

/**
 * The one merge rule, for every way of inserting: the events not yet held (each once), and the ones
 * refused with the reason — a malformed id, an id whose time is past the ULID range or more than a
 * day ahead of `nowMs` (this machine's clock), a machine suffix that is not its machine, a missing
 * kind, subject, actor, time or object body, a field larger than local input takes (wireLimits.ts),
 * or a body that does not fit its kind (eventBodies.ts).
 */
export function newSharedEvents(db: BatonDb, events: readonly WireEvent[], nowMs: number): { fresh: WireEvent[]; refused: { id: string; reason: string }[] } {
	const fresh: WireEvent[] = [];
	const refused: { id: string; reason: string }[] = [];
	// Only ids within the range the store holds can be held (the primary key's index gives the
	// range at once): a pull into a young workspace, or of events newer than any held, asks nothing.
	const range = db.get<{ low: string | null; high: string | null }>(heldIdRangeSql);
	const { low, high } = range ?? { low: null, high: null };
	const asked = low === null || high === null ? [] : events.map((e) => String(e.id)).filter((id) => id >= low && id <= high);
	const known = new Set(
		asked.length === 0
			? []
			: db
					.select({ id: sharedEvents.id })
					.from(sharedEvents)
					.where(inJsonList(sharedEvents.id, asked))
					.all()
					.map((r) => r.id),
	);
	for (const event of events) {
		if (!isEventId(event.id)) {
			refused.push({ id: String(event.id), reason: 'not an event id (evt_<ULID>_<machine>)' });
			continue;
		}
		const late = idTimeProblem(event.id, nowMs);
		if (late) {
			refused.push({ id: event.id, reason: late });
			continue;
		}
		if (!event.id.endsWith(`_${event.machine}`)) {
			refused.push({ id: event.id, reason: `the id's machine suffix is not its machine ${JSON.stringify(event.machine)}` });
			continue;
		}
		if (
			typeof event.kind !== 'string' ||
			typeof event.subject !== 'string' ||
			typeof event.actor !== 'string' ||
			typeof event.at !== 'string' ||
			!event.body ||
			typeof event.body !== 'object'
		) {
			refused.push({ id: event.id, reason: 'an event needs kind, subject, actor, at and an object body' });
			continue;
		}
		if (known.has(event.id)) {
			continue;
		}
		const problem = wireSizeProblem(event) ?? bodyProblem(event.kind, event.body);
		if (problem) {
			refused.push({ id: event.id, reason: problem });
			continue;
		}
		known.add(event.id);
		fresh.push(event);
	}
	return { fresh, refused };
}

/** Events of `kind` about `subject`, in the shared order (by id). */
export function eventsAbout(db: BatonDb, kind: string, subject: string): SharedEvent[] {
	return db
		.select()
		.from(sharedEvents)
		.where(and(eq(sharedEvents.kind, kind), eq(sharedEvents.subject, subject)))
		.orderBy(asc(sharedEvents.id))
		.all();
}

/** A session's events, optionally of some kinds, in the shared order. */
export function sessionEvents(db: BatonDb, sessionId: string, kinds?: readonly string[]): SharedEvent[] {
	const where =
		kinds && kinds.length > 0 ? and(eq(sharedEvents.sessionId, sessionId), inArray(sharedEvents.kind, [...kinds])) : eq(sharedEvents.sessionId, sessionId);
	return db.select().from(sharedEvents).where(where).orderBy(asc(sharedEvents.id)).all();
}

/** Events after `afterId` in the shared order (all when undefined), at most `limit`. */
export function eventsAfter(db: BatonDb, afterId: string | undefined, limit: number): SharedEvent[] {
	const query = db.select().from(sharedEvents);
	return (afterId ? query.where(gt(sharedEvents.id, afterId)) : query).orderBy(asc(sharedEvents.id)).limit(limit).all();
}

function redactDeep(value: unknown): unknown {
	if (typeof value === 'string') {
		return redactSecrets(value);
	}
	if (Array.isArray(value)) {
		return value.map(redactDeep);
	}
	if (value && typeof value === 'object') {
		return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, redactDeep(v)]));
	}
	return value;
}
