/**
 * Leverage kept across changes of the task graph, so a long-lived backend does not redo the whole
 * pass each time a task or dependency changes (its own writes and records replayed from other
 * processes alike: both arrive as a new graph built from the tables).
 *
 * A task's leverage depends only on the tasks that transitively wait on it. A change at task `s` (its
 * counting changed, it appeared or went, or an edge "a waits on s" was added or removed) can therefore
 * only change the leverage of `s` and of the tasks `s` transitively waits on, in the graph before or
 * after. Those are recomputed with the one-pass leverage over the tasks waiting on them (a closed
 * subgraph, so its values are exact); every other value is kept.
 */
import { computeLeverage, leverageOfEdges } from './leverage';

/** The parts of a task graph leverage reads. */
export interface LeverageGraph {
	/** task → tasks waiting on it */
	readonly dependents: ReadonlyMap<string, readonly string[]>;
	/** task → tasks it waits on */
	readonly dependsOn: ReadonlyMap<string, readonly string[]>;
	/** The tasks in the table (dependency ends outside it are traversed, never counted). */
	ids(): Iterable<string>;
	counted(id: string): boolean;
	/** Every task and dependency end numbered (tasks first); edge k: `to[k]` waits on `from[k]`. */
	readonly index: ReadonlyMap<string, number>;
	edges(): { from: Int32Array; to: Int32Array };
	/** `counted` of every numbered task, by number. */
	countedFlags(): Uint8Array;
}

/** How the last leverage was obtained: all of it, part of it (how many tasks), or kept as it was. */
export type LeverageUpdate = { kind: 'full' } | { kind: 'incremental'; recomputed: number } | { kind: 'unchanged' };

export class LeverageState {
	private constructor(
		private readonly index: ReadonlyMap<string, number>,
		private readonly values: Int32Array,
		readonly update: LeverageUpdate,
	) {}

	static full(graph: LeverageGraph): LeverageState {
		const { from, to } = graph.edges();
		return new LeverageState(graph.index, leverageOfEdges(graph.index.size, from, to, graph.countedFlags()), { kind: 'full' });
	}

	/** The leverage of `after`, from this state (which is `before`'s) and the differences between them. */
	next(before: LeverageGraph, after: LeverageGraph): LeverageState {
		const seeds = changedTasks(before, after);
		if (seeds.size === 0) {
			return new LeverageState(after.index, this.carried(after), { kind: 'unchanged' });
		}
		const affected = closure(seeds, before.dependsOn);
		for (const id of closure(seeds, after.dependsOn)) {
			affected.add(id);
		}
		// Everything waiting on an affected task: closed under "waits on", so leverage inside it is exact.
		const below = closure(affected, after.dependents);
		const dependents = new Map<string, readonly string[]>();
		for (const id of below) {
			const list = after.dependents.get(id);
			if (list) {
				dependents.set(id, list);
			}
		}
		const part = computeLeverage(below, dependents, (id) => after.counted(id));
		const values = this.carried(after);
		for (const id of affected) {
			const i = after.index.get(id);
			if (i !== undefined) {
				values[i] = part.get(id) ?? 0;
			}
		}
		return new LeverageState(after.index, values, { kind: 'incremental', recomputed: below.size });
	}

	get(id: string): number {
		const i = this.index.get(id);
		return i === undefined ? 0 : (this.values[i] as number);
	}

	/** The leverage of the task numbered `i` in the graph this state belongs to. */
	at(i: number): number {
		return (this.values[i] as number) ?? 0;
	}

	/** These values renumbered for `graph`. */
	private carried(graph: LeverageGraph): Int32Array {
		if (graph.index === this.index) {
			return this.values.slice();
		}
		const values = new Int32Array(graph.index.size);
		for (const [id, i] of graph.index) {
			values[i] = this.get(id);
		}
		return values;
	}
}

/** Tasks whose counting changed, and the tasks an added or removed edge points at. */
function changedTasks(before: LeverageGraph, after: LeverageGraph): Set<string> {
	const seeds = new Set<string>();
	for (const id of after.ids()) {
		if (after.counted(id) !== before.counted(id)) {
			seeds.add(id);
		}
	}
	for (const id of before.ids()) {
		if (after.counted(id) !== before.counted(id)) {
			seeds.add(id);
		}
	}
	const edgeChanges = (from: LeverageGraph, to: LeverageGraph) => {
		for (const [task, list] of from.dependsOn) {
			const other = to.dependsOn.get(task);
			if (other === list) {
				continue;
			}
			const kept = new Set(other ?? []);
			for (const on of list) {
				if (!kept.has(on)) {
					seeds.add(on);
				}
			}
		}
	};
	edgeChanges(before, after);
	edgeChanges(after, before);
	return seeds;
}

/** `from` and everything reachable from it through `edges`. */
function closure(from: Iterable<string>, edges: ReadonlyMap<string, readonly string[]>): Set<string> {
	const seen = new Set<string>();
	const stack: string[] = [];
	for (const id of from) {
		if (!seen.has(id)) {
			seen.add(id);
			stack.push(id);
		}
	}
	while (stack.length > 0) {
		const next = edges.get(stack.pop() as string);
		if (next) {
			for (const id of next) {
				if (!seen.has(id)) {
					seen.add(id);
					stack.push(id);
				}
			}
		}
	}
	return seen;
}
