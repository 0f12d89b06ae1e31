/**
 * Baton rows built from foreign records: every column filled, nothing computed from the clock (an
 * import of the same file always yields the same rows).
 */
import { createHash } from 'node:crypto';
import { emptyStats, type HandoffData, type SessionScope, type SessionStats } from '../storage/jsonShapes';
import type { Session } from '../storage/model';
import { scopeKey } from '../sessions/scope';

type SessionFields = Pick<Session, 'id' | 'name' | 'status' | 'startedAt'> & Partial<Omit<Session, 'scopeKey' | 'stats'>> & { stats?: Partial<SessionStats> };

/** A complete session row: links, consumption stamps and debrief default to null, activity to the latest stamp given. */
export function sessionRow(fields: SessionFields): Session {
	const scope: SessionScope = fields.scope ?? { type: 'global' };
	const lastActivity = fields.lastActivity ?? fields.endedAt ?? fields.suspendedAt ?? fields.startedAt;
	const stats = { ...emptyStats(), ...fields.stats };
	return {
		id: fields.id,
		name: fields.name,
		status: fields.status,
		scope,
		scopeKey: scopeKey(scope),
		currentTask: fields.currentTask ?? null,
		taskStartedAt: fields.taskStartedAt ?? null,
		agent: fields.agent ?? null,
		agentIdentifier: fields.agentIdentifier ?? null,
		previousSessionId: fields.previousSessionId ?? null,
		nextSessionId: fields.nextSessionId ?? null,
		parentSessionId: fields.parentSessionId ?? null,
		handoffConsumedAt: fields.handoffConsumedAt ?? null,
		handoffConsumedBy: fields.handoffConsumedBy ?? null,
		debrief: fields.debrief ?? null,
		focus: fields.focus ?? null,
		stats,
		resumeCount: fields.resumeCount ?? stats.resumeCount,
		endNote: fields.endNote ?? null,
		startedAt: fields.startedAt,
		lastActivity,
		suspendedAt: fields.suspendedAt ?? null,
		endedAt: fields.endedAt ?? null,
		archivedAt: fields.archivedAt ?? null,
		updatedAt: fields.updatedAt ?? lastActivity,
	};
}

export function handoffData(fields: Partial<HandoffData>): HandoffData {
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
		...fields,
	};
}

/** A Baton session id for a record that had none: from its start time and a hash of its identity, so it is stable. */
export function derivedSessionId(startedAtIso: string, identity: string): string {
	// The digits as written (ids made before stay the same); a time that gives no 14 digits or does not read as
	// one (an agent's or a tool's file can say anything) never reaches the id, which names a folder: the epoch's stamp then.
	const written = startedAtIso.replace(/[-:T]/g, '').slice(0, 14);
	const stamp = /^\d{14}$/.test(written) && Number.isFinite(Date.parse(startedAtIso)) ? written : '19700101000000';
	return `ses_${stamp}_${createHash('sha256').update(identity).digest('hex').slice(0, 6)}`;
}
