/**
 * The records that change without a domain event — decisions, tags and annotations added to a
 * checkpoint after it was recorded, memory facts and their confirmations, task changes, import records
 * — become shared events at the next sync (export or pull), a page a write: each table is compared
 * with what its events already say (the fold in recordFolds.ts) and only the difference is written.
 * A record pulled from a teammate already matches its events, so nothing echoes back.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import { pushAll } from '../arrays';
import { idChunks, inJsonList } from '../shared/sqlJsonList';
import { redactSecrets } from '../text/redactSecrets';
import type { BatonDb } from '../storage/journalStore';
import type { Session, SharedEvent } from '../storage/model';
import { checkpoints, decisions, handoffs, importRecords, memoryEntries, sessions, sharedEvents, tasks } from '../storage/schema';
import type { NewSharedEvent } from '../shared/sharedEvents';
import { foldLabels, foldTask, groupBySubject, memoryConfirmations, memoryKey, taskFields } from './recordFolds';

/** Kinds this module writes (and recordProjection.ts derives from). */
export const recordKinds = ['decision.recorded', 'checkpoint.labels', 'memory.fact', 'memory.confirmed', 'task.changed', 'import.recorded'] as const;

/**
 * What the record tables still owe the shared log — each table's difference from its events — one
 * event at a time, every table read a chunk of rows at a time and compared with the events about
 * that chunk's subjects alone: a caller that writes them a page a write holds a page and a chunk, not
 * the history (the first push of 100,000 imported sessions owes 820,000 events; reading every record
 * event the log held for the comparison took the pushing daemon past 800 MB at 50,000). A chunk's
 * events are read when the chunk is, after the caller's writes of what came before — events about
 * other subjects — so it may run on across the caller's own writes of what it yielded, and must start
 * again after anyone else's.
 */
export function* recordEventStream(db: BatonDb, tables: readonly RecordTable[] = recordTables, from: ResumePoints = new Map()): Generator<NewSharedEvent> {
	for (const table of recordTables) {
		if (!tables.includes(table)) continue;
		for (const event of owedBy[table](db, from.get(table) ?? 0)) {
			if (!(event instanceof ChunkEnd)) yield event;
		}
	}
}

/** The record tables, in the order their events are written; each owes events of its own alone (`owedBy`). */
export const recordTables = ['decisions', 'checkpoints', 'memory_entries', 'tasks', 'import_records'] as const;
export type RecordTable = (typeof recordTables)[number];

/** Where a table's comparison may start: every record up to this rowid was found to owe nothing. */
export type ResumePoints = ReadonlyMap<RecordTable, number>;

/**
 * One table's comparison a chunk at a time (`next()` returns after each): done with the rowid the first
 * chunk holding an owed event starts after (a `recordEventStream` may start there), or null when the
 * table owes nothing. The caller runs each step in its own read and gives up when the table changes.
 */
export function* tableComparison(db: BatonDb, table: RecordTable): Generator<void, number | null> {
	let chunkStart = 0;
	for (const item of owedBy[table](db, 0)) {
		if (!(item instanceof ChunkEnd)) return chunkStart;
		chunkStart = item.after;
		yield;
	}
	return null;
}

/** Between two chunks of a table's comparison: the last rowid compared so far. */
class ChunkEnd {
	constructor(readonly after: number) {}
}
type Owed = NewSharedEvent | ChunkEnd;

const owedBy: Record<RecordTable, (db: BatonDb, after: number) => Iterable<Owed>> = {
	decisions: decisionEvents,
	checkpoints: labelEvents,
	memory_entries: memoryEvents,
	tasks: taskEvents,
	import_records: importEvents,
};

/**
 * Rows a chunked read of a table takes at once: a step of a comparison that runs beside the daemon's
 * requests (SyncExport.settleRecords), 15-25 ms of tasks at 50,000 sessions (5,000 took 90-110 ms,
 * and a hook that waited behind one at each of its steps took 2 s).
 */
const chunkRows = 1_000;

type ChunkedTable = typeof tasks | typeof importRecords | typeof decisions | typeof checkpoints;

/** Every row of `table` after rowid `after`, `chunkRows` at a time in rowid order, each chunk with its last rowid. */
function chunked<T extends ChunkedTable>(db: BatonDb, table: T, after: number): Generator<{ rows: T['$inferSelect'][]; last: number }>;
function* chunked(db: BatonDb, table: ChunkedTable, after: number): Generator<{ rows: unknown[]; last: number }> {
	for (;;) {
		const rows = db
			.select({ rowid: sql<number>`rowid`, row: table as typeof tasks })
			.from(table as typeof tasks)
			.where(sql`rowid > ${after}`)
			.orderBy(sql`rowid`)
			.limit(chunkRows)
			.all();
		if (rows.length > 0) {
			after = (rows[rows.length - 1] as (typeof rows)[number]).rowid;
			yield { rows: rows.map((r) => r.row), last: after };
		}
		if (rows.length < chunkRows) {
			return;
		}
	}
}

