import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { spawnSync } from 'node:child_process';
import { cliPath } from '../../cli/cliRunner';
import { captureEnvironment } from '../../../../src/engine/environment/environmentCapture';
import { baton as batonAsync, daemonWorkspace } from '../../server/daemonProcesses';
import { actor, tempDir } from '../../helpers';
import { createSettled, makeWorkspace, openCheckpointEngine, userGit, write } from '../checkpoints/gitFixtures';

/**
 * A PATH whose `claude` and `node` write down every run, and whose `git` writes down every call
 * before running the real git: probe executions counted by real processes.
 */
function countingPath(t: TestContext): { bin: string; runs: (name: string) => number; statusCalls: () => number; path: string } {
	const bin = tempDir(t, 'baton-bin-');
	const log = path.join(bin, 'calls.log');
	const realGit = (process.env['PATH'] ?? '')
		.split(path.delimiter)
		.map((d) => path.join(d, 'git'))
		.find((f) => fs.existsSync(f));
	assert.ok(realGit, 'git on PATH');
	const script = (name: string, body: string) => fs.writeFileSync(path.join(bin, name), `#!/bin/sh\n${body}\n`, { mode: 0o755 });
	script('claude', `echo claude >> '${log}'\necho "2.1.3 (Claude Code)"`);
	script('git', `echo "git $*" >> '${log}'\nexec '${realGit}' "$@"`);
	const lines = () => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n') : []);
	return {
		bin,
		runs: (name) => lines().filter((l) => l === name).length,
		// The environment's `git status` of the user's repository (the shadow store's own sync runs another kind).
		statusCalls: () => lines().filter((l) => l.startsWith('git --no-optional-locks status')).length,
		path: `${bin}${path.delimiter}${process.env['PATH'] ?? ''}`,
	};
}

