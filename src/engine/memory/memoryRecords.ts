/**
 * Project memory's rows, usable inside any write (the service's own, or a domain-event subscriber's:
 * facts extracted at a session's end commit with the end). Every change is audited.
 *
 * Recording a fact whose normalised text (memoryFingerprint.ts) is already known for that kind does
 * not add a row: it confirms the one there (confirmations + 1, lastConfirmedAt now, stale mark
 * cleared, files merged). Two exceptions keep the count honest and a person's word final:
 * - a retired fact is brought back only by a manual record; automatic extraction leaves it retired;
 * - automatic extraction lets a session vouch for a fact once: a session that ends, resumes and
 *   ends again (its handoff is write-once, so it carries the same blockers) confirms nothing twice,
 *   and never its own facts. The audit log says which session recorded or confirmed what.
 */
import { and, eq, inArray, type SQL } from 'drizzle-orm';
import { audit } from '../audit';
import type { EngineContext } from '../context';
import { BatonError } from '../errors';
import { newMemoryId } from '../ids';
import { getSession } from '../sessions/sessionQueries';
import type { BatonDb } from '../storage/journalStore';
import type { MemoryEntry, MemoryKind } from '../storage/model';
import { auditLog, memoryEntries, memoryKinds } from '../storage/schema';
import { maxFactFiles, normaliseFactFiles } from './factFiles';
import { memoryFingerprint } from './memoryFingerprint';

const memorySources = ['manual', 'decision', 'handoff', 'transcript', 'import'] as const;
type MemorySource = (typeof memorySources)[number];

export const maxFactLength = 2_000;

export interface RecordFactInput {
	kind: MemoryKind;
	text: string;
	files?: readonly string[];
	sourceSessionId?: string | null;
	source?: MemorySource;
	actor: string;
}

export interface RecordFactResult {
	entry: MemoryEntry;
	/** True when the fact was known already (the entry was confirmed, not created). */
	duplicate: boolean;
}

export interface MemoryFilter {
	kind?: MemoryKind;
	/** Only stale facts (true) or only fresh ones (false). */
	stale?: boolean;
	/** Facts that came from this session. */
	sessionId?: string;
	includeRetired?: boolean;
}

export function recordFact(ctx: EngineContext, db: BatonDb, input: RecordFactInput): RecordFactResult {
	const source = input.source ?? 'manual';
	if (!(memoryKinds as readonly string[]).includes(input.kind)) {
		throw new BatonError('invalidInput', `memory kind must be one of ${memoryKinds.join(', ')} (got "${input.kind}")`);
	}
	if (!(memorySources as readonly string[]).includes(source)) {
		throw new BatonError('invalidInput', `memory source must be one of ${memorySources.join(', ')} (got "${source}")`);
	}
	const text = input.text.replace(/\s+/g, ' ').trim();
	if (!text || text.length > maxFactLength) {
		throw new BatonError('invalidInput', `memory text: 1 to ${maxFactLength.toLocaleString('en-US')} characters (got ${text.length})`);
	}
	const fingerprint = memoryFingerprint(text);
	if (!fingerprint) {
		throw new BatonError('invalidInput', `memory text: "${text}" has no words, only punctuation`);
	}
	const files = normaliseFactFiles(input.files ?? [], ctx.workspaceRoot);
	const sessionId = input.sourceSessionId ?? null;
	if (sessionId) {
		getSession(db, sessionId);
	}
	const now = ctx.nowIso();
	const existing = db
		.select()
		.from(memoryEntries)
		.where(and(eq(memoryEntries.kind, input.kind), eq(memoryEntries.fingerprint, fingerprint)))
		.get();
	if (existing) {
		const automatic = source !== 'manual';
		if (automatic && (existing.retiredAt || (sessionId && vouchedBy(db, existing.id, sessionId)))) {
			return { entry: existing, duplicate: true };
		}
		const merged = [...existing.files, ...files.filter((f) => !existing.files.includes(f))].slice(0, maxFactFiles);
		db.update(memoryEntries)
			.set({ confirmations: existing.confirmations + 1, lastConfirmedAt: now, staleSince: null, staleReason: null, files: merged, retiredAt: null })
			.where(eq(memoryEntries.id, existing.id))
			.run();
		audit(db, {
			at: now,
			actor: input.actor,
			operation: 'memory.confirm',
			sessionId,
			entityType: 'memory',
			entityId: existing.id,
			details: { via: 'record', source, revived: existing.retiredAt !== null },
		});
		return { entry: getFact(db, existing.id), duplicate: true };
	}
	const id = newMemoryId(ctx.clock.now());
	db.insert(memoryEntries)
		.values({
			id,
			kind: input.kind,
			text,
			fingerprint,
			sourceSessionId: sessionId,
			source,
			files,
			confirmations: 1,
			createdAt: now,
			lastConfirmedAt: now,
			staleSince: null,
			staleReason: null,
			retiredAt: null,
		})
		.run();
	audit(db, {
		at: now,
		actor: input.actor,
		operation: 'memory.record',
		sessionId,
		entityType: 'memory',
		entityId: id,
		details: { kind: input.kind, source, files: files.length },
	});
	return { entry: getFact(db, id), duplicate: false };
}