/** The events of `kinds` about `subjects`, by subject in id order (the kind-and-subject index). */
function eventsAbout(db: BatonDb, kinds: readonly string[], subjects: readonly string[]): Map<string, SharedEvent[]> {
	const found: SharedEvent[] = [];
	for (const chunk of idChunks(subjects)) {
		pushAll(
			found,
			db
				.select()
				.from(sharedEvents)
				.where(and(inArray(sharedEvents.kind, [...kinds]), inJsonList(sharedEvents.subject, chunk)))
				.all(),
		);
	}
	return groupBySubject(found);
}

/** Which of `subjects` have an event of `kind`: their subjects alone, from the kind-and-subject index. */
function subjectsWith(db: BatonDb, kind: string, subjects: readonly string[]): Set<string> {
	const found = new Set<string>();
	for (const chunk of idChunks(subjects)) {
		for (const r of db
			.select({ subject: sharedEvents.subject })
			.from(sharedEvents)
			.where(and(eq(sharedEvents.kind, kind), inJsonList(sharedEvents.subject, chunk)))
			.all()) {
			found.add(r.subject);
		}
	}
	return found;
}

/** A decision not yet shared becomes `decision.recorded`. */
function* decisionEvents(db: BatonDb, after: number): Generator<Owed> {
	for (const { rows: chunk, last } of chunked(db, decisions, after)) {
		const shared = subjectsWith(
			db,
			'decision.recorded',
			chunk.map((d) => d.id),
		);
		for (const d of chunk) {
			if (!shared.has(d.id)) {
				yield {
					kind: 'decision.recorded',
					subject: d.id,
					sessionId: d.sessionId,
					actor: 'baton',
					body: { kind: d.kind, text: d.text, rationale: d.rationale, taskId: d.taskId, createdAt: d.createdAt },
				};
			}
		}
		yield new ChunkEnd(last);
	}
}

/** A shared checkpoint whose tags or annotations differ from its events' fold gets one `checkpoint.labels` with the difference. */
function* labelEvents(db: BatonDb, after: number): Generator<Owed> {
	for (const { rows: chunk, last } of chunked(db, checkpoints, after)) {
		const events = eventsAbout(
			db,
			['checkpoint.recorded', 'checkpoint.labels'],
			chunk.map((cp) => cp.id),
		);
		for (const cp of chunk) {
			const own = events.get(cp.id);
			if (!own?.some((e) => e.kind === 'checkpoint.recorded')) {
				continue; // Not shared (recorded before sync existed): nothing to label.
			}
			const held = foldLabels(own);
			const addTags = cp.tags.filter((t) => !held.tags.includes(t));
			const removeTags = held.tags.filter((t) => !cp.tags.includes(t));
			const annotations = cp.annotations.filter((a) => !held.annotations.some((h) => h.at === a.at && h.user === a.user && h.text === a.text));
			if (addTags.length + removeTags.length + annotations.length > 0) {
				yield { kind: 'checkpoint.labels', subject: cp.id, sessionId: cp.sessionId, actor: 'baton', body: { addTags, removeTags, annotations } };
			}
		}
		yield new ChunkEnd(last);
	}
}

/**
 * A memory fact not yet shared becomes `memory.fact`, and each confirmation the log lacks a
 * `memory.confirmed`. The new facts join `events` first, so their confirmations are counted against them.
 */
function memoryEvents(db: BatonDb): NewSharedEvent[] {
	const out: NewSharedEvent[] = [];
	// Confirmations count by a fact's kind and fingerprint across subjects: every memory event is read
	// (one per fact and confirmation — the memory's size, not the history's).
	const events = groupBySubject(
		db
			.select()
			.from(sharedEvents)
			.where(inArray(sharedEvents.kind, ['memory.fact', 'memory.confirmed']))
			.all(),
	);
	const facts = db.select().from(memoryEntries).all();
	for (const f of facts) {
		if (!events.get(f.id)?.some((e) => e.kind === 'memory.fact')) {
			out.push({
				kind: 'memory.fact',
				subject: f.id,
				sessionId: f.sourceSessionId,
				actor: 'baton',
				body: {
					kind: f.kind,
					text: f.text,
					fingerprint: f.fingerprint,
					source: f.source,
					files: f.files,
					createdAt: f.createdAt,
					retiredAt: f.retiredAt,
				},
			});
			// As it will be stored: redacted (a fingerprint is the fact's normalised text).
			events.set(f.id, [
				...(events.get(f.id) ?? []),
				{ kind: 'memory.fact', subject: f.id, body: { kind: f.kind, fingerprint: redactSecrets(f.fingerprint) } } as unknown as SharedEvent,
			]);
		}
	}
	const confirmed = memoryConfirmations(events);
	for (const f of facts) {
		const recorded = events.get(f.id)?.find((e) => e.kind === 'memory.fact');
		const fingerprint = typeof recorded?.body['fingerprint'] === 'string' ? recorded.body['fingerprint'] : redactSecrets(f.fingerprint);
		const missing = f.confirmations - (confirmed.get(memoryKey(f.kind, fingerprint)) ?? 0);
		for (let i = 0; i < missing; i++) {
			out.push({
				kind: 'memory.confirmed',
				subject: f.id,
				sessionId: f.sourceSessionId,
				actor: 'baton',
				body: { confirmedBy: null, at: f.lastConfirmedAt },
			});
		}
	}
	return out;
}

