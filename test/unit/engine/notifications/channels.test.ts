/**
 * Each channel against a real peer on 127.0.0.1: what arrives (method, path, headers, auth, body)
 * for a real notification queued by a real event, delivered through the outbox.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { eq } from 'drizzle-orm';
import { notificationOutbox } from '../../../../src/engine/storage/schema';
import { httpPeer, smtpPeer } from './loopbackPeers';
import { budgetWarning, notifyEngine, outboxRows } from './notifyFixtures';

const json = (body: string) => JSON.parse(body) as Record<string, any>;
/** A mail body as sent (quoted-printable, soft line breaks) back to its text. */
const unQuote = (raw: string) =>
	Buffer.from(
		raw.replace(/=\r\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
		'latin1',
	).toString('utf8');

void describe('notification channels against loopback peers', () => {
	void it('Slack: POSTs {text, blocks} to the webhook URL, with mentions escaped and how to act', async (t) => {
		const slack = await httpPeer(t);
		const { engine } = await notifyEngine(t, { channels: ['slack'] }, { 'slack.webhookUrl': `${slack.url}/services/T0001/B0001/slackSecretPart` });
		const sessionId = await budgetWarning(engine, 'deploy <!channel> fix');
		assert.deepEqual(await engine.notifications.attach(), ['slack']);
		const outcomes = await engine.outbox.deliverDue();
		assert.deepEqual(
			outcomes.map((o) => o.status),
			['sent'],
		);
		assert.equal(slack.requests.length, 1);
		const request = slack.requests[0]!;
		assert.equal(request.method, 'POST');
		assert.equal(request.path, '/services/T0001/B0001/slackSecretPart');
		assert.equal(request.headers['content-type'], 'application/json');
		const body = json(request.body);
		assert.match(body['text'], /Budget 80% used/);
		const mrkdwn = [body['text'], ...(JSON.stringify(body['blocks'].slice(1)).match(/"text":"[^"]*"/g) ?? [])];
		assert.ok(
			mrkdwn.every((text: string) => !text.includes('<!channel>')),
			'a session name cannot ping the channel',
		);
		assert.match(body['text'], /&lt;!channel&gt;/);
		assert.deepEqual(
			body['blocks'][0],
			{ type: 'header', text: { type: 'plain_text', text: 'Budget 80% used: deploy <!channel> fix' } },
			'plain_text is never parsed for mentions',
		);
		const blocksText = JSON.stringify(body['blocks']);
		assert.match(blocksText, new RegExp(sessionId));
		assert.match(blocksText, /\$4\.10/);
		assert.match(blocksText, new RegExp(`baton session suspend ${sessionId}`));
		assert.match(blocksText, /Baton: Suspend Session/);
	});

	void it('Discord: POSTs {content, embeds} without mentions, and waits as long as a 429 says', async (t) => {
		const discord = await httpPeer(t, [
			{
				status: 429,
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({ message: 'You are being rate limited.', retry_after: 1.5, global: false }),
			},
			{ status: 204 },
		]);
		const { engine, clock } = await notifyEngine(
			t,
			{ channels: ['discord'] },
			{ 'discord.webhookUrl': `${discord.url}/api/webhooks/123/discordSecretToken` },
		);
		const sessionId = await budgetWarning(engine, '@everyone refactor');
		await engine.notifications.attach();
		const first = await engine.outbox.deliverDue();
		assert.equal(first[0]?.status, 'retry');
		const [row] = await outboxRows(engine);
		assert.equal(row?.attempts, 1);
		assert.equal(row?.nextAttemptAt, new Date(clock.now() + 1500).toISOString(), 'retry_after 1.5 s, not the default backoff');
		assert.match(row?.lastError ?? '', /^discord: HTTP 429/);
		clock.advance(1499);
		assert.deepEqual(await engine.outbox.deliverDue(), []);
		clock.advance(1);
		assert.deepEqual(
			(await engine.outbox.deliverDue()).map((o) => o.status),
			['sent'],
		);
		assert.equal(discord.requests.length, 2);
		const request = discord.requests[1]!;
		assert.equal(request.path, '/api/webhooks/123/discordSecretToken');
		const body = json(request.body);
		assert.deepEqual(body['allowed_mentions'], { parse: [] });
		assert.match(body['content'], /^\*\*\[warning\]\*\* Budget 80% used/);
		const fields = Object.fromEntries(body['embeds'][0].fields.map((f: { name: string; value: string }) => [f.name, f.value]));
		assert.equal(fields['Cost'], '$4.10');
		assert.match(fields['Session'], new RegExp(sessionId));
		assert.match(fields['Pause the session'], new RegExp(`baton session suspend ${sessionId}`));
	});

	void it('ntfy: POSTs the text to <server>/<topic> with Title, Priority, Tags, Click and the bearer token', async (t) => {
		const ntfy = await httpPeer(t);
		const { engine, root } = await notifyEngine(
			t,
			{ channels: ['ntfy'], ntfy: { server: `${ntfy.url}/`, topic: 'baton-alerts' } },
			{ 'ntfy.token': 'tk_ntfyTokenValue42' },
		);
		await budgetWarning(engine, 'Résumé parser ✓');
		await engine.notifications.attach();
		await engine.outbox.deliverDue();
		const request = ntfy.requests[0]!;
		assert.equal(request.method, 'POST');
		assert.equal(request.path, '/baton-alerts');
		assert.equal(request.headers['authorization'], 'Bearer tk_ntfyTokenValue42');
		assert.equal(request.headers['priority'], '4', 'warning → high');
		assert.deepEqual(String(request.headers['tags']).split(','), ['baton', 'warning', 'budget.threshold_reached']);
		assert.equal(request.headers['click'], `vscode://file/${encodeURI(root.replace(/^\/+/, ''))}`);
		const title = /^=\?UTF-8\?B\?(.+)\?=$/.exec(String(request.headers['title']));
		assert.ok(title, 'a non-ASCII title travels as an RFC 2047 encoded word');
		assert.equal(Buffer.from(title[1]!, 'base64').toString('utf8'), 'Baton: Budget 80% used: Résumé parser ✓');
		assert.match(request.body, /Session “Résumé parser ✓”/);
		assert.match(request.body, /\$4\.10/);
	});

	void it('ntfy maps critical to priority 5 and works without a token', async (t) => {
		const ntfy = await httpPeer(t);
		const { engine } = await notifyEngine(t, { channels: ['ntfy'], ntfy: { server: ntfy.url, topic: 'team' } });
		await budgetWarning(engine, 'over budget', 6);
		await engine.notifications.attach();
		await engine.outbox.deliverDue();
		assert.equal(ntfy.requests[0]?.headers['priority'], '5');
		assert.equal(ntfy.requests[0]?.headers['authorization'], undefined);
		assert.equal(ntfy.requests[0]?.headers['title'], 'Baton: Budget exceeded: over budget');
	});

	void it('webhook: POSTs the message as JSON with the bearer token', async (t) => {
		const hook = await httpPeer(t);
		const { engine } = await notifyEngine(
			t,
			{ channels: ['webhook'] },
			{ 'webhook.url': `${hook.url}/hooks/baton?key=urlSecretKey`, 'webhook.token': 'whTokenValue99' },
		);
		const sessionId = await budgetWarning(engine);
		await engine.notifications.attach();
		await engine.outbox.deliverDue();
		const request = hook.requests[0]!;
		assert.equal(request.path, '/hooks/baton?key=urlSecretKey');
		assert.equal(request.headers['authorization'], 'Bearer whTokenValue99');
		const body = json(request.body);
		assert.equal(body['source'], 'baton');
		assert.equal(body['event'], 'budget.threshold_reached');
		assert.equal(body['priority'], 'warning');
		assert.equal(body['session'].id, sessionId);
		assert.equal(body['session'].costUsd, 4.1);
		assert.equal(typeof body['session'].durationMs, 'number');
		assert.deepEqual(
			body['actions'].map((a: { cli: string }) => a.cli),
			[`baton session show ${sessionId}`, `baton session suspend ${sessionId}`],
		);
	});

	void it('email: sends over SMTP with AUTH (user from config, password from secrets) to the configured recipients', async (t) => {
		const smtp = await smtpPeer(t, { user: 'baton-bot', password: 'smtpPassw0rdValue' });
		const smtpConfig = {
			host: '127.0.0.1',
			port: smtp.port,
			user: 'baton-bot',
			from: 'baton@example.invalid',
			to: ['lead@example.invalid', 'ops@example.invalid'],
		};
		const { engine } = await notifyEngine(t, { channels: ['email'], smtp: smtpConfig }, { 'smtp.password': 'smtpPassw0rdValue' });
		const sessionId = await budgetWarning(engine);
		await engine.notifications.attach();
		assert.deepEqual(
			(await engine.outbox.deliverDue()).map((o) => o.status),
			['sent'],
		);
		assert.deepEqual(smtp.logins, [{ user: 'baton-bot', ok: true }]);
		const mail = smtp.mails[0]!;
		assert.equal(mail.from, 'baton@example.invalid');
		assert.deepEqual(mail.to, ['lead@example.invalid', 'ops@example.invalid']);
		assert.match(mail.raw, /^Subject: \[Baton warning\] Budget 80% used: payment refactor$/m);
		const text = unQuote(mail.raw.split('\r\n\r\n').slice(1).join('\r\n\r\n'));
		assert.match(text, /^Session “payment refactor” has cost \$4\.10 of its \$5\.00 budget\.$/m);
		assert.match(text, new RegExp(`^Pause the session: \`baton session suspend ${sessionId}\` — or in VS Code: Baton: Suspend Session\r?$`, 'm'));
	});

	void it('email: a refused login fails the row with the SMTP reply, never the password', async (t) => {
		const smtp = await smtpPeer(t, { user: 'baton-bot', password: 'theRightPassword' });
		const { engine, log } = await notifyEngine(
			t,
			{
				channels: ['email'],
				smtp: { host: '127.0.0.1', port: smtp.port, user: 'baton-bot', from: 'baton@example.invalid', to: ['lead@example.invalid'] },
			},
			{ 'smtp.password': 'wrongPasswordValue' },
		);
		await budgetWarning(engine);
		await engine.notifications.attach();
		const [outcome] = await engine.outbox.deliverDue();
		assert.equal(outcome?.status, 'retry');
		assert.match(outcome?.error ?? '', /^email: EAUTH 535/);
		assert.deepEqual(smtp.logins, [{ user: 'baton-bot', ok: false }]);
		const [row] = await engine.store.read((db) => db.select().from(notificationOutbox).where(eq(notificationOutbox.channel, 'email')).all());
		for (const text of [row?.lastError ?? '', ...log.lines.map((l) => l.message)]) {
			assert.doesNotMatch(text, /wrongPasswordValue/);
		}
	});

	void it('email: STARTTLS when required; an unverifiable certificate is refused unless allowed', async (t) => {
		const smtp = await smtpPeer(t, { user: 'baton-bot', password: 'tlsPasswordValue', starttls: true });
		const base = { host: '127.0.0.1', port: smtp.port, user: 'baton-bot', from: 'baton@example.invalid', to: ['lead@example.invalid'], requireTls: true };
		const strict = await notifyEngine(t, { channels: ['email'], smtp: base }, { 'smtp.password': 'tlsPasswordValue' });
		assert.equal((await strict.engine.notifications.test('email')).ok, false, 'smtp-server’s self-signed certificate does not verify');
		assert.equal(smtp.mails.length, 0);
		const relaxed = await notifyEngine(
			t,
			{ channels: ['email'], smtp: { ...base, allowInvalidCertificate: true } },
			{ 'smtp.password': 'tlsPasswordValue' },
		);
		const result = await relaxed.engine.notifications.test('email');
		assert.equal(result.ok, true, result.error ?? '');
		assert.equal(smtp.mails[0]?.secure, true, 'the mail travelled over TLS');
		assert.match(smtp.mails[0]?.raw ?? '', /^Subject: \[Baton notice\] Test notification$/m);
	});
});
