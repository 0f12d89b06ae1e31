/**
 * The backend delivers notifications by itself: after its own writes and other processes' writes,
 * with the webhook URL from the editor's SecretStorage (answered over `secret/get`), shows the editor
 * channel as `notification/show`, and never holds a request up on a dead endpoint.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ResponseError } from 'vscode-jsonrpc/node';
import { Engine } from '../../../src/engine/engine';
import { noSecrets } from '../../../src/engine/secrets';
import type { NotificationShowDto } from '../../../src/protocol/notificationDto';
import * as rpc from '../../../src/protocol/rpc';
import { httpPeer, type Reply } from '../engine/notifications/loopbackPeers';
import { MemoryLogger, tempDir } from '../helpers';
import { startServer, until } from './serverHarness';

/** The environment without any BATON_ secret: the secret must come from the editor. */
const cleanEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('BATON_')));

async function setup(t: Parameters<typeof tempDir>[0], replies: Reply[], timeout = '5s') {
	const hook = await httpPeer(t, replies);
	const workspace = tempDir(t);
	const config = { notifications: { channels: ['editor', 'webhook'], routing: { notice: ['editor', 'webhook'] }, timeout } };
	const server = startServer(t, workspace, {
		extra: ['--config', JSON.stringify(config)],
		env: cleanEnv,
		secrets: { 'webhook.url': `${hook.url}/from-secret-storage` },
	});
	const shown: NotificationShowDto[] = [];
	server.connection.onNotification(rpc.notificationShow, (n) => shown.push(n));
	await server.connection.sendRequest(rpc.workspaceInit, undefined);
	return { hook, workspace, shown, ...server };
}

void describe('backend notifications', () => {
	void it('delivers after its own and other processes’ writes, to the webhook and the editor', async (t) => {
		const { hook, workspace, shown, connection } = await setup(t, [{ status: 200 }]);
		const { session } = await connection.sendRequest(rpc.sessionStart, { name: 'served', scope: 'global' });
		await connection.sendRequest(rpc.sessionEnd, { id: session.id, note: 'done' });
		await until(() => hook.requests.length === 1 && shown.length === 1);
		assert.equal(hook.requests[0]?.path, '/from-secret-storage');
		assert.equal(JSON.parse(hook.requests[0]!.body).event, 'session.completed');
		assert.equal(shown[0]?.title, 'Session completed: served');
		assert.match(shown[0]?.id ?? '', /^ntf_/);
		assert.deepEqual(
			shown[0]?.actions.map((a) => a.editor),
			['Baton: Show Session Details'],
		);

		// Another process (the CLI, an agent hook) records a cost that crosses the budget's 80 %. It has
		// no settings of its own: it routes with the ones the editor's backend recorded.
		const other = await Engine.open({ workspaceRoot: workspace, log: new MemoryLogger(), secrets: noSecrets });
		t.after(() => other.close());
		const { session: second } = await other.sessions.start({ name: 'from a hook', actor: 'hook' });
		await other.checkpoints.recordMetrics({ sessionId: second.id, costUsd: 4.5, actor: 'hook' });
		await until(() => hook.requests.length === 2 && shown.length === 2, 8_000);
		assert.equal(JSON.parse(hook.requests[1]!.body).event, 'budget.threshold_reached');
		assert.equal(shown[1]?.priority, 'warning');
	});

	void it('lists channels and secret names, and sends a test on request', async (t) => {
		const { hook, connection } = await setup(t, [{ status: 200 }]);
		const { channels } = await connection.sendRequest(rpc.notificationChannels, undefined);
		const byId = Object.fromEntries(channels.map((c) => [c.id, c]));
		assert.deepEqual(byId['webhook'], { id: 'webhook', label: 'Webhook', enabled: true, missing: [] });
		assert.deepEqual(byId['slack'], { id: 'slack', label: 'Slack', enabled: false, missing: ['slack.webhookUrl'] });
		assert.deepEqual(byId['editor']?.missing, []);
		assert.deepEqual(byId['sms'], {
			id: 'sms',
			label: 'SMS (Twilio)',
			enabled: false,
			missing: ['notifications.sms.to', 'notifications.sms.from', 'twilio.accountSid', 'twilio.authToken'],
		});
		const result = await connection.sendRequest(rpc.notificationTest, { channel: 'webhook' });
		assert.equal(result.ok, true, result.error ?? '');
		assert.equal(JSON.parse(hook.requests.at(-1)!.body).title, 'Test notification');
		const refused = await connection.sendRequest(rpc.notificationTest, { channel: 'pager' }).catch((e: unknown) => e);
		assert.ok(refused instanceof ResponseError);
		assert.equal((refused.data as rpc.RpcErrorData).code, 'invalidInput');
		const { secrets } = await connection.sendRequest(rpc.secretList, undefined);
		assert.deepEqual(
			secrets.find((s) => s.name === 'smtp.password'),
			{ name: 'smtp.password', label: 'SMTP password', env: 'BATON_SMTP_PASSWORD' },
		);
		assert.deepEqual(
			secrets.filter((s) => s.name.startsWith('twilio.')).map((s) => [s.name, s.env]),
			[
				['twilio.accountSid', 'BATON_TWILIO_ACCOUNT_SID'],
				['twilio.authToken', 'BATON_TWILIO_AUTH_TOKEN'],
				['twilio.apiKeySid', 'BATON_TWILIO_API_KEY_SID'],
				['twilio.apiKeySecret', 'BATON_TWILIO_API_KEY_SECRET'],
			],
		);
		assert.ok(
			secrets.some((s) => s.name === 'github.token'),
			'every name the engine knows, trackers’ too',
		);
	});

	void it('answers requests at once while a delivery hangs on a dead endpoint', async (t) => {
		// The delivery gives up only after 2 minutes: requests that waited for it would find it given up.
		const { hook, connection } = await setup(t, ['hang'], '2m');
		const { session } = await connection.sendRequest(rpc.sessionStart, { name: 'first', scope: 'global' });
		await connection.sendRequest(rpc.sessionEnd, { id: session.id });
		await until(() => hook.requests.length === 1);
		const { session: next } = await connection.sendRequest(rpc.sessionStart, { name: 'second', scope: 'global' });
		await connection.sendRequest(rpc.sessionEnd, { id: next.id });
		const status = await connection.sendRequest(rpc.workspaceStatus, undefined);
		assert.equal(status.counts.ended, 2);
		assert.equal(hook.hanging(), 1, 'answered while the delivery still hangs');
	});
});
