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

	void it('keeps table order whether the rows come from a scan or an index, neither of which is id order', async (t) => {
		const { engine } = await openTestEngine(t);
		const store = engine.store;
		// Inserted out of id order, statuses interleaved: the (status, parent_id) index orders them otherwise again.
		const rows = [
			['T5', 'pending', 'T1'],
			['T2', 'done', 'T1'],
			['T9', 'active', null],
			['T1', 'blocked', null],
			['T7', 'pending', null],
			['T3', 'active', 'T1'],
			['T8', 'cancelled', null],
			['T4', 'pending', 'T9'],
		] as const;
		await store.write(() => {
			rows.forEach(([id, status, parent], i) =>
				store.execCaptured(
					'INSERT INTO tasks (id, seq, title, type, status, priority, parent_id, phase, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
					[id, i + 1, `task ${id}`, 'task', status, 'medium', parent, null, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z'],
				),
			);
			for (const [task, on] of [
				['T7', 'T1'],
				['T1', 'T9'],
				['T5', 'T3'],
				['T3', 'T4'],
			]) {
				store.execCaptured('INSERT INTO task_dependencies (task_id, depends_on_id) VALUES (?, ?)', [task as string, on as string]);
			}
		});
		const sqlite = store.sqlite;
		const open = `status IN ('pending', 'active', 'blocked')`;
		const inTableOrder = sqlite.exec(`SELECT id FROM tasks WHERE ${open} ORDER BY rowid`)[0]!.values.map((r) => r[0]);
		assert.deepEqual(inTableOrder, ['T5', 'T9', 'T1', 'T7', 'T3', 'T4']);
		for (const scan of [false, true]) {
			assert.deepEqual(
				taskNodes(sqlite, open, [], { scan }).map((n) => n.id),
				inTableOrder,
				`scan ${scan}`,
			);
		}
		assert.deepEqual(
			taskNodes(sqlite).map((n) => n.id),
			rows.map((r) => r[0]),
		);
		assert.deepEqual(
			taskNodes(sqlite, 'parent_id = ?', ['T1']).map((n) => n.id),
			['T5', 'T2', 'T3'],
		);
		assert.deepEqual(
			dependencyRows(sqlite).map((d) => d.taskId),
			['T7', 'T1', 'T5', 'T3'],
		);
		assert.deepEqual(
			dependencyRows(sqlite, `SELECT 'T5' UNION SELECT d.depends_on_id FROM task_dependencies d JOIN reach ON d.task_id = reach.id`).map((d) => d.taskId),
			['T5', 'T3'],
		);
	});
});
