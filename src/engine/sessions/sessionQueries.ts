/**
 * Read-side helpers over the sessions tables, usable inside read() and write() callbacks.
 */
import { and, desc, eq, isNull, sql } from 'drizzle-orm';
import { BatonError } from '../errors';
import { handoffDataSchema, type HandoffData } from '../storage/jsonShapes';
import type { BatonDb } from '../storage/journalStore';
import type { Session, SessionStatus } from '../storage/model';
import { handoffs, sessionAliases, sessions, sharedEvents } from '../storage/schema';
import type { ForkNode } from './sessionShapes';

export type { ForkNode } from './sessionShapes';

export function getSession(db: BatonDb, id: string): Session {
	const row = db.select().from(sessions).where(eq(sessions.id, id)).get();
	if (!row) {
		throw new BatonError('notFound', `session ${id} does not exist`);
	}
	return row;
}

/**
 * Where a session runs: the source of its newest start or status event ('local': this machine's
 * own; a remote's name: pulled). A session from before sync has no event and runs here. Only the
 * machine a session runs on judges it: its liveness (touches are not shared), its scope's hold.
 */
export const runsHere = sql`coalesce((SELECT e.source FROM shared_events e WHERE e.kind IN ('session.started', 'session.status') AND e.subject = "sessions"."id" ORDER BY e.id DESC LIMIT 1), 'local') = 'local'`;

/**
 * The sessions active on this machine. A teammate's session pulled through sync is active where it
 * runs: here it holds no scope, is not the session a command that names none means, and is never
 * one an agent hook joins (that would put this machine's work in another machine's session).
 */
export function activeSessions(db: BatonDb): Session[] {
	return db
		.select()
		.from(sessions)
		.where(and(eq(sessions.status, 'active'), runsHere))
		.orderBy(desc(sessions.startedAt))
		.all();
}

/** Sessions active on other machines (pulled through sync), with where they run, newest first. */
export function activeElsewhere(db: BatonDb): { session: Session; machineName: string | null; author: string | null }[] {
	const remote = db
		.select()
		.from(sessions)
		.where(and(eq(sessions.status, 'active'), sql`NOT ${runsHere}`))
		.orderBy(desc(sessions.startedAt))
		.all();
	return remote.map((session) => {
		const origin = db
			.select({ machineName: sharedEvents.machineName, author: sharedEvents.author })
			.from(sharedEvents)
			.where(and(eq(sharedEvents.kind, 'session.started'), eq(sharedEvents.subject, session.id)))
			.get();
		return { session, machineName: origin?.machineName ?? null, author: origin?.author ?? null };
	});
}

/**
 * Sessions newest first. `after` is the id of the last session of the previous page: the page goes on
 * below it in the same order (start time, then id), so pages neither repeat nor skip a session while
 * new ones start.
 */
export function listSessions(db: BatonDb, filter: { status?: SessionStatus; scopeKey?: string; limit?: number; after?: string }): Session[] {
	const conditions = [];
	if (filter.status) {
		conditions.push(eq(sessions.status, filter.status));
	}
	if (filter.scopeKey) {
		conditions.push(eq(sessions.scopeKey, filter.scopeKey));
	}
	if (filter.after) {
		const last = getSession(db, filter.after);
		// One row-value range over the (started_at, id) index: a later page reads its own rows, not every older session sorted.
		conditions.push(sql`(${sessions.startedAt}, ${sessions.id}) < (${last.startedAt}, ${last.id})`);
	}
	const query = db
		.select()
		.from(sessions)
		// eslint-disable-next-line no-restricted-syntax -- one condition per filter option above (three)
		.where(conditions.length ? and(...conditions) : undefined)
		.orderBy(desc(sessions.startedAt), desc(sessions.id));
	return filter.limit ? query.limit(filter.limit).all() : query.all();
}

/** The most recent ended session of a scope that no later session continues yet: the chain's tail. */
/**
 * The end note `baton import agents` gives the sessions it makes from an agent's own history
 * (agentHistory/historyImport.ts `importedNote`): they are history, never the tail a new session's
 * chain continues — a newer imported session would otherwise take the place of the last session that
 * left a handoff, and the next session would start without it.
 */
