/**
 * The editor's view of a workspace: every session grouped by scope, each group in chain order
 * (first session of a chain, then each next), and labels that name the scope's root task.
 */
import { asc, eq, inArray } from 'drizzle-orm';
import type { BatonDb } from '../storage/journalStore';
import type { Decision, Session, SessionStatus } from '../storage/model';
import { decisions, sessions, sessionStatusCounts, sessionStatuses, tasks } from '../storage/schema';
import type { ScopeChains, SessionRow } from './sessionShapes';

export type { ScopeChains } from './sessionShapes';

/** The columns a Session Chains row shows (the overview and the lazy tree read the same ones). */
export const sessionRowColumns = {
	id: sessions.id,
	name: sessions.name,
	status: sessions.status,
	scopeKey: sessions.scopeKey,
	agent: sessions.agent,
	previousSessionId: sessions.previousSessionId,
	nextSessionId: sessions.nextSessionId,
	parentSessionId: sessions.parentSessionId,
	startedAt: sessions.startedAt,
	lastActivity: sessions.lastActivity,
	suspendedAt: sessions.suspendedAt,
	endedAt: sessions.endedAt,
	endNote: sessions.endNote,
};

export function buildOverview(db: BatonDb): ScopeChains[] {
	const all: SessionRow[] = db.select(sessionRowColumns).from(sessions).orderBy(asc(sessions.startedAt), asc(sessions.id)).all();
	const groups = new Map<string, SessionRow[]>();
	for (const session of all) {
		const list = groups.get(session.scopeKey);
		if (list) {
			list.push(session);
		} else {
			groups.set(session.scopeKey, [session]);
		}
	}
	const titles = rootTaskTitles(db, groups.keys());
	const out: ScopeChains[] = [];
	for (const [scopeKey, members] of groups) {
		const ordered = chainOrder(members);
		out.push({
			scopeKey,
			label: scopeLabel(scopeKey, (id) => titles.get(id)),
			sessions: ordered,
			lastActivity: members.reduce((latest, s) => (s.lastActivity > latest ? s.lastActivity : latest), ''),
		});
	}
	return out.sort((a, b) => (a.lastActivity < b.lastActivity ? 1 : a.lastActivity > b.lastActivity ? -1 : 0));
}

/** The titles of the tasks the scope keys name (the only task column the tree shows), in one narrow query per few hundred. */
export function rootTaskTitles(db: BatonDb, scopeKeys: Iterable<string>): Map<string, string> {
	const ids = new Set<string>();
	for (const key of scopeKeys) {
		const id = key.split(':')[1];
		if (id && !id.includes(',')) {
			ids.add(id);
		}
	}
	const titles = new Map<string, string>();
	const all = [...ids];
	for (let i = 0; i < all.length; i += 500) {
		for (const row of db
			.select({ id: tasks.id, title: tasks.title })
			.from(tasks)
			.where(inArray(tasks.id, all.slice(i, i + 500)))
			.all()) {
			titles.set(row.id, row.title);
		}
	}
	return titles;
}

/** Chains first to last, chains ordered by their first session; `members` is sorted by start. */
export function chainOrder<S extends Pick<Session, 'id' | 'previousSessionId' | 'nextSessionId'>>(members: S[]): S[] {
	const byId = new Map(members.map((s) => [s.id, s]));
	const placed = new Set<string>();
	const out: S[] = [];
	for (const session of members) {
		const isHead = !session.previousSessionId || !byId.has(session.previousSessionId);
		if (!isHead || placed.has(session.id)) {
			continue;
		}
		let cursor: S | undefined = session;
		while (cursor && !placed.has(cursor.id)) {
			placed.add(cursor.id);
			out.push(cursor);
			cursor = cursor.nextSessionId ? byId.get(cursor.nextSessionId) : undefined;
		}
	}
	// Whatever a broken link left out (a cycle in imported data) still shows, by start time.
	for (const session of members) {
		if (!placed.has(session.id)) {
			out.push(session);
		}
	}
	return out;
}

export function scopeLabel(scopeKey: string, titleOf: (taskId: string) => string | undefined): string {
	if (scopeKey === 'global') {
		return 'Global';
	}
	const [type = '', id = '', phase] = scopeKey.split(':');
	const names: Record<string, string> = {
		epic: 'Epic',
		task: 'Task',
		subtree: 'Subtree',
		taskGroup: 'Task group',
		epicPhase: 'Epic phase',
		custom: 'Custom',
	};
	// Own keys only: a newer version's type (kept from a pull) may be named like an Object member.
	const kind = Object.hasOwn(names, type) ? (names[type] as string) : type;
	if (id.includes(',')) {
		return `${kind}: ${id.split(',').join(', ')}`;
	}
	const title = titleOf(id);
	return `${kind} ${id}${phase ? ` (${phase})` : ''}${title ? ` · ${title}` : ''}`;
}

export function statusCounts(db: BatonDb): Record<SessionStatus, number> {
	const counts = Object.fromEntries(sessionStatuses.map((s) => [s, 0])) as Record<SessionStatus, number>;
	// A few rows kept by triggers (schema.ts `sessionStatusCounts`), not a count of every session.
	for (const row of db.select().from(sessionStatusCounts).all()) {
		counts[row.status as SessionStatus] = row.sessionCount;
	}
	return counts;
}

export function decisionsOfSession(db: BatonDb, sessionId: string): Decision[] {
	return db.select().from(decisions).where(eq(decisions.sessionId, sessionId)).orderBy(asc(decisions.createdAt)).all();
}
