/**
 * Project memory and session summaries (docs/architecture.md §1, Memory): facts that outlive sessions
 * (knowledge and gotchas, de-duplicated, with their source session and a staleness mark) and the
 * deterministic summary of one session's work.
 *
 * Facts arrive by hand (`baton memory add`, the MCP `record_memory` tool) and by extraction when a
 * session ends (sessionEndFacts.ts): its decisions and blockers inside the end's own write (a
 * `session.ended` subscriber), its transcripts' findings right after (the archive is files, read
 * outside the write lock). Staleness is computed in a pass (`refreshStaleness`) that the engine runs
 * before a briefing is computed, and marked on the rows.
 */
import { asc, eq, isNull } from 'drizzle-orm';
import type { TranscriptArchive } from '../transcripts/transcriptArchive';
import type { Excerpt } from '../transcripts/transcriptExcerpts';
import { audit } from '../audit';
import type { CheckpointService } from '../checkpoints/checkpointService';
import type { EngineContext } from '../context';
import type { DomainEvent } from '../events';
import { buildHandoff } from '../sessions/handoffBuilder';
import { decisionsOfSession } from '../sessions/overview';
import { getSession, readHandoff } from '../sessions/sessionQueries';
import type { SessionSummary } from '../storage/jsonShapes';
import type { BatonDb } from '../storage/journalStore';
import type { MemoryEntry, Session } from '../storage/model';
import { checkpoints, memoryEntries } from '../storage/schema';
import { buildSessionSummary } from './sessionSummary';
import { computeStaleness, parseLsTree } from './factStaleness';
import { confirmFact, getFact, listFacts, recordFact, retireFact, type MemoryFilter, type RecordFactInput, type RecordFactResult } from './memoryRecords';
import { recordExtracted, recordFacts, transcriptFacts } from './sessionEndFacts';
import { renderSessionSummaryMarkdown } from './sessionSummaryMarkdown';
import { toolFailures, type ToolFailure } from './toolFailures';
import { pushAll } from '../arrays';

interface StalenessReport {
	checked: number;
	marked: string[];
	cleared: string[];
}

export class MemoryService {
	private archive: TranscriptArchive | undefined;

	constructor(
		private readonly ctx: EngineContext,
		private readonly checkpoints: CheckpointService,
		/** The engine's transcript archive (engine.ts: one rule for the agents' homes). */
		private readonly openArchive: () => TranscriptArchive,
	) {
		ctx.events.on((event, db) => {
			if (event.type === 'session.ended') {
				this.onSessionEnded(db, event);
			}
		});
	}

	async record(input: RecordFactInput): Promise<RecordFactResult> {
		return this.ctx.store.write((db) => recordFact(this.ctx, db, input));
	}

	async list(filter: MemoryFilter = {}): Promise<MemoryEntry[]> {
		return this.ctx.store.read((db) => listFacts(db, filter));
	}

	async get(id: string): Promise<MemoryEntry> {
		return this.ctx.store.read((db) => getFact(db, id));
	}

	async confirm(id: string, actor: string): Promise<MemoryEntry> {
		return this.ctx.store.write((db) => confirmFact(this.ctx, db, id, actor));
	}

	async retire(id: string, actor: string): Promise<MemoryEntry> {
		return this.ctx.store.write((db) => retireFact(this.ctx, db, id, actor));
	}

	/**
	 * Recomputes every live fact's staleness (factStaleness.ts) and marks the rows that changed: a
	 * newly stale fact gets `staleSince` now, a stale one whose reason changed keeps its date, a
	 * fact that is fine again is cleared. A fact confirmed while this ran keeps its confirmation.
	 */
	async refreshStaleness(): Promise<StalenessReport> {
		const { entries, snapshots } = await this.ctx.store.read((db) => ({
			entries: db.select().from(memoryEntries).where(isNull(memoryEntries.retiredAt)).all(),
			snapshots: db.select({ commitSha: checkpoints.commitSha, createdAt: checkpoints.createdAt }).from(checkpoints).orderBy(asc(checkpoints.seq)).all(),
		}));
		const report: StalenessReport = { checked: entries.length, marked: [], cleared: [] };
		if (entries.length === 0) {
			return report;
		}
		const reasons = await computeStaleness({
			entries,
			nowMs: this.ctx.clock.now(),
			staleAfterMs: this.ctx.config.memoryStaleAfter,
			workspaceRoot: this.ctx.workspaceRoot,
			snapshots: snapshots.length && this.checkpoints.enabled ? snapshots : [],
			blobsAt: (commit, paths) => this.blobsAt(commit, paths),
			maxHashBytes: this.ctx.config.checkpoints.maxFileSize,
		});
		const changed = entries.filter((e) => {
			const reason = reasons.get(e.id) ?? null;
			return reason === null ? e.staleSince !== null : e.staleSince === null || e.staleReason !== reason;
		});
		if (changed.length === 0) {
			return report;
		}
		await this.ctx.store.write((db) => {
			const now = this.ctx.nowIso();
			for (const seen of changed) {
				const row = db.select().from(memoryEntries).where(eq(memoryEntries.id, seen.id)).get();
				if (!row || row.retiredAt || row.lastConfirmedAt !== seen.lastConfirmedAt) {
					continue;
				}
				const reason = reasons.get(seen.id) ?? null;
				db.update(memoryEntries)
					.set(reason ? { staleSince: row.staleSince ?? now, staleReason: reason } : { staleSince: null, staleReason: null })
					.where(eq(memoryEntries.id, seen.id))
					.run();
				(reason ? report.marked : report.cleared).push(seen.id);
			}
			if (report.marked.length || report.cleared.length) {
				audit(db, {
					at: now,
					actor: 'baton:memory',
					operation: 'memory.staleness',
					entityType: 'memory',
					details: { marked: report.marked, cleared: report.cleared },
				});
			}
		});
		return report;
	}

