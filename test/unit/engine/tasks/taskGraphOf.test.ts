/**
 * The task graph is derived once per change of the task tables (context.derived + taskGraphOf), on
 * a real journal: a change elsewhere keeps the graph, a change to tasks or their dependencies
 * rebuilds it, so no service ever sees a graph older than the data.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { taskDependencies } from '../../../../src/engine/storage/schema';
import { dependencyRows, taskGraphOf, taskNodes } from '../../../../src/engine/tasks/taskGraphOf';
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

	void it('reads every row as SQLite holds it, in table order, whatever its text (the rows are built as JSON inside SQLite)', async (t) => {
		const { engine } = await openTestEngine(t);
		const titles = [
			'plain',
			'quotes " and \\ backslashes \\" and "],["x',
			'line\nbreak\ttab\u0001control\u007f',
			'emoji 🚀 and 日本語 and \u2028 separator',
			'null',
			'[1,2]',
		];
		const added: { id: string }[] = [];
		for (const title of titles) added.push(await engine.tasks.add({ title, actor: 'test' }));
		const parent = added[0]!;
		const child = await engine.tasks.add({ title: 'child', parentId: parent.id, actor: 'test' });
		await engine.store.write((db) => db.insert(taskDependencies).values({ taskId: child.id, dependsOnId: added[2]!.id }).run());
		const sqlite = engine.store.sqlite;
		const direct = sqlite.exec('SELECT id, seq, title, type, status, priority, parent_id, phase FROM tasks ORDER BY rowid')[0]!.values;
		assert.deepEqual(
			taskNodes(sqlite).map((n) => [n.id, n.seq, n.title, n.type, n.status, n.priority, n.parentId, n.phase]),
			direct,
		);
		assert.deepEqual(
			taskNodes(sqlite, 'parent_id = ?', [parent.id]).map((n) => n.title),
			['child'],
		);
		assert.deepEqual(taskNodes(sqlite, 'status = ?', ['no such status']), []);
		assert.deepEqual(dependencyRows(sqlite), [{ taskId: child.id, dependsOnId: added[2]!.id }]);
		assert.deepEqual(
			dependencyRows(
				sqlite,
				`SELECT id FROM tasks WHERE id = '${parent.id}' UNION SELECT d.depends_on_id FROM task_dependencies d JOIN reach ON d.task_id = reach.id`,
			),
			[],
		);
		assert.deepEqual(
			dependencyRows(
				sqlite,
				`SELECT id FROM tasks WHERE id = '${child.id}' UNION SELECT d.depends_on_id FROM task_dependencies d JOIN reach ON d.task_id = reach.id`,
			).length,
			1,
		);
	});
});
