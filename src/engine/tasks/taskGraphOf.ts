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

/**
 * Only the columns the graph keeps, read straight from SQLite: a briefing in a fresh process decodes
 * no descriptions or timestamps, and no per-row mapping a handful of plain columns does not need.
 * `where` narrows the rows (with `params`); the rows come in table order either way.
 */
export function taskNodes(sqlite: Database, where = '', params: SqlValue[] = []): TaskNode[] {
	const out: TaskNode[] = [];
	const query = `SELECT id, seq, title, type, status, priority, parent_id, phase FROM tasks${where ? ` WHERE ${where} ORDER BY rowid` : ''}`;
	for (const result of sqlite.exec(query, params)) {
		for (const row of result.values) {
			out.push({
				id: row[0] as string,
				seq: row[1] as number,
				title: row[2] as string,
				type: row[3] as TaskNode['type'],
				status: row[4] as TaskNode['status'],
				priority: row[5] as TaskNode['priority'],
				parentId: row[6] as string | null,
				phase: row[7] as string | null,
			});
		}
	}
	return out;
}

/**
 * Both columns of every dependency as plain strings: drizzle's row mapping adds nothing to two text
 * columns. `query` reads some of them instead (the same two columns, in table order).
 */
export function dependencyRows(sqlite: Database, query = 'SELECT task_id, depends_on_id FROM task_dependencies'): { taskId: string; dependsOnId: string }[] {
	const out: { taskId: string; dependsOnId: string }[] = [];
	for (const result of sqlite.exec(query)) {
		for (const row of result.values) {
			out.push({ taskId: row[0] as string, dependsOnId: row[1] as string });
		}
	}
	return out;
}
