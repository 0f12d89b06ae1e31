/**
 * Many rows in one plain SQL insert, captured into the journal like any statement of the write.
 * Values go through each column's own driver mapping (JSON columns are stringified the way the ORM
 * would), so the rows read back exactly as ORM-written ones; only the per-row query building is saved.
 */
import { getTableColumns } from 'drizzle-orm';
import { getTableConfig, type SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { JournalParam } from '../storage/journalFormat';
import type { JournalStore } from '../storage/journalStore';

export function insertRows(store: JournalStore, table: SQLiteTable, rows: readonly Record<string, unknown>[], rowsPerStatement = 100): void {
	const columns = Object.entries(getTableColumns(table));
	const name = getTableConfig(table).name;
	const list = columns.map(([, c]) => `"${c.name}"`).join(', ');
	const placeholders = `(${columns.map(() => '?').join(', ')})`;
	for (let i = 0; i < rows.length; i += rowsPerStatement) {
		const chunk = rows.slice(i, i + rowsPerStatement);
		const params: JournalParam[] = [];
		for (const row of chunk) {
			for (const [key, column] of columns) {
				const value = row[key];
				params.push(value === undefined || value === null ? ((column.default as JournalParam | undefined) ?? null) : (column.mapToDriverValue(value) as JournalParam));
			}
		}
		store.execCaptured(`INSERT INTO "${name}" (${list}) VALUES ${chunk.map(() => placeholders).join(', ')}`, params);
	}
}
