/**
 * `baton import agents` (issue 26, item 1): every session the agents kept in their own files for this
 * workspace becomes a Baton session — the agent's id its alias, its transcript in the archive (times,
 * prompts, tool calls, files, tokens, model, with the archive's redaction) — or, when a hook already
 * recorded it (the alias exists), the live session gets what its files add. Never a duplicate.
 *
 * Idempotent and incremental: a session's Baton id is derived from the agent and its id (so a run
 * interrupted between the archive and the store finishes next time under the same id), the archive
 * reads each file from the offset it stopped at, and a run that finds nothing new writes nothing.
 * The archive is written first and the store after: the archive's entries name the session they will
 * belong to, and the store's rows and aliases are one write.
 */
import { and, eq, inArray } from 'drizzle-orm';
import type { EngineContext } from '../context';
import { agentLabel, type AgentKind } from '../agentKinds';
import { audit } from '../audit';
import { derivedSessionId, sessionRow } from '../interop/sessionRows';
import { nameFromPrompt, placeholderName } from '../sessions/sessionName';
import { importedEndNotePrefix } from '../sessions/sessionQueries';
import type { BatonDb } from '../storage/journalStore';
import { ownMap } from '../storage/ownRecord';
import type { Session } from '../storage/records';
import { sessionAliases, sessions } from '../storage/schema';
import type { TranscriptArchive, TranscriptInfo } from '../transcripts/transcriptArchive';
import { indexKey } from '../transcripts/transcriptIndex';
import type { AgentHistoryCounts, AgentHistoryReport, AgentHistorySession, ReindexReport } from './historyShapes';
import { reindexTranscripts } from './historyReindex';
import { discoverHistory, historyAgents, historyHomes, type HistoryAgent, type HistorySource } from './historySources';

export interface AgentHistoryInput {
	/** Default: every agent whose files Baton reads. */
	agents?: readonly HistoryAgent[];
	/** Only sessions whose files changed since this time (ISO). */
	since?: string | null;
	dryRun: boolean;
	actor: string;
	/** The environment that says where the agents keep their files (CODEX_HOME, GEMINI_CLI_HOME, …). */
	env?: NodeJS.ProcessEnv;
	/** The home folder of whoever asked (a daemon's own may be another's): default the process's. */
	homeDir?: string;
	maxFileBytes?: number;
	/** Only these products' sessions of an agent named here (`cline: ['roo-code']`: Roo Code's tasks, not Cline's). */
	products?: Partial<Record<HistoryAgent, readonly string[]>>;
}

/** The end note of a session this import made: the mark that lets a later run move its last activity. */
export function importedNote(agent: AgentKind): string {
	return `${importedEndNotePrefix}${agentLabel(agent)}'s own history`;
}

interface Planned {
	source: HistorySource;
	sessionId: string;
	/** No Baton session yet: one is made. */
	newSession: boolean;
	/** The agent's id is not an alias yet (a new session, or a resumed Claude conversation). */
	newAlias: boolean;
}

const key = (agent: string, id: string): string => `${agent}\u0000${id}`;

export class AgentHistoryService {
	constructor(
		private readonly ctx: EngineContext,
		/** The archive, its Claude home found by the one rule (archiveHome.ts) in this environment and home folder. */
		private readonly archiveFor: (env: NodeJS.ProcessEnv, homeDir: string | undefined) => TranscriptArchive,
	) {}

