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
 * the statement is prepared once per write through the store's cache, not once per chunk.
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
	const name = getTableConfig(table).name;
	const list = columns.map(([, c]) => `"${c.name}"`).join(', ');
	const tuple = `(${columns.map(() => '?').join(', ')})`;
	const select = textual.map((t, c) => (t ? `CAST(column${c + 1} AS TEXT)` : `column${c + 1}`)).join(', ');
	const perStatement = Math.max(1, Math.floor(maxParams / columns.length));
	const sqlFor = new Map<number, string>();
	for (let i = 0; i < rows.length; i += perStatement) {
		const chunk = rows.slice(i, i + perStatement);
		const params: JournalParam[] = [];
		const bound: JournalParam[] = [];
		for (const row of chunk) {
			for (let c = 0; c < columns.length; c++) {
				const [key, column] = columns[c] as (typeof columns)[number];
				const value = row[key];
				const param = (value === undefined || value === null ? (column.default ?? null) : column.mapToDriverValue(value)) as JournalParam;
				params.push(param);
				bound.push(textual[c] && typeof param === 'string' && param.length >= bytesFrom ? Buffer.from(param, 'utf8') : param);
			}
		}
		let sql = sqlFor.get(chunk.length);
		if (!sql) {
			sql = `INSERT INTO "${name}" (${list}) SELECT ${select} FROM (VALUES ${Array.from({ length: chunk.length }, () => tuple).join(', ')})`;
			sqlFor.set(chunk.length, sql);
		}
		store.execCapturedBulk(sql, params, bound);
	}
}
