/**
 * Secrets stay out of everything Baton writes. Deliveries that succeed and fail (peers that echo
 * tokens back, a refused SMTP login, retries, test sends) run with distinctive secret values; then
 * every file under `.baton/` (git objects inflated), the database's rows and bytes, the workspace's
 * VS Code settings, the log lines and the outcomes are searched for them. Exports are not part of
 * this branch (no src/engine/interop); the lead's merge adds them to this search.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { actor } from '../../helpers';
import { makeWorkspace, write } from '../checkpoints/gitFixtures';
import { httpPeer, smtpPeer } from './loopbackPeers';
import { notifyEngine } from './notifyFixtures';
import { testAccount, twilioPeer } from './twilioPeer';

const root = path.resolve(__dirname, '../../../..');

/** Every file's bytes under `dir`; loose git objects are zlib streams, so they are inflated first. */
function filesUnder(dir: string): { file: string; text: string }[] {
	const out: { file: string; text: string }[] = [];
	const walk = (d: string): void => {
		for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
			const full = path.join(d, entry.name);
			if (entry.isDirectory()) {
				walk(full);
				continue;
			}
			const bytes = fs.readFileSync(full);
			const loose = /[\\/]objects[\\/][0-9a-f]{2}[\\/][0-9a-f]{38}$/.test(full);
			out.push({ file: full, text: (loose ? zlib.inflateSync(bytes) : bytes).toString('latin1') + bytes.toString('utf8') });
		}
	};
	walk(dir);
	return out;
}

