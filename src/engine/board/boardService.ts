/**
 * The Agents board (issue 26, item 4): every agent session running now in this workspace, whichever
 * agent, with its state and why. One read of the sessions that can be on it (active, or stopped within
 * the recent window, or imported with a file still growing), their last hook signal and their oldest
 * pending checkpoint — never the whole store; the rules are boardRules.ts.
 */
import fs from 'node:fs';
import { and, asc, eq, gte, inArray, isNotNull, or } from 'drizzle-orm';
import type { EngineContext } from '../context';
import { importedEndNotePrefix } from '../sessions/sessionQueries';
import type { BatonDb } from '../storage/journalStore';
import { agentSignals, auditLog, checkpoints, sessions } from '../storage/schema';
import { isAgentKind } from '../agentKinds';
import type { BoardEntry, BoardReport } from './boardShapes';
import { boardVerdict, boardWindows, compareEntries, nextSignal, type BoardInput, type BoardVerdict, type Signal, type StoredSignal } from './boardRules';
import type { AgentSignal, Session } from '../storage/records';

/** A session's file in its agent's own history, as the transcript archive knows it (imported sessions). */
interface HistoryFile {
	sessionId: string | null;
	sourcePath: string;
	/** The file's modification time when the archive last read it (0: unknown). */
	sourceMtimeMs: number;
}

/** Files the archive last saw change longer ago than this are not looked at again (a session resumed days later shows after its next import). */
const staleAfterMs = 24 * 60 * 60_000;

/** One agent's conversation (its own id) in a durable session: several agents, or one resumed, may share a session. */
interface Conversation {
	agent: string;
	alias: string;
	sessionId: string;
}

export class BoardService {
	constructor(
		private readonly ctx: EngineContext,
		/** The agents' own files the archive reads, for imported sessions whose file still grows (none when the archive cannot be opened). */
		private readonly historyFiles: () => readonly HistoryFile[] = () => [],
	) {}

	/** Records what a hook event said about its agent conversation; writes only when the state or its reason changed. */
	async record(conversation: Conversation, signal: Signal): Promise<StoredSignal | null> {
		const previous = await this.ctx.store.read((db) => signalOf(db, conversation));
		const next = nextSignal(previous && previous.sessionId === conversation.sessionId ? previous : null, signal, this.ctx.nowIso());
		if (!next) {
			return null;
		}
		await this.ctx.store.write((db) => {
			const row = { ...conversation, ...next };
			db.insert(agentSignals)
				.values(row)
				.onConflictDoUpdate({ target: [agentSignals.agent, agentSignals.alias], set: { sessionId: conversation.sessionId, ...next } })
				.run();
		});
		return next;
	}

	/** The board now. */
	async list(): Promise<BoardReport> {
		const now = this.ctx.clock.now();
		const growing = this.growingFiles(now);
		const entries = await this.ctx.store.read((db) => boardEntries(db, now, growing));
		entries.sort(compareEntries);
		return { entries, waiting: entries.filter((e) => e.state === 'waiting').length, at: new Date(now).toISOString() };
	}

	/** Imported sessions' files modified within the growing window, by session id (their modification time). */
	private growingFiles(now: number): Map<string, string> {
		const out = new Map<string, string>();
		let files: readonly HistoryFile[];
		try {
			files = this.historyFiles();
		} catch {
			return out;
		}
		for (const file of files) {
			if (!file.sessionId || file.sourceMtimeMs < now - staleAfterMs) {
				continue;
			}
			const mtime = statMtime(file.sourcePath);
			if (mtime !== null && mtime >= now - boardWindows.growingMs) {
				const at = new Date(mtime).toISOString();
				const known = out.get(file.sessionId);
				out.set(file.sessionId, known && known > at ? known : at);
			}
		}
		return out;
	}
}

function statMtime(file: string): number | null {
	try {
		return fs.statSync(file).mtimeMs;
	} catch {
		return null;
	}
}

function signalOf(db: BatonDb, c: Conversation): (StoredSignal & { sessionId: string }) | null {
	const row = db
		.select()
		.from(agentSignals)
		.where(and(eq(agentSignals.agent, c.agent), eq(agentSignals.alias, c.alias)))
		.get();
	return row ? { state: row.state, reason: row.reason, event: row.event, since: row.since, sessionId: row.sessionId } : null;
}

