/**
 * `cleo-db`: CLEO's `.cleo/tasks.db`, opened read-only in memory through
 * sql.js (the file is never written). Tables `tasks`, `task_dependencies`, `sessions` and
 * `session_handoff_entries`, or their `tasks_`-prefixed names in CLEO's consolidated database.
 * Handoffs come from the write-once entries first, then `sessions.handoff_json`, then the handoff
 * inside `debrief_json` (CLEO's own sessions often hold it only there); decisions from the debriefs.
 * Columns Baton has no place for are kept verbatim on the import record.
 */
import { z } from 'zod';
import { isSessionId } from '../ids';
import { loadSqlJs } from '../storage/sqlJs';
import { taskPriorities } from '../storage/schema';
import { cleoDebriefSchema, cleoHandoffSchema, cleoScopeSchema, debriefFrom } from './cleoShapes';
import type { ImportBatch, ImportedSession, ImportedTask, ImportIssue } from './importTypes';
import { check, contentHash, foreignTime, jsonText, unknownFields } from './recordCheck';
import { sessionRow } from './sessionRows';
import { readSourceBytes } from './sourceFiles';

type Row = Record<string, unknown>;

/** Columns with no Baton place, non-null ones kept verbatim (a null says nothing). */
function extraColumns(row: Row, known: ReadonlySet<string>): Record<string, unknown> | null {
	return unknownFields(Object.fromEntries(Object.entries(row).filter(([, v]) => v !== null)), known);
}
const count = z.number().int().nonnegative();

const taskSchema = z.object({
	id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'not a task id (letters, digits, . _ -; at most 64)'),
	title: z.string().trim().min(1).max(500),
	description: z.string().nullish(),
	status: z.enum(['pending', 'active', 'blocked', 'done', 'cancelled', 'archived']),
	priority: z.enum(taskPriorities).nullish(),
	type: z.enum(['epic', 'task', 'subtask', 'bug']).nullish(),
	role: z.string().nullish(),
	parent_id: z.string().min(1).nullish(),
	phase: z.string().nullish(),
	created_at: foreignTime,
	updated_at: foreignTime.nullish(),
	completed_at: foreignTime.nullish(),
});

const taskColumns = new Set(Object.keys(taskSchema.shape));

const dependencySchema = z.object({ task_id: z.string().min(1), depends_on: z.string().min(1) });

const sessionSchema = z.object({
	id: z.string().refine(isSessionId, 'not a CLEO session id (ses_YYYYMMDDHHmmss_xxxxxx or a legacy id)'),
	name: z.string().trim().min(1).max(200),
	status: z.enum(['active', 'ended', 'orphaned', 'suspended', 'archived', 'closed']),
	scope_json: jsonText(cleoScopeSchema).nullish(),
	current_task: z.string().min(1).nullish(),
	task_started_at: foreignTime.nullish(),
	agent: z.string().nullish(),
	handoff_json: jsonText(cleoHandoffSchema).nullish(),
	started_at: foreignTime,
	ended_at: foreignTime.nullish(),
	previous_session_id: z.string().min(1).nullish(),
	next_session_id: z.string().min(1).nullish(),
	parent_session_id: z.string().min(1).nullish(),
	agent_identifier: z.string().nullish(),
	handoff_consumed_at: foreignTime.nullish(),
	handoff_consumed_by: z.string().nullish(),
	debrief_json: jsonText(cleoDebriefSchema).nullish(),
	stats_json: jsonText(
		z.object({
			tasksCompleted: count.nullish(),
			tasksCreated: count.nullish(),
			focusChanges: count.nullish(),
			suspendCount: count.nullish(),
			resumeCount: count.nullish(),
			decisionsRecorded: count.nullish(),
		}),
	).nullish(),
	resume_count: count.nullish(),
	last_activity: foreignTime.nullish(),
});

const sessionColumns = new Set(Object.keys(sessionSchema.shape));

const handoffEntrySchema = z.object({ session_id: z.string().min(1), handoff_json: jsonText(cleoHandoffSchema), created_at: foreignTime });

