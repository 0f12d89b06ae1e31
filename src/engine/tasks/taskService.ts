/**
 * Baton's own task graph: what briefings rank and scopes cover. Tasks are `T<n>`; dependencies say
 * which tasks wait on which; cycles and self-parenting are refused.
 */
import { and, asc, eq, max } from 'drizzle-orm';
import { audit } from '../audit';
import type { EngineContext } from '../context';
import { BatonError } from '../errors';
import type { Task, TaskPriority, TaskStatus, TaskType } from '../storage/model';
import { sessions, taskDependencies, tasks, taskPriorities, taskStatuses, taskTypes } from '../storage/schema';
import type { BatonDb } from '../storage/journalStore';
import { scopeTaskIds } from './scopeTaskIds';
import { isOpen } from './taskGraph';
import type { TaskWithDependencies } from './taskShapes';

export type { TaskWithDependencies } from './taskShapes';
import { taskGraphOf } from './taskGraphOf';

interface AddTaskInput {
	title: string;
	type?: TaskType;
	priority?: TaskPriority;
	parentId?: string;
	dependsOn?: string[];
	description?: string;
	phase?: string;
	actor: string;
}

interface UpdateTaskInput {
	id: string;
	status?: TaskStatus;
	title?: string;
	priority?: TaskPriority;
	parentId?: string | null;
	addDependsOn?: string[];
	removeDependsOn?: string[];
	actor: string;
}

export class TaskService {
	constructor(private readonly ctx: EngineContext) {}

	async add(input: AddTaskInput): Promise<TaskWithDependencies> {
		const title = input.title.trim();
		if (!title) {
			throw new BatonError('invalidInput', 'a task needs a title');
		}
		assertEnum('type', input.type, taskTypes);
		assertEnum('priority', input.priority, taskPriorities);
		return this.ctx.store.write((db) => {
			const graph = taskGraphOf(this.ctx);
			if (input.parentId && !graph.byId.has(input.parentId)) {
				throw new BatonError('notFound', `parent task ${input.parentId} does not exist`);
			}
			const deps = [...new Set(input.dependsOn ?? [])];
			for (const dep of deps) {
				if (!graph.byId.has(dep)) {
					throw new BatonError('notFound', `dependency ${dep} does not exist`);
				}
			}
			const seq =
				(db
					.select({ value: max(tasks.seq) })
					.from(tasks)
					.get()?.value ?? 0) + 1;
			const now = this.ctx.nowIso();
			const active = activeSessionId(db);
			const id = `T${seq}`;
			db.insert(tasks)
				.values({
					id,
					seq,
					title,
					description: input.description ?? null,
					type: input.type ?? 'task',
					status: 'pending',
					priority: input.priority ?? 'medium',
					parentId: input.parentId ?? null,
					phase: input.phase ?? null,
					createdAt: now,
					updatedAt: now,
					createdBySession: active,
				})
				.run();
			for (const dep of deps) {
				db.insert(taskDependencies).values({ taskId: id, dependsOnId: dep }).run();
			}
			if (active) {
				bumpSessionStat(db, active, 'tasksCreated');
			}
			audit(db, { at: now, actor: input.actor, operation: 'task.add', sessionId: active, entityType: 'task', entityId: id, details: { title } });
			return withDeps(db, id);
		});
	}