	async import(input: AgentHistoryInput): Promise<AgentHistoryReport> {
		const env = input.env ?? process.env;
		const archive = this.archiveFor(env, input.homeDir);
		const agents = input.agents?.length ? [...new Set(input.agents)] : historyAgents;
		const found = discoverHistory({
			workspaceRoot: this.ctx.workspaceRoot,
			homes: historyHomes(archive.claudeHome, env, input.homeDir),
			agents,
			...(input.maxFileBytes ? { maxFileBytes: input.maxFileBytes } : {}),
			...(input.products ? { products: input.products } : {}),
		});
		const since = input.since ?? null;
		const sources = since ? found.sources.filter((s) => s.modifiedAt >= since) : found.sources;
		const before = entriesByKey(archive.list());
		const plan = await this.ctx.store.read((db) => planSources(db, sources, before));
		const synced = new Set<string>();
		const firstRequests = ownMap<string>();
		if (!input.dryRun) {
			const links = new Map(plan.map((p) => [key(p.source.agent, p.source.agentSessionId), p.sessionId]));
			for (const agent of agents) {
				const discovered = plan.filter((p) => p.source.agent === agent).flatMap((p) => p.source.transcripts);
				if (discovered.length === 0) {
					continue;
				}
				const report = await archive.sync({ agent, discovered, link: (a, id) => Promise.resolve(links.get(key(a, id)) ?? null), firstRequests });
				for (const info of report.synced) {
					synced.add(key(info.agent, info.id));
				}
			}
		}
		const after = input.dryRun ? before : entriesByKey(archive.list());
		let done: readonly Planned[] = plan;
		const outcomeOfPlan = (p: Planned): AgentHistorySession['outcome'] =>
			outcomeOf(p, before.get(key(p.source.agent, p.source.agentSessionId)), synced, input.dryRun);
		if (!input.dryRun && plan.some((p) => p.newAlias || outcomeOfPlan(p) === 'updated')) {
			// Names come from the archive's excerpts (as this sync saw them, else read back): before the write, not while it holds the journal's lock.
			const names = new Map(
				plan
					.filter((p) => p.newSession)
					.map((p) => [p.sessionId, sessionName(archive, p.source, after.get(key(p.source.agent, p.source.agentSessionId)), firstRequests)]),
			);
			done = await this.ctx.store.write((db) => this.apply(db, plan, after, names, input.actor));
			if (this.ctx.store.needsCompaction()) {
				await this.ctx.store.compact();
			}
		}
		return report(input.dryRun, since, agents, done, done.map(outcomeOfPlan), after, found.skipped);
	}

	/** The transcript index rebuilt from the archive and the agents' files still on disk (`baton doctor --reindex`). */
	async reindex(input: { env?: NodeJS.ProcessEnv; homeDir?: string } = {}): Promise<ReindexReport> {
		const env = input.env ?? process.env;
		return reindexTranscripts(this.ctx, this.archiveFor(env, input.homeDir), env, input.homeDir);
	}

	/**
	 * New sessions and aliases, and the later activity of sessions an earlier import made: one write. What
	 * the store holds already is read in a few queries for the whole plan (a hook may have recorded one of
	 * these sessions since the plan was made), and the new rows go in as multi-row inserts.
	 *
	 * Answers the plan as this write carried it out: a session or alias another writer (a second import,
	 * a hook) added since the plan was made is that writer's, and the report counts it as linked here.
	 */
	private apply(db: BatonDb, plan: readonly Planned[], entries: Map<string, TranscriptInfo>, names: ReadonlyMap<string, string>, actor: string): Planned[] {
		const now = this.ctx.nowIso();
		const known = knownRows(db, plan);
		const newSessions: Session[] = [];
		const newAliases: (typeof sessionAliases.$inferInsert)[] = [];
		let moved = 0;
		const forkParents = new Map(plan.map((p) => [key(p.source.agent, p.source.agentSessionId), p.sessionId]));
		const done: Planned[] = [];
		for (const p of plan) {
			const { agent, agentSessionId } = p.source;
			const entry = entries.get(key(agent, agentSessionId));
			const firstAt = entry?.firstAt ?? p.source.startedAt ?? p.source.modifiedAt;
			const lastAt = maxIso(entry?.lastAt ?? null, firstAt);
			const owner = known.owners.get(key(agent, agentSessionId));
			const creates = p.newSession && !owner && !known.sessions.has(p.sessionId);
			done.push({ source: p.source, sessionId: owner ?? p.sessionId, newSession: creates, newAlias: p.newAlias && !owner });
			if (creates) {
				const parent = p.source.forkedFrom
					? (forkParents.get(key(agent, p.source.forkedFrom)) ?? known.owners.get(key(agent, p.source.forkedFrom)))
					: null;
				newSessions.push(
					sessionRow({
						id: p.sessionId,
						name: names.get(p.sessionId) ?? placeholderName(agent, agentSessionId),
						status: 'ended',
						startedAt: firstAt,
						lastActivity: lastAt,
						endedAt: lastAt,
						updatedAt: lastAt,
						agent,
						agentIdentifier: agentSessionId,
						parentSessionId: parent ?? null,
						endNote: importedNote(agent),
					}),
				);
				known.sessions.set(p.sessionId, null);
			} else if (!p.newSession) {
				const row = known.sessions.get(p.sessionId);
				if (row && row.endNote === importedNote(agent) && lastAt > row.lastActivity) {
					db.update(sessions).set({ lastActivity: lastAt, endedAt: lastAt, updatedAt: lastAt }).where(eq(sessions.id, p.sessionId)).run();
					row.lastActivity = lastAt;
					moved++;
				}
			}
			if (p.newAlias && !owner) {
				newAliases.push({ agent, alias: agentSessionId, sessionId: p.sessionId, createdAt: now, lastSeenAt: now });
				known.owners.set(key(agent, agentSessionId), p.sessionId);
			}
		}
		// A statement's values stay well under SQLite's limit on bound parameters (sessions have 25 columns).
		for (let i = 0; i < newSessions.length; i += 200) {
			db.insert(sessions)
				.values(newSessions.slice(i, i + 200))
				.run();
		}
		for (let i = 0; i < newAliases.length; i += 500) {
			db.insert(sessionAliases)
				.values(newAliases.slice(i, i + 500))
				.run();
		}
		// Only new transcript bytes of sessions a hook recorded change nothing here: no audit line either.
		if (newSessions.length + moved + newAliases.length > 0) {
			audit(db, {
				at: now,
				actor,
				operation: 'import.agents',
				entityType: 'import',
				entityId: 'agents',
				details: { sessions: newSessions.length, moved, aliases: newAliases.length, found: plan.length },
			});
		}
		return done;
	}
}

