/**
 * An in-memory view of the task graph (parents and dependencies) for briefings and scope checks.
 * Built once per change of the tasks tables and reused, so a briefing over tens of thousands of tasks
 * costs a few lookups rather than a table scan.
 */
import type { Task, TaskPriority } from '../storage/model';
import { adjacency } from './leverage';
import { LeverageState, type LeverageGraph, type LeverageUpdate } from './leverageState';
import { pushAll } from '../arrays';

const openStatuses = new Set<Task['status']>(['pending', 'active', 'blocked']);
const priorityWeight: Record<TaskPriority, number> = { critical: 4, high: 3, medium: 2, low: 1 };

/** What the graph keeps of a task: what ranking, scopes and listings read (not descriptions or timestamps). */
export type TaskNode = Pick<Task, 'id' | 'seq' | 'title' | 'type' | 'status' | 'priority' | 'parentId' | 'phase'>;

export function isOpen(task: Pick<Task, 'status'>): boolean {
	return openStatuses.has(task.status);
}

export class TaskGraph {
	readonly byId = new Map<string, TaskNode>();
	private readonly children = new Map<string, string[]>();
	/**
	 * task → tasks it waits on, and task → tasks waiting on it, in table order: built only when the
	 * leverage of a changed graph is carried over (leverageState.ts walks them by id). A briefing in a
	 * fresh process never builds them: it reads a task's own dependencies from `waitsOn` (one typed
	 * array over every edge, by task number), not a list per task in a map per end.
	 */
	private dependencyMaps: { dependsOn: Map<string, string[]>; dependents: Map<string, string[]> } | undefined;
	private waitsOnIndex: { start: Int32Array; on: Int32Array } | undefined;
	private leverageAll: LeverageState | undefined;
	/** The graph this one replaced, while its leverage can still be carried over (see leverageState.ts). */
	private previous: TaskGraph | undefined;
	private readonly subtreeCache = new Map<string, ReadonlySet<string>>();
	private ranked: TaskNode[] | undefined;
	private readonly memo = new Map<string, unknown>();
	/** Tasks, then dependency ends missing from the table, numbered for the leverage pass. */
	private readonly index = new Map<string, number>();
	/** `index` the other way: the id of each number. */
	private readonly ids: string[] = [];
	/** Dependency k: task `edgeTo[k]` waits on task `edgeFrom[k]` (numbers from `index`). */
	private readonly edgeFrom: Int32Array;
	private readonly edgeTo: Int32Array;
	private open: Uint8Array | undefined;

	/** The dependencies it was built from, in their order (what a saved copy of it holds: openTasksFile.ts). */
	dependencies(): { taskId: string; dependsOnId: string }[] {
		const out = new Array<{ taskId: string; dependsOnId: string }>(this.edgeFrom.length);
		for (let k = 0; k < this.edgeFrom.length; k++) {
			out[k] = { taskId: this.ids[this.edgeTo[k] as number] as string, dependsOnId: this.ids[this.edgeFrom[k] as number] as string };
		}
		return out;
	}

	/** `previous`: the graph of the same store before this change, whose leverage this one updates. */
	constructor(tasks: readonly TaskNode[], deps: readonly { taskId: string; dependsOnId: string }[], previous?: TaskGraph) {
		this.previous = previous?.leverageAll ? previous : undefined;
		const index = this.index;
		const ids = this.ids;
		for (const task of tasks) {
			this.byId.set(task.id, task);
			if (!index.has(task.id)) {
				index.set(task.id, ids.length);
				ids.push(task.id);
			}
			if (task.parentId) {
				push(this.children, task.parentId, task.id);
			}
		}
		this.edgeFrom = new Int32Array(deps.length);
		this.edgeTo = new Int32Array(deps.length);
		for (let k = 0; k < deps.length; k++) {
			const dep = deps[k] as { taskId: string; dependsOnId: string };
			let from = index.get(dep.dependsOnId);
			if (from === undefined) {
				from = ids.length;
				index.set(dep.dependsOnId, from);
				ids.push(dep.dependsOnId);
			}
			let to = index.get(dep.taskId);
			if (to === undefined) {
				to = ids.length;
				index.set(dep.taskId, to);
				ids.push(dep.taskId);
			}
			this.edgeFrom[k] = from;
			this.edgeTo[k] = to;
		}
	}