	async update(input: UpdateTaskInput): Promise<TaskWithDependencies> {
		assertEnum('status', input.status, taskStatuses);
		assertEnum('priority', input.priority, taskPriorities);
		return this.ctx.store.write((db) => {
			const graph = taskGraphOf(this.ctx);
			const task = graph.byId.get(input.id);
			if (!task) {
				throw new BatonError('notFound', `task ${input.id} does not exist`);
			}
			const now = this.ctx.nowIso();
			const active = activeSessionId(db);
			const patch: Partial<Task> = { updatedAt: now };
			if (input.title !== undefined) {
				if (!input.title.trim()) {
					throw new BatonError('invalidInput', 'a task needs a title');
				}
				patch.title = input.title.trim();
			}
			if (input.priority) {
				patch.priority = input.priority;
			}
			if (input.parentId !== undefined) {
				if (input.parentId !== null && !graph.byId.has(input.parentId)) {
					throw new BatonError('notFound', `parent task ${input.parentId} does not exist`);
				}
				if (input.parentId !== null && graph.wouldNestInItself(task.id, input.parentId)) {
					throw new BatonError('invalidInput', `${input.parentId} is inside ${task.id}: a task cannot be its own ancestor`);
				}
				patch.parentId = input.parentId;
			}
			if (input.status && input.status !== task.status) {
				patch.status = input.status;
				if (input.status === 'done') {
					patch.completedAt = now;
					patch.completedBySession = active;
					if (active) {
						bumpSessionStat(db, active, 'tasksCompleted');
					}
				} else if (task.status === 'done') {
					patch.completedAt = null;
					patch.completedBySession = null;
				}
			}
			db.update(tasks).set(patch).where(eq(tasks.id, task.id)).run();
			for (const dep of new Set(input.addDependsOn ?? [])) {
				if (!graph.byId.has(dep)) {
					throw new BatonError('notFound', `dependency ${dep} does not exist`);
				}
				if (graph.wouldCycle(task.id, dep)) {
					throw new BatonError('invalidInput', `${task.id} cannot depend on ${dep}: that would make a cycle`);
				}
				db.insert(taskDependencies).values({ taskId: task.id, dependsOnId: dep }).onConflictDoNothing().run();
			}
			for (const dep of new Set(input.removeDependsOn ?? [])) {
				db.delete(taskDependencies)
					.where(and(eq(taskDependencies.taskId, task.id), eq(taskDependencies.dependsOnId, dep)))
					.run();
			}
			audit(db, {
				at: now,
				actor: input.actor,
				operation: 'task.update',
				sessionId: active,
				entityType: 'task',
				entityId: task.id,
				details: { ...patch, addDependsOn: input.addDependsOn, removeDependsOn: input.removeDependsOn },
			});
			return withDeps(db, task.id);
		});
	}

	async get(id: string): Promise<TaskWithDependencies> {
		return this.ctx.store.read((db) => {
			if (!taskGraphOf(this.ctx).byId.has(id)) {
				throw new BatonError('notFound', `task ${id} does not exist`);
			}
			return withDeps(db, id);
		});
	}

	async list(filter: { status?: TaskStatus; type?: TaskType; scope?: string } = {}): Promise<TaskWithDependencies[]> {
		assertEnum('status', filter.status, taskStatuses);
		assertEnum('type', filter.type, taskTypes);
		return this.ctx.store.read((db) => {
			const graph = taskGraphOf(this.ctx);
			// The whole rows only of the tasks listed (the graph keeps what ranking needs).
			const conditions = [filter.status ? eq(tasks.status, filter.status) : undefined, filter.type ? eq(tasks.type, filter.type) : undefined].filter(
				(c) => c !== undefined,
			);
			const list = db
				.select()
				.from(tasks)
				// eslint-disable-next-line no-restricted-syntax -- one condition per filter option above (two)
				.where(conditions.length > 0 ? and(...conditions) : undefined)
				.orderBy(asc(tasks.seq))
				.all();
			return list.map((t) => ({ ...t, dependsOn: [...graph.dependenciesOf(t.id)] }));
		});
	}

