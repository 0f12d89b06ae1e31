/**
 * The editor's view of a workspace: every session grouped by scope, each group in chain order
 * (first session of a chain, then each next), and labels that name the scope's root task.
 */
import { count, eq, asc } from 'drizzle-orm';
import type { EngineContext } from '../context';
import type { BatonDb } from '../storage/journalStore';
import type { Decision, Session, SessionStatus } from '../storage/model';
import { decisions, sessions, sessionStatuses } from '../storage/schema';
import type { ScopeChains, SessionRow } from './sessionShapes';
import { taskGraphOf } from '../tasks/taskGraphOf';

export type { ScopeChains } from './sessionShapes';

export function buildOverview(ctx: EngineContext, db: BatonDb): ScopeChains[] {
	const all: SessionRow[] = db
		.select({
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
		})
		.from(sessions)
		.orderBy(asc(sessions.startedAt), asc(sessions.id))
		.all();
	const groups = new Map<string, SessionRow[]>();
	for (const session of all) {
		const list = groups.get(session.scopeKey);
		if (list) {
			list.push(session);
		} else {
			groups.set(session.scopeKey, [session]);
		}
	}
	const graph = taskGraphOf(ctx);
	const out: ScopeChains[] = [];
	for (const [scopeKey, members] of groups) {
		const ordered = chainOrder(members);
		out.push({
			scopeKey,
			label: scopeLabel(scopeKey, (id) => graph.byId.get(id)?.title),
			sessions: ordered,
			lastActivity: members.reduce((latest, s) => (s.lastActivity > latest ? s.lastActivity : latest), ''),
		});
	}
	return out.sort((a, b) => (a.lastActivity < b.lastActivity ? 1 : a.lastActivity > b.lastActivity ? -1 : 0));
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
	const names: Record<string, string> = { epic: 'Epic', task: 'Task', subtree: 'Subtree', taskGroup: 'Task group', epicPhase: 'Epic phase', custom: 'Custom' };
	const kind = names[type] ?? type;
	if (id.includes(',')) {
		return `${kind}: ${id.split(',').join(', ')}`;
	}
	const title = titleOf(id);
	return `${kind} ${id}${phase ? ` (${phase})` : ''}${title ? ` · ${title}` : ''}`;
}

export function statusCounts(db: BatonDb): Record<SessionStatus, number> {
	const counts = Object.fromEntries(sessionStatuses.map((s) => [s, 0])) as Record<SessionStatus, number>;
	for (const row of db.select({ status: sessions.status, n: count() }).from(sessions).groupBy(sessions.status).all()) {
		counts[row.status] = row.n;
	}
	return counts;
}

export function decisionsOfSession(db: BatonDb, sessionId: string): Decision[] {
	return db.select().from(decisions).where(eq(decisions.sessionId, sessionId)).orderBy(asc(decisions.createdAt)).all();
}
