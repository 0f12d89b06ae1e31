/**
 * Shared events → Baton's tables, so every existing view and command shows a teammate's sessions,
 * handoffs, checkpoints and approvals. One rule: the state of a record is computed from all of its
 * events in id order, so two machines holding the same events hold the same state whatever order the
 * events arrived in. Runs inside the pull's write, right after the merge.
 */
import { and, asc, eq, inArray, max } from 'drizzle-orm';
import type { BatonDb } from '../storage/journalStore';
import type { CheckpointAnnotation, CheckpointMetrics, FileStats, HandoffData, SessionScope } from '../storage/jsonShapes';
import { emptyStats } from '../storage/jsonShapes';
import type { SharedEvent } from '../storage/model';
import { checkpoints, handoffs, sessions, sharedEvents } from '../storage/schema';

export interface ProjectionResult {
	sessions: { added: number; updated: number };
	checkpoints: { added: number; updated: number };
	/** Events of a kind this version does not derive anything from (kept and shipped unchanged). */
	unknownKinds: string[];
}

const statusOf: Record<string, 'active' | 'suspended' | 'ended' | 'orphaned'> = { resumed: 'active', suspended: 'suspended', ended: 'ended', orphaned: 'orphaned' };
const derived = new Set(['session.started', 'session.status', 'handoff.written', 'handoff.consumed', 'checkpoint.recorded', 'checkpoint.decided']);

/**
 * Derives the records the given (newly merged) events touch. `ownMachine` is this machine: the
 * status of a session started here stays what this machine's own lifecycle made it (it is the writer
 * of that session's status); everything else follows the events.
 */
export function projectEvents(db: BatonDb, newEvents: readonly SharedEvent[], ownMachine: string): ProjectionResult {
	const result: ProjectionResult = { sessions: { added: 0, updated: 0 }, checkpoints: { added: 0, updated: 0 }, unknownKinds: [] };
	const touchedSessions = new Set<string>();
	const consumedSubjects = new Set<string>();
	const touchedCheckpoints = new Set<string>();
	const unknown = new Set<string>();
	for (const event of [...newEvents].sort((a, b) => (a.id < b.id ? -1 : 1))) {
		if (event.kind.startsWith('session.') || event.kind === 'handoff.written') {
			touchedSessions.add(event.subject);
		} else if (event.kind === 'handoff.consumed') {
			consumedSubjects.add(event.subject);
		} else if (event.kind.startsWith('checkpoint.')) {
			touchedCheckpoints.add(event.subject);
		}
		if (!derived.has(event.kind) && !event.kind.startsWith('timeline.') && !event.kind.startsWith('provenance.')) {
			unknown.add(event.kind);
		}
	}
	// Sessions first (in id order of their start), so checkpoints and consumptions find them.
	const started = eventsOf(db, 'session.started', [...touchedSessions]).sort((a, b) => (a.id < b.id ? -1 : 1));
	const startedIds = new Set(started.map((e) => e.subject));
	for (const event of started) {
		if (projectSession(db, event, ownMachine)) {
			result.sessions.added++;
		}
	}
	for (const id of touchedSessions) {
		if (startedIds.has(id) || db.select({ id: sessions.id }).from(sessions).where(eq(sessions.id, id)).get()) {
			if (deriveSessionState(db, id, ownMachine)) {
				result.sessions.updated++;
			}
		}
	}
	for (const subject of consumedSubjects) {
		if (deriveConsumption(db, subject)) {
			result.sessions.updated++;
		}
	}
	for (const id of touchedCheckpoints) {
		const outcome = deriveCheckpoint(db, id);
		if (outcome === 'added') {
			result.checkpoints.added++;
		} else if (outcome === 'updated') {
			result.checkpoints.updated++;
		}
	}
	result.unknownKinds = [...unknown].sort();
	// A newly added session counts once, as added.
	result.sessions.updated = Math.max(0, result.sessions.updated - result.sessions.added);
	return result;
}

function eventsOf(db: BatonDb, kind: string, subjects: readonly string[]): SharedEvent[] {
	const out: SharedEvent[] = [];
	for (let i = 0; i < subjects.length; i += 500) {
		out.push(
			...db
				.select()
				.from(sharedEvents)
				.where(and(eq(sharedEvents.kind, kind), inArray(sharedEvents.subject, subjects.slice(i, i + 500))))
				.orderBy(asc(sharedEvents.id))
				.all(),
		);
	}
	return out;
}