	/**
	 * Make `id` the current task of a session (the active one when not given) and mark it active,
	 * within the `maxActiveTasksPerScope` limit.
	 */
	async focus(input: { id: string; sessionId?: string; actor: string }): Promise<{ task: TaskWithDependencies; sessionId: string; warnings: string[] }> {
		return this.ctx.store.write((db) => {
			const graph = taskGraphOf(this.ctx);
			const task = graph.byId.get(input.id);
			if (!task) {
				throw new BatonError('notFound', `task ${input.id} does not exist`);
			}
			if (!isOpen(task)) {
				throw new BatonError('invalidTransition', `task ${task.id} is ${task.status}; reopen it before focusing on it`);
			}
			const session = input.sessionId ? db.select().from(sessions).where(eq(sessions.id, input.sessionId)).get() : soleActiveSession(db);
			if (!session || session.status !== 'active') {
				throw new BatonError('invalidTransition', input.sessionId ? `session ${input.sessionId} is not active` : 'no active session to focus');
			}
			const warnings: string[] = [];
			const inScope = scopeTaskIds(session.scope, graph);
			if (inScope && !inScope.has(task.id)) {
				const message = `task ${task.id} is outside the scope ${session.scopeKey} of session ${session.id}`;
				if (this.ctx.config.scopeValidation === 'strict') {
					throw new BatonError('invalidScope', message);
				}
				if (this.ctx.config.scopeValidation === 'warn') {
					warnings.push(message);
				}
			}
			const activeInScope = [...graph.byId.values()].filter((t) => t.status === 'active' && t.id !== task.id && (!inScope || inScope.has(t.id)));
			// The task the session leaves goes back to pending, so focus moves rather than piles up.
			const previous = session.currentTask && session.currentTask !== task.id ? graph.byId.get(session.currentTask) : undefined;
			const stillActive = activeInScope.filter((t) => t.id !== previous?.id);
			if (stillActive.length >= this.ctx.config.maxActiveTasksPerScope) {
				throw new BatonError(
					'limitReached',
					`scope ${session.scopeKey} already has ${stillActive.length} active task(s) (${stillActive.map((t) => t.id).join(', ')}); maxActiveTasksPerScope is ${this.ctx.config.maxActiveTasksPerScope}`,
				);
			}
			const now = this.ctx.nowIso();
			if (previous && previous.status === 'active') {
				db.update(tasks).set({ status: 'pending', updatedAt: now }).where(eq(tasks.id, previous.id)).run();
			}
			db.update(tasks).set({ status: 'active', updatedAt: now }).where(eq(tasks.id, task.id)).run();
			db.update(sessions)
				.set({
					currentTask: task.id,
					taskStartedAt: now,
					lastActivity: now,
					updatedAt: now,
					stats: { ...session.stats, focusChanges: session.stats.focusChanges + 1 },
				})
				.where(eq(sessions.id, session.id))
				.run();
			audit(db, { at: now, actor: input.actor, operation: 'task.focus', sessionId: session.id, entityType: 'task', entityId: task.id });
			return { task: withDeps(db, task.id), sessionId: session.id, warnings };
		});
	}
}

function assertEnum(field: string, value: string | undefined, allowed: readonly string[]): void {
	if (value !== undefined && !allowed.includes(value)) {
		throw new BatonError('invalidInput', `invalid ${field} "${value}" (one of ${allowed.join(', ')})`);
	}
}

function withDeps(db: BatonDb, id: string): TaskWithDependencies {
	const task = db.select().from(tasks).where(eq(tasks.id, id)).get();
	if (!task) {
		throw new BatonError('notFound', `task ${id} does not exist`);
	}
	const deps = db
		.select({ id: taskDependencies.dependsOnId })
		.from(taskDependencies)
		.where(eq(taskDependencies.taskId, id))
		.orderBy(asc(taskDependencies.dependsOnId))
		.all();
	return { ...task, dependsOn: deps.map((d) => d.id) };
}

/** The one active session, when there is exactly one: the implicit "current session" of a write. */
function activeSessionId(db: BatonDb): string | null {
	return soleActiveSession(db)?.id ?? null;
}

function soleActiveSession(db: BatonDb) {
	const active = db.select().from(sessions).where(eq(sessions.status, 'active')).limit(2).all();
	return active.length === 1 ? active[0] : undefined;
}

export function bumpSessionStat(db: BatonDb, sessionId: string, stat: 'tasksCompleted' | 'tasksCreated' | 'decisionsRecorded'): void {
	const row = db.select({ stats: sessions.stats }).from(sessions).where(eq(sessions.id, sessionId)).get();
	if (row) {
		db.update(sessions)
			.set({ stats: { ...row.stats, [stat]: row.stats[stat] + 1 } })
			.where(eq(sessions.id, sessionId))
			.run();
	}
}
