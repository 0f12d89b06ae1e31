import { drizzle, type SQLJsDatabase } from 'drizzle-orm/sql-js';
import type { JournalParam } from './journalFormat';
import type { StatementCache } from './statementCache';
import * as schema from './schema';

export type BatonDb = SQLJsDatabase<typeof schema>;

const writeStatement = /^\s*(insert|update|delete|replace|create|alter|drop)\b/i;

/**
 * drizzle over the cached statements of one connection. Every writing statement drizzle runs while
 * `capture()` returns a list is added to it: the journal record of the write in progress.
 */
export function capturingDrizzle(statements: StatementCache, capture: () => [string, JournalParam[]][] | undefined): BatonDb {
	return drizzle(statements.client(), {
		schema,
		logger: {
			logQuery: (query: string, params: unknown[]) => {
				const into = capture();
				if (into && writeStatement.test(query)) {
					into.push([query, params as JournalParam[]]);
				}
			},
		},
	});
}
