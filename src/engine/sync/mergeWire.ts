/**
 * The pull's merge: `newSharedEvents` decides what is new (the one union-by-id rule) and this inserts
 * it in a few plain statements, captured into the journal like any statement of the write. A pull of
 * thousands of events spent most of its time building one ORM insert after another.
 *
 * The events go in through a statement of their own (shared/eventInsert.ts) rather than the generic
 * `insertRows`: the columns are known, so each event's values are pushed straight from the wire event
 * (no row object copied per event, no per-column driver mapping), and the two values every row shares
 * (the remote and the time it arrived) are bound once per statement instead of once per row.
 */
import { sql } from 'drizzle-orm';
import { isoTime } from '../ids';
import type { BatonDb } from '../storage/journalStore';
import { newSharedEvents, type WireEvent } from '../shared/sharedEvents';
import { insertEvents } from '../shared/eventInsert';

interface MergeResult {
	added: string[];
	/** The merged events as received (the stored rows add only this copy's source and arrival time), in wire order. */
	events: WireEvent[];
	refused: { id: string; reason: string }[];
	before: number;
}

/** `bodies`: the pulled events' bodies as their lines wrote them (readBatches), stored as they came. */
export function mergeWireEvents(db: BatonDb, events: readonly WireEvent[], source: string, nowMs: number, bodies?: ReadonlyMap<object, string>): MergeResult {
	const { fresh, refused } = newSharedEvents(db, events, nowMs);
	// The greatest rowid before the insert: every row above it is one of `added` (SQLite gives a new
	// row the greatest rowid plus one), which lets the projection find the older events of the
	// pulled records without naming the new ones (projection.ts `mergedAfter`).
	const before = db.get<{ last: number | null }>(sql`SELECT max(rowid) AS last FROM shared_events`)?.last ?? 0;
	const receivedAt = isoTime(nowMs);
	insertEvents(db, fresh, source, receivedAt, bodies);
	return { added: fresh.map((e) => e.id), events: fresh, refused, before };
}
