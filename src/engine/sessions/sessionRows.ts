/**
 * The steps of the session lifecycle that run inside a transition's write (sessionService.ts): the
 * rules a start or resume must pass, the row changes two transitions share, and the audit line
 * every transition writes.
 */
import { and, eq } from 'drizzle-orm';
import { audit } from '../audit';
import type { EngineContext } from '../context';
import { BatonError } from '../errors';
import type { HandoffData, SessionScope } from '../storage/jsonShapes';
import type { BatonDb } from '../storage/journalStore';
import type { Session, SessionStatus } from '../storage/model';
import { handoffs, sessionAliases, sessions } from '../storage/schema';
import { taskGraphOf } from '../tasks/taskGraphOf';
import { relateScopes, scopeKey, validateScope } from './scope';
import { activeElsewhere, activeSessions, readHandoff } from './sessionQueries';

export const resumable: readonly SessionStatus[] = ['suspended', 'ended', 'orphaned'];

/**
 * The audit line of a session's write: who did what to which session. The entity is the session
 * itself unless the write made something of its own (a decision, the handoff).
 */
export function auditSession(
	db: BatonDb,
	at: string,
	actor: string,
	operation: string,
	sessionId: string,
	details?: Record<string, unknown>,
	entity?: { type: string; id: string },
): void {
	audit(db, { at, actor, operation, sessionId, entityType: entity?.type ?? 'session', entityId: entity?.id ?? sessionId, ...(details ? { details } : {}) });
}

/** The handoff of an ending session, written once: a resumed session that ends again keeps its first. */
export function writeHandoffOnce(db: BatonDb, session: Session, fresh: HandoffData, now: string, warnings: string[]): HandoffData {
	const stored = readHandoff(db, session.id);
	if (stored.kind === 'none') {
		db.insert(handoffs).values({ sessionId: session.id, data: fresh, createdAt: now }).run();
		return fresh;
	}
	warnings.push(`session ${session.id} already had a handoff; handoffs are write-once, so the first one is kept`);
	return stored.kind === 'valid' ? stored.data : fresh;
}

/** Problems with a new session's scope: refused when `scopeValidation` is strict, warnings otherwise. */
export function checkScope(ctx: EngineContext, scope: SessionScope): string[] {
	const problems = scope.type === 'global' ? [] : validateScope(scope, taskGraphOf(ctx));
	if (problems.length > 0 && ctx.config.scopeValidation === 'strict') {
		throw new BatonError('invalidScope', problems.join('; '));
	}
	return ctx.config.scopeValidation === 'none' ? [] : problems;
}

/**
 * One active session per scope, `maxConcurrentSessions`, and the nesting/overlap rules, among the
 * sessions active on this machine. A teammate's session active in a scope that meets this one
 * (pulled through sync) blocks nothing here: it is returned as a warning.
 */
export function checkConcurrency(ctx: EngineContext, db: BatonDb, scope: SessionScope, except: string | null): string[] {
	const active = activeSessions(db).filter((s) => s.id !== except);
	const key = scopeKey(scope);
	const same = active.find((s) => s.scopeKey === key);
	if (same) {
		throw new BatonError('scopeConflict', `session ${same.id} ("${same.name}") is already active in scope ${key}`, { sessionId: same.id });
	}
	if (active.length >= ctx.config.maxConcurrentSessions) {
		throw new BatonError('limitReached', `${active.length} sessions are active; maxConcurrentSessions is ${ctx.config.maxConcurrentSessions}`);
	}
	const graph = taskGraphOf(ctx);
	for (const other of active) {
		const relation = relateScopes(scope, other.scope, graph);
		if (relation === 'same' || (relation === 'nested' && !ctx.config.allowNestedScopes) || (relation === 'overlap' && !ctx.config.allowScopeOverlap)) {
			throw new BatonError(
				'scopeConflict',
				`scope ${key} ${relation === 'same' ? 'covers the same tasks as' : relation === 'nested' ? 'is nested with' : 'overlaps'} ${other.scopeKey} of active session ${other.id}`,
				{
					sessionId: other.id,
				},
			);
		}
	}
	return activeElsewhere(db)
		.filter(({ session }) => session.id !== except && relateScopes(scope, session.scope, graph) !== 'disjoint')
		.map(
			({ session, machineName, author }) =>
				`session ${session.id} ("${session.name}") is also active in scope ${session.scopeKey} on ${machineName ?? 'another machine'}${author ? ` (${author})` : ''}`,
		);
}

/** The one active session, for a command that names none; refused when there is none or several. */
export function soleActive(db: BatonDb, verb: string): Session {
	const active = activeSessions(db);
	if (active.length === 1 && active[0]) {
		return active[0];
	}
	throw new BatonError(
		active.length === 0 ? 'notFound' : 'invalidInput',
		active.length === 0 ? `no active session to ${verb}` : `${active.length} sessions are active; say which one to ${verb} (--id ID)`,
	);
}

export function suspendRow(db: BatonDb, session: Session, now: string): void {
	db.update(sessions)
		.set({ status: 'suspended', suspendedAt: now, updatedAt: now, stats: { ...session.stats, suspendCount: session.stats.suspendCount + 1 } })
		.where(eq(sessions.id, session.id))
		.run();
}

/** Resume or switch to a session: only from a resumable state, and within the concurrency rules. */
export function activateRow(ctx: EngineContext, db: BatonDb, session: Session, now: string): void {
	if (!resumable.includes(session.status)) {
		throw invalidTransition(session, 'resume');
	}
	checkConcurrency(ctx, db, session.scope, session.id);
	db.update(sessions)
		.set({
			status: 'active',
			suspendedAt: null,
			endedAt: null,
			lastActivity: now,
			updatedAt: now,
			resumeCount: session.resumeCount + 1,
			stats: { ...session.stats, resumeCount: session.stats.resumeCount + 1 },
		})
		.where(eq(sessions.id, session.id))
		.run();
}

export function upsertAlias(db: BatonDb, sessionId: string, agent: string, alias: string, now: string): void {
	const existing = db
		.select()
		.from(sessionAliases)
		.where(and(eq(sessionAliases.agent, agent), eq(sessionAliases.alias, alias)))
		.get();
	if (existing) {
		db.update(sessionAliases)
			.set({ lastSeenAt: now })
			.where(and(eq(sessionAliases.agent, agent), eq(sessionAliases.alias, alias)))
			.run();
	} else {
		db.insert(sessionAliases).values({ agent, alias, sessionId, createdAt: now, lastSeenAt: now }).run();
	}
}

/** The refusal of a transition the state machine does not allow. */
export function invalidTransition(session: Session, verb: string): BatonError {
	const legacy = session.status === 'archived' || session.status === 'closed';
	return new BatonError(
		'invalidTransition',
		`cannot ${verb} session ${session.id}: it is ${session.status}${legacy ? ' (imported legacy state, read-only)' : ''}`,
		{ sessionId: session.id, status: session.status },
	);
}

/** `3 days`, `5 hours`, `40 minutes`: how long a session sat idle, for gc's note. */
export function describeAge(ms: number): string {
	const hours = ms / 3_600_000;
	return hours >= 48 ? `${Math.round(hours / 24)} days` : hours >= 1 ? `${Math.round(hours)} hours` : `${Math.round(ms / 60_000)} minutes`;
}
