/**
 * Narrow reads for the Session Chains tree, so its first level never decodes every session: one
 * aggregate per scope (counts, newest activity), the few sessions that have a parent, and the full
 * rows of only the scopes (or sessions) a view opens.
 */
import { asc, inArray, isNotNull, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/sqlite-core';
import type { BatonDb } from '../storage/journalStore';
import { sessions } from '../storage/schema';
import { chainOrder, rootTaskTitles, scopeLabel, sessionRowColumns } from './overview';
import type { SessionRow } from './sessionShapes';

interface ScopeSummary {
	scopeKey: string;
	label: string;
	sessionCount: number;
	activeCount: number;
	lastActivity: string;
}

/**
 * Every scope with its counts, in the overview's order: newest activity first, ties in the order of
 * each scope's first session (start time, then id).
 */
export function scopeSummaries(db: BatonDb): ScopeSummary[] {
	const rows = db
		.select({
			scopeKey: sessions.scopeKey,
			sessionCount: sql<number>`count(*)`,
			activeCount: sql<number>`sum(${sessions.status} = 'active')`,
			lastActivity: sql<string>`max(${sessions.lastActivity})`,
			first: sql<string>`min(${sessions.startedAt} || ' ' || ${sessions.id})`,
		})
		.from(sessions)
		.groupBy(sessions.scopeKey)
		.all();
	rows.sort((a, b) => (a.lastActivity < b.lastActivity ? 1 : a.lastActivity > b.lastActivity ? -1 : a.first < b.first ? -1 : a.first > b.first ? 1 : 0));
	const titles = rootTaskTitles(
		db,
		rows.map((r) => r.scopeKey),
	);
	return rows.map((r) => ({
		scopeKey: r.scopeKey,
		label: scopeLabel(r.scopeKey, (id) => titles.get(id)),
		sessionCount: Number(r.sessionCount),
		activeCount: Number(r.activeCount ?? 0),
		lastActivity: r.lastActivity,
	}));
}

/** Sessions whose parent session exists (the orchestrator's workers): few, whatever the store's size. */
export function parentedSessions(db: BatonDb): { id: string; scopeKey: string; parentSessionId: string }[] {
	const parent = alias(sessions, 'parent');
	return db
		.select({ id: sessions.id, scopeKey: sessions.scopeKey, parentSessionId: sql<string>`${sessions.parentSessionId}` })
		.from(sessions)
		.innerJoin(parent, sql`${parent.id} = ${sessions.parentSessionId}`)
		.where(isNotNull(sessions.parentSessionId))
		.all();
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
