/**
 * Leverage carried from one graph to the next (what the backend does as tasks change) must give the
 * same ranking and the same leverage as computing from scratch, after every step of random sequences
 * of changes: tasks added, deleted, reopened or closed, re-typed and re-prioritised, dependencies added
 * and removed (cycles and dependencies on missing tasks included). The engine test does the same
 * through the real store, with the changes written by another process and replayed from the journal.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Task } from '../../../../src/engine/storage/model';
import { taskPriorities, taskStatuses, taskTypes } from '../../../../src/engine/storage/schema';
import { TaskGraph } from '../../../../src/engine/tasks/taskGraph';
import { taskGraphOf } from '../../../../src/engine/tasks/taskGraphOf';
import { Engine } from '../../../../src/engine/engine';
import { silentLogger } from '../../../../src/engine/ports';
import { openTestEngine } from '../../helpers';
import { makeDeps, makeTasks, pick, rng, type Dep, type Shape } from './randomGraphs';
import { ReferenceRanking } from './referenceRanking';

/** One random change to the tables, in place. */
function mutate(rand: () => number, tasks: Task[], deps: Dep[], nextSeq: { value: number }): string {
	const roll = rand();
	const any = () => pick(rand, tasks);
	if (roll < 0.3 && tasks.length > 0) {
		const t = any();
		t.status = pick(rand, taskStatuses);
		return `status ${t.id}`;
	}
	if (roll < 0.4 && tasks.length > 0) {
		const t = any();
		t.type = pick(rand, taskTypes);
		t.priority = pick(rand, taskPriorities);
		return `type/priority ${t.id}`;
	}
	if (roll < 0.55 || tasks.length < 2) {
		const seq = nextSeq.value++;
		const [fresh] = makeTasks(rand, 1, 0.8);
		tasks.push({ ...(fresh as Task), id: `T${seq}`, seq });
		if (rand() < 0.7 && tasks.length > 1) {
			deps.push({ taskId: `T${seq}`, dependsOnId: any().id });
		}
		return `add T${seq}`;
	}
	if (roll < 0.8) {
		const from = any().id;
		// Sometimes an end outside the table, as older data may hold.
		const to = rand() < 0.05 ? 'GHOST' : any().id;
		deps.push({ taskId: from, dependsOnId: to });
		return `depend ${from} on ${to}`;
	}
	if (roll < 0.93 && deps.length > 0) {
		const [gone] = deps.splice(Math.floor(rand() * deps.length), 1);
		return `undepend ${gone?.taskId} on ${gone?.dependsOnId}`;
	}
	const [gone] = tasks.splice(Math.floor(rand() * tasks.length), 1);
	// The table's foreign keys cascade; a quarter of the time keep the edges, as a ghost end.
	if (rand() < 0.75) {
		for (let i = deps.length - 1; i >= 0; i--) {
			if (deps[i]?.taskId === gone?.id || deps[i]?.dependsOnId === gone?.id) {
				deps.splice(i, 1);
			}
		}
	}
	return `delete ${gone?.id}`;
}

function snapshot(tasks: readonly Task[], deps: readonly Dep[]): [Task[], Dep[]] {
	return [tasks.map((t) => ({ ...t })), deps.map((d) => ({ ...d }))];
}

function assertLikeScratch(graph: TaskGraph, tasks: Task[], deps: Dep[], label: string): void {
	const scratch = new TaskGraph(tasks, deps);
	const reference = new ReferenceRanking(tasks, deps);
	assert.deepEqual(
		graph.rankedActionable().map((t) => t.id),
		scratch.rankedActionable().map((t) => t.id),
		`${label}: ranking`,
	);
	assert.deepEqual(
		graph.rankedActionable().map((t) => t.id),
		reference.ranked(),
		`${label}: ranking vs reference`,
	);
	for (const id of new Set([...tasks.map((t) => t.id), ...deps.flatMap((d) => [d.taskId, d.dependsOnId])])) {
		assert.equal(graph.leverage(id), scratch.leverage(id), `${label}: leverage of ${id}`);
	}
}

