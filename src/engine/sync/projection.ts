/**
 * Shared events → Baton's tables, so every existing view and command shows a teammate's sessions,
 * handoffs, checkpoints and approvals. One rule: the state of a record is computed from all of its
 * events in id order, so two machines holding the same events hold the same state whatever order the
 * events arrived in. Runs inside the pull's write, right after the merge.
 */
import { retractedKind } from './retraction';
import { eq, max } from 'drizzle-orm';
import { inJsonList } from '../shared/sqlJsonList';
import { eventsBySubject } from './subjectEvents';
import type { BatonDb, JournalStore } from '../storage/journalStore';
import { insertRows } from './rawInsert';
import type { CheckpointAnnotation, CheckpointMetrics, FileStats, HandoffData, SessionFocus, SessionScope } from '../storage/jsonShapes';
import { handoffData, sessionRow } from '../interop/sessionRows';
import { oneOf, projectRecords, type RecordCounts } from './recordProjection';
import { knownScopeType } from '../shared/eventBodies';
import { recordKinds } from './recordEvents';
import type { Session } from '../storage/model';
import type { WireEvent } from '../shared/sharedEvents';
import { approvalPolicies, approvalStatuses, checkpoints, handoffs, sessions } from '../storage/schema';
import { decisionCounts, opinionsAmong, type TeammateOpinion } from './authority';

interface ProjectionResult {
	sessions: { added: number; updated: number };
	checkpoints: { added: number; updated: number };
	/** Decisions, checkpoint labels, memory facts, tasks and import records the events added or changed. */
	records: RecordCounts;
	/** Events of a kind this version does not derive anything from (kept and shipped unchanged). */
	unknownKinds: string[];
	/** Scope types of added sessions this version does not know (a newer version's): kept as they came. */
	unknownScopes: string[];
	/** Teammates' decisions about this machine's checkpoints among the new events: kept and shown, never applied (authority.ts). */
	opinions: TeammateOpinion[];
}

export interface ProjectionOptions {
	/** The merge's `before`: every row above this rowid is one of the new events (see eventsBySubject). */
	mergedAfter?: number;
	/** Copy handoff rows from their events inside SQLite where the body is the row as it stands (false: build each in JavaScript; the tests compare both). */
	copyHandoffs?: boolean;
}

/** A `session.status` event's status → the session's. Imported sessions travel with their legacy states (archived, closed). */
const statusOf: Record<string, Session['status']> = { resumed: 'active', active: 'active', suspended: 'suspended', ended: 'ended', orphaned: 'orphaned', archived: 'archived', closed: 'closed' };
/** The kinds a session's or checkpoint's state is derived from (all `eventsBySubject` needs to read). */
const subjectKinds = ['session.started', 'session.status', 'session.renamed', 'handoff.written', 'handoff.consumed', 'checkpoint.recorded', 'checkpoint.decided'];
const derived = new Set<string>(['session.started', 'session.status', 'session.renamed', 'handoff.written', 'handoff.consumed', 'checkpoint.recorded', 'checkpoint.decided', ...recordKinds]);

/**
 * Derives the records the given (newly merged) events touch. `ownMachine` is this machine: the
 * status of a session started here stays what this machine's own lifecycle made it (it is the writer
 * of that session's status); everything else follows the events. Reads and inserts go in batches:
 * every statement is prepared anew, so a pull of thousands of events must not cost one per row.
 */
