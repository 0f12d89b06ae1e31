/**
 * Shared events → Baton's tables, so every existing view and command shows a teammate's sessions,
 * handoffs, checkpoints and approvals. One rule: the state of a record is computed from all of its
 * events in id order, so two machines holding the same events hold the same state whatever order the
 * events arrived in. Runs inside the pull's write, right after the merge.
 */
import { retractedKind } from './retraction';
import { eq, max } from 'drizzle-orm';
import { inJsonList } from '../shared/sqlJsonList';
import { bodyText } from '../shared/eventBodies';
import { eventsBySubject } from './subjectEvents';
import type { BatonDb, JournalStore } from '../storage/journalStore';
import type { CheckpointAnnotation, CheckpointMetrics, FileStats } from '../storage/jsonShapes';
import { oneOf, projectRecords, type RecordCounts } from './recordProjection';
import { recordKinds } from './recordEvents';
import type { Session } from '../storage/model';
import type { WireEvent } from '../shared/sharedEvents';
import { approvalPolicies, approvalStatuses, checkpoints, sessions } from '../storage/schema';
import { decisionCounts, opinionsAmong, type TeammateOpinion } from './authority';
import { projectSessions, type Projection } from './projectSessions';

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

/** The kinds a session's or checkpoint's state is derived from (all `eventsBySubject` needs to read). */
const subjectKinds = [
	'session.started',
	'session.status',
	'session.renamed',
	'handoff.written',
	'handoff.consumed',
	'checkpoint.recorded',
	'checkpoint.decided',
];
const derived = new Set<string>([
	'session.started',
	'session.status',
	'session.renamed',
	'handoff.written',
	'handoff.consumed',
	'checkpoint.recorded',
	'checkpoint.decided',
	...recordKinds,
]);

/**
 * Derives the records the given (newly merged) events touch. `ownMachine` is this machine: the
 * status of a session started here stays what this machine's own lifecycle made it (it is the writer
 * of that session's status); everything else follows the events. Reads and inserts go in batches:
 * every statement is prepared anew, so a pull of thousands of events must not cost one per row.
 */
export function projectEvents(
	db: BatonDb,
	newEvents: readonly WireEvent[],
	ownMachine: string,
	store: JournalStore,
	options: ProjectionOptions = {},
): ProjectionResult {
	const { mergedAfter, copyHandoffs = true } = options;
	const subjects = subjectsOf(newEvents);
	const p = openProjection(db, newEvents, ownMachine, subjects, mergedAfter);
	const projected = projectSessions(p, store, subjects.sessions, copyHandoffs);
	let updated = projected.updated;
	for (const subject of subjects.consumed) {
		if (deriveConsumption(db, subject, p.events.get(subject) ?? [], p.sessionRows, p.known)) {
			updated++;
		}
	}
	const checkpointCounts = { added: 0, updated: 0 };
	for (const id of subjects.checkpoints) {
		const outcome = deriveCheckpoint(db, id, p.events.get(id) ?? [], p.known, ownMachine);
		if (outcome !== null) {
			checkpointCounts[outcome]++;
		}
	}
	// A checkpoint held here whose events (all of them, in `events`) hold no other machine's recording is this machine's.
	const isOwn = (id: string): boolean =>
		subjects.checkpoints.has(id) &&
		!(p.events.get(id) ?? []).some((e) => e.kind === 'checkpoint.recorded' && e.machine !== ownMachine) &&
		db.select({ id: checkpoints.id }).from(checkpoints).where(eq(checkpoints.id, id)).get() !== undefined;
	const opinions = opinionsAmong(newEvents, isOwn);
	const records = projectRecords(db, store, newEvents, mergedAfter);
	return {
		sessions: { added: projected.added, updated },
		checkpoints: checkpointCounts,
		records,
		unknownKinds: subjects.unknownKinds,
		unknownScopes: projected.unknownScopes,
		opinions,
	};
}

/** The subjects the new events touch, by what is derived from them, and the kinds this version derives nothing from (sorted). */
interface EventSubjects {
	sessions: Set<string>;
	consumed: Set<string>;
	checkpoints: Set<string>;
	unknownKinds: string[];
}

