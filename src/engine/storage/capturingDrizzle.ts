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
	const db = drizzle(statements.client(), {
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
	prepared.set(db, { statements, capture });
	return db;
}

interface Prepared {
	statements: StatementCache;
	capture: () => [string, JournalParam[]][] | undefined;
}

/**
 * Each database's statement cache and capture. A module's own map: every process runs one copy of the
 * engine (the daemon's commands use the CLI built into its bundle, server/bundledCli.ts).
 */
const prepared = new WeakMap<BatonDb, Prepared>();

function preparedOf(db: BatonDb): Prepared | undefined {
	return prepared.get(db);
}

/**
 * Runs one writing statement of fixed text inside the write in progress on `db`, through the
 * connection's statement cache, and records it in that write's journal record as drizzle's own are.
 * Bulk writers use it with a text prepared once: building an ORM insert per row was most of their time.
 * `bound` are the values SQLite is given (the same rows, maybe cheaper to bind), `params` what the
 * journal keeps.
 */
export function execCapturedOn(db: BatonDb, sqlText: string, params: JournalParam[], bound: JournalParam[] = params): void {
	const owner = preparedOf(db);
	const into = owner?.capture();
	if (!owner || !into) {
		throw new Error('a captured statement runs only inside a write of the journal store');
	}
	const stmt = owner.statements.prepare(sqlText);
	stmt.run(bound as never);
	stmt.free();
	into.push([sqlText, params]);
}

/** A read of fixed text through the connection's statement cache: the first row's values, or undefined. */
export function getPreparedOn(db: BatonDb, sqlText: string, params: JournalParam[]): unknown[] | undefined {
	const owner = preparedOf(db);
	if (!owner) {
		throw new Error('a prepared read runs only on a database of the journal store');
	}
	const stmt = owner.statements.prepare(sqlText);
	try {
		stmt.bind(params as never);
		return stmt.step() ? (stmt.get() as unknown[]) : undefined;
	} finally {
		stmt.free();
	}
}