export function projectEvents(db: BatonDb, newEvents: readonly WireEvent[], ownMachine: string, store: JournalStore, options: ProjectionOptions = {}): ProjectionResult {
	const { mergedAfter, copyHandoffs = true } = options;
	const result: ProjectionResult = {
		sessions: { added: 0, updated: 0 },
		checkpoints: { added: 0, updated: 0 },
		records: { decisions: 0, checkpointLabels: 0, memory: 0, tasks: 0, imports: 0 },
		unknownKinds: [],
		unknownScopes: [],
		opinions: [],
	};
	const sessionSubjects = new Set<string>();
	const consumedSubjects = new Set<string>();
	const checkpointSubjects = new Set<string>();
	const unknown = new Set<string>();
	for (const event of newEvents) {
		if (event.kind.startsWith('session.') || event.kind === 'handoff.written') {
			sessionSubjects.add(event.subject);
		} else if (event.kind === 'handoff.consumed') {
			consumedSubjects.add(event.subject);
		} else if (event.kind === 'checkpoint.recorded' || event.kind === 'checkpoint.decided') {
			checkpointSubjects.add(event.subject);
		}
		if (!derived.has(event.kind) && !event.kind.startsWith('timeline.') && !event.kind.startsWith('provenance.') && event.kind !== retractedKind) {
			unknown.add(event.kind);
		}
	}
	result.unknownKinds = [...unknown].sort();
	const unknownScopes = new Set<string>();
	const events = eventsBySubject(db, [...new Set([...sessionSubjects, ...consumedSubjects, ...checkpointSubjects])], subjectKinds, newEvents, mergedAfter);
	const sessionRows = new Map(
		db
			.select()
			.from(sessions)
			.where(inJsonList(sessions.id, [...new Set([...sessionSubjects, ...consumedSubjects])]))
			.all()
			.map((r) => [r.id, r]),
	);
	const known = (id: string | null): boolean => id !== null && (sessionRows.has(id) || db.select({ id: sessions.id }).from(sessions).where(eq(sessions.id, id)).get() !== undefined);
	const handoffIds = new Set(
		db
			.select({ id: handoffs.sessionId })
			.from(handoffs)
			.where(inJsonList(handoffs.sessionId, [...sessionSubjects]))
			.all()
			.map((r) => r.id),
	);
	const newSessions: (typeof sessions.$inferInsert)[] = [];
	// Checked before the table: in a pulled chain the predecessor usually arrives in the same pull, and
	// asking the table first cost one query per session (a scan of the new rows after it, too).
	const newIds = new Set<string>();
	const newHandoffs: (typeof handoffs.$inferInsert)[] = [];
	const copiedHandoffs: string[] = [];
	const starts = [...sessionSubjects].map((id) => (events.get(id) ?? []).find((e) => e.kind === 'session.started')).filter((e): e is WireEvent => e !== undefined);
	starts.sort((a, b) => (a.id < b.id ? -1 : 1));
	for (const start of starts) {
		const id = start.subject;
		const own = events.get(id) ?? [];
		const handoff = own.find((e) => e.kind === 'handoff.written');
		if (handoff && !handoffIds.has(id) && (sessionRows.has(id) || start.machine !== ownMachine)) {
			if (copyHandoffs && isHandoffRow(handoff.body)) {
				copiedHandoffs.push(handoff.id);
			} else {
				newHandoffs.push({ sessionId: id, data: handoffData(handoff.body as Partial<HandoffData>), createdAt: handoff.at });
			}
			handoffIds.add(id);
		}
		if (start.machine === ownMachine) {
			continue;
		}
		const state = derivedStatus(own);
		// Its last rename (id order), whichever machine's: the session's own machine refuses a teammate's rename, so it is that machine's.
		const renamed = str(own.findLast((e) => e.kind === 'session.renamed' && (str(e.body['name']) ?? '') !== '')?.body['name']);
		const row = sessionRows.get(id);
		if (!row) {
			const body = start.body;
			const at = str(body['startedAt']) ?? start.at;
			const previous = str(body['previousId']);
			const parent = str(body['parentId']);
			const scope = (body['scope'] ?? { type: 'global' }) as SessionScope;
			if (!knownScopeType(scope.type)) {
				unknownScopes.add(scope.type);
			}
			const inserted = sessionRow({
				id,
				name: renamed ?? str(body['name']) ?? id,
				status: state?.status ?? 'active',
				scope,
				agent: str(body['agent']),
				previousSessionId: previous && (newIds.has(previous) || known(previous)) ? previous : null,
				parentSessionId: parent && (newIds.has(parent) || known(parent)) ? parent : null,
				endNote: state?.endNote ?? null,
				focus: focusOf(body['focus']),
				startedAt: at,
				lastActivity: state && state.at > at ? state.at : at,
				suspendedAt: state?.status === 'suspended' ? state.at : null,
				endedAt: state?.endedAt ?? null,
			});
			newSessions.push(inserted);
			newIds.add(id);
			result.sessions.added++;
			continue;
		}
		if (state && (state.status !== row.status || state.endedAt !== row.endedAt)) {
			db.update(sessions)
				.set({
					status: state.status,
					endedAt: state.endedAt,
					endNote: state.endNote,
					suspendedAt: state.status === 'suspended' ? state.at : row.suspendedAt,
					lastActivity: state.at > row.lastActivity ? state.at : row.lastActivity,
					updatedAt: state.at > row.updatedAt ? state.at : row.updatedAt,
				})
				.where(eq(sessions.id, id))
				.run();
			result.sessions.updated++;
		}
		if (renamed && renamed !== row.name) {
			db.update(sessions).set({ name: renamed }).where(eq(sessions.id, id)).run();
			result.sessions.updated += state && (state.status !== row.status || state.endedAt !== row.endedAt) ? 0 : 1;
		}
	}
	insertRows(store, sessions, newSessions);
	for (const s of newSessions) {
		sessionRows.set(s.id, s as Session);
	}
	insertRows(store, handoffs, newHandoffs);
	if (copiedHandoffs.length > 0) {
		// Copied inside SQLite from the stored event: no body serialised, bound or journalled twice.
		store.execCaptured(copyHandoffsSql, [JSON.stringify(copiedHandoffs)]);
	}
	for (const subject of consumedSubjects) {
		if (deriveConsumption(db, subject, events.get(subject) ?? [], sessionRows, known)) {
			result.sessions.updated++;
		}
	}
	for (const id of checkpointSubjects) {
		const outcome = deriveCheckpoint(db, id, events.get(id) ?? [], known, ownMachine);
		if (outcome === 'added') {
			result.checkpoints.added++;
		} else if (outcome === 'updated') {
			result.checkpoints.updated++;
		}
	}
	// A checkpoint held here whose events (all of them, in `events`) hold no other machine's recording is this machine's.
	const isOwn = (id: string): boolean =>
		checkpointSubjects.has(id) &&
		!(events.get(id) ?? []).some((e) => e.kind === 'checkpoint.recorded' && e.machine !== ownMachine) &&
		db.select({ id: checkpoints.id }).from(checkpoints).where(eq(checkpoints.id, id)).get() !== undefined;
	result.opinions = opinionsAmong(newEvents, isOwn);
	result.records = projectRecords(db, store, newEvents, mergedAfter);
	result.unknownScopes = [...unknownScopes].sort();
	return result;
}

