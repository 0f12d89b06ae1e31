/**
 * `column IN (list)` with the whole list bound as one JSON parameter. A drizzle `inArray` of
 * thousands of values builds, checks and binds every value one by one (and must be split to stay
 * under SQLite's parameter limit); a pull of 10,000 events spent most of its merge doing that.
 *
 * A long list goes as its UTF-8 bytes under `CAST(… AS TEXT)`: sql.js copies a bound string into
 * WebAssembly memory with two loops in JavaScript, which for the 10,000 ids of a pull cost as much
 * as the query; Node encodes the bytes natively. The cast makes it the same text.
 */
import { sql, type Column, type SQL } from 'drizzle-orm';

export function inJsonList(column: Column, values: readonly string[]): SQL {
	return sql`${column} IN (SELECT value FROM json_each(${jsonList(values)}))`;
}

/** The list as one JSON text parameter (bytes under a cast when long, as above). */
export function jsonList(values: readonly string[]): SQL {
	const json = JSON.stringify(values);
	return json.length < 256 ? sql`${json}` : sql`CAST(${Buffer.from(json, 'utf8')} AS TEXT)`;
}

/** `ids` without repeats, 5,000 at a time: what one `inJsonList` statement binds. */
export function* idChunks(ids: readonly string[]): Generator<string[]> {
	const unique = [...new Set(ids)];
	for (let i = 0; i < unique.length; i += 5_000) {
		yield unique.slice(i, i + 5_000);
	}
}
