/**
 * The task graph of an engine's data, built once per change of the task tables and shared by every
 * service (tasks, sessions, briefings) until the next change.
 */
import type { Database, SqlValue } from 'sql.js';
import type { EngineContext } from '../context';
import { TaskGraph, type TaskNode } from './taskGraph';

const graphTables = ['tasks', 'task_dependencies'];

/** The task graph as of the data applied so far; rebuilt only when a tasks table changed (leverage is carried over). */
export function taskGraphOf(ctx: EngineContext): TaskGraph {
	return ctx.derived(
		'taskGraph',
		graphTables,
		(_db, previous: TaskGraph | undefined) => new TaskGraph(taskNodes(ctx.store.sqlite), dependencyRows(ctx.store.sqlite), previous),
	);
}

/** The task graph if one as of the data applied so far is already built (nothing is built here). */
export function currentTaskGraph(ctx: EngineContext): TaskGraph | undefined {
	return ctx.derivedIfCurrent<TaskGraph>('taskGraph', graphTables);
}

/** Where a JSON read takes its rows from: a whole table, or its rows a condition keeps (with its parameters and common table expressions). */
interface RowSource {
	table: string;
	where?: string;
	params?: SqlValue[];
	/** A WITH clause the condition reads. */
	with?: string;
	/** Step through the table itself even with a condition (see `taskNodes`). */
	scan?: boolean;
}

/**
 * The rows `columns` of `source` in table order, built as one JSON array inside SQLite
 * (`json_group_array`): one string leaves the WebAssembly module instead of a value per column per
 * row, and JSON.parse builds the rows (at 84,000 tasks: 195 ms instead of 230-300 for the task rows).
 * A read through an index is put in table order by the aggregate's ORDER BY. A scan of the table
 * yields rowid order already, and the ORDER BY of a subquery the scan feeds costs nothing (SQLite sees
 * the order; it never flattens a subquery with an ORDER BY into an aggregate, and reads it in order),
 * where the aggregate's would sort every row again: a quarter of a first read of 84,000 open tasks.
 * A result past SQLite's 1 GB string limit would take some eight million tasks.
 */
function jsonRows(sqlite: Database, columns: string, source: RowSource): unknown[][] {
	const scan = source.scan || !source.where;
	const from = `FROM ${source.table}${source.scan ? ' NOT INDEXED' : ''}${source.where ? ` WHERE ${source.where}` : ''}`;
	const select = scan
		? `SELECT json_group_array(json_array(${columns})) FROM (SELECT ${columns} ${from} ORDER BY rowid)`
		: `SELECT json_group_array(json_array(${columns}) ORDER BY rowid) ${from}`;
	const text = sqlite.exec(`${source.with ?? ''}${select}`, source.params ?? [])[0]?.values[0]?.[0];
	return typeof text === 'string' ? (JSON.parse(text) as unknown[][]) : [];
}

const taskColumns = 'id, seq, title, type, status, priority, parent_id, phase';
/** The same without the title (read as ''): what ranking and the lists need; a briefing reads the few titles it shows by id. */
const untitledColumns = "id, seq, '', type, status, priority, parent_id, phase";

/**
 * Only the columns the graph keeps, read straight from SQLite: a briefing in a fresh process decodes
 * no descriptions or timestamps, and no per-row mapping a handful of plain columns does not need.
 * `where` narrows the rows (with `params`); the rows come in table order either way. `scan`: read the
 * table itself, not an index that narrows it (when `where` keeps a large share of the rows, stepping
 * through the table is cheaper than a lookup per row). `untitled`: every title is '' (at 84,000 open
 * tasks the titles were a third of the JSON and of its parse).
 */
export function taskNodes(sqlite: Database, where = '', params: SqlValue[] = [], options: { scan?: boolean; untitled?: boolean } = {}): TaskNode[] {
	const columns = options.untitled ? untitledColumns : taskColumns;
	const rows = jsonRows(sqlite, columns, { table: 'tasks', where, params, scan: options.scan === true });
	const out: TaskNode[] = new Array<TaskNode>(rows.length);
	for (let i = 0; i < rows.length; i++) {
		const row = rows[i] as unknown[];
		out[i] = {
			id: row[0] as string,
			seq: row[1] as number,
			title: row[2] as string,
			type: row[3] as TaskNode['type'],
			status: row[4] as TaskNode['status'],
			priority: row[5] as TaskNode['priority'],
			parentId: row[6] as string | null,
			phase: row[7] as string | null,
		};
	}
	return out;
}

/**
 * Both columns of every dependency as plain strings, in table order: drizzle's row mapping adds nothing
 * to two text columns. `reach` narrows them to the rows of the tasks it names: a common table
 * expression `reach(id)`, written out as its body.
 */
export function dependencyRows(sqlite: Database, reach?: string): { taskId: string; dependsOnId: string }[] {
	const rows = jsonRows(
		sqlite,
		'task_id, depends_on_id',
		reach ? { table: 'task_dependencies', where: 'task_id IN reach', with: `WITH RECURSIVE reach(id) AS (${reach}) ` } : { table: 'task_dependencies' },
	);
	const out: { taskId: string; dependsOnId: string }[] = new Array<{ taskId: string; dependsOnId: string }>(rows.length);
	for (let i = 0; i < rows.length; i++) {
		const row = rows[i] as unknown[];
		out[i] = { taskId: row[0] as string, dependsOnId: row[1] as string };
	}
	return out;
}
