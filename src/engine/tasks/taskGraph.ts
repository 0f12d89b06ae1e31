/**
 * An in-memory view of the task graph (parents and dependencies) for briefings and scope checks.
 * Built once per change of the tasks tables and reused, so a briefing over tens of thousands of tasks
 * costs a few lookups rather than a table scan.
 */
import type { Task, TaskPriority } from '../storage/model';
import { computeLeverage } from './leverage';

const openStatuses = new Set<Task['status']>(['pending', 'active', 'blocked']);
const priorityWeight: Record<TaskPriority, number> = { critical: 4, high: 3, medium: 2, low: 1 };

export function isOpen(task: Pick<Task, 'status'>): boolean {
	return openStatuses.has(task.status);
}

export class TaskGraph {
	readonly byId = new Map<string, Task>();
	private readonly children = new Map<string, string[]>();
	/** task → tasks it waits on */
	private readonly dependsOn = new Map<string, string[]>();
	/** task → tasks waiting on it */
	private readonly dependents = new Map<string, string[]>();
	private leverageAll: Map<string, number> | undefined;
	private readonly subtreeCache = new Map<string, ReadonlySet<string>>();
	private ranked: Task[] | undefined;
	private readonly memo = new Map<string, unknown>();

	constructor(tasks: readonly Task[], deps: readonly { taskId: string; dependsOnId: string }[]) {
		for (const task of tasks) {
			this.byId.set(task.id, task);
		}
		for (const task of tasks) {
			if (task.parentId) {
				push(this.children, task.parentId, task.id);
			}
		}
		for (const dep of deps) {
			push(this.dependsOn, dep.taskId, dep.dependsOnId);
			push(this.dependents, dep.dependsOnId, dep.taskId);
		}
	}

	get size(): number {
		return this.byId.size;
	}

	childrenOf(id: string): readonly string[] {
		return this.children.get(id) ?? [];
	}

	dependenciesOf(id: string): readonly string[] {
		return this.dependsOn.get(id) ?? [];
	}

	/** Open tasks that `id` still waits on. */
	openBlockersOf(id: string): string[] {
		return this.dependenciesOf(id).filter((d) => {
			const dep = this.byId.get(d);
			return dep !== undefined && isOpen(dep);
		});
	}

	private hasOpenBlocker(id: string): boolean {
		for (const d of this.dependsOn.get(id) ?? []) {
			const dep = this.byId.get(d);
			if (dep !== undefined && isOpen(dep)) {
				return true;
			}
		}
		return false;
	}

	/** `id` and every descendant through parent links. */
	subtree(id: string): ReadonlySet<string> {
		const cached = this.subtreeCache.get(id);
		if (cached) {
			return cached;
		}
		const out = new Set<string>();
		const stack = [id];
		while (stack.length > 0) {
			const next = stack.pop() as string;
			if (out.has(next)) {
				continue;
			}
			out.add(next);
			stack.push(...this.childrenOf(next));
		}
		this.subtreeCache.set(id, out);
		return out;
	}

	/** How many open tasks transitively wait on `id`: what finishing it unblocks. */
	leverage(id: string): number {
		// One pass computes every task's leverage, so ranking is linear rather than a search per task.
		this.leverageAll ??= computeLeverage(this.byId.keys(), this.dependents, (waiting) => {
			const task = this.byId.get(waiting);
			return task !== undefined && isOpen(task);
		});
		return this.leverageAll.get(id) ?? 0;
	}

	score(task: Task): number {
		return priorityWeight[task.priority] * 10 + this.leverage(task.id) * 3 + (task.type === 'bug' ? 2 : 0);
	}

	/** Every actionable task (open, not an epic, nothing open in its way), best first. */
	rankedActionable(): readonly Task[] {
		if (!this.ranked) {
			// Plain loops and a numeric sort key: a fresh process runs this once, before any JIT has warmed up.
			const candidates: Task[] = [];
			const keys: number[] = [];
			for (const t of this.byId.values()) {
				if ((t.status === 'pending' || t.status === 'active') && t.type !== 'epic' && !this.hasOpenBlocker(t.id)) {
					keys.push(candidates.length);
					candidates.push(t);
				}
			}
			const scores = candidates.map((t) => this.score(t));
			keys.sort((a, b) => (scores[b] as number) - (scores[a] as number) || (candidates[a] as Task).seq - (candidates[b] as Task).seq);
			this.ranked = keys.map((k) => candidates[k] as Task);
		}
		return this.ranked;
	}

	/** A derived list computed once per graph (the graph is rebuilt whenever tasks change). */
	memoize<T>(key: string, compute: () => T): T {
		if (!this.memo.has(key)) {
			this.memo.set(key, compute());
		}
		return this.memo.get(key) as T;
	}

	/** True when adding "taskId depends on dependsOnId" would close a cycle. */
	wouldCycle(taskId: string, dependsOnId: string): boolean {
		if (taskId === dependsOnId) {
			return true;
		}
		const stack = [dependsOnId];
		const seen = new Set<string>();
		while (stack.length > 0) {
			const next = stack.pop() as string;
			if (next === taskId) {
				return true;
			}
			if (!seen.has(next)) {
				seen.add(next);
				stack.push(...this.dependenciesOf(next));
			}
		}
		return false;
	}

	/** True when making `parentId` the parent of `taskId` would put a task under itself. */
	wouldNestInItself(taskId: string, parentId: string): boolean {
		return this.subtree(taskId).has(parentId);
	}
}

function push(map: Map<string, string[]>, key: string, value: string): void {
	const list = map.get(key);
	if (list) {
		list.push(value);
	} else {
		map.set(key, [value]);
	}
}