/** Whether a session recorded or confirmed the fact already. */
function vouchedBy(db: BatonDb, id: string, sessionId: string): boolean {
	return (
		db
			.select({ id: auditLog.id })
			.from(auditLog)
			.where(
				and(
					eq(auditLog.sessionId, sessionId),
					eq(auditLog.entityType, 'memory'),
					eq(auditLog.entityId, id),
					inArray(auditLog.operation, ['memory.record', 'memory.confirm']),
				),
			)
			.get() !== undefined
	);
}

export function getFact(db: BatonDb, id: string): MemoryEntry {
	const row = db.select().from(memoryEntries).where(eq(memoryEntries.id, id)).get();
	if (!row) {
		throw new BatonError('notFound', `memory entry ${id} does not exist`);
	}
	return row;
}

/** Someone vouches for the fact again: it counts once more and is fresh again. */
export function confirmFact(ctx: EngineContext, db: BatonDb, id: string, actor: string): MemoryEntry {
	const entry = getFact(db, id);
	if (entry.retiredAt) {
		throw new BatonError('invalidInput', `memory entry ${id} was retired at ${entry.retiredAt}; record it again (\`baton memory add\`) to bring it back`);
	}
	const now = ctx.nowIso();
	db.update(memoryEntries)
		.set({ confirmations: entry.confirmations + 1, lastConfirmedAt: now, staleSince: null, staleReason: null })
		.where(eq(memoryEntries.id, id))
		.run();
	audit(db, {
		at: now,
		actor,
		operation: 'memory.confirm',
		sessionId: null,
		entityType: 'memory',
		entityId: id,
		details: { via: 'confirm', wasStale: entry.staleReason },
	});
	return getFact(db, id);
}

/** The fact no longer holds: it stays in the table (and in `--all` lists) but never reaches a briefing. Idempotent. */
export function retireFact(ctx: EngineContext, db: BatonDb, id: string, actor: string): MemoryEntry {
	const entry = getFact(db, id);
	if (entry.retiredAt) {
		return entry;
	}
	const now = ctx.nowIso();
	db.update(memoryEntries).set({ retiredAt: now }).where(eq(memoryEntries.id, id)).run();
	audit(db, { at: now, actor, operation: 'memory.retire', sessionId: null, entityType: 'memory', entityId: id, details: { kind: entry.kind } });
	return getFact(db, id);
}

/** Facts matching the filter, best first (compareFacts). */
export function listFacts(db: BatonDb, filter: MemoryFilter = {}): MemoryEntry[] {
	const conditions: SQL[] = [];
	if (filter.kind) {
		conditions.push(eq(memoryEntries.kind, filter.kind));
	}
	if (filter.sessionId) {
		conditions.push(eq(memoryEntries.sourceSessionId, filter.sessionId));
	}
	const rows = db
		.select()
		.from(memoryEntries)
		// eslint-disable-next-line no-restricted-syntax -- one condition per filter option above (two)
		.where(conditions.length ? and(...conditions) : undefined)
		.all()
		.filter((e) => (filter.includeRetired || !e.retiredAt) && (filter.stale === undefined || (e.staleSince !== null) === filter.stale));
	return rows.sort((a, b) => compareFacts(a, b));
}

/**
 * The order facts are shown in: live before retired, gotchas before knowledge, relevant before the
 * rest (when the caller knows what is relevant), fresh before stale, most confirmed, most recently
 * confirmed, then id (so equal facts keep a stable order).
 */
export function compareFacts(a: MemoryEntry, b: MemoryEntry, relevant?: (e: MemoryEntry) => boolean): number {
	const rank = (e: MemoryEntry): number[] => [
		e.retiredAt ? 1 : 0,
		e.kind === 'gotcha' ? 0 : 1,
		relevant && relevant(e) ? 0 : 1,
		e.staleSince ? 1 : 0,
		-e.confirmations,
	];
	const ra = rank(a);
	const rb = rank(b);
	for (let i = 0; i < ra.length; i++) {
		const d = (ra[i] as number) - (rb[i] as number);
		if (d !== 0) {
			return d;
		}
	}
	return b.lastConfirmedAt.localeCompare(a.lastConfirmedAt) || a.id.localeCompare(b.id);
}
