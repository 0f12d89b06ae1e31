import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Task } from '../../../../src/engine/storage/model';
import { TaskGraph } from '../../../../src/engine/tasks/taskGraph';
import { makeDeps, makeTasks, rng, type Dep, type Shape } from './randomGraphs';
import { ReferenceRanking } from './referenceRanking';

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