export async function readCleoDb(file: string): Promise<ImportBatch> {
	const batch: ImportBatch = { source: 'cleo-db', path: file, tasks: [], sessions: [], settings: [], taskRefSource: 'cleo-db', errors: [] };
	const errors = batch.errors;
	const bytes = readSourceBytes(file, 'tasks.db', errors);
	if (!bytes) return batch;
	if (bytes.subarray(0, 16).toString('latin1') !== 'SQLite format 3\0') {
		errors.push({ record: 'tasks.db', field: null, message: 'not a SQLite database (the file does not start with "SQLite format 3")' });
		return batch;
	}
	const SQL = await loadSqlJs();
	let db: InstanceType<typeof SQL.Database>;
	try {
		db = new SQL.Database(bytes);
	} catch (error) {
		errors.push({ record: 'tasks.db', field: null, message: `cannot be opened: ${(error as Error).message}` });
		return batch;
	}
	try {
		const tables = new Set(rows(db, "SELECT name FROM sqlite_master WHERE type = 'table'").map((r) => String(r['name'])));
		const table = (name: string): string | undefined => [name, `tasks_${name}`].find((t) => tables.has(t));
		const tasksTable = table('tasks');
		if (!tasksTable) {
			errors.push({
				record: 'tasks.db',
				field: null,
				message: `has no tasks table (found: ${[...tables].sort().join(', ') || 'none'}); is it CLEO's .cleo/tasks.db?`,
			});
			return batch;
		}
		readTasks(
			batch,
			rows(db, `SELECT * FROM "${tasksTable}" ORDER BY rowid`),
			table('task_dependencies') ? rows(db, `SELECT * FROM "${table('task_dependencies')}" ORDER BY rowid`) : [],
		);
		const sessionsTable = table('sessions');
		const entriesTable = table('session_handoff_entries');
		readSessions(
			batch,
			sessionsTable ? rows(db, `SELECT * FROM "${sessionsTable}" ORDER BY rowid`) : [],
			entriesTable ? rows(db, `SELECT * FROM "${entriesTable}" ORDER BY rowid`) : [],
		);
	} catch (error) {
		errors.push({ record: 'tasks.db', field: null, message: `cannot be read: ${(error as Error).message}` });
	} finally {
		db.close();
	}
	return batch;
}

function rows(db: { exec(sql: string): { columns: string[]; values: unknown[][] }[] }, sql: string): Row[] {
	const [result] = db.exec(sql);
	return result ? result.values.map((values) => Object.fromEntries(result.columns.map((c, i) => [c, values[i]]))) : [];
}

const label = (table: string, i: number, row: Row, key = 'id'): string => `${table}[${i}]${typeof row[key] === 'string' ? ` (${row[key]})` : ''}`;

function readTasks(batch: ImportBatch, taskRows: Row[], depRows: Row[]): void {
	const byId = new Map<string, ImportedTask>();
	taskRows.forEach((row, i) => {
		const record = label('tasks', i, row);
		const t = check(taskSchema, row, record, batch.errors);
		if (!t) return;
		if (byId.has(t.id)) {
			batch.errors.push({ record, field: 'id', message: `duplicate of ${byId.get(t.id)?.record}` });
			return;
		}
		// CLEO's `archived` is a finished task put away: done when it was completed, otherwise cancelled.
		const status = t.status === 'archived' ? (t.completed_at ? 'done' : 'cancelled') : t.status;
		const task: ImportedTask = {
			record,
			externalId: t.id,
			contentHash: contentHash(row),
			// CLEO pads its ids (`T001`); the id is kept as it is, its number is the sequence.
			preferredId: /^T\d{1,9}$/.test(t.id) && Number(t.id.slice(1)) > 0 ? t.id : null,
			title: t.title,
			description: t.description ?? null,
			type: t.type === 'bug' || t.role === 'bug' ? 'bug' : (t.type ?? 'task'),
			status,
			priority: t.priority ?? 'medium',
			phase: t.phase ?? null,
			parent: t.parent_id ? { id: t.parent_id, record, field: 'parent_id' } : null,
			dependsOn: [],
			createdAt: t.created_at,
			updatedAt: t.updated_at ?? t.created_at,
			completedAt: t.completed_at ?? null,
			extra: extraColumns(row, taskColumns),
		};
		byId.set(t.id, task);
		batch.tasks.push(task);
	});
	depRows.forEach((row, i) => {
		const record = `task_dependencies[${i}]${typeof row['task_id'] === 'string' ? ` (${row['task_id']} → ${String(row['depends_on'])})` : ''}`;
		const d = check(dependencySchema, row, record, batch.errors);
		if (!d) return;
		const task = byId.get(d.task_id);
		if (!task) {
			batch.errors.push({ record, field: 'task_id', message: `names task ${d.task_id}, which is not in the tasks table` });
			return;
		}
		task.dependsOn.push({ id: d.depends_on, record, field: 'depends_on' });
	});
}

