import assert from 'node:assert/strict';
import { fork } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { test } from 'node:test';
import { createMessageConnection, IPCMessageReader, IPCMessageWriter } from 'vscode-jsonrpc/node';
import { connectDaemon } from '../../../src/extension/daemonSocket';
import type { NotificationShowDto } from '../../../src/protocol/notificationDto';
import * as rpc from '../../../src/protocol/rpc';
import { baton, daemonEnv, daemonPids, daemonWorkspace, waitFor, endpoint } from './daemonProcesses';

const token = 'joinedWindowTokenCANARY';

test("a window that joins another's backend brings its settings and secrets: a terminal's session end reaches its webhook, on the one engine, and every window is told", async (t) => {
	const { cli, root } = await daemonWorkspace(t);
	const received: { authorization: string | undefined; body: Record<string, unknown> }[] = [];
	const server = http.createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', () => {
			received.push({ authorization: req.headers.authorization, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown> });
			res.writeHead(200).end('ok');
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	t.after(() => server.close());
	const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/joined`;

	// The first window: forked with its settings (no channels) and a SecretStorage that holds nothing.
	const env = daemonEnv();
	delete env['BATON_WEBHOOK_URL'];
	delete env['BATON_WEBHOOK_TOKEN'];
	const first = fork(path.join(path.dirname(cli), 'server.js'), ['--workspace', root, '--serve-daemon', '--poll-ms', '50', '--config', '{}'], {
		env,
		stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
		execArgv: [],
	});
	t.after(() => first.kill('SIGKILL'));
	const firstConnection = createMessageConnection(new IPCMessageReader(first), new IPCMessageWriter(first));
	const logs: string[] = [];
	const shownFirst: NotificationShowDto[] = [];
	firstConnection.onNotification(rpc.serverLog, ({ message }) => logs.push(message));
	firstConnection.onNotification(rpc.notificationShow, (n) => shownFirst.push(n));
	firstConnection.onRequest(rpc.secretGet, () => ({ value: null }));
	firstConnection.listen();
	assert.ok(await waitFor(() => endpoint(root)?.pid === first.pid, 20_000), 'the first window never served the socket');
	// The first window opens the engine.
	assert.deepEqual((await firstConnection.sendRequest(rpc.taskList, undefined)).tasks, []);

	// The second window joins with its own settings (webhook and editor channels) and its own SecretStorage.
	const config = { notifications: { channels: ['editor', 'webhook'], routing: { notice: ['editor', 'webhook'] } } };
	const second = await connectDaemon(root, 5_000, { client: 'editor', editor: { config, hostEnvironment: { version: '1.0.0-test', extensions: {} } } });
	assert.ok(second, 'the second window could not reach the first backend');
	t.after(() => second.dispose());
	const shownSecond: NotificationShowDto[] = [];
	second.connection.onNotification(rpc.notificationShow, (n) => shownSecond.push(n));
	second.connection.onRequest(rpc.secretGet, ({ name }) => ({ value: name === 'webhook.url' ? url : name === 'webhook.token' ? token : null }));
	assert.ok(
		await waitFor(() => logs.some((m) => /notifications: delivering to editor, webhook/.test(m)), 20_000),
		`the backend did not take the second window's settings:\n${logs.join('\n')}`,
	);

	// A terminal, with no secret in its environment, starts and ends a session through the shared backend.
	const started = await baton(cli, root, ['session', 'start', '--name', 'from the terminal', '--json'], { env: {} });
	assert.equal(started.code, 0, started.stderr);
	const session = (JSON.parse(started.stdout) as { session: { id: string } }).session;
	const ended = await baton(cli, root, ['session', 'end', '--note', 'done', '--json']);
	assert.equal(ended.code, 0, ended.stderr);
	assert.ok(await waitFor(() => received.some((r) => r.body['event'] === 'session.completed'), 15_000), `no webhook delivery:\n${logs.join('\n')}`);
	const delivered = received.find((r) => r.body['event'] === 'session.completed');
	assert.equal((delivered?.body['session'] as { id: string } | undefined)?.id, session.id);
	assert.equal(delivered?.authorization, `Bearer ${token}`, "delivered with the joined window's SecretStorage");
	// Every connected window shows it.
	assert.ok(
		await waitFor(() => shownFirst.some((n) => n.event === 'session.completed') && shownSecond.some((n) => n.event === 'session.completed'), 10_000),
		'both windows are told',
	);

	// One engine: the terminal's commands found the windows' engine open, and no other process served them.
	assert.equal(daemonPids(root).length, 0);
	const runs = logs.filter((m) => /daemon: cli\/run session (start|end) → exit 0/.test(m));
	assert.equal(runs.length, 2, logs.join('\n'));
	for (const line of runs) {
		assert.match(line, /\(warm engine\)$/, logs.join('\n'));
	}
	// The windows see the terminal's session like their own.
	const listed = await second.connection.sendRequest(rpc.sessionList, {});
	assert.ok(listed.sessions.some((s) => s.id === session.id));
	firstConnection.dispose();
	first.disconnect();
});
