/**
 * Shared events inserted in a few plain statements of fixed text, captured into the journal like any
 * statement of the write: a pull's merge and this machine's own appends alike. Building one ORM
 * insert per event was most of a big pull's time, and most of a first push's (its records' events).
 *
 * `INSERT … SELECT` from a `VALUES` list, as storage's bulk inserts do (sync/rawInsert.ts): long texts
 * are bound as their UTF-8 bytes under `CAST(… AS TEXT)` (sql.js encodes a bound string in two
 * JavaScript loops, Node encodes bytes natively; the journal keeps the plain strings, and its replay
 * binds them as text and gets the same rows). A statement's text depends only on its row count, so
 * it is prepared once per count through the connection's statement cache.
 */
import type { JournalParam } from '../storage/journalFormat';
import { execCapturedOn, type BatonDb } from '../storage/capturingDrizzle';
import type { SharedEvent } from '../storage/model';

/** Bound values per statement (SQLite's limit is 32,766), as rawInsert.ts. */
const maxParams = 8_000;
/** Below this many characters a string binds as fast as its bytes would (see rawInsert.ts). */
const bytesFrom = 48;
const perRow = 10;
const rowsPerStatement = Math.floor(maxParams / perRow);

/** The columns every row has of its own; the last two (`source`, `received_at`) follow them. */
type EventColumns = Pick<SharedEvent, 'id' | 'kind' | 'subject' | 'actor' | 'machine' | 'at' | 'body'> &
	Partial<Pick<SharedEvent, 'sessionId' | 'machineName' | 'author'>>;

/**
 * Inserts `rows` with the same `source`. `receivedAt` is the arrival time every row shares (a pull),
 * or `'at'`: each row arrived when it was written (this machine's own events). `bodies` holds a
 * pulled event's body as its batch line wrote it (sync/wireLines.ts): stored as it came instead of
 * serialised again, it parses to the very body the merge checked.
 */
export function insertEvents(
	db: BatonDb,
	rows: readonly EventColumns[],
	source: string,
	receivedAt: string | 'at',
	bodies?: ReadonlyMap<object, string>,
): void {
	const shared: JournalParam[] = receivedAt === 'at' ? [source] : [source, receivedAt];
	for (let i = 0; i < rows.length; i += rowsPerStatement) {
		const end = Math.min(rows.length, i + rowsPerStatement);
		const params: JournalParam[] = [...shared];
		const bound: JournalParam[] = [...shared];
		for (let r = i; r < end; r++) {
			const e = rows[r] as EventColumns;
			const body = bodies?.get(e) ?? JSON.stringify(e.body);
			// Optional on the wire: a missing one is stored as NULL.
			const [sessionId, machineName, author] = [e.sessionId ?? null, e.machineName ?? null, e.author ?? null];
			params.push(e.id, e.kind, e.subject, sessionId, e.actor, e.machine, machineName, author, e.at, body);
			bound.push(
				e.id,
				e.kind,
				e.subject,
				sessionId,
				e.actor,
				e.machine,
				machineName,
				author,
				e.at,
				body.length >= bytesFrom ? Buffer.from(body, 'utf8') : body,
			);
		}
		execCapturedOn(db, statementFor(end - i, receivedAt === 'at'), params, bound);
	}
}

const statements = new Map<string, string>();
function statementFor(count: number, receivedAtIsAt: boolean): string {
	const key = `${count}:${receivedAtIsAt}`;
	let text = statements.get(key);
	if (!text) {
		const tuple = `(${Array.from({ length: perRow }, () => '?').join(', ')})`;
		text =
			'INSERT INTO "shared_events" ("id", "kind", "subject", "session_id", "actor", "machine", "machine_name", "author", "at", "body_json", "source", "received_at") ' +
			'SELECT CAST(column1 AS TEXT), CAST(column2 AS TEXT), CAST(column3 AS TEXT), CAST(column4 AS TEXT), CAST(column5 AS TEXT), CAST(column6 AS TEXT), CAST(column7 AS TEXT), CAST(column8 AS TEXT), CAST(column9 AS TEXT), CAST(column10 AS TEXT), ' +
			(receivedAtIsAt ? '?, CAST(column9 AS TEXT) ' : '?, ? ') +
			`FROM (VALUES ${Array.from({ length: count }, () => tuple).join(', ')})`;
		statements.set(key, text);
	}
	return text;
}
