import assert from 'node:assert/strict';
import { fork } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { createMessageConnection, IPCMessageReader, IPCMessageWriter } from 'vscode-jsonrpc/node';
import { connectDaemon } from '../../../src/extension/daemonSocket';
import * as rpc from '../../../src/protocol/rpc';
import { baton, daemonEnv, daemonPids, daemonWorkspace, endpoint, waitFor } from './daemonProcesses';

test("the editor's backend serves the CLI on the workspace's socket, and hands it back when its window closes", async (t) => {
	const { cli, root } = await daemonWorkspace(t);
	// The backend as the extension starts it: forked with an IPC channel, --serve-daemon.
	const editor = fork(path.join(path.dirname(cli), 'server.js'), ['--workspace', root, '--serve-daemon', '--poll-ms', '50'], {
		env: daemonEnv(),
		stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
		execArgv: [],
	});
	t.after(() => editor.kill('SIGKILL'));
	const connection = createMessageConnection(new IPCMessageReader(editor), new IPCMessageWriter(editor));
	const changes: { external: boolean }[] = [];
	connection.onNotification(rpc.dataDidChange, (change) => changes.push(change));
	connection.listen();
	assert.ok(await waitFor(() => endpoint(root)?.pid === editor.pid, 20_000), 'the editor backend never served the socket');
	const before = await connection.sendRequest(rpc.taskList, undefined);
	assert.deepEqual(before.tasks, []);
	const added = await baton(cli, root, ['task', 'add', '--title', 'from a terminal', '--json']);
	assert.equal(added.code, 0, added.stderr);
	assert.equal(daemonPids(root).length, 0, 'no separate daemon was started');
	// The editor's engine sees the CLI's write like any other process's.
	assert.ok(await waitFor(() => changes.some((c) => c.external), 10_000));
	const tasks = await connection.sendRequest(rpc.taskList, undefined);
	assert.deepEqual(
		tasks.tasks.map((task) => task.title),
		['from a terminal'],
	);
	connection.dispose();
	editor.disconnect();
	assert.ok(await waitFor(() => editor.exitCode !== null, 10_000));
	assert.equal(endpoint(root), undefined, 'the endpoint file is removed with the window');
	// The next command starts a daemon of its own.
	assert.equal((await baton(cli, root, ['task', 'list'])).code, 0);
	assert.equal(daemonPids(root).length, 1);
});

test("a second window on the workspace connects to the first window's backend over the socket instead of starting one", async (t) => {
	const { cli, root } = await daemonWorkspace(t);
	const first = fork(path.join(path.dirname(cli), 'server.js'), ['--workspace', root, '--serve-daemon', '--poll-ms', '50'], {
		env: daemonEnv(),
		stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
		execArgv: [],
	});
	t.after(() => first.kill('SIGKILL'));
	const firstConnection = createMessageConnection(new IPCMessageReader(first), new IPCMessageWriter(first));
	firstConnection.listen();
	assert.ok(await waitFor(() => endpoint(root)?.pid === first.pid, 20_000), 'the first window never served the socket');
	// The second window, as ServerClient does it: the endpoint file, then `daemon/hello`.
	const second = await connectDaemon(root, 2_000);
	assert.ok(second, 'the second window could not reach the first backend');
	t.after(() => second.dispose());
	assert.equal(second.pid, first.pid);
	const changes: { external: boolean }[] = [];
	second.connection.onNotification(rpc.dataDidChange, (change) => changes.push(change));
	// The second window writes through the shared backend; the first sees the write as its own process's.
	await second.connection.sendRequest(rpc.taskAdd, { title: 'from the second window' });
	const seen = await firstConnection.sendRequest(rpc.taskList, undefined);
	assert.deepEqual(
		seen.tasks.map((task) => task.title),
		['from the second window'],
	);
	// A terminal's write reaches the second window as a change notification too.
	assert.equal((await baton(cli, root, ['task', 'add', '--title', 'from a terminal'])).code, 0);
	assert.ok(await waitFor(() => changes.some((c) => c.external), 10_000), 'the second window was not told about the terminal write');
	assert.equal(daemonPids(root).length, 0, 'one backend serves both windows and the terminal');
	// The first window closes: the second one's link ends (its ServerClient then starts a backend of its own).
	firstConnection.dispose();
	first.disconnect();
	await second.closed;
	assert.equal(endpoint(root), undefined);
});

test('a stale endpoint file gives the editor no link (it starts its own backend)', async (t) => {
	const { root } = await daemonWorkspace(t);
	fs.writeFileSync(
		path.join(root, '.baton', 'daemon.json'),
		JSON.stringify({ pid: process.pid, socket: path.join(root, '.baton', 'daemon.sock'), instance: 'gone', workspace: root }),
	);
	assert.equal(await connectDaemon(root, 500), undefined);
});

test("a window of another Baton version keeps a backend of its own instead of joining the workspace's daemon", async (t) => {
	const { cli, root } = await daemonWorkspace(t);
	const old = fork(path.join(path.dirname(cli), 'server.js'), ['--workspace', root, '--serve-daemon', '--baton-version', '0.0.1-old', '--poll-ms', '50'], {
		env: daemonEnv(),
		stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
		execArgv: [],
	});
	t.after(() => old.kill('SIGKILL'));
	const oldConnection = createMessageConnection(new IPCMessageReader(old), new IPCMessageWriter(old));
	oldConnection.listen();
	t.after(() => oldConnection.dispose());
	assert.ok(await waitFor(() => endpoint(root)?.pid === old.pid, 20_000), 'the old window never served the socket');
	// The updated window: the endpoint names another version, so it does not even say hello.
	assert.equal(await connectDaemon(root, 2_000, { client: 'editor' }, '0.2.0'), undefined);
	// The daemon's own answer is checked too (an endpoint written without a version).
	const file = path.join(root, '.baton', 'daemon.json');
	const { version: _dropped, ...withoutVersion } = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
	fs.writeFileSync(file, JSON.stringify(withoutVersion));
	assert.equal(await connectDaemon(root, 2_000, { client: 'editor' }, '0.2.0'), undefined);
	// A window of the same version joins.
	const same = await connectDaemon(root, 2_000, { client: 'editor' }, '0.0.1-old');
	assert.ok(same, 'a window of the same version could not join');
	same.dispose();
});
