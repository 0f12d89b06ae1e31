/**
 * A full disk, for real: the workspace lives on a small tmpfs mount (root is needed to mount it; CI
 * runs as root — a machine that cannot mount fails this test saying so, it never skips), a file fills
 * it to ENOSPC, and clients write through the daemon and in their own processes. Every write is
 * acknowledged or refused at once with a message saying the disk is full; nothing acknowledged is
 * lost; the daemon survives; once the space is back every write succeeds. Counted as in faultCounts.ts.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { agentCli } from '../cli/agentCli';
import { countWrites, storedTitles } from './faultCounts';
import { baton, daemonEnv, daemonPids, endpoint, type Result } from './daemonProcesses';

/** An initialised workspace on a tmpfs of `size`, unmounted (its daemon ended first) when the test ends. */
async function workspaceOnTmpfs(t: TestContext, size: string): Promise<{ cli: string; mount: string; root: string }> {
	const cli = await agentCli();
	const mount = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-disk-full-'));
	const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', mount], { encoding: 'utf8' });
	if (mounted.status !== 0) {
		fs.rmSync(mount, { recursive: true, force: true });
		throw new Error(
			`this test needs a small tmpfs to fill, and mounting one failed (${(mounted.stderr || mounted.error?.message || '').trim()}); run it as root (CI's .ci/run does) or in a container allowed to mount`,
		);
	}
	const root = path.join(mount, 'w');
	t.after(() => {
		for (const pid of daemonPids(root)) {
			try {
				process.kill(pid, 'SIGKILL');
			} catch {
				// Gone.
			}
		}
		spawnSync('umount', ['-l', mount]);
		fs.rmSync(mount, { recursive: true, force: true });
	});
	fs.mkdirSync(root);
	spawnSync('git', ['init', '-q', root]);
	const init = spawnSync(process.execPath, [cli, 'init'], { cwd: root, env: daemonEnv(), encoding: 'utf8' });
	assert.equal(init.status, 0, init.stderr);
	return { cli, mount, root };
}

/** Fills the file system to ENOSPC with one file, returned (remove it to give the space back). */
function fill(mount: string): string {
	const file = path.join(mount, 'filler');
	const fd = fs.openSync(file, 'w');
	const block = Buffer.alloc(64 * 1024, 1);
	try {
		for (;;) {
			fs.writeSync(fd, block);
		}
	} catch (error) {
		assert.equal((error as NodeJS.ErrnoException).code, 'ENOSPC');
	} finally {
		fs.closeSync(fd);
	}
	// Then the last bytes, so no page holds more than a few spare ones.
	const tail = fs.openSync(file, 'a');
	try {
		for (;;) {
			fs.writeSync(tail, Buffer.alloc(512, 1));
		}
	} catch {
		// Full to the byte.
	} finally {
		fs.closeSync(tail);
	}
	return file;
}

test('a full disk refuses every write at once with a clear error, loses nothing, and everything resumes when space returns', async (t) => {
	const { cli, mount, root } = await workspaceOnTmpfs(t, '24m');
	assert.equal((await baton(cli, root, ['task', 'add', '--title', 'before the disk filled'])).code, 0);
	const daemon = endpoint(root)?.pid;
	assert.ok(daemon && daemonPids(root).includes(daemon));
	const filler = fill(mount);

	// Through the daemon, at once, and in processes of their own.
	const titles = Array.from({ length: 8 }, (_, i) => `disk full ${i}`);
	const direct = ['disk full direct 0', 'disk full direct 1'];
	const results: Result[] = await Promise.all([
		...titles.map((title) => baton(cli, root, ['task', 'add', '--title', title])),
		...direct.map((title) => baton(cli, root, ['--no-daemon', 'task', 'add', '--title', title])),
	]);
	const refusals = results.filter((r) => r.code !== 0);
	assert.ok(refusals.length >= 1, 'the disk was full: some write must be refused');
	for (const refusal of refusals) {
		assert.match(
			refusal.stderr,
			/the disk is full \(ENOSPC\); nothing was written\. Free space on the disk that holds .+ and run it again/,
			refusal.stderr,
		);
	}
	// Every file a refused write began is gone again: nothing holds the next writer up or keeps the space.
	const leftovers = fs.readdirSync(path.join(root, '.baton')).filter((name) => /^baton\.db\.lock|\.tmp/.test(name));
	assert.deepEqual(
		leftovers.filter((name) => fs.statSync(path.join(root, '.baton', name)).size === 0),
		[],
		`empty files left: ${leftovers.join(', ')}`,
	);
	assert.ok(daemonPids(root).includes(daemon), 'the daemon survived the full disk');

	fs.rmSync(filler);
	const afterTitles = Array.from({ length: 5 }, (_, i) => `space back ${i}`);
	const after: Result[] = [];
	for (const title of afterTitles) {
		after.push(await baton(cli, root, ['task', 'add', '--title', title]));
	}
	const stored = storedTitles(cli, root);
	const full = countWrites(results, [...titles, ...direct], stored);
	const back = countWrites(after, afterTitles, stored);
	t.diagnostic(`disk full: ${JSON.stringify(full)}; space back: ${JSON.stringify(back)}`);
	assert.equal(full.lost + full.refusedButStored + full.storedTwice, 0, JSON.stringify(full));
	assert.equal(full.acknowledged + full.refused, 10);
	assert.deepEqual(back, { acknowledged: 5, refused: 0, spooled: 0, lost: 0, refusedButStored: 0, storedTwice: 0 }, after.map((r) => r.stderr).join('\n'));
	assert.equal(endpoint(root)?.pid, daemon, 'the same daemon serves on');
});
