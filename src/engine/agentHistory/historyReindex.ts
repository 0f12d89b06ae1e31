/**
 * `baton doctor --reindex` (issue 26, "never lose one"): the transcript index rebuilt from the archive's
 * own files (transcripts/archiveRebuild.ts) plus the agents' files still on disk, found as the import
 * finds them and read as a sync reads them, each linked to the Baton session its agent's id is an alias
 * of. Nothing here makes a session or an alias: that is the import's job; a transcript no alias claims
 * is listed, not archived. Under the index's lock, like every writer of the archive.
 */
import type { EngineContext } from '../context';
import { sessionAliases } from '../storage/schema';
import type { TranscriptArchive } from '../transcripts/transcriptArchive';
import type { AgentTranscript } from '../transcripts/archiveRebuild';
import type { ReindexAgentCounts, ReindexReport } from './historyShapes';
import { discoverHistory, historyAgents, historyHomes } from './historySources';

const key = (agent: string, id: string): string => `${agent}\u0000${id}`;

export async function reindexTranscripts(
	ctx: EngineContext,
	archive: TranscriptArchive,
	env: NodeJS.ProcessEnv,
	homeDir: string | undefined,
): Promise<ReindexReport> {
	const found = discoverHistory({ workspaceRoot: ctx.workspaceRoot, homes: historyHomes(archive.claudeHome, env, homeDir), agents: historyAgents });
	const aliases = new Map((await ctx.store.read((db) => db.select().from(sessionAliases).all())).map((a) => [key(a.agent, a.alias), a.sessionId]));
	const discovered: AgentTranscript[] = [];
	for (const source of found.sources) {
		for (const t of source.transcripts) {
			discovered.push({ ...t, agent: source.agent });
		}
	}
	const result = await archive.reindex({ discovered, link: (agent, id) => Promise.resolve(aliases.get(key(agent, id)) ?? null) });
	const agents: Record<string, ReindexAgentCounts> = Object.create(null) as Record<string, ReindexAgentCounts>;
	const list = archive.list();
	for (const e of list) {
		const c = (agents[e.agent] ??= { transcripts: 0, archived: 0, sourceMissing: 0, unlinked: 0 });
		c.transcripts++;
		c.archived += e.archivePath && e.archiveBytes > 0 ? 1 : 0;
		c.sourceMissing += e.sourceMissing ? 1 : 0;
		c.unlinked += e.sessionId ? 0 : 1;
	}
	return {
		previousIndex: result.previous,
		changed: result.changed,
		transcripts: list.length,
		sessions: new Set(list.flatMap((e) => (e.sessionId ? [e.sessionId] : []))).size,
		fromHeader: result.scan.fromHeader,
		fromIndex: result.scan.fromIndex,
		recovered: result.scan.recovered,
		headersWritten: result.sidecars,
		parsedBytes: result.parsedBytes,
		agents,
		problems: result.scan.problems,
		skipped: found.skipped,
	};
}
