/**
 * Which durable session an agent's hook event belongs to, and starting one when there is none
 * (docs/architecture.md §1: an agent's ids are aliases of a durable session; they change on resume, clear and
 * compaction, the durable session does not).
 */
import type { HookEngine } from './hookEngine';
import { BatonError } from '../errors';
import type { Logger } from '../ports';
import type { Briefing } from '../storage/jsonShapes';
import type { Session } from '../storage/model';
import { parseScope, scopeKey } from '../sessions/scope';
import type { AgentSettings } from '../agentConfig/agentSettings';
import { earlierSessionIds } from '../transcripts/claudeProjects';
import { placeholderName } from '../sessions/sessionName';
import type { HookEvent } from '../hookEvent';

/** How a session was found: the agent id's alias, a previous id in the payload, the transcript's first records, or the agent kind's most recent session. */
type Via = 'alias' | 'previous' | 'transcript' | 'recent';

interface FoundSession {
	session: Session;
	via: Via;
}

interface StartOutcome {
	session: Session | null;
	/** The start's briefing, when a session was started. */
	briefing: Briefing | null;
	action: 'started' | 'joined' | 'briefed';
	detail: string;
	/** Something the agent (and through it the person) must hear: the configured scope could not be used. */
	notice?: string;
}

export class AgentSessions {
	constructor(
		private readonly engine: HookEngine,
		private readonly event: HookEvent,
		private readonly options: { actor: string; settings: AgentSettings; log: Logger },
	) {}

	/**
	 * The durable session of this agent session: its alias, then an earlier id the payload names, then
	 * the ids the transcript starts with; with `fallback`, the most recently active session of the same
	 * agent kind (the process that compacts or clears keeps working in the session it was in).
	 */
	async resolve(fallback: boolean): Promise<FoundSession | undefined> {
		const { agent, agentSessionId } = this.event;
		const own = await this.engine.briefings.byAlias(agent, agentSessionId);
		if (own) {
			return { session: own, via: 'alias' };
		}
		if (this.event.previousAgentSessionId) {
			const previous = await this.engine.briefings.byAlias(agent, this.event.previousAgentSessionId);
			if (previous) {
				return { session: previous, via: 'previous' };
			}
		}
		if (this.event.transcriptPath) {
			for (const id of earlierSessionIds(this.event.transcriptPath, agentSessionId)) {
				const earlier = await this.engine.briefings.byAlias(agent, id);
				if (earlier) {
					return { session: earlier, via: 'transcript' };
				}
			}
		}
		if (fallback) {
			const recent = (await this.engine.briefings.active())
				.filter((s) => s.agent === agent)
				.sort((a, b) => b.lastActivity.localeCompare(a.lastActivity))[0];
			if (recent) {
				return { session: recent, via: 'recent' };
			}
		}
		return undefined;
	}

	/** A new agent id for a known session becomes its alias (and its current agent identifier). */
	async alias(found: FoundSession): Promise<void> {
		if (found.via !== 'alias') {
			try {
				await this.engine.sessions.addAlias({
					sessionId: found.session.id,
					agent: this.event.agent,
					alias: this.event.agentSessionId,
					actor: this.options.actor,
				});
			} catch (error) {
				// The id already belongs to another session (an agent id stays with its first one).
				this.options.log.warn(`alias ${this.event.agentSessionId} not added to ${found.session.id}: ${(error as Error).message}`);
			}
		}
	}

	/**
	 * Resumes a suspended, orphaned or ended session; null when it cannot be (another session holds
	 * its scope now, or it is imported legacy data): the caller then finds or starts another.
	 */
	async activate(session: Session): Promise<Session | null> {
		if (session.status === 'active') {
			return session;
		}
		try {
			return await this.engine.sessions.resume({ id: session.id, actor: this.options.actor });
		} catch (error) {
			this.options.log.warn(`could not resume ${session.id}: ${(error as Error).message}`);
			return null;
		}
	}

	/**
	 * The active session of this agent kind in the configured scope, else a new one. A configured scope
	 * that cannot be used (a task that does not exist, under strict scope validation) must not leave
	 * the agent's whole session unrecorded: it is recorded under global, and the agent is told why.
	 */
	async findOrStart(): Promise<StartOutcome> {
		const scope = await this.scope();
		const outcome = await this.findOrStartIn(scope);
		if (outcome.session || scope === 'global' || !outcome.scopeRefused) {
			return outcome;
		}
		const notice = `Baton could not use the scope "${scope}" from .baton/agents.json (${outcome.detail}); this session is recorded under global. Fix the scope with \`baton connect\` or in .baton/agents.json.`;
		this.options.log.warn(notice);
		return { ...(await this.findOrStartIn('global')), notice };
	}

	private async findOrStartIn(scope: string): Promise<StartOutcome & { scopeRefused?: boolean }> {
		const key = scopeKey(parseScope(scope));
		const same = (await this.engine.briefings.active()).find((s) => s.agent === this.event.agent && s.scopeKey === key);
		if (same) {
			await this.alias({ session: same, via: 'recent' });
			return { session: same, briefing: null, action: 'joined', detail: 'scope' };
		}
		try {
			const currentTask = await this.currentTask(scope);
			const started = await this.engine.sessions.start({
				name: placeholderName(this.event.agent, this.event.agentSessionId),
				scope,
				agent: this.event.agent,
				agentIdentifier: this.event.agentSessionId,
				currentTask,
				actor: this.options.actor,
			});
			return { session: started.session, briefing: started.briefing, action: 'started', detail: 'new' };
		} catch (error) {
			const holder = BatonError.is(error, 'scopeConflict') ? error.details?.['sessionId'] : undefined;
			if (typeof holder === 'string') {
				// Someone (a person, another agent, a parallel hook) holds the scope: work in that session.
				const session = await this.engine.briefings.get(holder);
				await this.alias({ session, via: 'recent' });
				return { session, briefing: null, action: 'joined', detail: 'scope holder' };
			}
			this.options.log.warn(`no session started for ${this.event.agent} ${this.event.agentSessionId}: ${(error as Error).message}`);
			return {
				session: null,
				briefing: null,
				action: 'briefed',
				detail: (error as Error).message,
				scopeRefused: BatonError.is(error, 'invalidScope') || BatonError.is(error, 'notFound'),
			};
		}
	}

	/** The configured scope; `current-task` is the one task in progress (else global). */
	async scope(): Promise<string> {
		const configured = this.options.settings.scope;
		if (configured !== 'current-task') {
			try {
				parseScope(configured);
				return configured;
			} catch (error) {
				this.options.log.warn(`agents.json scope: ${(error as Error).message}; using global`);
				return 'global';
			}
		}
		const active = await this.engine.tasks.list({ status: 'active' });
		return active.length === 1 && active[0] ? `task:${active[0].id}` : 'global';
	}

	private async currentTask(scope: string): Promise<string | null> {
		const active = await this.engine.tasks.list({ status: 'active', scope });
		return active.length === 1 && active[0] ? active[0].id : null;
	}
}
