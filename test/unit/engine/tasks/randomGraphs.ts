/** Random task graphs of several shapes, from a seed (a failing seed can be replayed). */
import type { Task } from '../../../../src/engine/storage/model';
import { taskPriorities, taskStatuses, taskTypes } from '../../../../src/engine/storage/schema';

export type Dep = { taskId: string; dependsOnId: string };

/** Small deterministic generator, so a failing seed can be replayed. */
export function rng(seed: number): () => number {
	let s = seed >>> 0 || 1;
	return () => {
		s ^= s << 13;
		s ^= s >>> 17;
		s ^= s << 5;
		return (s >>> 0) / 4294967296;
	};
}

export function pick<T>(rand: () => number, list: readonly T[]): T {
	return list[Math.floor(rand() * list.length)] as T;
}

export function makeTasks(rand: () => number, n: number, openShare: number): Task[] {
	const closed = taskStatuses.filter((s) => s === 'done' || s === 'cancelled');
	const open = taskStatuses.filter((s) => s !== 'done' && s !== 'cancelled');
	return Array.from(
		{ length: n },
		(_, i) =>
			({
				id: `T${i + 1}`,
				seq: i + 1,
				title: `task ${i + 1}`,
				description: null,
				type: pick(rand, taskTypes),
				status: rand() < openShare ? pick(rand, open) : pick(rand, closed),
				priority: pick(rand, taskPriorities),
				parentId: null,
				phase: null,
				createdAt: '2026-01-01T00:00:00.000Z',
				updatedAt: '2026-01-01T00:00:00.000Z',
				completedAt: null,
				createdBySession: null,
				completedBySession: null,
			}) as Task,
	);
}

export type Shape = 'random' | 'dag' | 'diamonds' | 'chain' | 'cycles';

export function makeDeps(rand: () => number, n: number, shape: Shape, edgeFactor: number): Dep[] {
	const deps: Dep[] = [];
	const id = (i: number) => `T${i + 1}`;
	const edge = (from: number, to: number) => deps.push({ taskId: id(from), dependsOnId: id(to) });
	if (shape === 'chain') {
		for (let i = 1; i < n; i++) {
			edge(i, i - 1);
		}
		if (rand() < 0.5 && n > 2) {
			edge(0, n - 1); // closes the whole chain into one long cycle
		}
		return deps;
	}
	if (shape === 'diamonds') {
		// Layers where every task waits on two of the layer before: many paths to the same dependents.
		const width = Math.max(2, Math.floor(Math.sqrt(n)));
		for (let i = width; i < n; i++) {
			const layer = Math.floor(i / width) - 1;
			edge(i, layer * width + Math.floor(rand() * width));
			edge(i, layer * width + Math.floor(rand() * width));
		}
		return deps;
	}
	const m = Math.floor(n * edgeFactor);
	for (let k = 0; k < m; k++) {
		let a = Math.floor(rand() * n);
		let b = Math.floor(rand() * n);
		if (shape === 'dag') {
			if (a === b) {
				continue;
			}
			if (a < b) {
				[a, b] = [b, a];
			}
		}
		edge(a, b);
	}
	if (shape === 'cycles') {
		for (let k = 0; k < Math.max(1, n / 10); k++) {
			const a = Math.floor(rand() * n);
			const b = Math.floor(rand() * n);
			edge(a, b);
			edge(b, a);
		}
		edge(0, 0); // a task waiting on itself (older data or direct SQL can hold one)
	}
	// A dependency on a task that is not in the table: traversed, never counted.
	if (rand() < 0.3) {
		deps.push({ taskId: 'GHOST', dependsOnId: id(0) }, { taskId: id(n - 1), dependsOnId: 'GHOST' });
	}
	return deps;
}
