/**
 * Local changes → shared events. A DomainEvents subscriber: it runs inside the write that made the
 * change, so the shared event commits with it or not at all (the record a teammate will pull can
 * never disagree with the local tables). Only what a teammate needs travels: no environment snapshot,
 * no transcript, no absolute path (see docs/sync.md for what is and is not shared).
 */
import type { EngineContext } from '../context';
import type { DomainEvent } from '../events';
import type { BatonDb } from '../storage/journalStore';
import type { Checkpoint, Session } from '../storage/model';
import { eventTime } from '../shared/eventId';
import { machineIdentity, type MachineIdentity } from '../shared/machineIdentity';
import { appendSharedEvents, type NewSharedEvent } from '../shared/sharedEvents';
import { getSession } from '../sessions/sessionQueries';

/** Registers the subscriber; returns the unsubscribe function. */
export function recordSharedEvents(ctx: EngineContext): () => void {
	const write = ownEventWriter(ctx);
	return ctx.events.on((event, db) => {
		const rows = sharedEventsFor(event, db);
		if (rows.length > 0) {
			write(db, rows);
		}
	});
}

/**
 * Appends this machine's events inside the caller's write, with ids that only ever go up: two events
 * of one change written in the same millisecond must still sort in the order they happened. One
 * lookup per write, not per event (sharedEvents.ts `appendSharedEvents`): this machine's last id is
 * the store's greatest within a day of now, and the batch keeps it in memory from there. An id further
 * ahead is never followed, whoever it names: one merged by an older version (a remote's broken clock,
 * or a forged id with this machine's suffix past the ULID range) would otherwise carry every later id
 * of this machine with it, or fail every write.
 */
export function ownEventWriter(ctx: EngineContext): (db: BatonDb, rows: readonly NewSharedEvent[]) => void {
	let machine: MachineIdentity | undefined;
	let lastMs = 0;
	return (db, rows) => {
		machine ??= machineIdentity(ctx.workspaceRoot);
		const timed = rows.map((event) => ({ nowMs: Math.max(ctx.clock.now(), lastMs + 1), event }));
		const written = appendSharedEvents(db, machine, timed, { ownOrder: true });
		const last = written[written.length - 1];
		if (last) {
			lastMs = Math.max(lastMs, eventTime(last.id));
		}
	};
}

function sharedEventsFor(event: DomainEvent, db: BatonDb): NewSharedEvent[] {
	switch (event.type) {
		case 'session.started':
			return sessionStarted(event.session, event.actor, db);
		case 'session.ended':
			return [
				{ kind: 'handoff.written', subject: event.session.id, sessionId: event.session.id, actor: event.actor, body: { ...event.handoff } },
				statusEvent(event.session, 'ended', event.actor, event.session.endNote),
			];
		case 'session.suspended':
			return [statusEvent(event.session, 'suspended', event.actor, null)];
		case 'session.resumed':
			return [statusEvent(event.session, 'resumed', event.actor, null)];
		case 'session.renamed':
			return [
				{
					kind: 'session.renamed',
					subject: event.session.id,
					sessionId: event.session.id,
					actor: event.actor,
					body: { name: event.session.name, at: event.session.updatedAt },
				},
			];
		case 'checkpoint.created':
			return [checkpointRecorded(event.checkpoint, event.actor)];
		case 'checkpoint.decided':
			return [
				{
					kind: 'checkpoint.decided',
					subject: event.checkpoint.id,
					sessionId: event.checkpoint.sessionId,
					actor: event.actor,
					body: { status: event.status, note: event.checkpoint.approvalReason, by: event.checkpoint.approvalUser, at: event.checkpoint.approvalAt },
				},
			];
		default:
			return [];
	}
}

function sessionStarted(session: Session, actor: string, db: BatonDb): NewSharedEvent[] {
	const started: NewSharedEvent = {
		kind: 'session.started',
		subject: session.id,
		sessionId: session.id,
		actor,
		body: {
			name: session.name,
			parentId: session.parentSessionId,
			previousId: session.previousSessionId,
			scope: session.scope,
			scopeKey: session.scopeKey,
			agent: session.agent,
			model: null,
			currentTask: session.currentTask,
			startedAt: session.startedAt,
		},
	};
	const out = [started];
	if (session.previousSessionId) {
		const predecessor = getSession(db, session.previousSessionId);
		if (predecessor.handoffConsumedBy === session.id) {
			out.push({
				kind: 'handoff.consumed',
				subject: predecessor.id,
				sessionId: predecessor.id,
				actor,
				body: { bySessionId: session.id, at: predecessor.handoffConsumedAt },
			});
		}
	}
	return out;
}

function statusEvent(session: Session, status: string, actor: string, reason: string | null): NewSharedEvent {
	return { kind: 'session.status', subject: session.id, sessionId: session.id, actor, body: { status, reason, at: session.updatedAt } };
}

function checkpointRecorded(cp: Checkpoint, actor: string): NewSharedEvent {
	return {
		kind: 'checkpoint.recorded',
		subject: cp.id,
		sessionId: cp.sessionId,
		actor,
		body: {
			treeOid: cp.treeSha,
			commitOid: cp.commitSha,
			parentCheckpointId: cp.parentCheckpointId,
			trigger: cp.trigger,
			message: cp.message,
			tags: cp.tags,
			annotations: cp.annotations,
			files: cp.fileStats,
			metrics: cp.metrics,
			approvalStatus: cp.approvalStatus,
			approvalPolicy: cp.approvalPolicy,
			escalationReasons: cp.escalationReasons,
			createdAt: cp.createdAt,
		},
	};
}
