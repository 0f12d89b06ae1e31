/**
 * The events a pulled record's state is folded from: its new events (at hand, just merged) and its
 * older ones (read from the store). Both the projection of sessions and checkpoints (projection.ts)
 * and that of the shared records (recordProjection.ts, tasks and checkpoint labels) read through it:
 * reading every event of the pulled records back after the merge, bodies parsed again by the ORM,
 * was a third of a big pull's projection.
 */
import { and, inArray, not, sql } from 'drizzle-orm';
import { inJsonList, jsonList } from '../shared/sqlJsonList';
import type { WireEvent } from '../shared/sharedEvents';
import type { BatonDb } from '../storage/journalStore';
import { sharedEvents } from '../storage/schema';

/**
 * Every event of the given kinds about the given subjects, grouped by subject, each group in id
 * order. The new events are at hand already: only the older ones are read in full (ids first).
 *
 * `mergedAfter` (the merge's `before`): every row above that rowid is one of `newEvents`, so the
 * older events are among the rows at or below it. When those rows are fewer than the index probes
 * for the subjects would be (a first pull into a young workspace), they are scanned; otherwise the
 * kind-and-subject index is probed, so the cost follows the smaller of the table and the pull.
 * Without it, the new events are named to SQLite to be left out.
 */
export function eventsBySubject(
	db: BatonDb,
	subjects: readonly string[],
	kinds: readonly string[],
	newEvents: readonly WireEvent[],
	mergedAfter?: number,
): Map<string, WireEvent[]> {
	if (subjects.length === 0) {
		return new Map();
	}
	const kindSet = new Set(kinds);
	const byId = new Map<string, WireEvent>();
	for (const e of newEvents) {
		if (kindSet.has(e.kind)) {
			byId.set(e.id, e);
		}
	}
	const kindList = sql.raw(kinds.map((k) => `'${k.replaceAll("'", "''")}'`).join(', '));
	const older =
		mergedAfter === undefined
			? db
					.select({ id: sharedEvents.id })
					.from(sharedEvents)
					.where(
						and(
							inArray(sharedEvents.kind, [...kinds]),
							inJsonList(sharedEvents.subject, subjects),
							not(inJsonList(sharedEvents.id, [...byId.keys()])),
						),
					)
					.all()
					.map((r) => r.id)
			: db
					.all<{ id: string }>(
						mergedAfter <= subjects.length * kinds.length
							? sql`SELECT id FROM shared_events WHERE rowid <= ${mergedAfter} AND +kind IN (${kindList}) AND +subject IN (SELECT value FROM json_each(${jsonList(subjects)}))`
							: sql`SELECT id FROM shared_events WHERE kind IN (${kindList}) AND subject IN (SELECT value FROM json_each(${jsonList(subjects)})) AND rowid <= ${mergedAfter}`,
					)
					.map((r) => r.id)
					.filter((id) => !byId.has(id));
	if (older.length > 0) {
		for (const e of db.select().from(sharedEvents).where(inJsonList(sharedEvents.id, older)).all()) {
			byId.set(e.id, e);
		}
	}
	// Grouped first, then each (short) group put in id order: the pulled events mostly arrive in id
	// order already, and sorting all of them by id was most of this function's time.
	const wanted = new Set(subjects);
	const map = new Map<string, WireEvent[]>();
	for (const e of byId.values()) {
		if (!wanted.has(e.subject)) {
			continue;
		}
		const list = map.get(e.subject);
		if (list) {
			list.push(e);
		} else {
			map.set(e.subject, [e]);
		}
	}
	for (const list of map.values()) {
		for (let i = 1; i < list.length; i++) {
			if ((list[i - 1] as WireEvent).id > (list[i] as WireEvent).id) {
				list.sort((a, b) => (a.id < b.id ? -1 : 1));
				break;
			}
		}
	}
	return map;
}

/** The groups of `eventsBySubject` in the order of their first event's id (the order a fold of every event met them). */
export function byFirstEvent(groups: ReadonlyMap<string, WireEvent[]>): [string, WireEvent[]][] {
	return [...groups].sort((a, b) => ((a[1][0] as WireEvent).id < (b[1][0] as WireEvent).id ? -1 : 1));
}
