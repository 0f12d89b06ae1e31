/**
 * Many rows in a few plain SQL inserts, captured into the journal like any statement of the write.
 * Values go through each column's own driver mapping (JSON columns are stringified the way the ORM
 * would), so the rows read back exactly as ORM-written ones. Rows go as multi-row `VALUES` lists
 * with bound parameters, a few hundred rows per statement: building one ORM insert per row was most
 * of a big pull's time, and unpacking one JSON parameter per row (`json_each` + `json_extract` per
 * column) made SQLite parse every row's JSON once per column.
 *
 * Long text values are bound as their UTF-8 bytes under `CAST(? AS TEXT)`: sql.js encodes a bound
 * string into WebAssembly memory with two loops in JavaScript (its length, then its bytes), which was
 * about 40% of inserting a pull's events and rows; Node encodes the bytes natively and sql.js copies
 * them in one go. The cast makes the stored value the same text either way, so the journal keeps the
 * plain strings (its replay binds them as text and gets the same rows). The cast is written once
 * per column (`SELECT … FROM (VALUES …)`), not per value, so the statement's text stays as short; and
 * the statement is prepared once through the store's statement cache, not once per chunk.
 */
import { getTableColumns } from 'drizzle-orm';
import { getTableConfig, type SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { JournalParam } from '../storage/journalFormat';
import type { JournalStore } from '../storage/journalStore';

/** SQLite's default limit of bound parameters per statement is 32,766; stay well under it. */
const maxParams = 8_000;
/** Below this many characters a string binds as fast as its bytes would. */
const bytesFrom = 48;

export function insertRows(store: JournalStore, table: SQLiteTable, rows: readonly Record<string, unknown>[]): void {
	if (rows.length === 0) {
		return;
	}
	const columns = Object.entries(getTableColumns(table));
	const textual = columns.map(([, c]) => c.getSQLType() === 'text');
	// Plain text and integer columns pass their values through unchanged: their driver mapping is not
	// called once per row and column (a pulled session has 26 columns).
	const mapped = columns.map(([, c]) => c.columnType !== 'SQLiteText' && c.columnType !== 'SQLiteInteger');
	const name = getTableConfig(table).name;
	const perStatement = Math.max(1, Math.floor(maxParams / columns.length));
	for (let i = 0; i < rows.length; i += perStatement) {
		const chunk = rows.slice(i, i + perStatement);
		const values = chunk.map((row) =>
			columns.map(([key, column], c) => {
				const value = row[key];
				return (value === undefined || value === null ? (column.default ?? null) : mapped[c] ? column.mapToDriverValue(value) : value) as JournalParam;
			}),
		);
		// A column NULL in every row of the chunk and without a default is left out of the statement:
		// SQLite stores NULL there all the same, and a pulled session leaves most of its 26 columns
		// empty, so half of the values bound were NULLs.
		const kept = columns.map((_, c) => c).filter((c) => (columns[c]?.[1].hasDefault ?? true) || values.some((v) => v[c] !== null));
		const params: JournalParam[] = [];
		const bound: JournalParam[] = [];
		const bytes = new Map<string, Uint8Array>();
		for (const row of values) {
			for (const c of kept) {
				const param = row[c] as JournalParam;
				params.push(param);
				if (textual[c] && typeof param === 'string' && param.length >= bytesFrom) {
					let encoded = bytes.get(param);
					if (!encoded) {
						encoded = Buffer.from(param, 'utf8');
						bytes.set(param, encoded);
					}
					bound.push(encoded);
				} else {
					bound.push(param);
				}
			}
		}
		const list = kept.map((c) => `"${columns[c]?.[1].name}"`).join(', ');
		const select = kept.map((c, n) => (textual[c] ? `CAST(column${n + 1} AS TEXT)` : `column${n + 1}`)).join(', ');
		const tuple = `(${kept.map(() => '?').join(', ')})`;
		const sql = `INSERT INTO "${name}" (${list}) SELECT ${select} FROM (VALUES ${Array.from({ length: chunk.length }, () => tuple).join(', ')})`;
		store.execCaptured(sql, params, bound);
	}
}
