/**
 * `column IN (list)` with the whole list bound as one JSON parameter. A drizzle `inArray` of
 * thousands of values builds, checks and binds every value one by one (and must be split to stay
 * under SQLite's parameter limit); a pull of 10,000 events spent most of its merge doing that.
 */
import { sql, type Column, type SQL } from 'drizzle-orm';

export function inJsonList(column: Column, values: readonly string[]): SQL {
	return sql`${column} IN (SELECT value FROM json_each(${JSON.stringify(values)}))`;
}
