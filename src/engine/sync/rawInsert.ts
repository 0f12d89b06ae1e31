/**
 * Many rows in a few plain SQL inserts, captured into the journal like any statement of the write.
 * Values go through each column's own driver mapping (JSON columns are stringified the way the ORM
 * would), so the rows read back exactly as ORM-written ones. Rows go as multi-row `VALUES` lists
 * with bound parameters, a few hundred rows per statement: building one ORM insert per row was most
 * of a big pull's time, and unpacking one JSON parameter per row (`json_each` + `json_extract` per
 * column) made SQLite parse every row's JSON once per column.
 */
import { getTableColumns } from 'drizzle-orm';
import { getTableConfig, type SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { JournalParam } from '../storage/journalFormat';
import type { JournalStore } from '../storage/journalStore';

/** SQLite's default limit of bound parameters per statement is 32,766; stay well under it. */
const maxParams = 8_000;

export function insertRows(store: JournalStore, table: SQLiteTable, rows: readonly Record<string, unknown>[]): void {
	if (rows.length === 0) {
		return;
	}
	const columns = Object.entries(getTableColumns(table));
	const name = getTableConfig(table).name;
	const list = columns.map(([, c]) => `"${c.name}"`).join(', ');
	const tuple = `(${columns.map(() => '?').join(', ')})`;
	const perStatement = Math.max(1, Math.floor(maxParams / columns.length));
	const sqlFor = new Map<number, string>();
	for (let i = 0; i < rows.length; i += perStatement) {
		const chunk = rows.slice(i, i + perStatement);
		const params: JournalParam[] = [];
		for (const row of chunk) {
			for (const [key, column] of columns) {
				const value = row[key];
				params.push((value === undefined || value === null ? (column.default ?? null) : column.mapToDriverValue(value)) as JournalParam);
			}
		}
		let sql = sqlFor.get(chunk.length);
		if (!sql) {
			sql = `INSERT INTO "${name}" (${list}) VALUES ${Array.from({ length: chunk.length }, () => tuple).join(', ')}`;
			sqlFor.set(chunk.length, sql);
		}
		store.execCaptured(sql, params);
	}
}