/** Sorts the new events' subjects by what is derived from them, noting the kinds this version derives nothing from. */
function subjectsOf(newEvents: readonly WireEvent[]): EventSubjects {
	const subjects = { sessions: new Set<string>(), consumed: new Set<string>(), checkpoints: new Set<string>() };
	const unknown = new Set<string>();
	for (const event of newEvents) {
		if (event.kind.startsWith('session.') || event.kind === 'handoff.written') {
			subjects.sessions.add(event.subject);
		} else if (event.kind === 'handoff.consumed') {
			subjects.consumed.add(event.subject);
		} else if (event.kind === 'checkpoint.recorded' || event.kind === 'checkpoint.decided') {
			subjects.checkpoints.add(event.subject);
		}
		if (!derived.has(event.kind) && !event.kind.startsWith('timeline.') && !event.kind.startsWith('provenance.') && event.kind !== retractedKind) {
			unknown.add(event.kind);
		}
	}
	return { ...subjects, unknownKinds: [...unknown].sort() };
}

/** Reads, once, every event of the touched subjects (held and new) and the touched sessions' rows. */
function openProjection(
	db: BatonDb,
	newEvents: readonly WireEvent[],
	ownMachine: string,
	subjects: EventSubjects,
	mergedAfter: number | undefined,
): Projection {
	const events = eventsBySubject(
		db,
		[...new Set([...subjects.sessions, ...subjects.consumed, ...subjects.checkpoints])],
		subjectKinds,
		newEvents,
		mergedAfter,
	);
	const sessionRows: Map<string, Session> = new Map(
		db
			.select()
			.from(sessions)
			.where(inJsonList(sessions.id, [...new Set([...subjects.sessions, ...subjects.consumed])]))
			.all()
			.map((r) => [r.id, r]),
	);
	const known = (id: string | null): boolean =>
		id !== null && (sessionRows.has(id) || db.select({ id: sessions.id }).from(sessions).where(eq(sessions.id, id)).get() !== undefined);
	return { db, ownMachine, events, sessionRows, known };
}

/**
 * A handoff is consumed once: of all `handoff.consumed` events about it, the smallest id wins. The
 * chain continues through the winner; a losing session keeps the handoff it read and its briefing
 * says it lost (see shared/handoffConsumption.ts).
 */
function deriveConsumption(
	db: BatonDb,
	subject: string,
	events: readonly WireEvent[],
	rows: Map<string, Session>,
	known: (id: string | null) => boolean,
): boolean {
	const row = rows.get(subject);
	const winner = events.find((e) => e.kind === 'handoff.consumed');
	const by = winner ? bodyText(winner.body['bySessionId']) : null;
	if (!row || !winner || !by || !known(by)) {
		return false;
	}
	if (row.nextSessionId === by && row.handoffConsumedBy === by) {
		return false;
	}
	db.update(sessions)
		.set({ nextSessionId: by, handoffConsumedBy: by, handoffConsumedAt: bodyText(winner.body['at']) ?? winner.at })
		.where(eq(sessions.id, subject))
		.run();
	// A session projected before its predecessor arrived gets its link now.
	db.update(sessions).set({ previousSessionId: subject }).where(eq(sessions.id, by)).run();
	return true;
}

function deriveCheckpoint(
	db: BatonDb,
	id: string,
	events: readonly WireEvent[],
	known: (id: string | null) => boolean,
	ownMachine: string,
): 'added' | 'updated' | null {
	const recorded = events.find((e) => e.kind === 'checkpoint.recorded');
	// The last decision this version knows (approved or rejected) by a machine whose decisions count
	// for this checkpoint (authority.ts: for one recorded here, this machine alone); another value changes nothing.
	const counts = decisionCounts(events, ownMachine);
	const decided = events.findLast(
		(e) => e.kind === 'checkpoint.decided' && (e.body['status'] === 'approved' || e.body['status'] === 'rejected') && counts(e),
	);
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
				trigger: bodyText(b['trigger']) ?? 'manual',
				parentCheckpointId: bodyText(b['parentCheckpointId']),
				commitSha: bodyText(b['commitOid']) ?? '',
				treeSha: bodyText(b['treeOid']) ?? '',
				message: bodyText(b['message']),
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
				createdAt: bodyText(b['createdAt']) ?? recorded.at,
			})
			.run();
		outcome = 'added';
		row = db.select().from(checkpoints).where(eq(checkpoints.id, id)).get();
	}
	if (row && decided) {
		const status = decided.body['status'] === 'approved' ? 'approved' : 'rejected';
		const user = bodyText(decided.body['by']) ?? decided.actor;
		if (row.approvalStatus !== status || row.approvalUser !== user) {
			db.update(checkpoints)
				.set({
					approvalStatus: status,
					approvalUser: user,
					approvalAt: bodyText(decided.body['at']) ?? decided.at,
					approvalReason: bodyText(decided.body['note']),
				})
				.where(eq(checkpoints.id, id))
				.run();
			outcome ??= 'updated';
		}
	}
	return outcome;
}
