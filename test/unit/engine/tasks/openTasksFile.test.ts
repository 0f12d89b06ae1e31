/**
 * The briefing's open tasks kept between processes (src/engine/tasks/openTasksFile.ts): a process reads
 * them from the file only while the task tables are as they were when it was saved — the content mark
 * every process names alike (storage/tableVersions.ts) — and from the store otherwise: after another
 * process wrote a task, after a compaction, inside a write, or when the file is damaged or a FIFO.
 * Whether the file was read is seen by saving a copy that differs from the store on purpose.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { describe, it, type TestContext } from 'node:test';
import { eq } from 'drizzle-orm';
import type { Engine } from '../../../../src/engine/engine';
import { sessions, tasks } from '../../../../src/engine/storage/schema';
import { openTasksOf, saveOpenTasks } from '../../../../src/engine/tasks/briefingTasksOf';
import { openTasksFile, readOpenTasks, writeOpenTasks } from '../../../../src/engine/tasks/openTasksFile';
import { openTestEngine, taskRow, tempDir } from '../../helpers';

const taskTables = ['tasks', 'task_dependencies'];

/** A store with five open tasks (T1 under T5) and one dependency, saved by its process. */
async function savedStore(t: TestContext) {
	const first = await openTestEngine(t);
	await first.engine.store.write((db) => {
		for (let n = 1; n <= 5; n++)
			db.insert(tasks)
				.values(n === 1 ? { ...taskRow(n), parentId: 'T5' } : taskRow(n))
				.run();
		first.engine.store.execCaptured('INSERT INTO task_dependencies (task_id, depends_on_id) VALUES (?, ?)', ['T2', 'T3']);
	});
	assert.equal(saveOpenTasks(first.engine.ctx), false, 'five open tasks: not worth a file');
	assert.equal(fs.existsSync(openTasksFile(first.root)), false);
	assert.equal(saveOpenTasks(first.engine.ctx, 0), true);
	assert.equal(saveOpenTasks(first.engine.ctx, 0), false, 'saved already for this mark');
	return first;
}

/** Rewrites the saved file with T4 blocked, under the same mark: a process that reads the file sees it blocked, one that reads the store pending. */
function markT4Blocked(root: string, mark: string): void {
	const saved = readOpenTasks(openTasksFile(root), mark);
	assert.ok(!('problem' in saved), 'problem' in saved ? saved.problem : '');
	saved.nodes = saved.nodes.map((n) => (n.id === 'T4' ? { ...n, status: 'blocked' } : n));
	assert.equal(writeOpenTasks(openTasksFile(root), mark, saved), true);
}

async function statusOfT4(engine: Engine): Promise<string | undefined> {
	return engine.store.read(() => openTasksOf(engine.ctx).graph.byId.get('T4')?.status);
}

