/**
 * Shared events → the tables, for the records recordEvents.ts shares: decisions, checkpoint labels,
 * memory facts and confirmations, tasks, import records. Each record's state is the fold of all its
 * events in id order (recordFolds.ts), whatever order they arrived in.
 */
import { and, eq, inArray } from 'drizzle-orm';
import type { BatonDb, JournalStore } from '../storage/journalStore';
import { idChunks, inJsonList } from '../shared/sqlJsonList';
import { bodyText } from '../shared/eventBodies';
import { insertRows } from './rawInsert';
import type { SharedEvent } from '../storage/model';
import type { WireEvent } from '../shared/sharedEvents';
import { checkpoints, decisions, importRecords, memoryEntries, sessions, sharedEvents, tasks } from '../storage/schema';
import { taskPriorities, taskStatuses, taskTypes } from '../storage/schema';
import { recordKinds } from './recordEvents';
import { foldLabels, foldTask, groupBySubject, memoryConfirmations, memoryKey } from './recordFolds';
import { byFirstEvent, eventsBySubject } from './subjectEvents';

export interface RecordCounts {
	decisions: number;
	checkpointLabels: number;
	memory: number;
	tasks: number;
	imports: number;
}

const sharedRecordKinds = new Set<string>(recordKinds);

/**
 * `mergedAfter` is the merge's rowid boundary (projection.ts): the records' older events are read
 * below it, their new ones are `pulled` as they came.
 */
export function projectRecords(db: BatonDb, store: JournalStore, pulled: readonly WireEvent[], mergedAfter?: number): RecordCounts {
	const counts: RecordCounts = { decisions: 0, checkpointLabels: 0, memory: 0, tasks: 0, imports: 0 };
	// A pull is mostly sessions and handoffs: the passes below look at these records' events alone.
	const newEvents = pulled.filter((e) => sharedRecordKinds.has(e.kind));
	if (newEvents.length === 0) {
		return counts;
	}
	const byKind = (kinds: readonly string[]): string[] => [...new Set(newEvents.filter((e) => kinds.includes(e.kind)).map((e) => e.subject))];
	// Which sessions are held, asked once for every session the records name (not once per record).
	const heldSessions = new Set(
		selectIn(
			db,
			sessions,
			newEvents.map((e) => e.sessionId).filter((id): id is string => typeof id === 'string'),
		),
	);
	const sessionKnown = (id: unknown): id is string => typeof id === 'string' && heldSessions.has(id);

	counts.decisions = projectDecisions(db, store, newEvents, sessionKnown);

	const labelled = byKind(['checkpoint.labels']);
	for (const [id, list] of byFirstEvent(eventsBySubject(db, labelled, ['checkpoint.recorded', 'checkpoint.labels'], pulled, mergedAfter))) {
		const row = db.select({ tags: checkpoints.tags, annotations: checkpoints.annotations }).from(checkpoints).where(eq(checkpoints.id, id)).get();
		const folded = foldLabels(list);
		if (row && JSON.stringify([row.tags, row.annotations]) !== JSON.stringify([folded.tags, folded.annotations])) {
			db.update(checkpoints).set(folded).where(eq(checkpoints.id, id)).run();
			counts.checkpointLabels++;
		}
	}

	if (newEvents.some((e) => e.kind === 'memory.fact' || e.kind === 'memory.confirmed')) {
		counts.memory = projectMemory(db, newEvents, sessionKnown);
	}

	counts.tasks = projectTasks(db, store, byFirstEvent(eventsBySubject(db, byKind(['task.changed']), ['task.changed'], pulled, mergedAfter)));

	counts.imports = projectImports(db, store, newEvents);
	return counts;
}

/** New decisions, each inserted once (one held already is skipped); a session this machine does not hold is not linked. */
function projectDecisions(db: BatonDb, store: JournalStore, newEvents: readonly WireEvent[], sessionKnown: (id: unknown) => id is string): number {
	const decided = newEvents.filter((e) => e.kind === 'decision.recorded');
	const heldDecisions = new Set(
		selectIn(
			db,
			decisions,
			decided.map((e) => e.subject),
		),
	);
	const newDecisions: (typeof decisions.$inferInsert)[] = [];
	for (const e of decided) {
		if (heldDecisions.has(e.subject)) {
			continue;
		}
		heldDecisions.add(e.subject);
		const b = e.body;
		newDecisions.push({
			id: e.subject,
			sessionId: sessionKnown(e.sessionId) ? e.sessionId : null,
			kind: b['kind'] === 'assumption' ? 'assumption' : 'decision',
			text: bodyText(b['text']) ?? '',
			rationale: bodyText(b['rationale']),
			taskId: bodyText(b['taskId']),
			createdAt: bodyText(b['createdAt']) ?? e.at,
		});
	}
	insertRows(store, decisions, newDecisions);
	return newDecisions.length;
}

