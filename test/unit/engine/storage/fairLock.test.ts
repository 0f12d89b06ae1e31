import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { Engine } from '../../../../src/engine/engine';
import { BatonError } from '../../../../src/engine/errors';
import { runDoctor } from '../../../../src/engine/storage/doctor';
import { LockFile } from '../../../../src/engine/storage/lockFile';
import { FakeClock, MemoryLogger, tempDir } from '../../helpers';

const writer = path.join(__dirname, '../../fixtures/writer.ts');

void describe('fair write lock', () => {
	void it('hands the lock on in arrival order', async (t) => {
		const file = path.join(tempDir(t), 'x.lock');
		const holder = new LockFile(file, 5_000);
		await holder.acquire();
		const order: string[] = [];
		const waiters: Promise<void>[] = [];
		const locks: LockFile[] = [];
		for (const name of ['a', 'b', 'c', 'd', 'e']) {
			const lock = new LockFile(file, 5_000);
			locks.push(lock);
			waiters.push(
				lock.acquire().then(async () => {
					order.push(name);
					await sleep(5);
					lock.release();
				}),
			);
			await sleep(15); // each has taken its ticket before the next arrives
		}
		holder.release();
		await Promise.all(waiters);
		assert.deepEqual(order, ['a', 'b', 'c', 'd', 'e']);
		[holder, ...locks].forEach((l) => l.dispose());
		assert.equal(fs.existsSync(`${file}.queue`), false, 'the line leaves nothing behind');
	});

	void it('on timeout names the current holder and how many wait, and leaves the line', async (t) => {
		const file = path.join(tempDir(t), 'x.lock');
		const holder = new LockFile(file, 5_000);
		await holder.acquire();
		const a = new LockFile(file, 400);
		const b = new LockFile(file, 400);
		const results = await Promise.all([a.acquire().catch((e: unknown) => e), b.acquire().catch((e: unknown) => e)]);
		for (const error of results) {
			assert.ok(BatonError.is(error, 'locked'), String(error));
			assert.match(error.message, new RegExp(`held by pid ${process.pid} on `));
			assert.match(error.message, /with [01] other waiter\(s\) in line/);
		}
		assert.equal(fs.existsSync(`${file}.queue`), false);
		holder.dispose();
		[a, b].forEach((l) => l.dispose());
	});

	void it('skips the ticket of a waiter that died, and never judges a live lock stale', async (t) => {
		const file = path.join(tempDir(t), 'x.lock');
		fs.mkdirSync(`${file}.queue`, { recursive: true });
		fs.writeFileSync(path.join(`${file}.queue`, '000000000001'), JSON.stringify({ pid: 2 ** 22 + 12345, host: os.hostname(), token: 'dead' }));
		const lock = new LockFile(file, 2_000);
		await lock.acquire();
		lock.release();
		// A live holder whose owner record cannot be read (a lock file being written) is waited for.
		fs.writeFileSync(file, '');
		const waiter = new LockFile(file, 500);
		const error = await waiter.acquire().catch((e: unknown) => e);
		assert.ok(BatonError.is(error, 'locked'), String(error));
		assert.match(error.message, /owner record cannot be read/);
		assert.equal(fs.existsSync(file), true, 'the lock was not taken away');
		[lock, waiter].forEach((l) => l.dispose());
	});

	void it('8 processes writing under CPU load: none refused, none lost, the journal intact', { timeout: 120_000 }, async (t) => {
		const root = tempDir(t);
		(await Engine.open({ workspaceRoot: root, log: new MemoryLogger(), create: true })).close();
		const go = path.join(root, 'go');
		const procs = 8;
		const writes = 10;
		const writers = Array.from({ length: procs }, (_, i) => {
			// The default lock timeout of 15 s: the one that refused writes under load.
			const child = spawn(process.execPath, ['--import', 'tsx', writer, root, `p${i}`, String(writes), '--wait-for', go, '--lock-timeout', '15000'], {
				stdio: ['ignore', 'pipe', 'pipe'],
			});
			let out = '';
			let err = '';
			child.stdout.on('data', (d: Buffer) => (out += d.toString()));
			child.stderr.on('data', (d: Buffer) => (err += d.toString()));
			const ready = (async () => {
				while (!out.includes('ready')) {
					await sleep(5);
				}
			})();
			const done = new Promise<string>((resolve) => child.on('exit', (code) => resolve(code === 0 ? '' : `p${i} exited ${code}: ${err.slice(-2000)}`)));
			return { ready, done };
		});
		await Promise.all(writers.map((w) => w.ready));
		// The load starts once the writers are up (starting eight under load alone took half a minute).
		const burners = os.cpus().map(() => spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }));
		t.after(() => burners.forEach((b) => b.kill('SIGKILL')));
		fs.writeFileSync(go, '');
		const failures = (await Promise.all(writers.map((w) => w.done))).filter(Boolean);
		burners.forEach((b) => b.kill('SIGKILL'));
		assert.deepEqual(failures, [], 'no writer was refused');

		const report = await runDoctor({ dir: path.join(root, '.baton'), repair: false, clock: new FakeClock(), log: new MemoryLogger() });
		assert.equal(report.ok, true, JSON.stringify(report.checks));
		const engine = await Engine.open({ workspaceRoot: root, log: new MemoryLogger() });
		t.after(() => engine.close());
		const titles = (await engine.tasks.list()).map((task) => task.title);
		assert.equal(titles.length, procs * writes, 'every acknowledged write is present');
		for (let p = 0; p < procs; p++) {
			assert.deepEqual(
				titles.filter((title) => title.startsWith(`p${p}-`)),
				Array.from({ length: writes }, (_, i) => `p${p}-${i}`),
			);
		}
		assert.equal(fs.existsSync(path.join(root, '.baton', 'baton.db.lock.queue')), false);
	});
});
