/**
 * The pull's merge: the same union by id and the same refusals as `mergeSharedEvents`, with the new
 * rows inserted by plain multi-row SQL (captured into the journal like any statement of the write).
 * A pull of thousands of events spent most of its time building one ORM insert after another.
 */
import { inArray } from 'drizzle-orm';
import { isoTime } from '../ids';
import type { BatonDb, JournalStore } from '../storage/journalStore';
import type { JournalParam } from '../storage/journalFormat';
import { sharedEvents } from '../storage/schema';
import { isEventId } from '../shared/eventId';
import type { WireEvent } from '../shared/sharedEvents';

const columns = 'id, kind, subject, session_id, actor, machine, machine_name, author, at, body_json, source, received_at';
const rowsPerStatement = 200;

export function mergeWireEvents(store: JournalStore, db: BatonDb, events: readonly WireEvent[], source: string, nowMs: number): { added: string[]; refused: { id: string; reason: string }[] } {
	const added: string[] = [];
	const refused: { id: string; reason: string }[] = [];
	const known = new Set<string>();
	const ids = events.map((e) => e.id);
	for (let i = 0; i < ids.length; i += 500) {
		for (const row of db
			.select({ id: sharedEvents.id })
			.from(sharedEvents)
			.where(inArray(sharedEvents.id, ids.slice(i, i + 500)))
			.all()) {
			known.add(row.id);
		}
	}
	const fresh: WireEvent[] = [];
	for (const event of events) {
		if (!isEventId(event.id)) {
			refused.push({ id: String(event.id), reason: 'not an event id (evt_<ULID>_<machine>)' });
			continue;
		}
		if (!event.id.endsWith(`_${event.machine}`)) {
			refused.push({ id: event.id, reason: `the id's machine suffix is not its machine ${JSON.stringify(event.machine)}` });
			continue;
		}
		if (typeof event.kind !== 'string' || typeof event.subject !== 'string' || typeof event.actor !== 'string' || typeof event.at !== 'string' || !event.body || typeof event.body !== 'object') {
			refused.push({ id: event.id, reason: 'an event needs kind, subject, actor, at and an object body' });
			continue;
		}
		if (known.has(event.id)) {
			continue;
		}
		known.add(event.id);
		fresh.push(event);
		added.push(event.id);
	}
	const receivedAt = isoTime(nowMs);
	for (let i = 0; i < fresh.length; i += rowsPerStatement) {
		const chunk = fresh.slice(i, i + rowsPerStatement);
		const params: JournalParam[] = [];
		for (const e of chunk) {
			params.push(e.id, e.kind, e.subject, e.sessionId ?? null, e.actor, e.machine, e.machineName ?? null, e.author ?? null, e.at, JSON.stringify(e.body), source, receivedAt);
		}
		store.execCaptured(`INSERT INTO shared_events (${columns}) VALUES ${chunk.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`, params);
	}
	return { added, refused };
}
