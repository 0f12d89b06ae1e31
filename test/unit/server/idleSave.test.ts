/**
 * An idle backend saves for the next process what it would derive again (engineHost.ts, the briefing's
 * open tasks: src/engine/tasks/openTasksFile.ts) once the store has been quiet, and again after the
 * tasks change; a fresh process then reads them from the file.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test, type TestContext } from 'node:test';
import { eq } from 'drizzle-orm';
import { tasks } from '../../../src/engine/storage/schema';
import { openTasksFile, readOpenTasks } from '../../../src/engine/tasks/openTasksFile';
import { saveOpenTasksFrom } from '../../../src/engine/tasks/briefingTasksOf';
import { EngineHost } from '../../../src/server/engineHost';
import { MemoryLogger, openTestEngine, taskRow } from '../helpers';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(what: string, check: () => boolean): Promise<void> {
	for (let waited = 0; !check(); waited += 50) {
		if (waited > 20_000) throw new Error(`waited 20 s for ${what}`);
		await sleep(50);
	}
}

/** A store with enough open tasks to save, and a backend over it that is idle after 100 ms. */
async function idleHost(t: TestContext): Promise<{ writer: Awaited<ReturnType<typeof openTestEngine>>; log: MemoryLogger; host: EngineHost }> {
	const writer = await openTestEngine(t);
	await writer.engine.store.write((db) => {
		for (let n = 1; n <= saveOpenTasksFrom + 1; n++) db.insert(tasks).values(taskRow(n)).run();
	});
	const log = new MemoryLogger();
	const host = new EngineHost({ workspaceRoot: writer.root, config: {}, log, readOnly: false, onDidChange: () => undefined, pollMs: 50, idleCompactMs: 100 });
	t.after(() => host.dispose());
	return { writer, log, host };
}

test('an idle backend saves the open tasks for the next process, and saves them again once a task changed', async (t) => {
	const { writer, log, host } = await idleHost(t);
	const engine = await host.get();
	const file = openTasksFile(writer.root);
	const saved = (): boolean => {
		const mark = engine.store.contentMark(['tasks', 'task_dependencies']);
		return mark !== undefined && !('problem' in readOpenTasks(file, mark));
	};
	await until('the first save', saved);
	assert.ok(log.lines.some((l) => l.message === 'saved the open tasks for the next process'));
	const first = fs.statSync(file).mtimeMs;

	// Another process closes a task: the backend catches up, is idle again, and saves the new state.
	await writer.engine.store.write((db) => db.update(tasks).set({ status: 'done' }).where(eq(tasks.id, 'T1')).run());
	await until('the backend to catch up', () => engine.store.contentMark(['tasks']) === writer.engine.store.contentMark(['tasks']));
	await until('the second save', saved);
	assert.notEqual(fs.statSync(file).mtimeMs, first);
	const mark = writer.engine.store.contentMark(['tasks', 'task_dependencies']) as string;
	const read = readOpenTasks(file, mark);
	assert.ok(!('problem' in read));
	assert.equal(read.nodes.length, saveOpenTasksFrom, 'T1 is done: not an open task');
	assert.equal(log.warnings().length, 0, log.warnings().join('\n'));
});

test('a backend is not idle while a command works with its engine: the idle work waits for the command to end', async (t) => {
	const { log, host } = await idleHost(t);
	await host.get();
	// A command (a push of a long history, say) holds the engine for longer than the idle wait.
	host.workBegan();
	await sleep(1_000);
	const savedLine = (): boolean => log.lines.some((l) => l.message === 'saved the open tasks for the next process');
	assert.equal(savedLine(), false, 'nothing idle runs beside the command');
	host.workEnded();
	await until('the save once the command ended', savedLine);
	assert.equal(log.warnings().length, 0, log.warnings().join('\n'));
});