function projectSession(db: BatonDb, event: SharedEvent, ownMachine: string): boolean {
	if (event.machine === ownMachine || db.select({ id: sessions.id }).from(sessions).where(eq(sessions.id, event.subject)).get()) {
		return false;
	}
	const body = event.body;
	const at = str(body['startedAt']) ?? event.at;
	const scope = (body['scope'] ?? { type: 'global' }) as SessionScope;
	const previous = str(body['previousId']);
	const parent = str(body['parentId']);
	db.insert(sessions)
		.values({
			id: event.subject,
			name: str(body['name']) ?? event.subject,
			status: 'active',
			scope,
			scopeKey: str(body['scopeKey']) ?? 'global',
			currentTask: null,
			taskStartedAt: null,
			agent: str(body['agent']),
			agentIdentifier: null,
			previousSessionId: previous && exists(db, previous) ? previous : null,
			nextSessionId: null,
			parentSessionId: parent && exists(db, parent) ? parent : null,
			handoffConsumedAt: null,
			handoffConsumedBy: null,
			debrief: null,
			stats: emptyStats(),
			resumeCount: 0,
			endNote: null,
			startedAt: at,
			lastActivity: at,
			suspendedAt: null,
			endedAt: null,
			archivedAt: null,
			updatedAt: at,
		})
		.run();
	return true;
}

/** Status from the last `session.status` event (id order); the handoff from the one `handoff.written`. */
function deriveSessionState(db: BatonDb, id: string, ownMachine: string): boolean {
	const events = db
		.select()
		.from(sharedEvents)
		.where(and(eq(sharedEvents.subject, id), inArray(sharedEvents.kind, ['session.started', 'session.status', 'handoff.written'])))
		.orderBy(asc(sharedEvents.id))
		.all();
	const start = events.find((e) => e.kind === 'session.started');
	let changed = false;
	const handoff = events.find((e) => e.kind === 'handoff.written');
	if (handoff && !db.select({ id: handoffs.sessionId }).from(handoffs).where(eq(handoffs.sessionId, id)).get()) {
		db.insert(handoffs)
			.values({ sessionId: id, data: handoffData(handoff.body), createdAt: handoff.at })
			.run();
		changed = true;
	}
	if (!start || start.machine === ownMachine) {
		return changed;
	}
	const row = db.select().from(sessions).where(eq(sessions.id, id)).get();
	const last = events.filter((e) => e.kind === 'session.status').pop();
	if (!row || !last) {
		return changed;
	}
	const status = statusOf[str(last.body['status']) ?? ''] ?? row.status;
	const at = str(last.body['at']) ?? last.at;
	const endedEvent = events.filter((e) => e.kind === 'session.status' && e.body['status'] === 'ended').pop();
	const next = {
		status,
		endedAt: status === 'ended' ? (str(endedEvent?.body['at']) ?? at) : row.endedAt,
		suspendedAt: status === 'suspended' ? at : row.suspendedAt,
		endNote: status === 'ended' ? str(last.body['reason']) : row.endNote,
		lastActivity: at > row.lastActivity ? at : row.lastActivity,
	};
	if (next.status !== row.status || next.endedAt !== row.endedAt || next.suspendedAt !== row.suspendedAt || next.lastActivity !== row.lastActivity) {
		db.update(sessions)
			.set({ ...next, updatedAt: at > row.updatedAt ? at : row.updatedAt })
			.where(eq(sessions.id, id))
			.run();
		changed = true;
	}
	return changed;
}

/**
 * A handoff is consumed once: of all `handoff.consumed` events about it, the smallest id wins. The
 * chain continues through the winner; a losing session keeps the handoff it read and its briefing
 * says it lost (see `handoffConflictWarning`).
 */
function deriveConsumption(db: BatonDb, subject: string): boolean {
	const row = db.select().from(sessions).where(eq(sessions.id, subject)).get();
	const winner = eventsOf(db, 'handoff.consumed', [subject])[0];
	const by = winner ? str(winner.body['bySessionId']) : null;
	if (!row || !winner || !by || !exists(db, by)) {
		return false;
	}
	if (row.nextSessionId === by && row.handoffConsumedBy === by) {
		return false;
	}
	db.update(sessions)
		.set({ nextSessionId: by, handoffConsumedBy: by, handoffConsumedAt: str(winner.body['at']) ?? winner.at })
		.where(eq(sessions.id, subject))
		.run();
	// A session projected before its predecessor arrived gets its link now.
	db.update(sessions).set({ previousSessionId: subject }).where(eq(sessions.id, by)).run();
	return true;
}

