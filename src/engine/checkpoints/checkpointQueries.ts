/**
 * Read-side helpers over the checkpoint tables, usable inside read() and write() callbacks.
 */
import { and, desc, eq, max, type SQL } from 'drizzle-orm';
import { BatonError } from '../errors';
import type { BatonDb } from '../storage/journalStore';
import type { ApprovalStatus, Checkpoint, CheckpointSessionSettings, Rollback } from '../storage/model';
import { checkpoints, checkpointSessionSettings, rollbacks, settings } from '../storage/schema';
import { pushAll } from '../arrays';

/** The settings key of the workspace's current checkpoint: the next one's parent. */
const headSettingKey = 'checkpoints.head';

export function getCheckpoint(db: BatonDb, id: string): Checkpoint {
	const row = db.select().from(checkpoints).where(eq(checkpoints.id, id)).get();
	if (!row) {
		throw new BatonError('notFound', `checkpoint ${id} does not exist`);
	}
	return row;
}

export function listCheckpoints(db: BatonDb, filter: { sessionId?: string; status?: ApprovalStatus; limit?: number } = {}): Checkpoint[] {
	const conditions: SQL[] = [];
	if (filter.sessionId) {
		conditions.push(eq(checkpoints.sessionId, filter.sessionId));
	}
	if (filter.status) {
		conditions.push(eq(checkpoints.approvalStatus, filter.status));
	}
	const query = db
		.select()
		.from(checkpoints)
		// eslint-disable-next-line no-restricted-syntax -- one condition per filter option above (two)
		.where(conditions.length ? and(...conditions) : undefined)
		.orderBy(desc(checkpoints.seq));
	return filter.limit ? query.limit(filter.limit).all() : query.all();
}

export function nextCheckpointSeq(db: BatonDb): number {
	return (
		(db
			.select({ value: max(checkpoints.seq) })
			.from(checkpoints)
			.get()?.value ?? 0) + 1
	);
}

/** The workspace's current checkpoint (the latest one, or the target of the last rollback). */
export function headCheckpoint(db: BatonDb): Checkpoint | null {
	const row = db.select().from(settings).where(eq(settings.key, headSettingKey)).get();
	const id = typeof row?.value === 'string' ? row.value : null;
	return id ? (db.select().from(checkpoints).where(eq(checkpoints.id, id)).get() ?? null) : null;
}

export function setHeadCheckpoint(db: BatonDb, id: string, now: string): void {
	db.insert(settings)
		.values({ key: headSettingKey, value: id, updatedAt: now })
		.onConflictDoUpdate({ target: settings.key, set: { value: id, updatedAt: now } })
		.run();
}

export function sessionSettingsOf(db: BatonDb, sessionId: string): CheckpointSessionSettings | undefined {
	return db.select().from(checkpointSessionSettings).where(eq(checkpointSessionSettings.sessionId, sessionId)).get();
}

export function listRollbacks(db: BatonDb, limit = 50): Rollback[] {
	return db.select().from(rollbacks).orderBy(desc(rollbacks.createdAt), desc(rollbacks.id)).limit(limit).all();
}

/**
 * Checkpoints that descend from `ancestorId` in the provenance DAG (children, their children, …),
 * newest first.
 */
export function descendantsOf(db: BatonDb, ancestorId: string): Checkpoint[] {
	const all = db.select().from(checkpoints).orderBy(desc(checkpoints.seq)).all();
	const children = new Map<string, Checkpoint[]>();
	for (const cp of all) {
		if (cp.parentCheckpointId) {
			const list = children.get(cp.parentCheckpointId) ?? [];
			list.push(cp);
			children.set(cp.parentCheckpointId, list);
		}
	}
	const out: Checkpoint[] = [];
	const seen = new Set<string>([ancestorId]);
	const queue = [...(children.get(ancestorId) ?? [])];
	while (queue.length) {
		const cp = queue.shift() as Checkpoint;
		if (seen.has(cp.id)) continue;
		seen.add(cp.id);
		out.push(cp);
		pushAll(queue, [...(children.get(cp.id) ?? [])]);
	}
	return out.sort((a, b) => b.seq - a.seq);
}

/**
 * Where a rejection offers to go back: the last checkpoint before `cp` that a person or the policy
 * approved (auto-approved counts: a state the policy vouched for), the session's own first, else the
 * workspace's (a rollback restores the whole workspace). Every channel asks this one rule: the
 * backend's notice, the editor's offer (`checkpoint/rollbackTarget`).
 */
export function lastApprovedBefore(db: BatonDb, cp: Checkpoint): Checkpoint | undefined {
	// A rollback's safety checkpoint is auto-approved only so it never asks; it holds the state being left, not a good one.
	const good = (c: Checkpoint): boolean =>
		c.seq < cp.seq && c.trigger !== 'pre-rollback' && (c.approvalStatus === 'approved' || c.approvalStatus === 'auto_approved');
	return (
		(cp.sessionId ? listCheckpoints(db, { sessionId: cp.sessionId, limit: 1000 }).find(good) : undefined) ?? listCheckpoints(db, { limit: 1000 }).find(good)
	);
}