/**
 * The import records of entities this machine holds, each added once. Asked in a few statements for
 * the whole pull (which entities are held, which records exist) and inserted in a few: a statement
 * built per record was most of a pull's projection (31,000 records at 10,000 imported sessions).
 */
function projectImports(db: BatonDb, store: JournalStore, newEvents: readonly WireEvent[]): number {
	const candidates: (typeof importRecords.$inferInsert)[] = [];
	const entityIds = new Map<string, string[]>([
		['session', []],
		['task', []],
		['decision', []],
	]);
	for (const e of newEvents) {
		if (e.kind !== 'import.recorded') {
			continue;
		}
		const b = e.body;
		const [source, entityType, externalId, entityId] = [
			bodyText(b['source']),
			bodyText(b['entityType']),
			bodyText(b['externalId']),
			bodyText(b['entityId']),
		];
		const ids = entityType ? entityIds.get(entityType) : undefined;
		if (!source || !entityType || !externalId || !entityId || !ids) {
			continue;
		}
		ids.push(entityId);
		const row = {
			source,
			entityType,
			externalId,
			entityId,
			contentHash: bodyText(b['contentHash']) ?? '',
			importedAt: bodyText(b['importedAt']) ?? e.at,
			extra: null,
		};
		candidates.push(row);
	}
	if (candidates.length === 0) {
		return 0;
	}
	// Only for a record this machine holds: otherwise a later import of the same file would skip it.
	const held = new Set([
		...selectIn(db, sessions, entityIds.get('session') ?? []).map((id) => `session\0${id}`),
		...selectIn(db, tasks, entityIds.get('task') ?? []).map((id) => `task\0${id}`),
		...selectIn(db, decisions, entityIds.get('decision') ?? []).map((id) => `decision\0${id}`),
	]);
	const existing = existingImportKeys(db, candidates);
	const fresh = candidates.filter((r) => {
		const key = importKey(r);
		if (!held.has(`${r.entityType}\0${r.entityId}`) || existing.has(key)) {
			return false;
		}
		existing.add(key);
		return true;
	});
	insertRows(store, importRecords, fresh);
	return fresh.length;
}

/** One string per record key, unambiguous whatever the texts hold (a pulled record's come from a remote). */
const importKey = (r: { source: string; entityType: string; externalId: string }): string => JSON.stringify([r.source, r.entityType, r.externalId]);

/** The keys of the import records among `records` this store already has (a statement per source and type, and per 5,000 ids). */
function existingImportKeys(db: BatonDb, records: readonly (typeof importRecords.$inferInsert)[]): Set<string> {
	const bySourceType = new Map<string, { source: string; entityType: string; ids: string[] }>();
	for (const r of records) {
		const key = JSON.stringify([r.source, r.entityType]);
		let group = bySourceType.get(key);
		if (!group) {
			group = { source: r.source, entityType: r.entityType, ids: [] };
			bySourceType.set(key, group);
		}
		group.ids.push(r.externalId);
	}
	const out = new Set<string>();
	for (const { source, entityType, ids } of bySourceType.values()) {
		for (const chunk of idChunks(ids)) {
			for (const row of db
				.select({ externalId: importRecords.externalId })
				.from(importRecords)
				.where(and(eq(importRecords.source, source), eq(importRecords.entityType, entityType), inJsonList(importRecords.externalId, chunk)))
				.all()) {
				out.add(importKey({ source, entityType, externalId: row.externalId }));
			}
		}
	}
	return out;
}

/** Tasks are their `task.changed` events folded in id order: a task not held is inserted (all in a few statements), one held is updated where it differs. */
function projectTasks(db: BatonDb, store: JournalStore, groups: readonly [string, WireEvent[]][]): number {
	let changedTasks = 0;
	const subjects = groups.map(([id]) => id);
	const held = new Map<string, typeof tasks.$inferSelect>();
	for (const chunk of idChunks(subjects)) {
		for (const row of db.select().from(tasks).where(inJsonList(tasks.id, chunk)).all()) {
			held.set(row.id, row);
		}
	}
	const fresh: (typeof tasks.$inferInsert)[] = [];
	for (const [id, list] of groups) {
		const f = foldTask(list);
		const seq = /^T(\d+)$/.exec(id)?.[1];
		const row = held.get(id);
		if (!row) {
			if (!seq || !f.title || !f.createdAt) {
				continue; // Its creation has not arrived yet: the next pull brings it.
			}
			fresh.push({
				id,
				seq: Number(seq),
				title: f.title,
				description: f.description ?? null,
				type: oneOf(taskTypes, f.type, 'task'),
				status: oneOf(taskStatuses, f.status, 'pending'),
				priority: oneOf(taskPriorities, f.priority, 'medium'),
				parentId: f.parentId ?? null,
				phase: f.phase ?? null,
				createdAt: f.createdAt,
				updatedAt: f.updatedAt ?? f.createdAt,
				completedAt: f.completedAt ?? null,
				createdBySession: f.createdBySession ?? null,
				completedBySession: f.completedBySession ?? null,
			});
			continue;
		}
		// A type, status or priority this version does not know (a newer one's) leaves the column as it is.
		const changed = Object.fromEntries(
			Object.entries(f).filter(([k, v]) => row[k as keyof typeof row] !== v && (!Object.hasOwn(taskEnums, k) || taskEnums[k]?.includes(v as string))),
		);
		if (Object.keys(changed).length > 0) {
			db.update(tasks).set(changed).where(eq(tasks.id, id)).run();
			changedTasks++;
		}
	}
	insertRows(store, tasks, fresh);
	return changedTasks + fresh.length;
}

