/**
 * The task graph of an engine's data, built once per change of the task tables and shared by every
 * service (tasks, sessions, briefings) until the next change.
 */
import type { Database } from 'sql.js';
import type { EngineContext } from '../context';
import { tasks } from '../storage/schema';
import type { BatonDb } from '../storage/journalStore';
import { TaskGraph, type TaskNode } from './taskGraph';

/** The task graph as of the data applied so far; rebuilt only when a tasks table changed (leverage is carried over). */
export function taskGraphOf(ctx: EngineContext): TaskGraph {
	return ctx.derived('taskGraph', ['tasks', 'task_dependencies'], (db, previous: TaskGraph | undefined) => new TaskGraph(taskNodes(db), dependencyRows(ctx.store.sqlite), previous));
}

/** Only the columns the graph keeps: a briefing in a fresh process decodes no descriptions or timestamps. */
function taskNodes(db: BatonDb): TaskNode[] {
	return db.select({ id: tasks.id, seq: tasks.seq, title: tasks.title, type: tasks.type, status: tasks.status, priority: tasks.priority, parentId: tasks.parentId, phase: tasks.phase }).from(tasks).all();
}

/** Both columns of every dependency as plain strings: drizzle's row mapping adds nothing to two text columns. */
export function dependencyRows(sqlite: Database): { taskId: string; dependsOnId: string }[] {
	const out: { taskId: string; dependsOnId: string }[] = [];
	for (const result of sqlite.exec('SELECT task_id, depends_on_id FROM task_dependencies')) {
		for (const row of result.values) {
			out.push({ taskId: row[0] as string, dependsOnId: row[1] as string });
		}
	}
	return out;
}
