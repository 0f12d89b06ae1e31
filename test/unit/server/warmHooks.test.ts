import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { baton, daemonEnv, daemonWorkspace, endpoint } from './daemonProcesses';

function daemonLog(root: string): string {
	return fs.readFileSync(path.join(root, '.baton', 'logs', 'daemon.log'), 'utf8');
}

test("hooks run in the daemon's warm engine, which still sees what other processes wrote", async (t) => {
	const { cli, root } = await daemonWorkspace(t);
	t.after(() => spawnSync(process.execPath, [cli, 'daemon', 'stop'], { cwd: root, env: daemonEnv() }));
	// The first command starts the daemon and opens its engine.
	assert.equal((await baton(cli, root, ['task', 'list'])).code, 0);
	assert.match(daemonLog(root), /cli\/run task list → exit 0 in \d+ ms \(opened the engine\)/);
	// Another process writes behind the daemon's back.
	const outside = spawnSync(process.execPath, [cli, '--no-daemon', 'task', 'add', '--title', 'written outside', '--json'], {
		cwd: root,
		env: daemonEnv(),
		encoding: 'utf8',
	});
	assert.equal(outside.status, 0, outside.stderr);
	const start = JSON.stringify({ session_id: 'a1b2c3d4-0000-4000-8000-000000000009', hook_event_name: 'SessionStart', cwd: root, source: 'startup' });
	const hook = await baton(cli, root, ['hook', 'session-start'], { input: start });
	assert.equal(hook.code, 0, hook.stderr);
	// The briefing the agent gets lists the task written by the other process…
	assert.match(hook.stdout, /T1 written outside/);
	// …and it came from the daemon's engine, already open: no engine opened for the hook.
	assert.match(daemonLog(root), /hook\/run hook session-start → exit 0 in \d+ ms \(warm engine\)/);
	const pid = endpoint(root)?.pid;
	assert.match(fs.readFileSync(path.join(root, '.baton', 'logs', 'hooks.log'), 'utf8'), new RegExp(`pid=${pid} claude-code session-start .* → started ses_`));
	// A command after the hook sees the session the hook started (same engine, no stale cache).
	const status = await baton(cli, root, ['session', 'show', '--json']);
	assert.equal(status.code, 0, status.stderr);
	assert.match(status.stdout, /"status":"active"/);
	assert.equal((await baton(cli, root, ['daemon', 'stop', '--json'])).stdout.trim(), '{"stopped":true}');
});

test('a session end answers the agent at once in the daemon; its handoff and checkpoint follow, and the next command sees them', async (t) => {
	const { cli, root } = await daemonWorkspace(t);
	t.after(() => spawnSync(process.execPath, [cli, 'daemon', 'stop'], { cwd: root, env: daemonEnv() }));
	const id = 'a1b2c3d4-0000-4000-8000-00000000000a';
	const payload = (event: string, extra: Record<string, unknown> = {}) => JSON.stringify({ session_id: id, hook_event_name: event, cwd: root, ...extra });
	assert.equal((await baton(cli, root, ['hook', 'session-start'], { input: payload('SessionStart', { source: 'startup' }) })).code, 0);
	fs.writeFileSync(path.join(root, 'made.txt'), 'by the agent\n');
	const end = await baton(cli, root, ['hook', 'session-end'], { input: payload('SessionEnd', { reason: 'other' }) });
	assert.equal(end.code, 0, end.stderr);
	assert.equal(end.stdout, '', 'a session end answers nothing');
	assert.match(daemonLog(root), /hook\/run hook session-end → exit 0 in \d+ ms \(warm engine\) \(answered; the rest runs after\)/);
	// The next command waits for the work the end handed over: the session is ended, with its handoff.
	const shown = await baton(cli, root, ['session', 'list', '--json']);
	assert.equal(shown.code, 0, shown.stderr);
	const sessions = JSON.parse(shown.stdout).sessions as { status: string; id: string }[];
	assert.deepEqual(
		sessions.map((s) => s.status),
		['ended'],
	);
	const handoff = await baton(cli, root, ['session', 'show', sessions[0]!.id, '--json']);
	assert.match(handoff.stdout, /Claude Code session ended \(other\)/);
	assert.match(fs.readFileSync(path.join(root, '.baton', 'logs', 'hooks.log'), 'utf8'), /session-end .* → ended ses_.* \(after the answer\)/);
});
