/**
 * Many rows in one plain SQL insert, captured into the journal like any statement of the write.
 * Values go through each column's own driver mapping (JSON columns are stringified the way the ORM
 * would), so the rows read back exactly as ORM-written ones. The rows travel as one JSON parameter
 * that SQLite unpacks (`json_each`): binding thousands of values one by one, and journalling each,
 * was most of a big pull's time.
 */
import { getTableColumns } from 'drizzle-orm';
import { getTableConfig, type SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { JournalStore } from '../storage/journalStore';

export function insertRows(store: JournalStore, table: SQLiteTable, rows: readonly Record<string, unknown>[], rowsPerStatement = 5_000): void {
	const columns = Object.entries(getTableColumns(table));
	const name = getTableConfig(table).name;
	const list = columns.map(([, c]) => `"${c.name}"`).join(', ');
	const values = columns.map((_, i) => `json_extract(value, '$[${i}]')`).join(', ');
	for (let i = 0; i < rows.length; i += rowsPerStatement) {
		const chunk = rows.slice(i, i + rowsPerStatement).map((row) =>
			columns.map(([key, column]) => {
				const value = row[key];
				return value === undefined || value === null ? (column.default ?? null) : column.mapToDriverValue(value);
			}),
		);
		store.execCaptured(`INSERT INTO "${name}" (${list}) SELECT ${values} FROM json_each(?)`, [JSON.stringify(chunk)]);
	}
}