void describe('the open tasks saved for the next process', () => {
	void it('are read by a fresh process while the task tables are as saved, and from the store once another process wrote a task', async (t) => {
		const first = await savedStore(t);
		const mark = first.engine.store.contentMark(taskTables) as string;
		assert.match(mark, /^[0-9a-f]{16}:\d+$/);
		markT4Blocked(first.root, mark);

		const next = await openTestEngine(t, { root: first.root });
		assert.equal(next.engine.store.contentMark(taskTables), mark, 'the journal replayed on open names the tables alike');
		assert.equal(await statusOfT4(next.engine), 'blocked', 'the fresh process read the file');
		const graph = await next.engine.store.read(() => openTasksOf(next.engine.ctx).graph);
		assert.deepEqual(graph.dependencies(), [{ taskId: 'T2', dependsOnId: 'T3' }]);
		assert.equal(graph.byId.get('T1')?.parentId, 'T5');

		// A write to another table leaves the tasks' mark, and the file still holds them.
		await first.engine.store.write((db) => db.update(sessions).set({ name: 'x' }).where(eq(sessions.id, 'none')).run());
		const third = await openTestEngine(t, { root: first.root });
		assert.equal(third.engine.store.contentMark(taskTables), mark);
		assert.notEqual(third.engine.store.contentMark(['sessions']), mark, 'the sessions table moved on');
		assert.equal(await statusOfT4(third.engine), 'blocked');

		// Another process writes a task: the mark moves on everywhere, and the store is read.
		await first.engine.store.write((db) => db.update(tasks).set({ title: 'renamed' }).where(eq(tasks.id, 'T1')).run());
		await next.engine.store.refresh();
		const moved = next.engine.store.contentMark(taskTables);
		assert.notEqual(moved, mark);
		assert.equal(moved, first.engine.store.contentMark(taskTables));
		assert.equal(await statusOfT4(next.engine), 'pending', 'the file is stale: the store is read');
		assert.deepEqual(next.log.lines, [], 'a stale file is not worth a word');
	});

	void it('are named anew by a compaction, alike in the process that compacted, one that caught up and a fresh one', async (t) => {
		const first = await savedStore(t);
		const before = first.engine.store.contentMark(taskTables) as string;
		const other = await openTestEngine(t, { root: first.root });
		await first.engine.store.compact();
		const after = first.engine.store.contentMark(taskTables) as string;
		assert.notEqual(after.split(':')[0], before.split(':')[0], 'a new generation');
		await other.engine.store.refresh();
		assert.equal(other.engine.store.contentMark(taskTables), after);
		const fresh = await openTestEngine(t, { root: first.root });
		assert.equal(fresh.engine.store.contentMark(taskTables), after);
		// The file saved before names the old generation: not used.
		markT4Blocked(first.root, before);
		assert.equal(await statusOfT4(fresh.engine), 'pending');
		assert.equal(saveOpenTasks(first.engine.ctx, 0), true, 'saved again under the new mark');
		assert.ok(!('problem' in readOpenTasks(openTasksFile(first.root), after)));
	});

	void it('are not named inside a write or a unit of writes, where the rows are not yet durable', async (t) => {
		const first = await savedStore(t);
		const store = first.engine.store;
		assert.equal(
			await store.write((db) => {
				db.update(tasks).set({ status: 'done' }).where(eq(tasks.id, 'T4')).run();
				return store.contentMark(taskTables);
			}),
			undefined,
		);
		assert.equal(await store.writeAsOne(async () => store.contentMark(taskTables)), undefined);
		assert.ok(store.contentMark(taskTables));
	});

	void it('are not saved when an id holds a newline, which the id column cannot carry', async (t) => {
		const file = openTasksFile(tempDir(t));
		const node = { id: 'T1', seq: 1, title: '', type: 'task', status: 'pending', priority: 'medium', parentId: 'P\n2', phase: null } as const;
		assert.equal(writeOpenTasks(file, 'g:1', { nodes: [node], deps: [], doneUnder: new Map() }), false);
		assert.equal(fs.existsSync(file), false);
		assert.equal(writeOpenTasks(file, 'g:1', { nodes: [{ ...node, parentId: 'P2' }], deps: [], doneUnder: new Map([['P2', 3]]) }), true);
		const read = readOpenTasks(file, 'g:1');
		assert.ok(!('problem' in read));
		assert.deepEqual([read.nodes[0]?.parentId, [...read.doneUnder]], ['P2', [['P2', 3]]]);
	});

	void it('are not trusted when the file is damaged or not a file, and the store answers', async (t) => {
		const first = await savedStore(t);
		const mark = first.engine.store.contentMark(taskTables) as string;
		markT4Blocked(first.root, mark);
		const file = openTasksFile(first.root);
		const bytes = fs.readFileSync(file);
		const middle = Math.floor(bytes.length / 2);
		bytes[middle] = (bytes[middle] as number) ^ 0xff;
		fs.writeFileSync(file, bytes);
		const next = await openTestEngine(t, { root: first.root });
		assert.equal(await statusOfT4(next.engine), 'pending');
		assert.match(
			next.log.lines.map((l) => l.message).join('\n'),
			/the open tasks' cache was not used \(damaged \(its checksum does not match\)\): read from the store/,
		);

		fs.rmSync(file);
		execFileSync('mkfifo', [file]);
		const third = await openTestEngine(t, { root: first.root });
		assert.equal(await statusOfT4(third.engine), 'pending', 'a FIFO is not opened for reading (it would hang)');
		assert.match(third.log.lines.map((l) => l.message).join('\n'), /not used \(unreadable \(.*a FIFO/);
	});
});