export const importedEndNotePrefix = 'Imported from ';

export function chainTail(db: BatonDb, key: string): Session | undefined {
	return db
		.select()
		.from(sessions)
		.where(
			and(
				eq(sessions.scopeKey, key),
				eq(sessions.status, 'ended'),
				isNull(sessions.nextSessionId),
				sql`coalesce(substr(${sessions.endNote}, 1, ${importedEndNotePrefix.length}), '') <> ${importedEndNotePrefix}`,
			),
		)
		.orderBy(desc(sessions.endedAt), desc(sessions.id))
		.limit(1)
		.get();
}

export type StoredHandoff = { kind: 'none' } | { kind: 'valid'; data: HandoffData } | { kind: 'malformed'; problem: string };

/** A session's handoff, read as text and validated, so a damaged one is reported instead of thrown. */
export function readHandoff(db: BatonDb, sessionId: string): StoredHandoff {
	const row = db
		.select({ text: sql<string>`cast(${handoffs.data} as text)` })
		.from(handoffs)
		.where(eq(handoffs.sessionId, sessionId))
		.get();
	if (!row) {
		return { kind: 'none' };
	}
	let parsed: unknown;
	try {
		parsed = JSON.parse(row.text);
	} catch (error) {
		return { kind: 'malformed', problem: `not JSON (${(error as Error).message})` };
	}
	const result = handoffDataSchema.safeParse(parsed);
	if (!result.success) {
		const issue = result.error.issues[0];
		return { kind: 'malformed', problem: `${issue?.path.join('.') || 'value'}: ${issue?.message ?? 'invalid'}` };
	}
	return { kind: 'valid', data: result.data };
}

/** Every session of `id`'s chain, first to last, following previous/next links (cycle-safe). */
export function chainOf(db: BatonDb, id: string): Session[] {
	const start = getSession(db, id);
	const seen = new Set([start.id]);
	const before: Session[] = [];
	let cursor = start;
	while (cursor.previousSessionId && !seen.has(cursor.previousSessionId)) {
		const prev = db.select().from(sessions).where(eq(sessions.id, cursor.previousSessionId)).get();
		if (!prev) {
			break;
		}
		seen.add(prev.id);
		before.unshift(prev);
		cursor = prev;
	}
	const after: Session[] = [];
	cursor = start;
	while (cursor.nextSessionId && !seen.has(cursor.nextSessionId)) {
		const next = db.select().from(sessions).where(eq(sessions.id, cursor.nextSessionId)).get();
		if (!next) {
			break;
		}
		seen.add(next.id);
		after.push(next);
		cursor = next;
	}
	return [...before, start, ...after];
}

/** The fork tree (orchestrator → workers) that `id` belongs to, from its root. */
export function forkTreeOf(db: BatonDb, id: string): ForkNode {
	let root = getSession(db, id);
	const seen = new Set([root.id]);
	while (root.parentSessionId && !seen.has(root.parentSessionId)) {
		const parent = db.select().from(sessions).where(eq(sessions.id, root.parentSessionId)).get();
		if (!parent) {
			break;
		}
		seen.add(parent.id);
		root = parent;
	}
	const visited = new Set<string>();
	const build = (session: Session): ForkNode => {
		visited.add(session.id);
		const children = db
			.select()
			.from(sessions)
			.where(eq(sessions.parentSessionId, session.id))
			.orderBy(sessions.startedAt)
			.all()
			.filter((c) => !visited.has(c.id));
		return { session, children: children.map(build) };
	};
	return build(root);
}

export function sessionByAlias(db: BatonDb, agent: string, alias: string): Session | undefined {
	const row = db
		.select({ sessionId: sessionAliases.sessionId })
		.from(sessionAliases)
		.where(and(eq(sessionAliases.agent, agent), eq(sessionAliases.alias, alias)))
		.get();
	return row ? db.select().from(sessions).where(eq(sessions.id, row.sessionId)).get() : undefined;
}