function boardEntries(db: BatonDb, now: number, growing: ReadonlyMap<string, string>): BoardEntry[] {
	const cutoff = new Date(now - boardWindows.recentMs).toISOString();
	const approvals = pendingApprovals(db);
	// A checkpoint awaiting approval keeps its session on the board however long ago it stopped.
	const named = Array.from(new Set(Array.from(growing.keys()).concat(Array.from(approvals.keys()))));
	const running = or(
		eq(sessions.status, 'active'),
		gte(sessions.lastActivity, cutoff),
		gte(sessions.endedAt, cutoff),
		named.length > 0 ? inArray(sessions.id, named) : undefined,
	);
	const rows = db
		.select({ session: sessions, signal: agentSignals })
		.from(sessions)
		.leftJoin(agentSignals, eq(agentSignals.sessionId, sessions.id))
		.where(and(isNotNull(sessions.agent), running))
		.all();
	const bySession = new Map<string, { session: Session; signals: AgentSignal[] }>();
	for (const { session, signal } of rows) {
		const known = bySession.get(session.id) ?? { session, signals: [] };
		if (signal) {
			known.signals.push(signal);
		}
		bySession.set(session.id, known);
	}
	const out: BoardEntry[] = [];
	for (const { session, signals } of bySession.values()) {
		const base = {
			session: {
				status: session.status,
				lastActivity: session.lastActivity,
				endedAt: session.endedAt,
				imported: (session.endNote ?? '').startsWith(importedEndNotePrefix),
			},
			fileModifiedAt: growing.get(session.id) ?? null,
			now,
		};
		const entry = (verdict: BoardVerdict | null, agent: string | null, agentSessionId: string | null): void => {
			if (verdict) {
				out.push({
					id: session.id,
					agentSessionId,
					name: session.name,
					agent,
					scope: session.scopeKey,
					status: session.status,
					lastActivity: session.lastActivity,
					...verdict,
				});
			}
		};
		const pending = approvals.get(session.id);
		const approval = pending?.approval ?? null;
		if (approval) {
			// Named after the agent whose hook took the checkpoint: a session several agents joined names only its last.
			entry(boardVerdict({ ...base, signal: null, approval }), pending?.agent ?? session.agent, null);
		}
		for (const signal of signals) {
			entry(boardVerdict({ ...base, signal, approval: null }), signal.agent, signal.alias);
		}
		if (!approval && signals.length === 0) {
			entry(boardVerdict({ ...base, signal: null, approval: null }), session.agent, session.agentIdentifier);
		}
	}
	return out;
}

/** Each session's oldest checkpoint awaiting approval (an indexed read of the pending ones), with the agent whose hook took it. */
function pendingApprovals(db: BatonDb): Map<string, { approval: NonNullable<BoardInput['approval']>; agent: string | null }> {
	const rows = db
		.select({ id: checkpoints.id, seq: checkpoints.seq, label: checkpoints.message, sessionId: checkpoints.sessionId, createdAt: checkpoints.createdAt })
		.from(checkpoints)
		.where(and(eq(checkpoints.approvalStatus, 'pending'), isNotNull(checkpoints.sessionId)))
		.orderBy(asc(checkpoints.seq))
		.all();
	const out = new Map<string, { approval: NonNullable<BoardInput['approval']>; agent: string | null }>();
	for (const row of rows) {
		if (row.sessionId && !out.has(row.sessionId)) {
			out.set(row.sessionId, {
				approval: { id: row.id, seq: row.seq, label: row.label, createdAt: row.createdAt },
				agent: creatingAgent(db, row.sessionId, row.id),
			});
		}
	}
	return out;
}

/** The agent whose hook or shell created a checkpoint (its audit record's actor is `hook:<agent>` or `agent:<agent>`); null when a person or a command did. */
function creatingAgent(db: BatonDb, sessionId: string, checkpointId: string): string | null {
	const row = db
		.select({ actor: auditLog.actor })
		.from(auditLog)
		.where(and(eq(auditLog.sessionId, sessionId), eq(auditLog.operation, 'checkpoint.create'), eq(auditLog.entityId, checkpointId)))
		.get();
	const agent = row && /^(hook|agent):/.test(row.actor) ? row.actor.slice(row.actor.indexOf(':') + 1) : null;
	return agent && isAgentKind(agent) ? agent : null;
}
