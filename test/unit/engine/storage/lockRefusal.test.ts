/**
 * A write that cannot have the lock is refused saying what holds it and what to do (issue #30): a
 * holder that is stopped (SIGSTOP, Ctrl-Z) is named as such at once, since no waiting ends a stop; a
 * busy holder is waited for up to the limit, then named with the way out.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { BatonError } from '../../../../src/engine/errors';
import { LockFile } from '../../../../src/engine/storage/lockFile';
import { tempDir } from '../../helpers';

/** A live process (not Baton) whose pid the lock file names as its holder. */
function holder(t: TestContext, file: string): ChildProcess & { pid: number } {
	const child = spawn('sleep', ['120'], { stdio: 'ignore' });
	t.after(() => {
		child.kill('SIGCONT');
		child.kill('SIGKILL');
	});
	assert.ok(child.pid);
	fs.writeFileSync(file, JSON.stringify({ pid: child.pid, host: os.hostname(), token: 'held-by-test', at: Date.now() }));
	return child as ChildProcess & { pid: number };
}

test('a lock whose holder is stopped is refused before the wait limit, naming the holder and how to resume or end it', async (t) => {
	const file = path.join(tempDir(t), 'baton.db.lock');
	const held = holder(t, file);
	held.kill('SIGSTOP');
	const lock = new LockFile(file, 120_000);
	const refusal = await lock.acquire().then(
		() => undefined,
		(error: unknown) => error,
	);
	lock.dispose();
	assert.ok(refusal instanceof BatonError, String(refusal));
	assert.equal(refusal.code, 'locked');
	assert.match(
		refusal.message,
		new RegExp(`is held by pid ${held.pid} \\(a process\\), which is stopped \\(SIGSTOP, or Ctrl-Z in its terminal\\); nothing was written`),
	);
	assert.match(refusal.message, new RegExp(`kill -CONT ${held.pid}.*kill ${held.pid}`));
	assert.equal(refusal.details?.['stopped'], true);
	assert.equal(fs.existsSync(`${file}.queue`), false, 'the refused waiter left the line');
	// Resumed, the same holder is waited for again (and taken over once it is gone).
	held.kill('SIGCONT');
	held.kill('SIGKILL');
	await new Promise((resolve) => held.once('exit', resolve));
	const next = new LockFile(file, 120_000);
	await next.acquire();
	next.dispose();
});

test('a lock held past the limit by a busy holder is refused naming it, how many wait, and what to do', async (t) => {
	const file = path.join(tempDir(t), 'baton.db.lock');
	const held = holder(t, file);
	const lock = new LockFile(file, 300);
	const refusal = await lock.acquire().then(
		() => undefined,
		(error: unknown) => error,
	);
	lock.dispose();
	assert.ok(refusal instanceof BatonError, String(refusal));
	assert.equal(refusal.code, 'locked');
	assert.match(
		refusal.message,
		new RegExp(
			`is held by pid ${held.pid} on .+ \\(a process\\); gave up after waiting \\d+ ms \\(limit 300 ms\\) with 0 other waiter\\(s\\) in line; nothing was written: run it again when pid ${held.pid} is done; if it is stuck, end it \\(\`kill ${held.pid}\`: an acknowledged write is never lost\\)`,
		),
	);
});

test('a wait with the default limit goes on while the lock passes from holder to holder, and is refused once one holder keeps it past the limit', async (t) => {
	const dir = tempDir(t);
	const movingFile = path.join(dir, 'moving.lock');
	const stuckFile = path.join(dir, 'stuck.lock');
	const held = holder(t, movingFile);
	const stuck = holder(t, stuckFile);
	// Thirty writers under load each hold the lock a moment: the line moves for longer than the 15 s limit.
	const moving = new LockFile(movingFile);
	const behindStuck = new LockFile(stuckFile);
	let acquired = false;
	const waiting = moving.acquire().then(() => (acquired = true));
	const refused = behindStuck.acquire().then(
		() => undefined,
		(error: unknown) => error,
	);
	const began = Date.now();
	for (let turn = 1; Date.now() - began < 17_000; turn++) {
		await new Promise((resolve) => setTimeout(resolve, 500));
		assert.equal(acquired, false);
		fs.writeFileSync(movingFile, JSON.stringify({ pid: held.pid, host: os.hostname(), token: `writer-${turn}`, at: Date.now() }));
	}
	// The one holder of the other lock kept it past the limit: that wait was refused, naming it.
	const refusal = await refused;
	assert.ok(refusal instanceof BatonError, String(refusal));
	assert.match(
		refusal.message,
		new RegExp(`is held by pid ${stuck.pid} .*; gave up after waiting \\d+ ms \\(limit 15000 ms with one holder, 120000 ms in all\\)`),
	);
	// The moving line's waiter is still waiting, and takes the lock when it comes free.
	assert.equal(acquired, false);
	fs.rmSync(movingFile);
	await waiting;
	assert.equal(acquired, true);
	moving.dispose();
	behindStuck.dispose();
});
