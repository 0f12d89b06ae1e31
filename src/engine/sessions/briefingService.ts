/**
 * Read-side session operations: the briefing on request, lookups, chains and fork trees.
 */
import type { EngineContext } from '../context';
import type { Briefing } from '../storage/jsonShapes';
import type { Decision, Session, SessionStatus } from '../storage/model';
import { buildOverview, decisionsOfSession, statusCounts, type ScopeChains } from './overview';
import { computeBriefing, type BriefingSources } from './briefing';
import { handoffConflictWarning } from '../shared/handoffConsumption';
import { parseScope, scopeKey as scopeKeyOf } from './scope';
import {
	activeSessions,
	chainOf,
	chainTail,
	forkTreeOf,
	getSession,
	listSessions,
	readHandoff,
	sessionByAlias,
	type ForkNode,
	type StoredHandoff,
} from './sessionQueries';

export class BriefingService {
	/** Runs before a briefing is computed (the engine refreshes project memory's stale marks there). */
	beforeBriefing: (() => Promise<void>) | undefined;
	private overviewCache: { key: string; chains: ScopeChains[] } | undefined;

	constructor(
		private readonly ctx: EngineContext,
		private readonly sources: BriefingSources,
	) {}

	/**
	 * The briefing for a session (its own predecessor's handoff), or for a scope when no session is
	 * given: the briefing of the session running there (the most recently started when several agents
	 * work in it), else what a session starting there now would receive. A scope with a running
	 * session is never briefed as empty: its chain tail is that session, not an ended one, so a
	 * fresh-session briefing would deny the handoff the session itself received (issue #27).
	 */
	async briefing(input: { sessionId?: string; scope?: string } = {}): Promise<Briefing> {
		await this.beforeBriefing?.();
		return this.ctx.store.read((db) => {
			const warnings: string[] = [];
			let session: Session | undefined;
			if (input.sessionId) {
				session = getSession(db, input.sessionId);
			} else if (input.scope) {
				const key = scopeKeyOf(parseScope(input.scope));
				session = activeSessions(db).find((active) => active.scopeKey === key);
			} else {
				const active = activeSessions(db);
				session = active.length === 1 ? active[0] : undefined;
			}
			const scope = session?.scope ?? parseScope(input.scope ?? 'global');
			const predecessor = session
				? session.previousSessionId
					? getSession(db, session.previousSessionId)
					: null
				: (chainTail(db, scopeKeyOf(scope)) ?? null);
			let handoff = null;
			if (predecessor) {
				const stored = readHandoff(db, predecessor.id);
				if (stored.kind === 'valid') {
					handoff = stored.data;
				} else if (stored.kind === 'malformed') {
					warnings.push(`the handoff of “${predecessor.name}” (${predecessor.id}) is malformed (${stored.problem}) and was skipped`);
				}
			}
			const conflict = session ? handoffConflictWarning(db, session.id, session.previousSessionId) : null;
			if (conflict) {
				warnings.push(conflict);
			}
			return computeBriefing(this.ctx, db, this.sources, {
				scope,
				sessionId: session?.id ?? null,
				focus: session?.focus ? { ...session.focus, last: session.status !== 'active' } : null,
				currentTask: session?.currentTask ?? null,
				predecessor,
				handoff,
				warnings,
			});
		});
	}

	async get(id: string): Promise<Session> {
		return this.ctx.store.read((db) => getSession(db, id));
	}

	async handoff(id: string): Promise<StoredHandoff> {
		return this.ctx.store.read((db) => {
			getSession(db, id);
			return readHandoff(db, id);
		});
	}

	async list(filter: { status?: SessionStatus; scope?: string; limit?: number; after?: string } = {}): Promise<Session[]> {
		return this.ctx.store.read((db) =>
			listSessions(db, {
				...(filter.status ? { status: filter.status } : {}),
				...(filter.scope ? { scopeKey: scopeKeyOf(parseScope(filter.scope)) } : {}),
				...(filter.limit ? { limit: filter.limit } : {}),
				...(filter.after ? { after: filter.after } : {}),
			}),
		);
	}

	async active(): Promise<Session[]> {
		return this.ctx.store.read((db) => activeSessions(db));
	}

	async mostRecent(): Promise<Session | undefined> {
		return this.ctx.store.read((db) => listSessions(db, { limit: 1 })[0]);
	}

	async chain(id: string): Promise<Session[]> {
		return this.ctx.store.read((db) => chainOf(db, id));
	}

	async forkTree(id: string): Promise<ForkNode> {
		return this.ctx.store.read((db) => forkTreeOf(db, id));
	}

	/**
	 * The tree's answer, kept warm: rebuilt only when sessions or tasks (the labels) changed, including
	 * changes replayed from another process's journal. Callers must treat it as read-only.
	 */
	async overview(): Promise<ScopeChains[]> {
		return this.ctx.store.read((db) => {
			const key = `${this.ctx.store.tableVersion('sessions')}:${this.ctx.store.tableVersion('tasks')}`;
			if (this.overviewCache?.key !== key) {
				this.overviewCache = { key, chains: buildOverview(db) };
			}
			return this.overviewCache.chains;
		});
	}

	async counts(): Promise<Record<SessionStatus, number>> {
		return this.ctx.store.read((db) => statusCounts(db));
	}

	/** One session with everything the details view shows. */
	async details(id: string): Promise<{ session: Session; handoff: StoredHandoff; chain: Session[]; forkTree: ForkNode; decisions: Decision[] }> {
		return this.ctx.store.read((db) => ({
			session: getSession(db, id),
			handoff: readHandoff(db, id),
			chain: chainOf(db, id),
			forkTree: forkTreeOf(db, id),
			decisions: decisionsOfSession(db, id),
		}));
	}

	async byAlias(agent: string, alias: string): Promise<Session | undefined> {
		return this.ctx.store.read((db) => sessionByAlias(db, agent, alias));
	}
}