/** The briefing warning for a session that consumed a handoff another session had consumed first. */
export function handoffConflictWarning(db: BatonDb, sessionId: string, previousSessionId: string | null): string | null {
	if (!previousSessionId) {
		return null;
	}
	const consumed = eventsOf(db, 'handoff.consumed', [previousSessionId]);
	const winner = consumed[0];
	if (!winner || consumed.length < 2 || winner.body['bySessionId'] === sessionId || !consumed.some((e) => e.body['bySessionId'] === sessionId)) {
		return null;
	}
	const where = winner.machineName ?? winner.machine;
	return `the handoff of ${previousSessionId} was also taken by ${String(winner.body['bySessionId'])} on ${where}${winner.author ? ` (${winner.author})` : ''}, first; the chain continues there — reconcile with that session's work`;
}

function deriveCheckpoint(db: BatonDb, id: string): 'added' | 'updated' | null {
	const recorded = eventsOf(db, 'checkpoint.recorded', [id])[0];
	const decided = eventsOf(db, 'checkpoint.decided', [id]).pop();
	let outcome: 'added' | 'updated' | null = null;
	let row = db.select().from(checkpoints).where(eq(checkpoints.id, id)).get();
	if (!row && recorded) {
		const b = recorded.body;
		const seq = (db.select({ seq: max(checkpoints.seq) }).from(checkpoints).get()?.seq ?? 0) + 1;
		const sessionId = recorded.sessionId && exists(db, recorded.sessionId) ? recorded.sessionId : null;
		const parent = str(b['parentCheckpointId']);
		db.insert(checkpoints)
			.values({
				id,
				seq,
				sessionId,
				trigger: str(b['trigger']) ?? 'manual',
				parentCheckpointId: parent,
				commitSha: str(b['commitOid']) ?? '',
				treeSha: str(b['treeOid']) ?? '',
				message: str(b['message']),
				tags: (b['tags'] as string[] | undefined) ?? [],
				annotations: (b['annotations'] as CheckpointAnnotation[] | undefined) ?? [],
				linkedIssues: [],
				fileStats: b['files'] as FileStats,
				environment: null,
				metrics: b['metrics'] as CheckpointMetrics,
				approvalStatus: (str(b['approvalStatus']) ?? 'pending') as 'pending',
				approvalUser: null,
				approvalAt: null,
				approvalReason: null,
				approvalPolicy: (str(b['approvalPolicy']) ?? 'review') as 'review',
				escalationReasons: (b['escalationReasons'] as string[] | undefined) ?? [],
				createdAt: str(b['createdAt']) ?? recorded.at,
			})
			.run();
		outcome = 'added';
		row = db.select().from(checkpoints).where(eq(checkpoints.id, id)).get();
	}
	if (row && decided) {
		const status = decided.body['status'] === 'approved' ? 'approved' : 'rejected';
		const user = str(decided.body['by']) ?? decided.actor;
		if (row.approvalStatus !== status || row.approvalUser !== user) {
			db.update(checkpoints)
				.set({ approvalStatus: status, approvalUser: user, approvalAt: str(decided.body['at']) ?? decided.at, approvalReason: str(decided.body['note']) })
				.where(eq(checkpoints.id, id))
				.run();
			outcome ??= 'updated';
		}
	}
	return outcome;
}

function handoffData(body: Record<string, unknown>): HandoffData {
	return {
		lastTask: null,
		tasksCompleted: [],
		tasksCreated: [],
		decisionsRecorded: 0,
		decisions: [],
		nextSuggested: [],
		openBlockers: [],
		openBugs: [],
		note: null,
		nextAction: null,
		...(body as Partial<HandoffData>),
	};
}

function exists(db: BatonDb, id: string): boolean {
	return db.select({ id: sessions.id }).from(sessions).where(eq(sessions.id, id)).get() !== undefined;
}

function str(value: unknown): string | null {
	return typeof value === 'string' ? value : null;
}
