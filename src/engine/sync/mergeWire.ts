/**
 * The pull's merge: `newSharedEvents` decides what is new (the one union-by-id rule) and this inserts
 * it by plain multi-row SQL, captured into the journal like any statement of the write.
 * A pull of thousands of events spent most of its time building one ORM insert after another.
 */
import { isoTime } from '../ids';
import type { BatonDb, JournalStore } from '../storage/journalStore';
import type { JournalParam } from '../storage/journalFormat';
import { newSharedEvents, type WireEvent } from '../shared/sharedEvents';

const columns = 'id, kind, subject, session_id, actor, machine, machine_name, author, at, body_json, source, received_at';
const rowsPerStatement = 200;

export function mergeWireEvents(store: JournalStore, db: BatonDb, events: readonly WireEvent[], source: string, nowMs: number): { added: string[]; refused: { id: string; reason: string }[] } {
	const { fresh, refused } = newSharedEvents(db, events);
	const added = fresh.map((e) => e.id);
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