const handoffKeys = Object.keys(handoffData({}));
/**
 * A `handoff.written` body that has the handoff's own keys first, in their order, is its handoff row
 * as it stands: `handoffData` of it serialises to the same text as the body, and the stored body is
 * that text (JSON columns hold JSON.stringify's output), so SQLite can copy it (`copyHandoffs`).
 */
function isHandoffRow(body: Record<string, unknown>): boolean {
	const keys = Object.keys(body);
	return !Array.isArray(body) && handoffKeys.every((k, i) => keys[i] === k);
}
const copyHandoffsSql = `INSERT INTO handoffs (session_id, handoff_json, created_at) SELECT subject, body_json, at FROM shared_events WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id`;

/**
 * A session's status from its last `session.status` event (id order) that names a status this
 * version knows: one it does not know (a newer version's) changes nothing here, rather than
 * making an ended session look active.
 */
function derivedStatus(events: readonly WireEvent[]): { status: Session['status']; at: string; endedAt: string | null; endNote: string | null } | null {
	// Own keys only: a status named like an Object member (`constructor`) is none this version knows.
	const knownStatus = (e: WireEvent): boolean => e.kind === 'session.status' && Object.hasOwn(statusOf, str(e.body['status']) ?? '');
	const last = events.findLast(knownStatus);
	if (!last) {
		return null;
	}
	const status = statusOf[str(last.body['status']) as string] as Session['status'];
	const at = str(last.body['at']) ?? last.at;
	return { status, at, endedAt: status === 'ended' ? at : null, endNote: status === 'ended' ? str(last.body['reason']) : null };
}