void describe('incremental ranking', () => {
	void it('matches a from-scratch ranking after every step of random change sequences', () => {
		const shapes: Shape[] = ['random', 'dag', 'diamonds', 'chain', 'cycles'];
		const kinds = new Map<string, number>();
		for (let seed = 1; seed <= 120; seed++) {
			const rand = rng(seed * 7919);
			const n = 2 + Math.floor(rand() * 40);
			const tasks = makeTasks(rand, n, 0.7);
			const deps = makeDeps(rand, n, shapes[seed % shapes.length] as Shape, 1);
			const nextSeq = { value: n + 1 };
			let graph = new TaskGraph(...snapshot(tasks, deps));
			graph.rankedActionable();
			for (let step = 0; step < 40; step++) {
				const change = mutate(rand, tasks, deps, nextSeq);
				graph = new TaskGraph(...snapshot(tasks, deps), graph);
				assertLikeScratch(graph, tasks, deps, `seed ${seed}, step ${step} (${change})`);
				kinds.set(graph.leverageUpdate.kind, (kinds.get(graph.leverageUpdate.kind) ?? 0) + 1);
			}
		}
		// The property is only worth something if the carried-over paths ran, not just full passes.
		assert.ok((kinds.get('incremental') ?? 0) > 1000, `incremental updates: ${kinds.get('incremental')}`);
		assert.ok((kinds.get('unchanged') ?? 0) > 100, `unchanged leverage: ${kinds.get('unchanged')}`);
		assert.equal(kinds.get('full'), undefined, 'every graph after the first carries leverage over');
	});

	void it('recomputes only what a change can reach on a large graph', () => {
		const rand = rng(4242);
		const tasks = makeTasks(rand, 5_000, 0.9);
		const deps = makeDeps(rand, 5_000, 'dag', 0.5);
		const first = new TaskGraph(...snapshot(tasks, deps));
		first.rankedActionable();
		// A task nothing waits on and that waits on nothing: closing it touches itself alone.
		const waited = new Set(deps.flatMap((d) => [d.taskId, d.dependsOnId]));
		const loner = tasks.find((t) => !waited.has(t.id) && t.status === 'pending') as Task;
		loner.status = 'done';
		const second = new TaskGraph(...snapshot(tasks, deps), first);
		assertLikeScratch(second, tasks, deps, 'loner closed');
		assert.deepEqual(second.leverageUpdate, { kind: 'incremental', recomputed: 1 });
	});

	void it('updates the backend graph from records another process wrote, like a fresh one', async (t) => {
		const { engine, root } = await openTestEngine(t);
		const other = await Engine.open({ workspaceRoot: root, log: silentLogger, git: { read: async () => null } });
		t.after(() => other.close());
		const ids: string[] = [];
		for (let i = 0; i < 12; i++) {
			const task = await other.tasks.add({
				title: `t${i}`,
				actor: 'other',
				dependsOn: ids.length > 0 ? [ids[Math.floor(ids.length / 2)] as string] : [],
				type: i % 5 === 0 ? 'bug' : 'task',
			});
			ids.push(task.id);
		}
		await engine.store.refresh();
		taskGraphOf(engine.ctx).rankedActionable();
		const rand = rng(99);
		const seen = new Set<string>();
		for (let step = 0; step < 25; step++) {
			const id = pick(rand, ids);
			if (step % 3 === 0) {
				await other.tasks.update({ id, status: pick(rand, ['done', 'pending', 'cancelled', 'blocked'] as const), actor: 'other' });
			} else if (step % 3 === 1) {
				const on = pick(rand, ids);
				await other.tasks.update({ id, addDependsOn: [on], actor: 'other' }).catch(() => undefined); // a cycle is refused
			} else {
				await other.tasks.update({ id, removeDependsOn: [pick(rand, ids)], priority: pick(rand, taskPriorities), actor: 'other' });
			}
			// The backend's graph is updated from the replayed journal records, not rebuilt.
			await engine.store.refresh();
			const kept = taskGraphOf(engine.ctx);
			const ranked = kept.rankedActionable().map((task) => task.id);
			seen.add(kept.leverageUpdate.kind);
			const fresh = await Engine.open({ workspaceRoot: root, log: silentLogger, git: { read: async () => null } });
			try {
				const scratch = taskGraphOf(fresh.ctx);
				assert.equal(scratch.leverageUpdate.kind, 'full');
				assert.deepEqual(
					ranked,
					scratch.rankedActionable().map((task) => task.id),
					`step ${step}`,
				);
				for (const taskId of ids) {
					assert.equal(kept.leverage(taskId), scratch.leverage(taskId), `step ${step}: leverage of ${taskId}`);
				}
			} finally {
				fresh.close();
			}
		}
		assert.ok(seen.has('incremental'), `update kinds seen: ${[...seen].join(', ')}`);
	});
});
