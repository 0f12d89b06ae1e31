/**
 * The pull's merge: `newSharedEvents` decides what is new (the one union-by-id rule) and this inserts
 * it in a few plain statements (rawInsert.ts), captured into the journal like any statement of the
 * write. A pull of thousands of events spent most of its time building one ORM insert after another.
 */
import { isoTime } from '../ids';
import type { BatonDb, JournalStore } from '../storage/journalStore';
import { sharedEvents } from '../storage/schema';
import { newSharedEvents, type WireEvent } from '../shared/sharedEvents';
import { insertRows } from './rawInsert';

export function mergeWireEvents(store: JournalStore, db: BatonDb, events: readonly WireEvent[], source: string, nowMs: number): { added: string[]; refused: { id: string; reason: string }[] } {
	const { fresh, refused } = newSharedEvents(db, events);
	const receivedAt = isoTime(nowMs);
	insertRows(
		store,
		sharedEvents,
		fresh.map((e) => ({ ...e, sessionId: e.sessionId ?? null, machineName: e.machineName ?? null, author: e.author ?? null, source, receivedAt })),
	);
	return { added: fresh.map((e) => e.id), refused };
}
