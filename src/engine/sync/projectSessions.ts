/**
 * Sessions and their handoffs from shared events (projection.ts's first step): a teammate's session
 * is added from its start event or brought up to its last status and name; a handoff missing here is
 * added once, copied inside SQLite where the event's body is the row as it stands.
 */
import { eq } from 'drizzle-orm';
import type { BatonDb, JournalStore } from '../storage/journalStore';
import { insertRows } from './rawInsert';
import type { HandoffData, SessionFocus, SessionScope } from '../storage/jsonShapes';
import { handoffData, sessionRow } from '../interop/sessionRows';
import { inJsonList } from '../shared/sqlJsonList';
import { knownScopeType, bodyText } from '../shared/eventBodies';
import type { Session } from '../storage/model';
import type { WireEvent } from '../shared/sharedEvents';
import { handoffs, sessions } from '../storage/schema';

/** A `session.status` event's status → the session's. Imported sessions travel with their legacy states (archived, closed). */
const statusOf: Record<string, Session['status']> = {
	resumed: 'active',
	active: 'active',
	suspended: 'suspended',
	ended: 'ended',
	orphaned: 'orphaned',
	archived: 'archived',
	closed: 'closed',
};

/** What every step of a projection reads: all events of the touched subjects, and the touched sessions' rows. */
export interface Projection {
	db: BatonDb;
	ownMachine: string;
	events: Map<string, WireEvent[]>;
	sessionRows: Map<string, Session>;
	/** Whether a session is held here (its row read above, or asked of the table). */
	known: (id: string | null) => boolean;
}

/** The rows a pass over the started sessions adds, written together at its end. */
interface SessionBatch {
	newSessions: (typeof sessions.$inferInsert)[];
	// Checked before the table: in a pulled chain the predecessor usually arrives in the same pull, and
	// asking the table first cost one query per session (a scan of the new rows after it, too).
	newIds: Set<string>;
	newHandoffs: (typeof handoffs.$inferInsert)[];
	/** Ids of `handoff.written` events copied into rows inside SQLite. */
	copiedHandoffs: string[];
	/** Handoff rows held or added: one per session. */
	handoffIds: Set<string>;
	updated: number;
	unknownScopes: Set<string>;
}

/** Sessions and their handoffs from their events, in start-event id order (a predecessor before its successor). */
export function projectSessions(
	p: Projection,
	store: JournalStore,
	sessionSubjects: Set<string>,
	copyHandoffs: boolean,
): { added: number; updated: number; unknownScopes: string[] } {
	const handoffIds = new Set(
		p.db
			.select({ id: handoffs.sessionId })
			.from(handoffs)
			.where(inJsonList(handoffs.sessionId, [...sessionSubjects]))
			.all()
			.map((r) => r.id),
	);
	const batch: SessionBatch = { newSessions: [], newIds: new Set(), newHandoffs: [], copiedHandoffs: [], handoffIds, updated: 0, unknownScopes: new Set() };
	const starts = [...sessionSubjects]
		.map((id) => (p.events.get(id) ?? []).find((e) => e.kind === 'session.started'))
		.filter((e): e is WireEvent => e !== undefined);
	starts.sort((a, b) => (a.id < b.id ? -1 : 1));
	for (const start of starts) {
		const own = p.events.get(start.subject) ?? [];
		takeHandoff(p, batch, start, own, copyHandoffs);
		if (start.machine !== p.ownMachine) {
			projectSession(p, batch, start, own);
		}
	}
	writeSessionBatch(p, store, batch);
	return { added: batch.newSessions.length, updated: batch.updated, unknownScopes: [...batch.unknownScopes].sort() };
}

/** A session's handoff, when its row is missing here and the session is a teammate's (or already held): copied in SQLite or built here. */
function takeHandoff(p: Projection, batch: SessionBatch, start: WireEvent, own: readonly WireEvent[], copyHandoffs: boolean): void {
	const id = start.subject;
	const handoff = own.find((e) => e.kind === 'handoff.written');
	if (handoff && !batch.handoffIds.has(id) && (p.sessionRows.has(id) || start.machine !== p.ownMachine)) {
		if (copyHandoffs && isHandoffRow(handoff.body)) {
			batch.copiedHandoffs.push(handoff.id);
		} else {
			batch.newHandoffs.push({ sessionId: id, data: handoffData(handoff.body as Partial<HandoffData>), createdAt: handoff.at });
		}
		batch.handoffIds.add(id);
	}
}

