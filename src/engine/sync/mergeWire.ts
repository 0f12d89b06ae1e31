/**
 * The pull's merge: `newSharedEvents` decides what is new (the one union-by-id rule) and this inserts
 * it in a few plain statements, captured into the journal like any statement of the write. A pull of
 * thousands of events spent most of its time building one ORM insert after another.
 *
 * The events go in through a statement of their own rather than the generic `insertRows`: the
 * columns are known, so each event's values are pushed straight from the wire event (no row object
 * copied per event, no per-column driver mapping), and the two values every row shares (the remote
 * and the time it arrived) are bound once per statement instead of once per row.
 */
import { sql } from 'drizzle-orm';
import { isoTime } from '../ids';
import type { JournalParam } from '../storage/journalFormat';
import type { BatonDb, JournalStore } from '../storage/journalStore';
import { newSharedEvents, type WireEvent } from '../shared/sharedEvents';

export interface MergeResult {
	added: string[];
	/** The merged events as received (the stored rows add only this copy's source and arrival time), in wire order. */
	events: WireEvent[];
	refused: { id: string; reason: string }[];
	before: number;
}

/** Bound values per statement (SQLite's limit is 32,766), as rawInsert.ts. */
const maxParams = 8_000;
/** Below this many characters a string binds as fast as its bytes would (see rawInsert.ts). */
const bytesFrom = 48;
const perRow = 10;
const rowsPerStatement = Math.floor(maxParams / perRow);

export function mergeWireEvents(store: JournalStore, db: BatonDb, events: readonly WireEvent[], source: string, nowMs: number): MergeResult {
	const { fresh, refused } = newSharedEvents(db, events, nowMs);
	// The greatest rowid before the insert: every row above it is one of `added` (SQLite gives a new
	// row the greatest rowid plus one), which lets the projection find the older events of the
	// pulled records without naming the new ones (projection.ts `mergedAfter`).
	const before = db.get<{ last: number | null }>(sql`SELECT max(rowid) AS last FROM shared_events`)?.last ?? 0;
	const receivedAt = isoTime(nowMs);
	insertEvents(store, fresh, source, receivedAt);
	return { added: fresh.map((e) => e.id), events: fresh, refused, before };
}

/**
 * `INSERT … SELECT` from a `VALUES` list, as rawInsert.ts does (long texts bound as their UTF-8 bytes
 * under `CAST(… AS TEXT)`, the journal keeping the plain strings), with `source` and `received_at`
 * as the statement's first two parameters.
 */
function insertEvents(store: JournalStore, rows: readonly WireEvent[], source: string, receivedAt: string): void {
	for (let i = 0; i < rows.length; i += rowsPerStatement) {
		const end = Math.min(rows.length, i + rowsPerStatement);
		const params: JournalParam[] = [source, receivedAt];
		const bound: JournalParam[] = [source, receivedAt];
		for (let r = i; r < end; r++) {
			const e = rows[r] as WireEvent;
			const body = JSON.stringify(e.body);
			// Optional on the wire: a missing one is stored as NULL.
			const [sessionId, machineName, author] = [e.sessionId ?? null, e.machineName ?? null, e.author ?? null];
			params.push(e.id, e.kind, e.subject, sessionId, e.actor, e.machine, machineName, author, e.at, body);
			bound.push(e.id, e.kind, e.subject, sessionId, e.actor, e.machine, machineName, author, e.at, body.length >= bytesFrom ? Buffer.from(body, 'utf8') : body);
		}
		store.execCaptured(statementFor(end - i), params, bound);
	}
}

const statements = new Map<number, string>();
function statementFor(count: number): string {
	let text = statements.get(count);
	if (!text) {
		const tuple = `(${Array.from({ length: perRow }, () => '?').join(', ')})`;
		text =
			'INSERT INTO "shared_events" ("id", "kind", "subject", "session_id", "actor", "machine", "machine_name", "author", "at", "body_json", "source", "received_at") ' +
			'SELECT CAST(column1 AS TEXT), CAST(column2 AS TEXT), CAST(column3 AS TEXT), CAST(column4 AS TEXT), CAST(column5 AS TEXT), CAST(column6 AS TEXT), CAST(column7 AS TEXT), CAST(column8 AS TEXT), CAST(column9 AS TEXT), CAST(column10 AS TEXT), ?, ? ' +
			`FROM (VALUES ${Array.from({ length: count }, () => tuple).join(', ')})`;
		statements.set(count, text);
	}
	return text;
}
