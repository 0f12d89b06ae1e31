import type { Database, Statement } from 'sql.js';

/**
 * Prepared statements kept across queries. drizzle's sql.js driver prepares and frees a statement for
 * every query it runs, so SQLite parsed and planned the same INSERT again on every write; through the
 * cache, `free()` only resets the statement and the next query with the same SQL reuses it.
 *
 * A statement is lent to one query at a time: asked for while lent (a nested query, or one whose
 * query threw before drizzle freed it), a fresh uncached statement is prepared instead, as without
 * the cache. `settle()` takes back what throwing queries left lent.
 *
 * sql.js frees every statement when the database is exported or closed: `clear()` must run first.
 */
export class StatementCache {
	private readonly cached = new Map<string, Statement>();
	private readonly lent = new Set<Statement>();

	constructor(
		private readonly sqlite: Database,
		private readonly limit = 256,
	) {}

	/** The database as drizzle should see it: the same connection, with this cache's prepare(). */
	client(): Database {
		const client = Object.create(this.sqlite) as Database;
		client.prepare = (sql: string, params?: Parameters<Database['prepare']>[1]) =>
			params === undefined ? this.prepare(sql) : this.sqlite.prepare(sql, params);
		return client;
	}

	prepare(sql: string): Statement {
		let stmt = this.cached.get(sql);
		if (stmt) {
			if (this.lent.has(stmt)) {
				return this.sqlite.prepare(sql);
			}
			// Most recently used last: eviction takes the first.
			this.cached.delete(sql);
			this.cached.set(sql, stmt);
		} else {
			stmt = this.sqlite.prepare(sql);
			this.evictBeyond(this.limit - 1);
			this.cached.set(sql, stmt);
			const kept = stmt;
			kept.free = () => {
				this.lent.delete(kept);
				kept.reset();
				return true;
			};
		}
		this.lent.add(stmt);
		return stmt;
	}

	/** Runs a statement without parameters or results (transaction control) through the cache. */
	run(sql: string): void {
		const stmt = this.prepare(sql);
		try {
			stmt.step();
		} finally {
			stmt.free();
		}
	}

	/** Resets and takes back the statements that queries which threw left lent. */
	settle(): void {
		for (const stmt of this.lent) {
			stmt.reset();
		}
		this.lent.clear();
	}

	/** Frees every cached statement (before sql.js exports or closes the database). */
	clear(): void {
		this.evictBeyond(0);
		this.lent.clear();
	}

	private evictBeyond(size: number): void {
		for (const [sql, stmt] of this.cached) {
			if (this.cached.size <= size) {
				return;
			}
			this.cached.delete(sql);
			// The statement's own free(), not the cache's reset: a lent one is freed when its query ends.
			const free = (Object.getPrototypeOf(stmt) as Statement).free;
			if (this.lent.has(stmt)) {
				this.lent.delete(stmt);
				stmt.free = free;
			} else {
				free.call(stmt);
			}
		}
	}
}
