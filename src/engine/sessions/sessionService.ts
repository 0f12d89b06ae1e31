/**
 * The session lifecycle (docs/architecture.md §1): start, end, suspend, resume, switch, gc and cleanup, with a
 * typed refusal for every transition the state machine does not allow. Each transition is one
 * durable write that also records who made it in the audit log.
 */
import { and, eq, inArray } from 'drizzle-orm';
import type { EngineContext } from '../context';
import { BatonError } from '../errors';
import { isoTime, newDecisionId, newSessionId } from '../ids';
import { emptyStats, type Briefing, type DebriefData, type HandoffData, type SessionScope } from '../storage/jsonShapes';
import type { BatonDb } from '../storage/journalStore';
import type { Decision, Session } from '../storage/model';
import { decisions, handoffs, sessions } from '../storage/schema';
import { taskGraphOf } from '../tasks/taskGraphOf';
import { bumpSessionStat } from '../tasks/taskService';
import { computeBriefing, type BriefingSources } from './briefing';
import type { GitStateReader } from './gitState';
import { buildDebrief, buildHandoff } from './handoffBuilder';
import { parseScope, scopeKey } from './scope';
import {
	activateRow,
	auditSession,
	checkConcurrency,
	checkScope,
	describeAge,
	invalidTransition,
	resumable,
	soleActive,
	suspendRow,
	upsertAlias,
	writeHandoffOnce,
} from './sessionRows';
import { checkedSessionName, hasPlaceholderName, nameFromPrompt, renameRow } from './sessionName';
import { activeSessions, chainTail, getSession, readHandoff, runsHere, sessionByAlias } from './sessionQueries';
import { pushAll } from '../arrays';

interface StartInput {
	name: string;
	scope?: SessionScope | string;
	agent?: string | null;
	agentIdentifier?: string | null;
	parentSessionId?: string | null;
	currentTask?: string | null;
	actor: string;
}

interface StartResult {
	session: Session;
	briefing: Briefing;
	handoff: HandoffData | null;
	warnings: string[];
}

interface EndInput {
	id?: string;
	note?: string;
	nextAction?: string;
	blockers?: string[];
	actor: string;
}

interface EndResult {
	session: Session;
	handoff: HandoffData;
	debrief: DebriefData;
	warnings: string[];
}

interface GcResult {
	orphaned: Session[];
	ended: Session[];
}

export class SessionService {
	/**
	 * Runs after a session ended (the engine takes its `complete` checkpoint there). It returns
	 * warnings instead of throwing: nothing after the end's write may fail the end.
	 */
	afterEnd: ((session: Session, actor: string) => Promise<string[]>) | undefined;
	/**
	 * Runs after gc ended an idle session: what an end does after its write, except the `complete`
	 * checkpoint (the workspace has moved on since the session went idle). Never throws.
	 */
	afterAutoEnd: ((session: Session, actor: string) => Promise<unknown>) | undefined;
	/** Runs before a start computes its briefing, outside the start's write (project memory's stale marks). */
	beforeBriefing: (() => Promise<void>) | undefined;

	constructor(
		private readonly ctx: EngineContext,
		private readonly git: GitStateReader,
		private readonly sources: BriefingSources,
	) {}

	async start(input: StartInput): Promise<StartResult> {
		const name = checkedSessionName(input.name);
		const scope = typeof input.scope === 'string' ? parseScope(input.scope) : (input.scope ?? { type: 'global' as const });
		await this.beforeBriefing?.();
		return this.ctx.store.write((db) => {
			const now = this.ctx.nowIso();
			const warnings = [...checkScope(this.ctx, scope), ...checkConcurrency(this.ctx, db, scope, null)];
			if (input.parentSessionId) {
				getSession(db, input.parentSessionId);
			}
			const graph = taskGraphOf(this.ctx);
			if (input.currentTask && !graph.byId.has(input.currentTask)) {
				throw new BatonError('notFound', `task ${input.currentTask} does not exist`);
			}
			// A session scoped to one task works on that task unless told otherwise.
			const currentTask = input.currentTask ?? (scope.type === 'task' && scope.rootTaskId && graph.byId.has(scope.rootTaskId) ? scope.rootTaskId : null);
			const key = scopeKey(scope);
			const predecessor = chainTail(db, key) ?? null;
			const handoff = predecessor ? predecessorHandoff(this.ctx, db, predecessor, warnings) : null;
			const id = newSessionId(this.ctx.clock.now());
			const session = newSessionRow(id, input, { name, scope, scopeKey: key, currentTask, previousSessionId: predecessor?.id ?? null }, now);
			db.insert(sessions).values(session).run();
			if (predecessor) {
				const stamp = handoff && !predecessor.handoffConsumedAt ? { handoffConsumedAt: now, handoffConsumedBy: id } : {};
				db.update(sessions)
					.set({ nextSessionId: id, updatedAt: now, ...stamp })
					.where(eq(sessions.id, predecessor.id))
					.run();
			}
			if (input.agentIdentifier) {
				upsertAlias(db, id, input.agent ?? 'unknown', input.agentIdentifier, now);
			}
			auditSession(db, now, input.actor, 'session.start', id, {
				name,
				scope: key,
				previousSessionId: predecessor?.id ?? null,
				handoffDelivered: handoff !== null,
			});
			this.ctx.events.emit(db, { type: 'session.started', session: getSession(db, id), actor: input.actor });
			const briefing = computeBriefing(this.ctx, db, this.sources, {
				scope,
				sessionId: id,
				focus: null,
				currentTask: session.currentTask,
				// The row as chainTail read it: the briefing shows its id, name and times, which the update above leaves alone.
				predecessor: predecessor ?? null,
				handoff,
				warnings,
			});
			return { session: getSession(db, id), briefing, handoff, warnings };
		});
	}

