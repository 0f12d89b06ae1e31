import type { BatonDb } from './storage/journalStore';
import { auditLog } from './storage/schema';

interface AuditEntryInput {
	at: string;
	actor: string;
	operation: string;
	sessionId?: string | null;
	entityType?: string;
	entityId?: string;
	details?: Record<string, unknown>;
}

/** Called inside every write transaction: who did what, in which session. */
export function audit(db: BatonDb, entry: AuditEntryInput): void {
	db.insert(auditLog)
		.values({
			at: entry.at,
			actor: entry.actor,
			operation: entry.operation,
			sessionId: entry.sessionId ?? null,
			entityType: entry.entityType ?? null,
			entityId: entry.entityId ?? null,
			details: entry.details ?? null,
		})
		.run();
}
