import assert from 'node:assert/strict';
import { fork } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { createMessageConnection, IPCMessageReader, IPCMessageWriter } from 'vscode-jsonrpc/node';
import * as rpc from '../../../src/protocol/rpc';
import { baton, daemonEnv, daemonPids, daemonWorkspace, endpoint, waitFor } from './daemonProcesses';

test("the editor's backend serves the CLI on the workspace's socket, and hands it back when its window closes", async (t) => {
	const { cli, root } = await daemonWorkspace(t);
	// The backend as the extension starts it: forked with an IPC channel, --serve-daemon.
	const editor = fork(path.join(path.dirname(cli), 'server.js'), ['--workspace', root, '--serve-daemon', '--poll-ms', '50'], { env: daemonEnv(), stdio: ['ignore', 'ignore', 'inherit', 'ipc'], execArgv: [] });
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
