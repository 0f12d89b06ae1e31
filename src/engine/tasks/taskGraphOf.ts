/**
 * The task graph of an engine's data, built once per change of the task tables and shared by every
 * service (tasks, sessions, briefings) until the next change.
 */
import type { EngineContext } from '../context';
import { taskDependencies, tasks } from '../storage/schema';
import { TaskGraph } from './taskGraph';

/** The task graph as of the data applied so far; rebuilt only when a tasks table changed. */
export function taskGraphOf(ctx: EngineContext): TaskGraph {
	return ctx.derived('taskGraph', ['tasks', 'task_dependencies'], (db) => new TaskGraph(db.select().from(tasks).all(), db.select().from(taskDependencies).all()));
}