/** The ids of `table` among `ids` (asked in a few statements, the list bound as JSON). */
function selectIn(db: BatonDb, table: typeof sessions | typeof decisions | typeof tasks, ids: readonly string[]): string[] {
	const out: string[] = [];
	for (const chunk of idChunks(ids)) {
		for (const r of db.select({ id: table.id }).from(table).where(inJsonList(table.id, chunk)).all()) {
			out.push(r.id);
		}
	}
	return out;
}

/** Facts are inserted once per (kind, fingerprint); every copy's confirmations count. */
function projectMemory(db: BatonDb, newEvents: readonly WireEvent[], sessionKnown: (id: unknown) => id is string): number {
	let changed = 0;
	const all = groupBySubject(
		db
			.select()
			.from(sharedEvents)
			.where(inArray(sharedEvents.kind, ['memory.fact', 'memory.confirmed']))
			.all(),
	);
	const touched = new Set(newEvents.filter((e) => e.kind.startsWith('memory.')).map((e) => e.subject));
	const groups = new Map<string, SharedEvent>();
	for (const subject of touched) {
		const fact = all.get(subject)?.find((e) => e.kind === 'memory.fact');
		if (fact) {
			groups.set(memoryKey(fact.body['kind'], fact.body['fingerprint']), fact);
		}
	}
	const counts = memoryConfirmations(all);
	for (const [key, fact] of groups) {
		const b = fact.body;
		const kind = b['kind'] === 'gotcha' ? 'gotcha' : 'knowledge';
		const fingerprint = bodyText(b['fingerprint']) ?? fact.subject;
		const confirmations = counts.get(key) ?? 1;
		const lastConfirmedAt = [...all.values()]
			.flat()
			.filter((e) => e.kind === 'memory.confirmed' && touched.has(e.subject))
			.map((e) => bodyText(e.body['at']) ?? e.at)
			.reduce((a, x) => (x > a ? x : a), bodyText(b['createdAt']) ?? fact.at);
		// The writer's own row keeps its unredacted fingerprint: look for any copy's id first.
		const ids = [...all]
			.filter(([, list]) => list.some((e) => e.kind === 'memory.fact' && e.body['kind'] === kind && e.body['fingerprint'] === fingerprint))
			.map(([id]) => id);
		const row =
			db.select().from(memoryEntries).where(inArray(memoryEntries.id, ids)).get() ??
			db
				.select()
				.from(memoryEntries)
				.where(and(eq(memoryEntries.kind, kind), eq(memoryEntries.fingerprint, fingerprint)))
				.get();
		if (!row) {
			db.insert(memoryEntries)
				.values({
					id: fact.subject,
					kind,
					text: bodyText(b['text']) ?? '',
					fingerprint,
					sourceSessionId: sessionKnown(fact.sessionId) ? fact.sessionId : null,
					source: bodyText(b['source']) ?? 'manual',
					files: Array.isArray(b['files']) ? (b['files'] as unknown[]).filter((x): x is string => typeof x === 'string') : [],
					confirmations,
					createdAt: bodyText(b['createdAt']) ?? fact.at,
					lastConfirmedAt,
					staleSince: null,
					staleReason: null,
					retiredAt: bodyText(b['retiredAt']),
				})
				.run();
			changed++;
		} else if (row.confirmations !== confirmations) {
			db.update(memoryEntries)
				.set({ confirmations, lastConfirmedAt: lastConfirmedAt > row.lastConfirmedAt ? lastConfirmedAt : row.lastConfirmedAt })
				.where(eq(memoryEntries.id, row.id))
				.run();
			changed++;
		}
	}
	return changed;
}

/** The task columns that take one of a fixed set of values. */
const taskEnums: Record<string, readonly string[]> = { type: taskTypes, status: taskStatuses, priority: taskPriorities };

/** `value` when it is one of `values` (a newer version's value, unknown here, is `fallback`). */
export function oneOf<T extends string>(values: readonly T[], value: unknown, fallback: T): T {
	return values.includes(value as T) ? (value as T) : fallback;
}