/**
 * What the store holds for a plan, read by the few hundred ids at a time: the owner of each agent id
 * the plan names (its own and the one it was forked from), and each planned session's row (its end note
 * and last activity; null for a row this write adds).
 */
function knownRows(
	db: BatonDb,
	plan: readonly Planned[],
): { owners: Map<string, string>; sessions: Map<string, { endNote: string | null; lastActivity: string } | null> } {
	const owners = new Map<string, string>();
	const byAgent = new Map<string, Set<string>>();
	for (const p of plan) {
		const ids = byAgent.get(p.source.agent) ?? new Set<string>();
		ids.add(p.source.agentSessionId);
		if (p.source.forkedFrom) ids.add(p.source.forkedFrom);
		byAgent.set(p.source.agent, ids);
	}
	for (const [agent, set] of byAgent) {
		const ids = [...set];
		for (let i = 0; i < ids.length; i += 500) {
			for (const row of db
				.select({ alias: sessionAliases.alias, sessionId: sessionAliases.sessionId })
				.from(sessionAliases)
				.where(and(eq(sessionAliases.agent, agent), inArray(sessionAliases.alias, ids.slice(i, i + 500))))
				.all()) {
				owners.set(key(agent, row.alias), row.sessionId);
			}
		}
	}
	const rows = new Map<string, { endNote: string | null; lastActivity: string } | null>();
	const ids = [...new Set(plan.map((p) => p.sessionId))];
	for (let i = 0; i < ids.length; i += 500) {
		for (const row of db
			.select({ id: sessions.id, endNote: sessions.endNote, lastActivity: sessions.lastActivity })
			.from(sessions)
			.where(inArray(sessions.id, ids.slice(i, i + 500)))
			.all()) {
			rows.set(row.id, { endNote: row.endNote, lastActivity: row.lastActivity });
		}
	}
	return { owners, sessions: rows };
}

/**
 * The agent kinds whose alias with the same id is the same session: VS Code's agent hooks send the chat
 * session's id, in Claude Code's field names (`session_id`, `hook_event_name`) in current Copilot Chat
 * (microsoft/vscode-copilot-chat ChatHookService.executeHook). The hook now tells them by the timestamp
 * Claude never sends (normaliseHookPayload.ts), but stores written before that recorded such a chat as
 * Claude Code's. A chat session id is a UUID of VS Code's own: no Claude session shares it.
 */
function sameSessionAgents(source: HistorySource): readonly AgentKind[] {
	return source.product === 'vscode' ? ['claude-code'] : [];
}

/**
 * The Baton session of each source: its alias's, a resumed Claude conversation's, or a new one's id —
 * the one the archive linked its transcript to when an earlier run stopped between the archive and the
 * store (a session with no start time is named by its file's mtime, which may have moved since), else
 * derived from its start and its id.
 */