void describe('secrets never leak', () => {
	void it('into .baton/, the database, settings, logs or delivery outcomes, whatever the deliveries did', async (t) => {
		const secrets = {
			'slack.webhookUrl': '',
			'discord.webhookUrl': '',
			'webhook.url': '',
			'webhook.token': 'CANARYwebhookToken5d1e',
			'ntfy.token': 'tk_CANARYntfyToken8c2b',
			'smtp.password': 'CANARYsmtpPassword3f9a',
			'twilio.accountSid': `AC${'ca9a7e11'.repeat(4)}`,
			'twilio.authToken': 'CANARYtwilioToken6a4d',
		};
		const slack = await httpPeer(t);
		const discord = await httpPeer(t, [{ status: 500, body: `upstream error for token CANARYdiscordToken77aa` }, { status: 204 }]);
		const hook = await httpPeer(t, [{ status: 401, body: `bad credentials: Bearer ${secrets['webhook.token']} /hooks/CANARYwebhookPath0b3c9d` }]);
		const ntfy = await httpPeer(t);
		const smtp = await smtpPeer(t, { user: 'bot', password: 'not-the-stored-one' });
		// Twilio's stand-in first answers with the Authorization header it got (a hostile echo), then accepts.
		const twilio = await twilioPeer(t, testAccount({ accountSid: secrets['twilio.accountSid'], authToken: secrets['twilio.authToken'] }), [
			{ status: 401, echoAuthorization: true },
		]);
		secrets['slack.webhookUrl'] = `${slack.url}/services/T01/B02/CANARYslackPath4e7f0a1b`;
		secrets['discord.webhookUrl'] = `${discord.url}/api/webhooks/42/CANARYdiscordToken77aa`;
		secrets['webhook.url'] = `${hook.url}/hooks/CANARYwebhookPath0b3c9d`;
		const basic = Buffer.from(`${secrets['twilio.accountSid']}:${secrets['twilio.authToken']}`).toString('base64');
		const canaries = ['CANARYslackPath4e7f0a1b', 'CANARYdiscordToken77aa', 'CANARYwebhookPath0b3c9d', basic, ...Object.values(secrets)];

		const notifications = {
			channels: ['editor', 'slack', 'discord', 'webhook', 'ntfy', 'email', 'sms'] as const,
			ntfy: { server: ntfy.url, topic: 'baton-team' },
			sms: { server: twilio.url, to: ['+14155550100'], from: '+15005550006' },
			smtp: { host: '127.0.0.1', port: smtp.port, user: 'bot', from: 'baton@example.invalid', to: ['lead@example.invalid'] },
		};
		const { engine, root: workspace, clock, log } = await notifyEngine(t, { ...notifications, channels: [...notifications.channels] }, secrets);
		engine.checkpoints.faults.searchPath = '';
		makeWorkspace(workspace);
		const shown: string[] = [];
		await engine.notifications.attach({ editor: async (n) => void shown.push(JSON.stringify(n)) });

		const { session } = await engine.sessions.start({ name: 'leak check', actor });
		write(workspace, 'src/app.ts', 'export const app = 2;\n');
		await engine.checkpoints.create({ trigger: 'error', message: 'boom', sessionId: session.id, costUsd: 4.5, actor });
		await engine.checkpoints.recordMetrics({ sessionId: session.id, costUsd: 6, errorCount: 4, actor });
		const outcomes = [...(await engine.outbox.deliverDue())];
		clock.advance(60_000);
		outcomes.push(...(await engine.outbox.deliverDue()));
		const tests = [];
		for (const channel of notifications.channels) tests.push(await engine.notifications.test(channel));
		await engine.sessions.end({ id: session.id, actor });
		outcomes.push(...(await engine.outbox.deliverDue()));

		// The runs really went both ways: some sent, some failed at their peers.
		assert.ok(
			slack.requests.length > 0 &&
				ntfy.requests.length > 0 &&
				discord.requests.length > 1 &&
				hook.requests.length > 0 &&
				smtp.logins.length > 0 &&
				twilio.requests.length > 1,
		);
		assert.deepEqual(
			twilio.requests.map((r) => r.status),
			[401, ...twilio.requests.slice(1).map(() => 201)],
			'Twilio refused once (echoing the credential) and then took every text',
		);
		assert.ok(outcomes.some((o) => o.status === 'sent') && outcomes.some((o) => o.status !== 'sent'));
		assert.deepEqual(
			tests.map((r) => [r.channel, r.ok]),
			[
				['editor', true],
				['slack', true],
				['discord', true],
				['webhook', false],
				['ntfy', true],
				['email', false],
				['sms', true],
			],
		);
		assert.ok(
			hook.requests.some((r) => r.headers['authorization'] === `Bearer ${secrets['webhook.token']}`),
			'the peer did receive the token',
		);

		// VS Code settings as a person would write them for this setup: only non-secret values exist as settings.
		fs.mkdirSync(path.join(workspace, '.vscode'), { recursive: true });
		const settings = Object.fromEntries(
			Object.entries({
				channels: notifications.channels,
				'ntfy.server': ntfy.url,
				'ntfy.topic': 'baton-team',
				'smtp.host': '127.0.0.1',
				'smtp.user': 'bot',
				'smtp.to': ['lead@example.invalid'],
				'sms.to': ['+14155550100'],
				'sms.from': '+15005550006',
			}).map(([k, v]) => [`baton.notifications.${k}`, v]),
		);
		fs.writeFileSync(path.join(workspace, '.vscode/settings.json'), JSON.stringify(settings, null, 2));
		const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
		for (const key of Object.keys(settings)) assert.ok(key in pkg.contributes.configuration.properties, `${key} is a contributed setting`);

		const rows = await engine.store.read((db) => {
			const tables = db.all<{ name: string }>(sql`select name from sqlite_master where type = 'table'`);
			return tables.map(({ name }) => JSON.stringify(db.all(sql.raw(`select * from "${name}"`))));
		});
		await engine.store.compact();
		const places = [
			...filesUnder(path.join(workspace, '.baton')),
			{ file: '.vscode/settings.json', text: fs.readFileSync(path.join(workspace, '.vscode/settings.json'), 'utf8') },
			{ file: 'database rows', text: rows.join('\n') },
			{ file: 'log lines', text: log.lines.map((l) => l.message).join('\n') },
			{ file: 'outcomes and test results', text: JSON.stringify([outcomes, tests]) },
			{ file: 'editor messages', text: shown.join('\n') },
		];
		assert.ok(
			places.some((p) => p.file.endsWith('baton.db')),
			'the database file was searched',
		);
		assert.ok(rows.join('').includes('leak check') && rows.join('').includes('budget.exceeded'), 'the rows are really there');
		for (const { file, text } of places) {
			for (const canary of canaries) {
				assert.ok(!text.includes(canary), `${canary.slice(0, 24)}… found in ${file}`);
			}
		}
		assert.ok(
			log.warnings().some((w) => w.includes('[secret:webhook.token]')),
			'the echoed token was masked, not dropped silently',
		);
		assert.ok(
			log.warnings().some((w) => w.includes('Authenticate: Basic [secret:twilio.authToken]')),
			'the echoed Basic credential was masked too',
		);
	});
});
