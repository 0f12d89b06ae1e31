/**
 * Narrow reads for the Session Chains tree, so its first level never visits every session: a row per
 * scope (counts, newest activity) from `session_scopes`, the labels of the scopes a page sends, the
 * few sessions that have a parent, and the full rows of only the scopes (or sessions) a view opens.
 */
import { asc, count, desc, inArray, sql } from 'drizzle-orm';
import { pushAll } from '../arrays';
import { alias } from 'drizzle-orm/sqlite-core';
import type { BatonDb } from '../storage/journalStore';
import { sessionScopes, sessions } from '../storage/schema';
import { chainOrder, rootTaskTitles, scopeLabel, sessionRowColumns } from './overview';
import type { SessionRow } from './sessionShapes';

export interface ScopeSummary {
	scopeKey: string;
	sessionCount: number;
	activeCount: number;
	lastActivity: string;
}

const summaryColumns = {
	scopeKey: sessionScopes.scopeKey,
	sessionCount: sessionScopes.sessionCount,
	activeCount: sessionScopes.activeCount,
	lastActivity: sessionScopes.lastActivity,
};
/**
 * `limit` scopes with their counts, in the overview's order (newest activity first, ties in the order
 * of each scope's first session: start time, then id), after the first `offset`. Read from
 * `session_scopes`, which SQLite's triggers keep (one row a scope); with the limit SQLite walks the
 * order's index only as far as the page (sorting each run of equal times by first session), so a
 * page costs its rows, not every scope's: at 100,000 sessions, reading all 4,000 scopes was most of
 * the tree's first page.
 */
export function scopeSummaryPage(db: BatonDb, offset: number, limit: number): ScopeSummary[] {
	return db
		.select(summaryColumns)
		.from(sessionScopes)
		.orderBy(desc(sessionScopes.lastActivity), asc(sessionScopes.firstSession))
		.limit(limit)
		.offset(offset)
		.all();
}

/** These scopes' summaries (those that exist, in no order), each with its first session (the order's second key). */
export function scopeSummariesOf(db: BatonDb, scopeKeys: readonly string[]): (ScopeSummary & { firstSession: string })[] {
	const out: (ScopeSummary & { firstSession: string })[] = [];
	for (let i = 0; i < scopeKeys.length; i += 500) {
		pushAll(
			out,
			db
				.select({ ...summaryColumns, firstSession: sessionScopes.firstSession })
				.from(sessionScopes)
				.where(inArray(sessionScopes.scopeKey, scopeKeys.slice(i, i + 500)))
				.all(),
		);
	}
	return out;
}

/** How many scopes there are. */
export function scopeCount(db: BatonDb): number {
	return db.select({ n: count() }).from(sessionScopes).get()?.n ?? 0;
}

/** `Epic T1 · Checkout flow`: these scopes' labels, each with its root task's title (read for these only). */
export function scopeLabels(db: BatonDb, scopeKeys: readonly string[]): Map<string, string> {
	const titles = rootTaskTitles(db, scopeKeys);
	return new Map(scopeKeys.map((key) => [key, scopeLabel(key, (id) => titles.get(id))]));
}

/** Sessions whose parent session exists (the orchestrator's workers): few, whatever the store's size. */
export function parentedSessions(db: BatonDb): { id: string; scopeKey: string; parentSessionId: string }[] {
	const parent = alias(sessions, 'parent');
	return (
		db
			.select({ id: sessions.id, scopeKey: sessions.scopeKey, parentSessionId: sql<string>`${sessions.parentSessionId}` })
			.from(sessions)
			.innerJoin(parent, sql`${parent.id} = ${sessions.parentSessionId}`)
			// `> ''` (every id) rather than IS NOT NULL, which SQLite's planner answers by reading every session.
			.where(sql`${sessions.parentSessionId} > ''`)
			.all()
	);
}

const rowColumns = sessionRowColumns;

/** The rows of these scopes, each scope's in chain order (as the overview orders them). */
export function scopeChainRows(db: BatonDb, scopeKeys: readonly string[]): Map<string, SessionRow[]> {
	const byScope = new Map<string, SessionRow[]>(scopeKeys.map((key) => [key, []]));
	for (let i = 0; i < scopeKeys.length; i += 500) {
		const rows: SessionRow[] = db
			.select(rowColumns)
			.from(sessions)
			.where(inArray(sessions.scopeKey, scopeKeys.slice(i, i + 500)))
			.orderBy(asc(sessions.startedAt), asc(sessions.id))
			.all();
		for (const row of rows) byScope.get(row.scopeKey)?.push(row);
	}
	for (const [key, rows] of byScope) byScope.set(key, chainOrder(rows));
	return byScope;
}
