/**
 * The pull's merge: `newSharedEvents` decides what is new (the one union-by-id rule) and this inserts
 * it in a few plain statements (rawInsert.ts), captured into the journal like any statement of the
 * write. A pull of thousands of events spent most of its time building one ORM insert after another.
 */
import { sql } from 'drizzle-orm';
import { isoTime } from '../ids';
import type { BatonDb, JournalStore } from '../storage/journalStore';
import { sharedEvents } from '../storage/schema';
import { newSharedEvents, type WireEvent } from '../shared/sharedEvents';
import { insertRows } from './rawInsert';

export function mergeWireEvents(store: JournalStore, db: BatonDb, events: readonly WireEvent[], source: string, nowMs: number): { added: string[]; refused: { id: string; reason: string }[]; before: number } {
	const { fresh, refused } = newSharedEvents(db, events);
	// The greatest rowid before the insert: every row above it is one of `added` (SQLite gives a new
	// row the greatest rowid plus one), which lets the projection find the older events of the
	// pulled records without naming the new ones (projection.ts `mergedAfter`).
	const before = db.get<{ last: number | null }>(sql`SELECT max(rowid) AS last FROM shared_events`)?.last ?? 0;
	const receivedAt = isoTime(nowMs);
	insertRows(
		store,
		sharedEvents,
		fresh.map((e) => ({ ...e, sessionId: e.sessionId ?? null, machineName: e.machineName ?? null, author: e.author ?? null, source, receivedAt })),
	);
	return { added: fresh.map((e) => e.id), refused, before };
}
