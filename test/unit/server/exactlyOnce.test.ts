import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { test } from 'node:test';
import { runCli } from '../../../src/cli/main';
import { Engine } from '../../../src/engine/engine';
import { MemoryLogger, tempDir } from '../helpers';
import { baton, daemonEnv, daemonPids, daemonWorkspace, endpoint, waitFor } from './daemonProcesses';

async function cli(root: string, argv: string[], requestId?: string): Promise<{ code: number; stdout: string; stderr: string }> {
	let stdout = '';
	let stderr = '';
	const code = await runCli(argv, {
		stdout: (t) => void (stdout += t),
		stderr: (t) => void (stderr += t),
		cwd: root,
		env: { BATON_ACTOR: 'test:once' },
		...(requestId ? { requestId } : {}),
	});
	return { code, stdout, stderr };
}

function taskTitles(root: string, cliPath: string): string[] {
	const list = spawnSync(process.execPath, [cliPath, '--no-daemon', 'task', 'list', '--json'], { cwd: root, env: daemonEnv(), encoding: 'utf8' });
	return (JSON.parse(list.stdout) as { tasks: { title: string }[] }).tasks.map((task) => task.title);
}

test('a command run again under the same request id prints the recorded answer instead of running twice', async (t) => {
	const root = fs.realpathSync(tempDir(t, 'baton-once-'));
	spawnSync('git', ['init', '-q', root]);
	assert.equal((await cli(root, ['init'])).code, 0);
	const id = randomUUID();
	const first = await cli(root, ['task', 'add', '--title', 'only once', '--json'], id);
	assert.equal(first.code, 0, first.stderr);
	const again = await cli(root, ['task', 'add', '--title', 'only once', '--json'], id);
	assert.deepEqual(again, first);
	// A refusal is an answer too, but one that wrote nothing records nothing: it runs again.
	const refused = await cli(root, ['task', 'show', 'T99', '--json'], randomUUID());
	assert.equal(refused.code, 1);
	// Another id is another command.
	assert.equal((await cli(root, ['task', 'add', '--title', 'only once', '--json'], randomUUID())).code, 0);
	const list = await cli(root, ['task', 'list', '--json']);
	assert.equal((JSON.parse(list.stdout) as { tasks: unknown[] }).tasks.length, 2);
});

test('a command whose write is recorded but whose output was lost says it already ran, prints nothing, and does not run again', async (t) => {
	const root = fs.realpathSync(tempDir(t, 'baton-once-'));
	spawnSync('git', ['init', '-q', root]);
	assert.equal((await cli(root, ['init'])).code, 0);
	const id = randomUUID();
	assert.equal((await cli(root, ['task', 'add', '--title', 'output lost', '--json'], id)).code, 0);
	// What a daemon killed between the command's write and recording its answer leaves behind.
	const engine = await Engine.open({ workspaceRoot: root, log: new MemoryLogger() });
	await engine.store.write(() => engine.store.execCaptured('UPDATE client_requests SET exit_code = NULL, stdout = NULL, stderr = NULL WHERE id = ?', [id]));
	engine.close();
	const again = await cli(root, ['task', 'add', '--title', 'output lost', '--json'], id);
	assert.equal(again.code, 0);
	assert.equal(again.stdout, '');
	assert.match(again.stderr, /already ran .*not running it again/);
	const list = await cli(root, ['task', 'list', '--json']);
	assert.deepEqual(
		(JSON.parse(list.stdout) as { tasks: { title: string }[] }).tasks.map((task) => task.title),
		['output lost'],
	);
});

test('the daemon dies after the write, before the answer: the client falls back and gets the answer, not a second run', async (t) => {
	const { cli: cliPath, root } = await daemonWorkspace(t);
	const faults = { BATON_TEST_FAULTS: '1' };
	assert.equal((await baton(cliPath, root, ['task', 'list'], { env: faults })).code, 0);
	const pid = endpoint(root)?.pid;
	assert.ok(pid && daemonPids(root).includes(pid));
	const run = await baton(cliPath, root, ['task', 'add', '--title', 'written once', '--json'], {
		env: { ...faults, BATON_TEST_DAEMON_DIES_BEFORE_ANSWER: '1' },
	});
	assert.equal(run.code, 0, run.stderr);
	const task = (JSON.parse(run.stdout) as { task: { id: string; title: string } }).task;
	assert.equal(task.title, 'written once');
	// The daemon did die mid-request (so the answer came from the fallback), and ran the command itself.
	assert.ok(await waitFor(() => !daemonPids(root).includes(pid), 5_000));
	// The daemon had recorded the answer in the journal (it dies before it could log the command).
	assert.match(fs.readFileSync(`${root}/.baton/baton.db.journal`, 'latin1'), /UPDATE client_requests SET exit_code/);
	assert.deepEqual(taskTitles(root, cliPath), ['written once']);
	// And the answer the fallback printed is the one the daemon recorded: the same task id.
	const list = spawnSync(process.execPath, [cliPath, '--no-daemon', 'task', 'show', task.id, '--json'], { cwd: root, env: daemonEnv(), encoding: 'utf8' });
	assert.equal(list.status, 0, list.stderr);
});
