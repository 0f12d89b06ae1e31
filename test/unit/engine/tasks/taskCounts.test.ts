/**
 * `task_status_counts` and `task_done_children` (migration 0015) are kept by SQLite triggers on
 * `tasks`: after any write, in any order, they must say what counting the tasks says. A briefing reads
 * them instead of counting 200,000 rows of an index (briefingTasksOf.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { Engine } from '../../../../src/engine/engine';
import { migrations } from '../../../../src/engine/storage/migrations.generated';
import { MemoryLogger, noGit, openTestEngine } from '../../helpers';
import { compareKept, random, randomWrites, tableWrites, type KeptTable } from '../keptTables';

const statusAggregate = 'SELECT status, count(*) AS n FROM tasks GROUP BY status ORDER BY status';
const statusKept = 'SELECT status, task_count AS n FROM task_status_counts ORDER BY status';
const doneAggregate = "SELECT parent_id, count(*) AS n FROM tasks WHERE status = 'done' AND parent_id IS NOT NULL GROUP BY parent_id ORDER BY parent_id";
const doneKept = 'SELECT parent_id, done_count AS n FROM task_done_children ORDER BY parent_id';

const tables: KeptTable[] = [
	{ name: 'task_status_counts', kept: statusKept, aggregate: statusAggregate },
	{ name: 'task_done_children', kept: doneKept, aggregate: doneAggregate },
];

void describe('task_status_counts and task_done_children, kept by SQLite triggers', () => {
	void it('equal the counts over every task after each insert, status change, move and delete, in any order', async (t) => {
		const { engine } = await openTestEngine(t);
		const next = random(11);
		const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)] as T;
		const statuses = ['pending', 'active', 'blocked', 'done', 'done', 'cancelled'];
		const parents = ['T1', 'T2', 'T3', 'T9999', null];
		let made = 0;
		const { ids, update, removeWhere } = tableWrites(engine, 'tasks');
		const steps: [string, () => Promise<void>][] = [
			[
				'an insert',
				() =>
					engine.store.write(() => {
						made += 1;
						engine.store.execCaptured(
							`INSERT INTO tasks (id, seq, title, type, status, priority, parent_id, created_at, updated_at)
							 VALUES (?, ?, ?, 'task', ?, 'medium', ?, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`,
							[`T${made}`, made, `task ${made}`, pick(statuses), pick(parents)],
						);
					}),
			],
			['a status change', async () => update(pick(await ids()), 'status = ?', [pick(statuses)])],
			['a move to another parent', async () => update(pick(await ids()), 'parent_id = ?', [pick(parents)])],
			['a status change and a move at once', async () => update(pick(await ids()), 'status = ?, parent_id = ?', [pick(statuses), pick(parents)])],
			['a title only', async () => update(pick(await ids()), 'title = ?', ['renamed'])],
			['a delete', async () => removeWhere('id', pick(await ids()) ?? null)],
			['every child of a parent deleted at once', async () => removeWhere('parent_id', pick(parents))],
		];
		await randomWrites(next, steps, (step) => engine.store.read((db) => compareKept(db, tables, step)));
		const left = await engine.store.read((db) => db.all<{ n: number }>(sql.raw(doneAggregate)));
		assert.ok(left.length >= 3, 'done tasks are left under several parents at the end');
	});

	void it('are the same in a process that replays the journal, and are filled for a store made before them', async (t) => {
		const { engine, root } = await openTestEngine(t);
		const epic = await engine.tasks.add({ title: 'an epic', type: 'epic', actor: 'test' });
		for (const title of ['one', 'two', 'three']) {
			await engine.tasks.add({ title, parentId: epic.id, actor: 'test' });
		}
		await engine.tasks.update({ id: 'T2', status: 'done', actor: 'test' });
		await engine.tasks.update({ id: 'T3', status: 'done', actor: 'test' });
		// Another process reads what this one wrote through the journal (its triggers ran on replay).
		const other = await Engine.open({ workspaceRoot: root, log: new MemoryLogger(), git: noGit });
		t.after(() => other.close());
		const expectedStatus = await engine.store.read((db) => db.all(sql.raw(statusAggregate)));
		const expectedDone = await engine.store.read((db) => db.all(sql.raw(doneAggregate)));
		assert.deepEqual(expectedDone, [{ parent_id: epic.id, n: 2 }]);
		assert.deepEqual(await other.store.read((db) => db.all(sql.raw(statusKept))), expectedStatus);
		assert.deepEqual(await other.store.read((db) => db.all(sql.raw(doneKept))), expectedDone);
		// The migration's own fills: the tables emptied and filled again by its INSERT … SELECTs.
		const fills = migrations.find((m) => m.tag === '0015_task_counts')?.statements.filter((s) => s.startsWith('INSERT INTO `task_')) ?? [];
		assert.equal(fills.length, 2, 'the migration fills both tables from the tasks it finds');
		await engine.store.write(() => {
			engine.store.execCaptured('DELETE FROM task_status_counts', []);
			engine.store.execCaptured('DELETE FROM task_done_children', []);
			for (const fill of fills) engine.store.execCaptured(fill, []);
		});
		assert.deepEqual(await engine.store.read((db) => db.all(sql.raw(statusKept))), expectedStatus);
		assert.deepEqual(await engine.store.read((db) => db.all(sql.raw(doneKept))), expectedDone);
	});
});