	async end(input: EndInput): Promise<EndResult> {
		const target = await this.ctx.store.read((db) => (input.id ? getSession(db, input.id) : soleActive(db, 'end')));
		if (target.status !== 'active') {
			throw invalidTransition(target, 'end');
		}
		// Read the user's repository before taking the write lock: git can take a while.
		const gitState = await this.git.read(target.startedAt);
		const result = await this.ctx.store.write((db) => {
			const session = getSession(db, target.id);
			if (session.status !== 'active') {
				throw invalidTransition(session, 'end');
			}
			const now = this.ctx.nowIso();
			const warnings: string[] = [];
			const handoff = writeHandoffOnce(db, session, buildHandoff(this.ctx, db, session, input), now, warnings);
			const debrief = buildDebrief(db, session, handoff, now, gitState);
			db.update(sessions).set({ status: 'ended', endedAt: now, lastActivity: now, updatedAt: now, debrief }).where(eq(sessions.id, session.id)).run();
			auditSession(db, now, input.actor, 'session.end', session.id, {
				note: handoff.note,
				nextAction: handoff.nextAction,
				blockers: handoff.openBlockers.length,
			});
			const ended = getSession(db, session.id);
			this.ctx.events.emit(db, { type: 'session.ended', session: ended, handoff, actor: input.actor });
			return { session: ended, handoff, debrief, warnings };
		});
		if (this.afterEnd) {
			pushAll(result.warnings, [...(await this.afterEnd(result.session, input.actor))]);
		}
		return result;
	}

	async suspend(input: { id?: string; actor: string }): Promise<Session> {
		return this.ctx.store.write((db) => {
			const session = input.id ? getSession(db, input.id) : soleActive(db, 'suspend');
			if (session.status !== 'active') {
				throw invalidTransition(session, 'suspend');
			}
			const now = this.ctx.nowIso();
			suspendRow(db, session, now);
			auditSession(db, now, input.actor, 'session.suspend', session.id);
			const suspended = getSession(db, session.id);
			this.ctx.events.emit(db, { type: 'session.suspended', session: suspended, actor: input.actor });
			return suspended;
		});
	}

	/** A person's rename (`baton session rename`, Rename Session…). */
	async rename(input: { id: string; name: string; actor: string }): Promise<Session> {
		const name = checkedSessionName(input.name);
		return this.ctx.store.write((db) => renameRow(this.ctx, db, input.id, name, input.actor));
	}

	/** A session still called after its agent takes its name from this prompt; null when it keeps its name. */
	async nameAfterPrompt(input: { id: string; prompt: string; actor: string }): Promise<Session | null> {
		const name = nameFromPrompt(input.prompt);
		// Every prompt of a session asks, and only its first renames: a read, not a durable write, for the rest.
		if (!name || !hasPlaceholderName(await this.ctx.store.read((db) => getSession(db, input.id)))) return null;
		return this.ctx.store.write((db) => (hasPlaceholderName(getSession(db, input.id)) ? renameRow(this.ctx, db, input.id, name, input.actor) : null));
	}

	async resume(input: { id: string; actor: string }): Promise<Session> {
		return this.ctx.store.write((db) => {
			const session = getSession(db, input.id);
			const now = this.ctx.nowIso();
			activateRow(this.ctx, db, session, now);
			auditSession(db, now, input.actor, 'session.resume', session.id, { from: session.status });
			const resumed = getSession(db, session.id);
			this.ctx.events.emit(db, { type: 'session.resumed', session: resumed, actor: input.actor });
			return resumed;
		});
	}