	get size(): number {
		return this.byId.size;
	}

	childrenOf(id: string): readonly string[] {
		return this.children.get(id) ?? [];
	}

	/** The tasks `id` waits on, in table order. */
	dependenciesOf(id: string): readonly string[] {
		const task = this.index.get(id);
		if (task === undefined) {
			return [];
		}
		const { start, on } = this.waitsOn();
		const out: string[] = [];
		for (let p = start[task] as number; p < (start[task + 1] as number); p++) {
			out.push(this.ids[on[p] as number] as string);
		}
		return out;
	}

	/** Every edge grouped by the task that waits, each task's in table order: task i waits on `on[start[i]]` … `on[start[i + 1] - 1]`. */
	private waitsOn(): { start: Int32Array; on: Int32Array } {
		if (!this.waitsOnIndex) {
			const { start, edges } = adjacency(this.ids.length, this.edgeTo, this.edgeFrom);
			this.waitsOnIndex = { start, on: edges };
		}
		return this.waitsOnIndex;
	}

	/** Both ends' lists by id, in table order (see `dependencyMaps`). */
	private byIdMaps(): { dependsOn: Map<string, string[]>; dependents: Map<string, string[]> } {
		if (!this.dependencyMaps) {
			const maps = { dependsOn: new Map<string, string[]>(), dependents: new Map<string, string[]>() };
			for (let k = 0; k < this.edgeTo.length; k++) {
				const task = this.ids[this.edgeTo[k] as number] as string;
				const on = this.ids[this.edgeFrom[k] as number] as string;
				push(maps.dependsOn, task, on);
				push(maps.dependents, on, task);
			}
			this.dependencyMaps = maps;
		}
		return this.dependencyMaps;
	}

	/** Open tasks that `id` still waits on. */
	openBlockersOf(id: string): string[] {
		return this.dependenciesOf(id).filter((d) => {
			const dep = this.byId.get(d);
			return dep !== undefined && isOpen(dep);
		});
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
			pushAll(stack, [...this.childrenOf(next)]);
		}
		this.subtreeCache.set(id, out);
		return out;
	}

	/** How many open tasks transitively wait on `id`: what finishing it unblocks. */
	leverage(id: string): number {
		return this.leverageState().get(id);
	}

	/** How this graph's leverage was obtained (a full pass, an update of the previous graph's, or kept). */
	get leverageUpdate(): LeverageUpdate {
		return this.leverageState().update;
	}

	private leverageState(): LeverageState {
		if (!this.leverageAll) {
			// One pass computes every task's leverage, so ranking is linear rather than a search per task;
			// after a change only the tasks the change can reach are recomputed.
			const previous = this.previous;
			this.previous = undefined;
			const state = previous?.leverageAll;
			this.leverageAll = previous && state ? state.next(previous.leverageView(), this.leverageView()) : LeverageState.full(this.leverageView());
		}
		return this.leverageAll;
	}

	/** 1 for each open task by number (dependency ends missing from the table are 0). */
	private openFlags(): Uint8Array {
		if (!this.open) {
			this.open = new Uint8Array(this.index.size);
			let i = 0;
			for (const t of this.byId.values()) {
				this.open[i++] = t.status === 'pending' || t.status === 'active' || t.status === 'blocked' ? 1 : 0;
			}
		}
		return this.open;
	}

	private leverageView(): LeverageGraph {
		const byId = this.byId;
		const maps = () => this.byIdMaps();
		return {
			get dependents() {
				return maps().dependents;
			},
			get dependsOn() {
				return maps().dependsOn;
			},
			ids: () => byId.keys(),
			index: this.index,
			edges: () => ({ from: this.edgeFrom, to: this.edgeTo }),
			countedFlags: () => this.openFlags(),
			counted: (id) => {
				const task = byId.get(id);
				return task !== undefined && (task.status === 'pending' || task.status === 'active' || task.status === 'blocked');
			},
		};
	}

	score(task: TaskNode): number {
		return scoreOf(task, this.leverage(task.id));
	}

	/** Every actionable task (open, not an epic, nothing open in its way), best first. */
	rankedActionable(): readonly TaskNode[] {
		if (!this.ranked) {
			// Plain loops and a numeric sort key: a fresh process runs this once, before any JIT has warmed up.
			const open = this.openFlags();
			const blocked = new Uint8Array(open.length);
			for (let k = 0; k < this.edgeFrom.length; k++) {
				if (open[this.edgeFrom[k] as number] === 1) {
					blocked[this.edgeTo[k] as number] = 1;
				}
			}
			// Taken even with no candidates, so the next graph can carry it over.
			const leverage = this.leverageState();
			const candidates: TaskNode[] = [];
			const scores: number[] = [];
			const keys: number[] = [];
			// byId's order is the numbering's: task i is the i-th value.
			let i = 0;
			for (const t of this.byId.values()) {
				if ((t.status === 'pending' || t.status === 'active') && t.type !== 'epic' && blocked[i] === 0) {
					keys.push(candidates.length);
					candidates.push(t);
					scores.push(scoreOf(t, leverage.at(i)));
				}
				i++;
			}
			this.ranked = bestFirst(candidates, scores, keys);
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
				pushAll(stack, [...this.dependenciesOf(next)]);
			}
		}
		return false;
	}

	/** True when making `parentId` the parent of `taskId` would put a task under itself. */
	wouldNestInItself(taskId: string, parentId: string): boolean {
		return this.subtree(taskId).has(parentId);
	}
}