void describe('environment probes cached by their inputs’ fingerprints', () => {
	void it('runs a binary’s version probe once per binary file in a process, again when the binary changes', async (t) => {
		const counted = countingPath(t);
		fs.writeFileSync(path.join(counted.bin, 'node'), `#!/bin/sh\necho node >> '${path.join(counted.bin, 'calls.log')}'\necho v22.1.0\n`, { mode: 0o755 });
		const { engine, root } = await openCheckpointEngine(t, { searchPath: counted.bin });
		const first = await createSettled(engine, { actor });
		write(root, 'src/app.ts', 'export const app = 2;\n');
		const second = await createSettled(engine, { actor });
		assert.equal(counted.runs('claude'), 1);
		assert.equal(counted.runs('node'), 1);
		assert.equal(second.environment?.agents['claude']?.version, '2.1.3');
		assert.deepEqual(second.environment?.runtimes, first.environment?.runtimes);
		// An upgrade: a new binary file (other size and mtime) is asked again.
		fs.writeFileSync(
			path.join(counted.bin, 'claude'),
			`#!/bin/sh\necho claude >> '${path.join(counted.bin, 'calls.log')}'\necho "2.2.0 (Claude Code, upgraded)"\n`,
			{ mode: 0o755 },
		);
		const upgraded = await createSettled(engine, { actor });
		assert.equal(counted.runs('claude'), 2);
		assert.equal(upgraded.environment?.agents['claude']?.version, '2.2.0');
		assert.equal(counted.runs('node'), 1);
	});

	void it('across CLI processes: no version probe and no git status when their inputs did not change', (t) => {
		const counted = countingPath(t);
		const root = tempDir(t);
		makeWorkspace(root);
		const env = { ...process.env, BATON_ACTOR: 'test:cli', PATH: counted.path, BATON_NO_DAEMON: '1' };
		const baton = (...args: string[]) => spawnSync(process.execPath, [cliPath, ...args], { cwd: root, env, encoding: 'utf8' });
		assert.equal(baton('init').status, 0);
		// Probes are timed from when capture starts, and a loaded machine can hold a short process's event loop for a second.
		fs.writeFileSync(path.join(root, '.baton', 'config.json'), JSON.stringify({ checkpoints: { environmentTimeout: 20_000 } }));
		const create = () => {
			const run = baton('checkpoint', 'create', '--json');
			assert.equal(run.status, 0, run.stderr);
			const id = (JSON.parse(run.stdout) as { checkpoint: { id: string } }).checkpoint.id;
			return (JSON.parse(baton('checkpoint', 'show', id, '--json').stdout) as { checkpoint: any }).checkpoint;
		};
		const first = create();
		assert.equal(counted.runs('claude'), 1);
		assert.equal(counted.statusCalls(), 1);
		assert.equal(first.environment.agents.claude.version, '2.1.3');
		const cache = JSON.parse(fs.readFileSync(path.join(root, '.baton', 'cache', 'environment.json'), 'utf8')) as Record<string, object>;
		assert.deepEqual(Object.keys(cache).sort(), ['git', 'lockfiles', 'versions']);

		const second = create();
		assert.equal(counted.runs('claude'), 1, 'the version came from the cache file');
		assert.equal(counted.statusCalls(), 1, 'HEAD, the ref, the index and the snapshot’s tree are unchanged: no git status');
		assert.deepEqual(second.environment.git, first.environment.git);
		assert.deepEqual(second.environment.agents, first.environment.agents);

		write(root, 'src/app.ts', 'export const app = 2;\n');
		const edited = create();
		assert.equal(counted.statusCalls(), 2, 'a work-tree change');
		assert.equal(edited.environment.git.changedFiles, first.environment.git.changedFiles + 1);

		userGit(root, 'commit', '-qam', 'user commit');
		const committed = create();
		assert.equal(counted.statusCalls(), 3, 'HEAD and the index moved');
		assert.notEqual(committed.environment.git.head, first.environment.git.head);
		assert.equal(counted.runs('claude'), 1);
	});

	void it('in the daemon (file watcher running): two checkpoints with nothing changed run one git status', async (t) => {
		const counted = countingPath(t);
		const { cli, root } = await daemonWorkspace(t);
		makeWorkspace(root);
		const env = { PATH: counted.path };
		// daemonWorkspace kills the daemon when the test ends.
		const create = async () => {
			const run = await batonAsync(cli, root, ['checkpoint', 'create', '--json'], { env });
			assert.equal(run.code, 0, run.stderr);
			const id = (JSON.parse(run.stdout) as { checkpoint: { id: string } }).checkpoint.id;
			// The daemon records the environment in the background: wait for it.
			for (let i = 0; i < 100; i++) {
				const shown = await batonAsync(cli, root, ['checkpoint', 'show', id, '--json'], { env });
				const checkpoint = (JSON.parse(shown.stdout) as { checkpoint: { environment: { pending?: true; git: { changedFiles: number } } } }).checkpoint;
				if (!checkpoint.environment.pending) return checkpoint;
				await new Promise((resolve) => setTimeout(resolve, 100));
			}
			throw new Error('the environment was never recorded');
		};
		fs.writeFileSync(path.join(root, '.baton', 'config.json'), JSON.stringify({ checkpoints: { environmentTimeout: 20_000 } }));
		// The first capture may come before the watcher is up (nothing vouches for the work tree yet).
		await create();
		const first = await create();
		const statusAfterFirst = counted.statusCalls();
		assert.ok(statusAfterFirst >= 1);
		await create();
		assert.equal(counted.statusCalls(), statusAfterFirst, 'nothing changed: no further git status');
		assert.equal(counted.runs('claude'), 1);
		write(root, 'src/app.ts', 'export const app = 2;\n');
		const edited = await create();
		assert.equal(counted.statusCalls(), statusAfterFirst + 1, 'a work-tree change');
		assert.equal(edited.environment.git.changedFiles, first.environment.git.changedFiles + 1);
	});
});

void describe('a late environment capture', () => {
	void it('writes its caches only where the store’s folder still is: a removed .baton is not made again', async (t) => {
		const root = tempDir(t);
		const baton = path.join(root, '.baton');
		const capture = (workspaceRoot: string) =>
			captureEnvironment({
				workspaceRoot,
				timeoutMs: 10_000,
				nowIso: '2026-01-01T00:00:00.000Z',
				gitEnv: process.env,
				cacheFile: path.join(workspaceRoot, '.baton', 'cache', 'environment.json'),
				hashCacheFile: path.join(workspaceRoot, '.baton', 'cache', 'binary-hashes.json'),
			});
		fs.mkdirSync(baton);
		await capture(root);
		assert.ok(fs.existsSync(path.join(baton, 'cache', 'environment.json')), 'a store’s folder gets its cache');
		// The workspace's store was removed (a reset, a test's clean-up) while a capture still ran.
		const gone = path.join(tempDir(t), 'removed');
		fs.mkdirSync(gone);
		const snapshot = await capture(gone);
		assert.ok(snapshot.capturedAt, 'the capture still answers');
		assert.deepEqual(fs.readdirSync(gone), [], 'and leaves nothing behind');
	});
});