/**
 * A handoff is consumed once: of all `handoff.consumed` events about it, the smallest id wins. The
 * chain continues through the winner; a losing session keeps the handoff it read and its briefing
 * says it lost (see shared/handoffConsumption.ts).
 */
function deriveConsumption(db: BatonDb, subject: string, events: readonly WireEvent[], rows: Map<string, Session>, known: (id: string | null) => boolean): boolean {
	const row = rows.get(subject);
	const winner = events.find((e) => e.kind === 'handoff.consumed');
	const by = winner ? str(winner.body['bySessionId']) : null;
	if (!row || !winner || !by || !known(by)) {
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

function deriveCheckpoint(db: BatonDb, id: string, events: readonly WireEvent[], known: (id: string | null) => boolean, ownMachine: string): 'added' | 'updated' | null {
	const recorded = events.find((e) => e.kind === 'checkpoint.recorded');
	// The last decision this version knows (approved or rejected) by a machine whose decisions count
	// for this checkpoint (authority.ts: for one recorded here, this machine alone); another value changes nothing.
	const counts = decisionCounts(events, ownMachine);
	const decided = events.findLast((e) => e.kind === 'checkpoint.decided' && (e.body['status'] === 'approved' || e.body['status'] === 'rejected') && counts(e));
	let outcome: 'added' | 'updated' | null = null;
	let row = db.select().from(checkpoints).where(eq(checkpoints.id, id)).get();
	if (!row && recorded && recorded.body['files'] && recorded.body['metrics']) {
		const b = recorded.body;
		const seq =
			(db
				.select({ seq: max(checkpoints.seq) })
				.from(checkpoints)
				.get()?.seq ?? 0) + 1;
		db.insert(checkpoints)
			.values({
				id,
				seq,
				sessionId: known(recorded.sessionId ?? null) ? recorded.sessionId : null,
				trigger: str(b['trigger']) ?? 'manual',
				parentCheckpointId: str(b['parentCheckpointId']),
				commitSha: str(b['commitOid']) ?? '',
				treeSha: str(b['treeOid']) ?? '',
				message: str(b['message']),
				tags: (b['tags'] as string[] | undefined) ?? [],
				annotations: (b['annotations'] as CheckpointAnnotation[] | undefined) ?? [],
				linkedIssues: [],
				fileStats: b['files'] as FileStats,
				environment: null,
				metrics: b['metrics'] as CheckpointMetrics,
				approvalStatus: oneOf(approvalStatuses, b['approvalStatus'], 'pending'),
				approvalUser: null,
				approvalAt: null,
				approvalReason: null,
				approvalPolicy: oneOf(approvalPolicies, b['approvalPolicy'], 'review'),
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

/** An imported live session's focus as its start event carries it (checked against eventBodies.ts at the merge). */
function focusOf(value: unknown): SessionFocus | null {
	if (!value || typeof value !== 'object') {
		return null;
	}
	const body = value as Record<string, unknown>;
	const focus = { note: str(body['note']), nextAction: str(body['nextAction']), blockedReason: str(body['blockedReason']) };
	return focus.note || focus.nextAction || focus.blockedReason ? focus : null;
}

function str(value: unknown): string | null {
	return typeof value === 'string' ? value : null;
}
