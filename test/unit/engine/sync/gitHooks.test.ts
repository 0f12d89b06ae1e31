/**
 * `baton connect git` (the real CLI): merges Baton's block into the user's own hooks with a backup,
 * is idempotent, and the hooks really push Baton's refs alongside the user's push; `--remove`
 * restores the user's hooks exactly.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import test from 'node:test';
import { machineIdentity } from '../../../../src/engine/shared/machineIdentity';
import { git, remoteRefs, startEnd, syncWorld } from './syncWorld';

const cli = path.resolve(__dirname, '../../../../dist/cli.js');

function baton(cwd: string, args: string[]): Record<string, unknown> {
	return JSON.parse(execFileSync(process.execPath, [cli, ...args, '--no-daemon', '--json'], { cwd, encoding: 'utf8' })) as Record<string, unknown>;
}

test('connect git merges with the user’s hooks (backup), pre-push pushes Baton’s refs, --remove restores the user’s hooks', async (t) => {
	const w = await syncWorld(t);
	const hooks = path.join(w.a.root, '.git', 'hooks');
	fs.mkdirSync(hooks, { recursive: true });
	const own = '#!/bin/sh\necho "user pre-push ran" >> "$(git rev-parse --git-dir)/../user-hook.log"\nexit 0\n';
	fs.writeFileSync(path.join(hooks, 'pre-push'), own, { mode: 0o755 });
	const first = baton(w.a.root, ['connect', 'git']);
	const written = first['written'] as { path: string; action: string; backup?: string }[];
	assert.deepEqual(
		written.map((x) => [path.basename(x.path), x.action]),
		[
			['pre-push', 'updated'],
			['post-merge', 'created'],
			['post-checkout', 'created'],
		],
	);
	assert.equal(fs.readFileSync(path.join(hooks, 'pre-push.baton-backup'), 'utf8'), own);
	const merged = fs.readFileSync(path.join(hooks, 'pre-push'), 'utf8');
	assert.ok(merged.startsWith('#!/bin/sh\n# >>> baton sync'), 'Baton’s block runs before a user hook that ends with exit');
	assert.ok(merged.includes('echo "user pre-push ran"'));
	const again = baton(w.a.root, ['connect', 'git']);
	assert.deepEqual(
		(again['written'] as { action: string }[]).map((x) => x.action),
		['unchanged', 'unchanged', 'unchanged'],
	);

	// The user's own push carries Baton's refs along (sync enabled for that remote).
	await w.a.engine.sync.enable('origin');
	await startEnd(w.a, 'hooked', 'pushed by the pre-push hook');
	fs.writeFileSync(path.join(w.a.root, 'more.ts'), 'export const y = 2;\n');
	git(w.a.root, ['add', 'more.ts']);
	git(w.a.root, ['commit', '-qm', 'more']);
	git(w.a.root, ['push', '-q', 'origin', 'main']);
	assert.ok(fs.readFileSync(path.join(w.a.root, 'user-hook.log'), 'utf8').includes('user pre-push ran'), 'the user’s hook still runs');
	const ref = `refs/baton/events/${machineIdentity(w.a.root).id}`;
	for (let waited = 0; !remoteRefs(w.bare).includes(ref); waited += 100) {
		assert.ok(waited < 30_000, 'the pre-push hook did not push Baton’s refs');
		await sleep(100);
	}

	const removed = baton(w.a.root, ['connect', 'git', '--remove']);
	assert.deepEqual(
		(removed['written'] as { path: string; action: string }[]).map((x) => [path.basename(x.path), x.action]),
		[
			['pre-push', 'removed'],
			['post-merge', 'deleted'],
			['post-checkout', 'deleted'],
		],
	);
	assert.equal(fs.readFileSync(path.join(hooks, 'pre-push'), 'utf8'), own);
});