function readSessions(batch: ImportBatch, sessionRows: Row[], entryRows: Row[]): void {
	const errors: ImportIssue[] = batch.errors;
	const entries = readHandoffEntries(entryRows, errors);
	const seen = new Map<string, string>();
	const decisionIds = new Map<string, string>();
	sessionRows.forEach((row, i) => {
		const record = label('sessions', i, row);
		const s = check(sessionSchema, row, record, errors);
		if (!s) return;
		if (seen.has(s.id)) {
			errors.push({ record, field: 'id', message: `duplicate of ${seen.get(s.id)}` });
			return;
		}
		seen.set(s.id, record);
		const entry = entries.get(s.id)?.data;
		entries.delete(s.id);
		batch.sessions.push(cleoSession(s, row, record, entry, decisionIds, errors));
	});
	const rawIds = new Set(sessionRows.map((r) => r['id']));
	for (const [sessionId, entry] of entries) {
		if (rawIds.has(sessionId)) continue; // that session's own row was refused above
		errors.push({ record: entry.record, field: 'session_id', message: `names session ${sessionId}, which is not in the sessions table` });
	}
}

type HandoffEntries = Map<string, { data: ImportedSession['handoff']; record: string }>;

/** The write-once handoff entries by session; a second entry for a session is refused (handoffs are write-once). */
function readHandoffEntries(entryRows: Row[], errors: ImportIssue[]): HandoffEntries {
	const entries: HandoffEntries = new Map();
	entryRows.forEach((row, i) => {
		const record = label('session_handoff_entries', i, row, 'session_id');
		const e = check(handoffEntrySchema, row, record, errors);
		if (!e) return;
		if (entries.has(e.session_id)) {
			errors.push({
				record,
				field: 'session_id',
				message: `a second handoff for ${e.session_id} (handoffs are write-once; first in ${entries.get(e.session_id)?.record})`,
			});
			return;
		}
		entries.set(e.session_id, { data: { data: e.handoff_json, createdAt: e.created_at }, record });
	});
	return entries;
}

/**
 * One CLEO session as an import record: its handoff (the write-once entry first, then its own
 * handoff_json, then the debrief's), its debrief once it has ended, and the debrief's decisions
 * (a decision id already seen in another session is refused).
 */
function cleoSession(
	s: z.infer<typeof sessionSchema>,
	row: Row,
	record: string,
	entry: ImportedSession['handoff'] | undefined,
	decisionIds: Map<string, string>,
	errors: ImportIssue[],
): ImportedSession {
	const terminal = s.status !== 'active' && s.status !== 'suspended';
	const endedAt = s.ended_at ?? null;
	const ownHandoff = s.handoff_json ?? s.debrief_json?.handoff ?? null;
	const handoff = entry ?? (ownHandoff ? { data: ownHandoff, createdAt: endedAt ?? s.last_activity ?? s.started_at } : null);
	const base = {
		id: s.id,
		startedAt: s.started_at,
		endedAt: endedAt ?? s.last_activity ?? s.started_at,
		agent: s.agent ?? null,
		agentIdentifier: s.agent_identifier ?? null,
	};
	const debrief = s.debrief_json && terminal ? debriefFrom(s.debrief_json, base, handoff?.data ?? null) : null;
	const decisions = (s.debrief_json?.decisions ?? []).flatMap((d, k) => {
		const decisionRecord = `${record} debrief_json.decisions[${k}]`;
		if (decisionIds.has(d.id)) {
			errors.push({ record, field: `debrief_json.decisions[${k}].id`, message: `decision ${d.id} is also in ${decisionIds.get(d.id)}` });
			return [];
		}
		decisionIds.set(d.id, record);
		return [
			{
				id: d.id,
				sessionId: s.id,
				kind: d.kind,
				text: d.text,
				rationale: d.rationale,
				taskId: d.taskId,
				createdAt: endedAt ?? s.last_activity ?? s.started_at,
				record: decisionRecord,
			},
		];
	});
	return {
		record,
		externalId: s.id,
		contentHash: contentHash(row),
		session: sessionRow({
			id: s.id,
			name: s.name,
			status: s.status,
			scope: s.scope_json ?? { type: 'global' },
			currentTask: s.current_task ?? null,
			taskStartedAt: s.task_started_at ?? null,
			agent: s.agent ?? null,
			agentIdentifier: s.agent_identifier ?? null,
			previousSessionId: s.previous_session_id ?? null,
			nextSessionId: s.next_session_id ?? null,
			parentSessionId: s.parent_session_id ?? null,
			handoffConsumedAt: s.handoff_consumed_at ?? null,
			handoffConsumedBy: s.handoff_consumed_by ?? null,
			debrief,
			stats: Object.fromEntries(Object.entries(s.stats_json ?? {}).filter(([, v]) => typeof v === 'number')),
			resumeCount: s.resume_count ?? s.stats_json?.resumeCount ?? 0,
			startedAt: s.started_at,
			...(s.last_activity ? { lastActivity: s.last_activity } : {}),
			endedAt,
		}),
		handoff,
		decisions,
		aliases: [],
		extra: extraColumns(row, sessionColumns),
	};
}