	/** Suspend the current session and activate `id`, in one transaction. */
	async switch(input: { id: string; from?: string; actor: string }): Promise<{ suspended: Session | null; session: Session }> {
		return this.ctx.store.write((db) => {
			const target = getSession(db, input.id);
			if (!resumable.includes(target.status)) {
				throw invalidTransition(target, 'switch to');
			}
			const active = activeSessions(db);
			let from: Session | undefined;
			if (input.from) {
				from = getSession(db, input.from);
				if (from.status !== 'active') {
					throw invalidTransition(from, 'switch away from');
				}
			} else {
				from = active.find((s) => s.scopeKey === target.scopeKey) ?? (active.length === 1 ? active[0] : undefined);
				if (!from && active.length > 1) {
					throw new BatonError('invalidInput', `${active.length} sessions are active; say which one to switch away from (--from ID)`);
				}
			}
			const now = this.ctx.nowIso();
			if (from) {
				suspendRow(db, from, now);
			}
			activateRow(this.ctx, db, target, now);
			auditSession(db, now, input.actor, 'session.switch', target.id, { from: from?.id ?? null });
			return { suspended: from ? getSession(db, from.id) : null, session: getSession(db, target.id) };
		});
	}

	/**
	 * Cleanup, then gc: sessions idle for `endAfterMs` are ended with a note and a generated handoff;
	 * active sessions idle for `orphanAfterMs` become orphaned. An age of 0 catches every session.
	 */
	async gc(input: { orphanAfterMs?: number; endAfterMs?: number; actor: string }): Promise<GcResult> {
		const orphanAfter = input.orphanAfterMs ?? this.ctx.config.orphanAfter;
		const endAfter = input.endAfterMs ?? this.ctx.config.autoEndAfter;
		const ended = await this.ctx.store.write((db) => {
			const nowMs = this.ctx.clock.now();
			const now = isoTime(nowMs);
			const candidates = db
				.select()
				.from(sessions)
				// A teammate's session is idle here only because its touches stay on its machine: that machine judges it.
				.where(and(inArray(sessions.status, ['active', 'orphaned']), runsHere))
				.all();
			const result: GcResult = { orphaned: [], ended: [] };
			for (const session of candidates) {
				const idle = nowMs - Date.parse(session.lastActivity);
				if (idle >= endAfter) {
					const note = `Ended by Baton after ${describeAge(idle)} without activity.`;
					const handoff = writeHandoffOnce(db, session, buildHandoff(this.ctx, db, session, { note }), now, []);
					const debrief = buildDebrief(db, session, handoff, now, null);
					db.update(sessions).set({ status: 'ended', endedAt: now, updatedAt: now, endNote: note, debrief }).where(eq(sessions.id, session.id)).run();
					auditSession(db, now, input.actor, 'session.cleanup', session.id, { idleMs: idle });
					const ended = getSession(db, session.id);
					// An end like any other: project memory takes its decisions and blockers.
					this.ctx.events.emit(db, { type: 'session.ended', session: ended, handoff, actor: input.actor });
					result.ended.push(ended);
				} else if (session.status === 'active' && idle >= orphanAfter) {
					db.update(sessions).set({ status: 'orphaned', updatedAt: now }).where(eq(sessions.id, session.id)).run();
					auditSession(db, now, input.actor, 'session.orphan', session.id, { idleMs: idle });
					result.orphaned.push(getSession(db, session.id));
				}
			}
			return result;
		});
		if (this.afterAutoEnd) {
			for (const session of ended.ended) {
				await this.afterAutoEnd(session, input.actor);
			}
		}
		return ended;
	}

	/** Mark a session as alive (agent hooks call this on every turn). */
	async touch(input: { id: string; actor: string }): Promise<Session> {
		return this.ctx.store.write((db) => {
			const session = getSession(db, input.id);
			const now = this.ctx.nowIso();
			db.update(sessions).set({ lastActivity: now, updatedAt: now }).where(eq(sessions.id, session.id)).run();
			auditSession(db, now, input.actor, 'session.touch', session.id);
			return getSession(db, session.id);
		});
	}

