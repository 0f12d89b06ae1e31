/**
 * After an update, the previous version's daemon may still serve the workspace until it idles out.
 * A command of the new version does not hand it requests it may not know: it runs in its own
 * process, and leaves the old daemon alone (an open window of the old version may still use it).
 * Real processes: the built CLI and a daemon started from the built server with another version.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { baton, daemonEnv, daemonPids, daemonWorkspace, endpoint, waitFor } from './daemonProcesses';

test("a command does not use another version's daemon: it runs in its own process and leaves that daemon running", async (t) => {
	const { cli, root } = await daemonWorkspace(t);
	const old = spawn(process.execPath, [path.join(path.dirname(cli), 'server.js'), '--daemon', '--workspace', root, '--baton-version', '0.0.1-old'], {
		cwd: root,
		env: daemonEnv(),
		stdio: 'ignore',
		detached: true,
	});
	old.unref();
	assert.ok(await waitFor(() => endpoint(root)?.pid === old.pid, 20_000), 'the old daemon serves the workspace');
	const file = path.join(root, '.baton', 'daemon.json');
	assert.equal((JSON.parse(fs.readFileSync(file, 'utf8')) as { version?: string }).version, '0.0.1-old');

	const run = await baton(cli, root, ['task', 'add', '--title', 'run here', '--json']);
	assert.equal(run.code, 0, run.stderr);
	assert.equal((JSON.parse(run.stdout) as { task: { title: string } }).task.title, 'run here');
	const log = fs.readFileSync(path.join(root, '.baton', 'logs', 'daemon.log'), 'utf8');
	assert.doesNotMatch(log, /cli\/run task add/, 'the old daemon ran nothing');
	assert.deepEqual(daemonPids(root), [old.pid], 'no second daemon, and the old one still runs');

	// `baton daemon status|stop` still see and stop it, whatever its version.
	const status = spawnSync(process.execPath, [cli, 'daemon', 'status', '--json'], { cwd: root, env: daemonEnv(), encoding: 'utf8' });
	assert.match(status.stdout, /"running":\s*true/);
	assert.equal(spawnSync(process.execPath, [cli, 'daemon', 'stop'], { cwd: root, env: daemonEnv() }).status, 0);
	assert.ok(await waitFor(() => daemonPids(root).length === 0, 10_000));
	// The next command starts a daemon of its own version.
	assert.equal((await baton(cli, root, ['task', 'list'])).code, 0);
	assert.ok(await waitFor(() => daemonPids(root).length === 1, 10_000));
	assert.notEqual((JSON.parse(fs.readFileSync(file, 'utf8')) as { version?: string }).version, '0.0.1-old');
});
