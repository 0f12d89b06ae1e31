/**
 * `writeAsOne` (storage/oneWrite.ts), on real journal files: the writes of one piece of work are one
 * record, durable together or not at all, even when the process is SIGKILLed between them.
 */
import assert from 'node:assert/strict';
import { AsyncResource } from 'node:async_hooks';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, it } from 'node:test';
import { Engine } from '../../../../src/engine/engine';
import { MemoryLogger, openTestEngine, tempDir } from '../../helpers';

const oneWriter = path.join(__dirname, '../../fixtures/oneWriter.ts');

/** Runs oneWriter.ts; with `kill`, SIGKILLs it once it said `first` (its first write done, the second not). */
function runOneWriter(root: string, name: string, kill: boolean): Promise<string> {
	return new Promise((resolve, reject) => {
		const child = spawn(process.execPath, ['--import', 'tsx', oneWriter, root, name, ...(kill ? [] : ['--finish'])], { stdio: ['ignore', 'pipe', 'pipe'] });
		let stdout = '';
		let stderr = '';
		child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
		child.stdout.on('data', (d: Buffer) => {
			stdout += d.toString();
			if (kill && stdout.includes('first\n')) {
				child.kill('SIGKILL');
			}
		});
		child.on('exit', (code, signal) =>
			signal === 'SIGKILL' || code === 0 ? resolve(stdout) : reject(new Error(`oneWriter exited with ${code}: ${stderr}`)),
		);
	});
}

async function titles(root: string): Promise<string[]> {
	const engine = await Engine.open({ workspaceRoot: root, log: new MemoryLogger() });
	try {
		return (await engine.tasks.list()).map((task) => task.title).sort();
	} finally {
		engine.close();
	}
}

void describe('one write for several', () => {
	void it('appends the writes of one piece of work as one record, and its reads see them before it is done', async (t) => {
		const { engine } = await openTestEngine(t);
		const before = engine.store.sequence;
		const seen = await engine.store.writeAsOne(async () => {
			await engine.tasks.add({ title: 'one', actor: 'test' });
			await engine.tasks.add({ title: 'two', actor: 'test' });
			return (await engine.tasks.list()).map((task) => task.title).sort();
		});
		assert.deepEqual(seen, ['one', 'two']);
		assert.equal(engine.store.sequence, before + 1, 'one record');
	});

	void it('writes nothing when the work throws, and the store goes on', async (t) => {
		const { engine, root } = await openTestEngine(t);
		const before = engine.store.sequence;
		await assert.rejects(
			engine.store.writeAsOne(async () => {
				await engine.tasks.add({ title: 'undone', actor: 'test' });
				throw new Error('the work failed');
			}),
			/the work failed/,
		);
		assert.equal(engine.store.sequence, before);
		assert.deepEqual(
			(await engine.tasks.list()).map((task) => task.title),
			[],
		);
		await engine.tasks.add({ title: 'after', actor: 'test' });
		assert.deepEqual(await titles(root), ['after']);
	});

	void it('holds the writes of other callers in the process until it is durable, then lets them follow', async (t) => {
		const { engine } = await openTestEngine(t);
		const order: string[] = [];
		let outside: Promise<unknown> | undefined;
		// Bound here, outside the work: as a timer or another client's request would be.
		const writeOutside = AsyncResource.bind(() => engine.tasks.add({ title: 'outside', actor: 'test' }).then(() => order.push('outside')));
		await engine.store.writeAsOne(async () => {
			await engine.tasks.add({ title: 'inside-1', actor: 'test' });
			outside = writeOutside();
			await new Promise((resolve) => setImmediate(resolve));
			await engine.tasks.add({ title: 'inside-2', actor: 'test' });
			order.push('inside');
		});
		await outside;
		assert.deepEqual(order, ['inside', 'outside']);
		assert.deepEqual((await engine.tasks.list()).map((task) => task.title).sort(), ['inside-1', 'inside-2', 'outside']);
	});

	void it('leaves nothing of the work when its process is SIGKILLed between its writes, and all of it when it finishes', async (t) => {
		const root = tempDir(t);
		const killed = await runOneWriter(root, 'killed', true);
		assert.match(killed, /first/);
		assert.doesNotMatch(killed, /done/);
		assert.deepEqual(await titles(root), [], 'nothing of the killed work (and its lock is taken over)');
		assert.match(await runOneWriter(root, 'whole', false), /done/);
		assert.deepEqual(await titles(root), ['whole-a', 'whole-b']);
	});
});