	/** Record an agent's own id for a durable session; the newest becomes `agentIdentifier`. */
	async addAlias(input: { sessionId: string; agent: string; alias: string; actor: string }): Promise<Session> {
		if (!input.alias.trim() || !input.agent.trim()) {
			throw new BatonError('invalidInput', 'an alias needs an agent and an id');
		}
		return this.ctx.store.write((db) => {
			const session = getSession(db, input.sessionId);
			const now = this.ctx.nowIso();
			const owner = sessionByAlias(db, input.agent, input.alias);
			if (owner && owner.id !== session.id) {
				throw new BatonError('invalidInput', `${input.agent} id ${input.alias} already belongs to session ${owner.id}`);
			}
			upsertAlias(db, session.id, input.agent, input.alias, now);
			db.update(sessions)
				.set({ agentIdentifier: input.alias, agent: session.agent ?? input.agent, lastActivity: now, updatedAt: now })
				.where(eq(sessions.id, session.id))
				.run();
			auditSession(db, now, input.actor, 'session.alias', session.id, { agent: input.agent, alias: input.alias });
			return getSession(db, session.id);
		});
	}

	async recordDecision(input: {
		text: string;
		rationale?: string;
		taskId?: string;
		kind?: Decision['kind'];
		sessionId?: string;
		actor: string;
	}): Promise<Decision> {
		const text = input.text.trim();
		if (!text) {
			throw new BatonError('invalidInput', 'a decision needs text');
		}
		if (input.kind && input.kind !== 'decision' && input.kind !== 'assumption') {
			throw new BatonError('invalidInput', `invalid kind "${String(input.kind)}" (decision or assumption)`);
		}
		return this.ctx.store.write((db) => {
			const session = input.sessionId ? getSession(db, input.sessionId) : soleActive(db, 'record a decision in');
			if (session.status !== 'active') {
				throw invalidTransition(session, 'record a decision in');
			}
			const now = this.ctx.nowIso();
			const row: Decision = {
				id: newDecisionId(this.ctx.clock.now()),
				sessionId: session.id,
				kind: input.kind ?? 'decision',
				text,
				rationale: input.rationale?.trim() || null,
				taskId: input.taskId ?? session.currentTask ?? null,
				createdAt: now,
			};
			db.insert(decisions).values(row).run();
			bumpSessionStat(db, session.id, 'decisionsRecorded');
			db.update(sessions).set({ lastActivity: now, updatedAt: now }).where(eq(sessions.id, session.id)).run();
			auditSession(db, now, input.actor, `${row.kind}.record`, session.id, undefined, { type: 'decision', id: row.id });
			return row;
		});
	}

	/**
	 * Store a handoff; write-once. A second handoff for the same session is refused here, and end()
	 * of a resumed session keeps the first one (with a warning) instead of overwriting it.
	 */
	async recordHandoff(input: { sessionId: string; data: HandoffData; actor: string }): Promise<void> {
		await this.ctx.store.write((db) => {
			getSession(db, input.sessionId);
			if (db.select({ id: handoffs.sessionId }).from(handoffs).where(eq(handoffs.sessionId, input.sessionId)).get()) {
				throw new BatonError('handoffExists', `session ${input.sessionId} already has a handoff; handoffs are write-once`);
			}
			const now = this.ctx.nowIso();
			db.insert(handoffs).values({ sessionId: input.sessionId, data: input.data, createdAt: now }).run();
			auditSession(db, now, input.actor, 'handoff.write', input.sessionId, undefined, { type: 'handoff', id: input.sessionId });
		});
	}
}

/** The handoff `predecessor` left for the next session, or null; a malformed one is skipped with a warning (in `warnings` and the log). */
function predecessorHandoff(ctx: EngineContext, db: BatonDb, predecessor: Session, warnings: string[]): HandoffData | null {
	const stored = readHandoff(db, predecessor.id);
	if (stored.kind === 'malformed') {
		const warning = `the handoff of “${predecessor.name}” (${predecessor.id}) is malformed (${stored.problem}) and was skipped`;
		warnings.push(warning);
		ctx.log.warn(warning);
	}
	return stored.kind === 'valid' ? stored.data : null;
}

/** A new session's row: active since `now`, nothing counted yet, nothing ended. */
function newSessionRow(
	id: string,
	input: StartInput,
	fields: Pick<Session, 'name' | 'scope' | 'scopeKey' | 'currentTask' | 'previousSessionId'>,
	now: string,
): Session {
	return {
		id,
		...fields,
		status: 'active',
		taskStartedAt: fields.currentTask ? now : null,
		agent: input.agent ?? null,
		agentIdentifier: input.agentIdentifier ?? null,
		nextSessionId: null,
		parentSessionId: input.parentSessionId ?? null,
		handoffConsumedAt: null,
		handoffConsumedBy: null,
		debrief: null,
		focus: null,
		stats: emptyStats(),
		resumeCount: 0,
		endNote: null,
		startedAt: now,
		lastActivity: now,
		suspendedAt: null,
		endedAt: null,
		archivedAt: null,
		updatedAt: now,
	};
}