function scoreOf(task: TaskNode, leverage: number): number {
	return priorityWeight[task.priority] * 10 + leverage * 3 + (task.type === 'bug' ? 2 : 0);
}

/**
 * Candidates by score (highest first), then by seq. When every seq is a small non-negative integer
 * (always, for Baton's own tasks) both go into one number per task and a typed array sorts them
 * natively: a comparator called a few hundred thousand times is most of a cold process's ranking.
 */
function bestFirst(candidates: readonly TaskNode[], scores: readonly number[], keys: number[]): TaskNode[] {
	let top = 0;
	let simple = true;
	const bySeq = new Map<number, TaskNode>();
	for (let i = 0; i < candidates.length; i++) {
		const seq = (candidates[i] as TaskNode).seq;
		const score = scores[i] as number;
		if (!Number.isInteger(seq) || seq < 0 || seq >= seqRange || !Number.isInteger(score) || score < 0 || bySeq.has(seq)) {
			simple = false;
			break;
		}
		bySeq.set(seq, candidates[i] as TaskNode);
		top = Math.max(top, score);
	}
	if (!simple || top >= Number.MAX_SAFE_INTEGER / seqRange) {
		keys.sort((a, b) => (scores[b] as number) - (scores[a] as number) || (candidates[a] as TaskNode).seq - (candidates[b] as TaskNode).seq);
		return keys.map((k) => candidates[k] as TaskNode);
	}
	const packed = new Float64Array(candidates.length);
	for (let i = 0; i < candidates.length; i++) {
		packed[i] = (top - (scores[i] as number)) * seqRange + (candidates[i] as TaskNode).seq;
	}
	packed.sort();
	const out: TaskNode[] = new Array<TaskNode>(packed.length);
	for (let i = 0; i < packed.length; i++) {
		out[i] = bySeq.get((packed[i] as number) % seqRange) as TaskNode;
	}
	return out;
}

const seqRange = 2 ** 32;

function push(map: Map<string, string[]>, key: string, value: string): void {
	const list = map.get(key);
	if (list) {
		list.push(value);
	} else {
		map.set(key, [value]);
	}
}
