import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Task } from '../../../../src/engine/storage/model';
import { taskPriorities, taskStatuses, taskTypes } from '../../../../src/engine/storage/schema';
import { TaskGraph } from '../../../../src/engine/tasks/taskGraph';
import { ReferenceRanking } from './referenceRanking';

type Dep = { taskId: string; dependsOnId: string };

/** Small deterministic generator, so a failing seed can be replayed. */
function rng(seed: number): () => number {
	let s = seed >>> 0 || 1;
	return () => {
		s ^= s << 13;
		s ^= s >>> 17;
		s ^= s << 5;
		return (s >>> 0) / 4294967296;
	};
}

function pick<T>(rand: () => number, list: readonly T[]): T {
	return list[Math.floor(rand() * list.length)] as T;
}

function makeTasks(rand: () => number, n: number, openShare: number): Task[] {
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

type Shape = 'random' | 'dag' | 'diamonds' | 'chain' | 'cycles';

function makeDeps(rand: () => number, n: number, shape: Shape, edgeFactor: number): Dep[] {
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

function assertSame(tasks: Task[], deps: Dep[], label: string, allIds: boolean): void {
	const graph = new TaskGraph(tasks, deps);
	const reference = new ReferenceRanking(tasks, deps);
	const ranked = graph.rankedActionable().map((t) => t.id);
	assert.deepEqual(ranked, reference.ranked(), `${label}: ranking`);
	const ids = allIds ? [...new Set([...tasks.map((t) => t.id), ...deps.flatMap((d) => [d.taskId, d.dependsOnId]), 'NOPE'])] : ranked;
	for (const id of ids) {
		assert.equal(graph.leverage(id), reference.leverage(id), `${label}: leverage of ${id}`);
	}
}

void describe('one-pass task ranking', () => {
	void it('matches the per-task search on hundreds of random graphs of every shape', () => {
		const shapes: Shape[] = ['random', 'dag', 'diamonds', 'chain', 'cycles'];
		let graphs = 0;
		for (let seed = 1; seed <= 400; seed++) {
			const rand = rng(seed);
			const shape = shapes[seed % shapes.length] as Shape;
			const n = 1 + Math.floor(rand() * (seed % 10 === 0 ? 400 : 60));
			const tasks = makeTasks(rand, n, [0.2, 0.6, 0.95, 1][seed % 4] as number);
			const deps = makeDeps(rand, n, shape, [0.5, 1, 2, 4][seed % 4] as number);
			assertSame(tasks, deps, `seed ${seed} (${shape}, ${n} tasks, ${deps.length} deps)`, true);
			graphs++;
		}
		assert.equal(graphs, 400);
	});

	void it('counts a task reached through several paths once (a diamond)', () => {
		const tasks = makeTasks(rng(7), 4, 1).map((t) => ({ ...t, status: 'pending' as const, type: 'task' as const }));
		// T2 and T3 wait on T1; T4 waits on both.
		const deps = [
			{ taskId: 'T2', dependsOnId: 'T1' },
			{ taskId: 'T3', dependsOnId: 'T1' },
			{ taskId: 'T4', dependsOnId: 'T2' },
			{ taskId: 'T4', dependsOnId: 'T3' },
		];
		const graph = new TaskGraph(tasks, deps);
		assert.deepEqual(
			['T1', 'T2', 'T3', 'T4'].map((id) => graph.leverage(id)),
			[3, 1, 1, 0],
		);
	});

	void it('keeps the behaviour on cycles: members count themselves and each other', () => {
		const tasks = makeTasks(rng(9), 3, 1).map((t) => ({ ...t, status: 'pending' as const }));
		const deps = [
			{ taskId: 'T1', dependsOnId: 'T2' },
			{ taskId: 'T2', dependsOnId: 'T1' },
			{ taskId: 'T3', dependsOnId: 'T2' },
		];
		const graph = new TaskGraph(tasks, deps);
		assert.deepEqual(
			['T1', 'T2', 'T3'].map((id) => graph.leverage(id)),
			[3, 3, 0],
		);
	});

	void it('matches at 20,000 tasks: a deep chain, a wide DAG with diamonds, and cyclic graphs', (t) => {
		const cases: [Shape, number, number][] = [
			['chain', 0.99, 1],
			['dag', 0.7, 0.8],
			['diamonds', 0.97, 2],
			['cycles', 0.6, 0.4],
		];
		for (const [i, [shape, openShare, factor]] of cases.entries()) {
			const rand = rng(1000 + i);
			const tasks = makeTasks(rand, 20_000, openShare);
			const deps = makeDeps(rand, 20_000, shape, factor);
			const started = performance.now();
			assertSame(tasks, deps, `20k ${shape}`, false);
			t.diagnostic(`20k ${shape}: ${deps.length} deps, ${Math.round(performance.now() - started)} ms with the reference`);
		}
	});
});
