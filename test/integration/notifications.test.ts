/**
 * Notifications and secrets through the editor (workspace prepared by scripts/runEditorTests.mjs: a
 * git repository with Baton set up). Secrets go into VS Code's SecretStorage with “Baton: Store
 * Secret…”; the backend asks for them per delivery; “Baton: Send Test Notification” reaches a
 * loopback webhook; a change made by the CLI is delivered by the editor's backend; SMS goes through
 * a server that speaks Twilio's Messages API with the Twilio credentials stored the same way;
 * nothing secret lands in the workspace settings or under .baton/.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import * as vscode from 'vscode';
import type { BatonApi } from '../../src/extension/extension';
import { activateBaton } from './activateBaton';
import { CommandIds } from '../../src/extension/ids';
import type { NotificationShowDto, NotificationTestResultDto } from '../../src/protocol/notificationDto';
import { testAccount, twilioPeer, type TwilioPeer } from '../unit/engine/notifications/twilioPeer';

let api: BatonApi;
let extensionPath: string;
let server: http.Server;
let hookUrl: string;
const token = 'exthostTokenCANARY4821';
const received: { path: string; authorization: string | undefined; body: Record<string, any> }[] = [];
const shown: NotificationShowDto[] = [];
const root = (): string => vscode.workspace.workspaceFolders?.[0]?.uri.fsPath as string;
const twilioAccount = testAccount({ authToken: 'exthostTwilioTokenCANARY93b2' });
let twilio: TwilioPeer;
const teardowns: (() => Promise<void>)[] = [];

async function until(predicate: () => boolean, timeoutMs: number, what: string): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (!predicate()) {
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
		await new Promise((r) => setTimeout(r, 50));
	}
}

function filesUnder(dir: string): string[] {
	// Regular files only: the workspace daemon's socket lives here too, and a socket cannot be read.
	return fs
		.readdirSync(dir, { withFileTypes: true })
		.flatMap((e) => (e.isDirectory() ? filesUnder(path.join(dir, e.name)) : e.isFile() ? [path.join(dir, e.name)] : []));
}

suite('Notifications and secrets in the editor', () => {
	suiteSetup(async () => {
		server = http.createServer((req, res) => {
			const chunks: Buffer[] = [];
			req.on('data', (c: Buffer) => chunks.push(c));
			req.on('end', () => {
				received.push({
					path: req.url ?? '',
					authorization: req.headers.authorization,
					body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, any>,
				});
				res.writeHead(200).end('ok');
			});
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		hookUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/exthost-hook-CANARY7d1e`;
		twilio = await twilioPeer({ after: (fn) => teardowns.push(fn) }, twilioAccount);
		({ api, extensionPath } = await activateBaton());
		api.workspace.onDidReceiveNotification((n) => shown.push(n));
		await vscode.workspace.getConfiguration('baton').update('notifications.channels', ['editor', 'webhook'], vscode.ConfigurationTarget.Workspace);
		await vscode.workspace.getConfiguration('baton').update('notifications.routing.notice', ['editor', 'webhook'], vscode.ConfigurationTarget.Workspace);
		await api.workspace.refresh();
	});

	suiteTeardown(async () => {
		await vscode.workspace.getConfiguration('baton').update('notifications.channels', undefined, vscode.ConfigurationTarget.Workspace);
		await vscode.workspace.getConfiguration('baton').update('notifications.routing.notice', undefined, vscode.ConfigurationTarget.Workspace);
		for (const key of ['notifications.sms.to', 'notifications.sms.from'])
			await vscode.workspace.getConfiguration('baton').update(key, undefined, vscode.ConfigurationTarget.Workspace);
		server.close();
		for (const fn of teardowns) await fn();
	});

	test('Store Secret keeps the webhook URL and token in VS Code’s SecretStorage', async () => {
		assert.deepEqual(await vscode.commands.executeCommand(CommandIds.storeSecret, { name: 'webhook.url', value: hookUrl }), {
			name: 'webhook.url',
			stored: true,
		});
		await vscode.commands.executeCommand(CommandIds.storeSecret, { name: 'webhook.token', value: token });
		assert.equal(await api.workspace.secrets.get('baton.webhook.url'), hookUrl);
		assert.equal(await api.workspace.secrets.get('baton.webhook.token'), token);
		assert.equal(
			await vscode.commands.executeCommand(CommandIds.storeSecret, { name: 'slack.webhookUrl', value: 'not a url' }),
			undefined,
			'refused: not a URL',
		);
		assert.equal(await api.workspace.secrets.get('baton.slack.webhookUrl'), undefined);
	});

	test('Send Test Notification reaches the loopback webhook with the stored secrets, and the editor', async () => {
		const result = (await vscode.commands.executeCommand(CommandIds.sendTestNotification, { channel: 'webhook' })) as NotificationTestResultDto;
		assert.equal(result.ok, true, result.error ?? '');
		const request = received.at(-1);
		assert.equal(request?.path, '/exthost-hook-CANARY7d1e');
		assert.equal(request?.authorization, `Bearer ${token}`);
		assert.equal(request?.body['title'], 'Test notification');
		const editor = (await vscode.commands.executeCommand(CommandIds.sendTestNotification, { channel: 'editor' })) as NotificationTestResultDto;
		assert.equal(editor.ok, true, editor.error ?? '');
		await until(() => shown.some((n) => n.title === 'Test notification'), 5_000, 'the editor notification');
	});

	test('a change made by the CLI is delivered by the editor’s backend, to the webhook and the editor', async () => {
		const before = received.length;
		const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('BATON_')));
		const cli = (...args: string[]) =>
			spawnSync(process.execPath, [path.join(extensionPath, 'dist', 'cli.js'), ...args, '--json'], {
				cwd: root(),
				encoding: 'utf8',
				env: { ...env, ELECTRON_RUN_AS_NODE: '1' },
			});
		const started = JSON.parse(cli('session', 'start', '--name', 'from the terminal').stdout) as { session: { id: string } };
		assert.equal(cli('session', 'end', '--note', 'done in the terminal').status, 0);
		await until(() => received.slice(before).some((r) => r.body['event'] === 'session.completed'), 15_000, 'the webhook delivery');
		const delivered = received.slice(before).find((r) => r.body['event'] === 'session.completed');
		assert.equal(delivered?.body['session'].id, started.session.id);
		assert.equal(delivered?.authorization, `Bearer ${token}`, 'the CLI had no secret: the backend delivered it with SecretStorage’s');
		await until(() => shown.some((n) => n.event === 'session.completed'), 5_000, 'the editor notification');
	});

	test('Clear Secret removes it; the test then names what is missing', async () => {
		await vscode.commands.executeCommand(CommandIds.clearSecret, { name: 'webhook.url' });
		assert.equal(await api.workspace.secrets.get('baton.webhook.url'), undefined);
		const result = (await vscode.commands.executeCommand(CommandIds.sendTestNotification, { channel: 'webhook' })) as NotificationTestResultDto;
		assert.equal(result.ok, false);
		assert.match(result.error ?? '', /webhook: no webhook\.url is set: store it with “Baton: Store Secret…”/);
	});

	test('SMS: Twilio’s credentials go to SecretStorage (a malformed SID refused), and Send Test Notification texts through Twilio’s API', async () => {
		assert.equal(
			await vscode.commands.executeCommand(CommandIds.storeSecret, { name: 'twilio.accountSid', value: twilioAccount.authToken }),
			undefined,
			'refused: a token is not an account SID',
		);
		assert.equal(await api.workspace.secrets.get('baton.twilio.accountSid'), undefined);
		await vscode.commands.executeCommand(CommandIds.storeSecret, { name: 'twilio.accountSid', value: twilioAccount.accountSid });
		await vscode.commands.executeCommand(CommandIds.storeSecret, { name: 'twilio.authToken', value: twilioAccount.authToken });
		// The server is not a VS Code setting (the credentials go where it points): .baton/config.json names the stand-in.
		fs.writeFileSync(path.join(root(), '.baton', 'config.json'), JSON.stringify({ notifications: { sms: { server: twilio.url } } }));
		const settings = vscode.workspace.getConfiguration('baton');
		await settings.update('notifications.sms.to', ['+14155550100', '+447700900123'], vscode.ConfigurationTarget.Workspace);
		await settings.update('notifications.sms.from', '+15005550006', vscode.ConfigurationTarget.Workspace);
		await api.workspace.refresh();
		const result = (await vscode.commands.executeCommand(CommandIds.sendTestNotification, { channel: 'sms' })) as NotificationTestResultDto;
		assert.equal(result.ok, true, result.error ?? '');
		assert.deepEqual(
			twilio.messages.map((m) => [m.to, m.from]),
			[
				['+14155550100', '+15005550006'],
				['+447700900123', '+15005550006'],
			],
		);
		assert.ok(
			twilio.requests.every(
				(r) =>
					r.user === twilioAccount.accountSid &&
					r.password === twilioAccount.authToken &&
					r.path === `/2010-04-01/Accounts/${twilioAccount.accountSid}/Messages.json`,
			),
		);
		assert.match(twilio.messages[0]?.body ?? '', /^Baton notice: Test notification - If you can read this, Baton reaches you on SMS \(Twilio\)\./);
		await vscode.commands.executeCommand(CommandIds.clearSecret, { name: 'twilio.authToken' });
		const missing = (await vscode.commands.executeCommand(CommandIds.sendTestNotification, { channel: 'sms' })) as NotificationTestResultDto;
		assert.equal(
			missing.error,
			'sms: no twilio.authToken is set: store it with “Baton: Store Secret…” in VS Code, or set BATON_TWILIO_AUTH_TOKEN for the CLI',
		);
	});

	test('no secret in the workspace settings or under .baton/', () => {
		const settings = fs.readFileSync(path.join(root(), '.vscode', 'settings.json'), 'utf8');
		assert.match(settings, /baton\.notifications\.channels/, 'the settings the test wrote are there');
		for (const file of [path.join(root(), '.vscode', 'settings.json'), ...filesUnder(path.join(root(), '.baton'))]) {
			const text = fs.readFileSync(file).toString('latin1');
			for (const secret of [token, 'CANARY7d1e', twilioAccount.authToken, twilioAccount.accountSid]) {
				assert.ok(!text.includes(secret), `${secret} found in ${file}`);
			}
		}
	});
});