function planSources(db: BatonDb, sources: readonly HistorySource[], archived: ReadonlyMap<string, TranscriptInfo>): Planned[] {
	const agents = [...new Set(sources.flatMap((s) => [s.agent, ...sameSessionAgents(s)]))];
	const aliases = new Map<string, string>();
	for (const row of agents.length ? db.select().from(sessionAliases).where(inArray(sessionAliases.agent, agents)).all() : []) {
		aliases.set(key(row.agent, row.alias), row.sessionId);
	}
	const derived = sources.map(
		(s) => archived.get(key(s.agent, s.agentSessionId))?.sessionId ?? derivedSessionId(s.startedAt ?? s.modifiedAt, `${s.agent}:${s.agentSessionId}`),
	);
	const existing = new Set<string>();
	for (let i = 0; i < derived.length; i += 500) {
		for (const row of db
			.select({ id: sessions.id })
			.from(sessions)
			.where(inArray(sessions.id, derived.slice(i, i + 500)))
			.all()) {
			existing.add(row.id);
		}
	}
	return sources.map((source, i) => {
		const own = aliases.get(key(source.agent, source.agentSessionId));
		const earlier = own
			? undefined
			: [
					...source.earlierIds.map((id) => aliases.get(key(source.agent, id))),
					...sameSessionAgents(source).map((agent) => aliases.get(key(agent, source.agentSessionId))),
				].find((id) => id !== undefined);
		const id = derived[i] as string;
		const sessionId = own ?? earlier ?? id;
		return { source, sessionId, newSession: !own && !earlier && !existing.has(id), newAlias: !own };
	});
}

function entriesByKey(list: readonly TranscriptInfo[]): Map<string, TranscriptInfo> {
	return new Map(list.map((e) => [key(e.agent, e.id), e]));
}

function outcomeOf(p: Planned, entry: TranscriptInfo | undefined, synced: ReadonlySet<string>, dryRun: boolean): AgentHistorySession['outcome'] {
	if (p.newSession) {
		return 'imported';
	}
	if (p.newAlias) {
		return 'updated';
	}
	if (dryRun) {
		const current = entry && entry.sessionId && !entry.sourceMissing && entry.offset === p.source.size && entry.sourceMtimeMs === p.source.mtimeMs;
		return current ? 'unchanged' : 'updated';
	}
	return p.source.transcripts.some((t) => synced.has(key(p.source.agent, t.id))) ? 'updated' : 'unchanged';
}

/**
 * The session's first request names it, else the agent's title, else the agent and its id. The request is
 * the one this run's sync saw first when it read the transcript from its start, else the archive's first.
 */
function sessionName(archive: TranscriptArchive, source: HistorySource, entry: TranscriptInfo | undefined, firstRequests: Record<string, string>): string {
	let first = entry ? firstRequests[indexKey(entry.agent, entry.id)] : undefined;
	if (entry && first === undefined) {
		const excerpt = archive.read(entry.id, entry.agent)?.excerpts.find((e) => e.type === 'user');
		first = excerpt?.type === 'user' ? excerpt.text : undefined;
	}
	return (first !== undefined ? nameFromPrompt(first) : null) ?? entry?.title ?? placeholderName(source.agent, source.agentSessionId);
}

function maxIso(a: string | null, b: string): string {
	return a && a > b ? a : b;
}

function report(
	dryRun: boolean,
	since: string | null,
	agents: readonly HistoryAgent[],
	plan: readonly Planned[],
	outcomes: readonly AgentHistorySession['outcome'][],
	entries: Map<string, TranscriptInfo>,
	skipped: AgentHistoryReport['skipped'],
): AgentHistoryReport {
	const counts: Record<string, AgentHistoryCounts> = Object.create(null) as Record<string, AgentHistoryCounts>;
	for (const agent of agents) {
		counts[agent] = {
			found: 0,
			imported: 0,
			updated: 0,
			unchanged: 0,
			skipped: skipped.filter((s) => s.agent === agent).length,
			unknownRecords: 0,
			badLines: 0,
		};
	}
	const sessionsOut: AgentHistorySession[] = plan.map((p, i) => {
		const outcome = outcomes[i] ?? 'unchanged';
		const c = counts[p.source.agent] as AgentHistoryCounts;
		c.found++;
		c[outcome]++;
		for (const t of p.source.transcripts) {
			const entry = entries.get(key(p.source.agent, t.id));
			for (const n of Object.values(entry?.unknownRecords ?? {})) {
				c.unknownRecords += n;
			}
			c.badLines += entry?.badLines ?? 0;
		}
		return {
			agent: p.source.agent,
			product: p.source.product,
			agentSessionId: p.source.agentSessionId,
			sessionId: p.sessionId,
			outcome,
			linked: !p.newAlias,
			sourcePath: p.source.sourcePath,
		};
	});
	return { dryRun, since, agents: counts, sessions: sessionsOut, skipped };
}
