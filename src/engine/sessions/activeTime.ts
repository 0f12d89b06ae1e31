/**
 * How long a session has been worked on: the sum of its active intervals, read from the audit log
 * its lifecycle writes (start, resume and switch open an interval; suspend, switch away, end,
 * cleanup and orphaning close one). Time suspended does not count, nor time before Baton saw the
 * session: an imported session with no lifecycle events opens its first interval at its first
 * audited event, so a session started months ago elsewhere is not "running" for months.
 */
import { and, asc, eq, inArray, or } from 'drizzle-orm';
import type { BatonDb } from '../storage/journalStore';
import type { Session } from '../storage/model';
import { auditLog } from '../storage/schema';

const opens = ['session.start', 'session.resume'];
const closes = ['session.suspend', 'session.end', 'session.cleanup', 'session.orphan'];
const lifecycle = [...opens, ...closes, 'session.switch'];

export function activeTimeMs(db: BatonDb, session: Pick<Session, 'id' | 'status'>, nowMs: number): number {
	const rows = db
		.select({ at: auditLog.at, operation: auditLog.operation, sessionId: auditLog.sessionId, details: auditLog.details })
		.from(auditLog)
		// A switch is audited under the session switched to; the one left names itself in `from`.
		.where(or(and(eq(auditLog.sessionId, session.id), inArray(auditLog.operation, lifecycle)), eq(auditLog.operation, 'session.switch')))
		.orderBy(asc(auditLog.id))
		.all();
	let total = 0;
	let openedAt: number | null = null;
	let sawLifecycle = false;
	for (const row of rows) {
		const at = Date.parse(row.at);
		if (!Number.isFinite(at)) {
			continue;
		}
		const opening = row.sessionId === session.id && (opens.includes(row.operation) || row.operation === 'session.switch');
		const closing =
			row.operation === 'session.switch' ? row.details?.['from'] === session.id : row.sessionId === session.id && closes.includes(row.operation);
		if (opening || closing) {
			sawLifecycle = true;
		}
		if (opening && openedAt === null) {
			openedAt = at;
		} else if (closing && openedAt !== null) {
			total += Math.max(0, at - openedAt);
			openedAt = null;
		}
	}
	if (!sawLifecycle && session.status === 'active') {
		// Imported, or older than the audit: active since the first thing Baton recorded of it.
		openedAt = firstAuditedAt(db, session.id);
	}
	if (openedAt !== null && session.status === 'active') {
		total += Math.max(0, nowMs - openedAt);
	}
	return total;
}

function firstAuditedAt(db: BatonDb, sessionId: string): number | null {
	const first = db.select({ at: auditLog.at }).from(auditLog).where(eq(auditLog.sessionId, sessionId)).orderBy(asc(auditLog.id)).limit(1).get();
	const at = first ? Date.parse(first.at) : NaN;
	return Number.isFinite(at) ? at : null;
}