/** A task whose fields differ from its events' fold gets one `task.changed` with the fields that differ. */
function* taskEvents(db: BatonDb, after: number): Generator<Owed> {
	for (const { rows: chunk, last } of chunked(db, tasks, after)) {
		const events = eventsAbout(
			db,
			['task.changed'],
			chunk.map((t) => t.id),
		);
		for (const t of chunk) {
			const held = foldTask(events.get(t.id) ?? []);
			const changed: Record<string, unknown> = {};
			for (const field of taskFields) {
				if (held[field] !== t[field]) {
					changed[field] = t[field];
				}
			}
			if (Object.keys(changed).length > 0) {
				yield { kind: 'task.changed', subject: t.id, actor: 'baton', body: changed };
			}
		}
		yield new ChunkEnd(last);
	}
}

/**
 * An imported session not yet shared gets its session events, and an import record not yet shared
 * `import.recorded`: a chunk of import records at a time, its sessions' events before its records'.
 */
function* importEvents(db: BatonDb, after: number): Generator<Owed> {
	for (const { rows: imported, last } of chunked(db, importRecords, after)) {
		const sessionIds = [...new Set(imported.filter((r) => r.entityType === 'session').map((r) => r.entityId))];
		const started = subjectsWith(db, 'session.started', sessionIds);
		yield* importedSessionEvents(
			db,
			sessionIds.filter((id) => !started.has(id)),
		);
		const subjectOf = (r: (typeof imported)[number]): string => `${r.source}:${r.entityType}:${r.externalId}`;
		const recorded = subjectsWith(db, 'import.recorded', imported.map(subjectOf));
		for (const r of imported) {
			const subject = subjectOf(r);
			if (!recorded.has(subject)) {
				yield {
					kind: 'import.recorded',
					subject,
					actor: 'baton',
					body: {
						source: r.source,
						entityType: r.entityType,
						externalId: r.externalId,
						entityId: r.entityId,
						contentHash: r.contentHash,
						importedAt: r.importedAt,
					},
				};
			}
		}
		yield new ChunkEnd(last);
	}
}

/** An imported session raised no domain event (it happened elsewhere): it travels as if started, ended and handed off here. */
function importedSessionEvents(db: BatonDb, ids: readonly string[]): NewSharedEvent[] {
	const out: NewSharedEvent[] = [];
	for (let i = 0; i < ids.length; i += 500) {
		const chunk = ids.slice(i, i + 500);
		const notes = new Map(
			db
				.select()
				.from(handoffs)
				.where(inArray(handoffs.sessionId, chunk))
				.all()
				.map((h) => [h.sessionId, h]),
		);
		for (const s of db.select().from(sessions).where(inArray(sessions.id, chunk)).all() as Session[]) {
			out.push({
				kind: 'session.started',
				subject: s.id,
				sessionId: s.id,
				actor: 'baton',
				body: {
					name: s.name,
					parentId: s.parentSessionId,
					previousId: s.previousSessionId,
					scope: s.scope,
					scopeKey: s.scopeKey,
					agent: s.agent,
					model: null,
					currentTask: s.currentTask,
					startedAt: s.startedAt,
					// A live imported session's own words (CLEO's focus note): nowhere else until it ends.
					...(s.focus ? { focus: s.focus } : {}),
				},
			});
			const handoff = notes.get(s.id);
			if (handoff) {
				out.push({ kind: 'handoff.written', subject: s.id, sessionId: s.id, actor: 'baton', body: { ...handoff.data } });
			}
			if (s.status !== 'active') {
				out.push({
					kind: 'session.status',
					subject: s.id,
					sessionId: s.id,
					actor: 'baton',
					body: { status: s.status === 'suspended' ? 'suspended' : s.status, reason: s.endNote, at: s.endedAt ?? s.suspendedAt ?? s.updatedAt },
				});
			}
		}
	}
	return out;
}