	/** `refreshStaleness` for callers that must not fail on it (a briefing): problems are logged. */
	async refreshStalenessQuietly(): Promise<void> {
		try {
			await this.refreshStaleness();
		} catch (error) {
			this.ctx.log.warn(`could not refresh the staleness of project memory: ${(error as Error).message}`);
		}
	}

	/** After a session ended (its write committed): gotchas from its agents' transcripts. Returns warnings. */
	async afterSessionEnded(session: Session, actor: string): Promise<string[]> {
		try {
			const facts = transcriptFacts(this.failuresOf(session.id));
			if (facts.length) {
				await this.ctx.store.write((db) => recordExtracted(this.ctx, db, session.id, facts, actor));
			}
			return [];
		} catch (error) {
			const message = `could not extract project memory from the transcripts of ${session.id}: ${(error as Error).message}`;
			this.ctx.log.warn(message);
			return [message];
		}
	}

	/** The deterministic summary of a session, typed and as markdown. */
	async sessionSummary(sessionId: string): Promise<{ summary: SessionSummary; markdown: string }> {
		const records = await this.ctx.store.read((db) => {
			const session = getSession(db, sessionId);
			const stored = readHandoff(db, sessionId);
			return {
				session,
				handoff: stored.kind === 'valid' ? stored.data : buildHandoff(this.ctx, db, session, {}),
				handoffWritten: stored.kind === 'valid',
				decisions: decisionsOfSession(db, sessionId),
			};
		});
		const archive = this.transcripts();
		const summary = buildSessionSummary({ ...records, digest: archive.digest(sessionId), failures: this.failuresOf(sessionId), nowIso: this.ctx.nowIso() });
		return { summary, markdown: renderSessionSummaryMarkdown(summary) };
	}

	/** Inside the end's write: the session's decisions and blockers. A failure is logged, never fails the end. */
	private onSessionEnded(db: BatonDb, event: Extract<DomainEvent, { type: 'session.ended' }>): void {
		try {
			recordExtracted(this.ctx, db, event.session.id, recordFacts(this.ctx, db, event.session, event.handoff), event.actor);
		} catch (error) {
			this.ctx.log.warn(`could not extract project memory from ${event.session.id}: ${(error as Error).message}`);
		}
	}

	/** The failed tool calls in a session's archived transcripts, in time order. */
	private failuresOf(sessionId: string): ToolFailure[] {
		const archive = this.transcripts();
		const out: ToolFailure[] = [];
		for (const info of archive.list({ sessionId })) {
			const excerpts: Excerpt[] = archive.read(info.id)?.excerpts ?? [];
			pushAll(out, [...toolFailures(excerpts)]);
		}
		return out.sort((a, b) => (a.at ?? '').localeCompare(b.at ?? ''));
	}

	/** Baton's transcript archive, read only here. */
	private transcripts(): TranscriptArchive {
		this.archive ??= this.openArchive();
		return this.archive;
	}

	private async blobsAt(commit: string, paths: readonly string[]): Promise<Map<string, string>> {
		try {
			this.checkpoints.shadow.ensureEmptyConfig();
			const result = await this.checkpoints.shadow.git(['ls-tree', '-z', '--full-tree', commit, '--', ...paths]);
			return parseLsTree(result.stdout);
		} catch (error) {
			this.ctx.log.warn(`could not read checkpoint ${commit.slice(0, 12)} for project memory: ${(error as Error).message}`);
			return new Map();
		}
	}
}