/** A teammate's session: a new row from its start event, or its held row brought up to its status and name. */
function projectSession(p: Projection, batch: SessionBatch, start: WireEvent, own: readonly WireEvent[]): void {
	const id = start.subject;
	const state = derivedStatus(own);
	// Its last rename (id order), whichever machine's: the session's own machine refuses a teammate's rename, so it is that machine's.
	const renamed = bodyText(own.findLast((e) => e.kind === 'session.renamed' && (bodyText(e.body['name']) ?? '') !== '')?.body['name']);
	const row = p.sessionRows.get(id);
	if (!row) {
		batch.newSessions.push(newSessionRow(p, batch, start, state, renamed));
		batch.newIds.add(id);
		return;
	}
	const statusChanged = state !== null && (state.status !== row.status || state.endedAt !== row.endedAt);
	if (state && statusChanged) {
		p.db
			.update(sessions)
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
		batch.updated++;
	}
	if (renamed && renamed !== row.name) {
		p.db.update(sessions).set({ name: renamed }).where(eq(sessions.id, id)).run();
		batch.updated += statusChanged ? 0 : 1;
	}
}

/** The row of a teammate's session not held here; a predecessor or parent not held (nor in this batch) is left out. */
function newSessionRow(
	p: Projection,
	batch: SessionBatch,
	start: WireEvent,
	state: DerivedStatus | null,
	renamed: string | null,
): typeof sessions.$inferInsert {
	const id = start.subject;
	const body = start.body;
	const at = bodyText(body['startedAt']) ?? start.at;
	const previous = bodyText(body['previousId']);
	const parent = bodyText(body['parentId']);
	const scope = (body['scope'] ?? { type: 'global' }) as SessionScope;
	if (!knownScopeType(scope.type)) {
		batch.unknownScopes.add(scope.type);
	}
	return sessionRow({
		id,
		name: renamed ?? bodyText(body['name']) ?? id,
		status: state?.status ?? 'active',
		scope,
		agent: bodyText(body['agent']),
		previousSessionId: previous && (batch.newIds.has(previous) || p.known(previous)) ? previous : null,
		parentSessionId: parent && (batch.newIds.has(parent) || p.known(parent)) ? parent : null,
		endNote: state?.endNote ?? null,
		focus: focusOf(body['focus']),
		startedAt: at,
		lastActivity: state && state.at > at ? state.at : at,
		suspendedAt: state?.status === 'suspended' ? state.at : null,
		endedAt: state?.endedAt ?? null,
	});
}

/** Inserts the batch's sessions (which later steps then see as held) and handoffs. */
function writeSessionBatch(p: Projection, store: JournalStore, batch: SessionBatch): void {
	insertRows(store, sessions, batch.newSessions);
	for (const s of batch.newSessions) {
		p.sessionRows.set(s.id, s as Session);
	}
	insertRows(store, handoffs, batch.newHandoffs);
	if (batch.copiedHandoffs.length > 0) {
		// Copied inside SQLite from the stored event: no body serialised, bound or journalled twice.
		store.execCaptured(copyHandoffsSql, [JSON.stringify(batch.copiedHandoffs)]);
	}
}

const handoffKeys = Object.keys(handoffData({}));
/**
 * A `handoff.written` body that has the handoff's own keys first, in their order, is its handoff row
 * as it stands, so SQLite can copy the stored body (`copyHandoffs`). That text is the JSON of the
 * handoff but not always JSON.stringify's: a pulled event keeps its line's own body text (wireLines.ts),
 * spacing and escapes included. Every reader of handoff_json parses it (JavaScript, where a repeated
 * key's last value wins); nothing reads it with SQLite's json functions, which would take the first.
 */
function isHandoffRow(body: Record<string, unknown>): boolean {
	const keys = Object.keys(body);
	return !Array.isArray(body) && handoffKeys.every((k, i) => keys[i] === k);
}
const copyHandoffsSql = `INSERT INTO handoffs (session_id, handoff_json, created_at) SELECT subject, body_json, at FROM shared_events WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id`;

interface DerivedStatus {
	status: Session['status'];
	at: string;
	endedAt: string | null;
	endNote: string | null;
}

/**
 * A session's status from its last `session.status` event (id order) that names a status this
 * version knows: one it does not know (a newer version's) changes nothing here, rather than
 * making an ended session look active.
 */
function derivedStatus(events: readonly WireEvent[]): DerivedStatus | null {
	// Own keys only: a status named like an Object member (`constructor`) is none this version knows.
	const knownStatus = (e: WireEvent): boolean => e.kind === 'session.status' && Object.hasOwn(statusOf, bodyText(e.body['status']) ?? '');
	const last = events.findLast(knownStatus);
	if (!last) {
		return null;
	}
	const status = statusOf[bodyText(last.body['status']) as string] as Session['status'];
	const at = bodyText(last.body['at']) ?? last.at;
	return { status, at, endedAt: status === 'ended' ? at : null, endNote: status === 'ended' ? bodyText(last.body['reason']) : null };
}

/** An imported live session's focus as its start event carries it (checked against eventBodies.ts at the merge). */
function focusOf(value: unknown): SessionFocus | null {
	if (!value || typeof value !== 'object') {
		return null;
	}
	const body = value as Record<string, unknown>;
	const focus = { note: bodyText(body['note']), nextAction: bodyText(body['nextAction']), blockedReason: bodyText(body['blockedReason']) };
	return focus.note || focus.nextAction || focus.blockedReason ? focus : null;
}
