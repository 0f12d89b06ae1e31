/**
 * The task graph is derived once per change of the task tables (context.derived + taskGraphOf), on
 * a real journal: a change elsewhere keeps the graph, a change to tasks or their dependencies
 * rebuilds it, so no service ever sees a graph older than the data.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { taskDependencies } from '../../../../src/engine/storage/schema';
import { taskGraphOf } from '../../../../src/engine/tasks/taskGraphOf';
import { openTestEngine } from '../../helpers';

void describe('taskGraphOf', () => {
	void it('keeps the graph until a task table changes, then rebuilds it', async (t) => {
		const { engine } = await openTestEngine(t);
		const empty = taskGraphOf(engine.ctx);
		assert.equal(taskGraphOf(engine.ctx), empty, 'nothing changed: the same graph');
		assert.equal(empty.byId.size, 0);

		const a = await engine.tasks.add({ title: 'A', actor: 'test' });
		const withA = taskGraphOf(engine.ctx);
		assert.notEqual(withA, empty, 'a new task: a new graph');
		assert.ok(withA.byId.has(a.id));

		await engine.sessions.start({ name: 'work', actor: 'test' });
		assert.equal(taskGraphOf(engine.ctx), withA, 'a session start changes no task table');

		const b = await engine.tasks.add({ title: 'B', actor: 'test' });
		const withB = taskGraphOf(engine.ctx);
		// Only the dependency table changes here (the task service would also touch the task's row).
		await engine.store.write((db) => db.insert(taskDependencies).values({ taskId: b.id, dependsOnId: a.id }).run());
		const linked = taskGraphOf(engine.ctx);
		assert.notEqual(linked, withB, 'a new dependency alone: a new graph');
		assert.deepEqual(linked.openBlockersOf(b.id), [a.id]);
	});
});
