/**
 * The SMS channel against a server on 127.0.0.1 that speaks Twilio's Messages API (twilioPeer.ts):
 * real notifications queued by real events, delivered through the outbox — what Twilio receives,
 * what a person sees when it refuses, retries as the other channels retry, critical by default, and
 * the credentials nowhere Baton writes.
 */
import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { sql } from 'drizzle-orm';
import { resolveConfig } from '../../../../src/engine/config';
import { smsText } from '../../../../src/engine/notifications/channels/smsChannel';
import type { NotificationMessage } from '../../../../src/engine/notifications/notificationMessage';
import { httpPeer } from './loopbackPeers';
import { budgetWarning, notifyEngine, outboxRows, type Notifications } from './notifyFixtures';
import { testAccount, twilioPeer, type TwilioAccount, type TwilioPeer } from './twilioPeer';

const alice = '+14155550100';
const bob = '+447700900123';
const sender = '+15005550006';

async function smsEngine(t: TestContext, peer: TwilioPeer, account: TwilioAccount, sms: Notifications['sms'] = {}, extra: Notifications = {}) {
	return notifyEngine(
		t,
		{ channels: ['sms'], sms: { server: peer.url, to: [alice], from: sender, ...sms }, ...extra },
		{ 'twilio.accountSid': account.accountSid, 'twilio.authToken': account.authToken },
	);
}

const message = (over: Partial<NotificationMessage> = {}): NotificationMessage => ({
	event: 'budget.exceeded',
	priority: 'critical',
	title: 'Budget exceeded: payment refactor',
	summary: 'Session “payment refactor” has cost $6.00, at or over its $5.00 budget.',
	workspace: 'shop',
	session: null,
	filesChanged: null,
	checkpoint: null,
	actions: [{ label: 'Pause the session', cli: 'baton session suspend ses_1', editor: 'Baton: Suspend Session' }],
	at: '2026-01-01T00:00:00.000Z',
	...over,
});

void describe('SMS through Twilio', () => {
	void it('texts a critical notification to every recipient: the Messages path, Basic auth, To/From/Body as a form', async (t) => {
		const account = testAccount();
		const twilio = await twilioPeer(t, account);
		const { engine } = await smsEngine(t, twilio, account, { to: [alice, bob] });
		const sessionId = await budgetWarning(engine, 'payment refactor', 6);
		await engine.notifications.attach();
		assert.deepEqual(
			(await engine.outbox.deliverDue()).map((o) => o.status),
			['sent'],
		);
		assert.equal(twilio.requests.length, 2);
		for (const request of twilio.requests) {
			assert.equal(request.method, 'POST');
			assert.equal(request.path, `/2010-04-01/Accounts/${account.accountSid}/Messages.json`);
			assert.equal(request.contentType, 'application/x-www-form-urlencoded');
			assert.deepEqual([request.user, request.password], [account.accountSid, account.authToken]);
			assert.deepEqual(Object.keys(request.form).sort(), ['Body', 'From', 'To']);
			assert.equal(request.status, 201);
		}
		assert.deepEqual(
			twilio.messages.map((m) => [m.to, m.from]),
			[
				[alice, sender],
				[bob, sender],
			],
		);
		assert.equal(
			twilio.messages[0]?.body,
			`Baton critical: Budget exceeded: payment refactor - Session "payment refactor" has cost $6.00, at or over its $5.00 budget. - Open the session: baton session show ${sessionId}`,
		);
	});

	void it('is critical by default: a warning is not texted unless sms.minPriority or a route says so', async (t) => {
		const account = testAccount();
		const twilio = await twilioPeer(t, account);
		const byDefault = await smsEngine(t, twilio, account, {}, { channels: ['editor', 'sms'] });
		await budgetWarning(byDefault.engine, 'warned only', 4.1);
		assert.deepEqual(
			(await outboxRows(byDefault.engine)).map((r) => [r.event, r.channel]),
			[['budget.threshold_reached', 'editor']],
		);
		const lowered = await smsEngine(t, twilio, account, { minPriority: 'warning' });
		await budgetWarning(lowered.engine, 'warned by text', 4.1);
		const routed = await smsEngine(t, twilio, account, {}, { routing: { warning: ['sms'] } });
		await budgetWarning(routed.engine, 'routed by hand', 4.1);
		for (const { engine } of [lowered, routed]) {
			assert.deepEqual(
				(await outboxRows(engine)).map((r) => [r.event, r.channel, r.status]),
				[['budget.threshold_reached', 'sms', 'pending']],
			);
			await engine.notifications.attach();
			await engine.outbox.deliverDue();
		}
		assert.deepEqual(
			twilio.messages.map((m) => m.body.split(' - ')[0]),
			['Baton warning: Budget 80% used: warned by text', 'Baton warning: Budget 80% used: routed by hand'],
		);
	});

	void it('signs in with an API key (the account SID stays in the path) and sends through a Messaging Service', async (t) => {
		const account = testAccount({ apiKey: { sid: `SK${'0f'.repeat(16)}`, secret: 'apiKeySecretCANARY81d0' } });
		const twilio = await twilioPeer(t, account);
		const service = `MG${'9e'.repeat(16)}`;
		const { engine } = await notifyEngine(
			t,
			{ channels: ['sms'], sms: { server: twilio.url, to: [alice], messagingServiceSid: service } },
			{ 'twilio.accountSid': account.accountSid, 'twilio.apiKeySid': account.apiKey!.sid, 'twilio.apiKeySecret': account.apiKey!.secret },
		);
		const result = await engine.notifications.test('sms');
		assert.equal(result.ok, true, result.error ?? '');
		const [request] = twilio.requests;
		assert.deepEqual([request?.user, request?.password], [account.apiKey!.sid, account.apiKey!.secret]);
		assert.equal(request?.path, `/2010-04-01/Accounts/${account.accountSid}/Messages.json`);
		assert.deepEqual(request?.form, { To: alice, MessagingServiceSid: service, Body: twilio.messages[0]!.body });
		assert.match(twilio.messages[0]!.body, /^Baton notice: Test notification - If you can read this, Baton reaches you on SMS \(Twilio\)\./);
	});

	void it('names Twilio’s code and message when it refuses a number, texts the others, and a retry texts only the one left', async (t) => {
		const refused = '+15005550001';
		const account = testAccount({ invalidNumbers: [refused] });
		const twilio = await twilioPeer(t, account);
		const { engine, clock, log } = await smsEngine(t, twilio, account, { to: [alice, refused, bob] });
		await budgetWarning(engine, 'over budget', 6);
		await engine.notifications.attach();
		const [outcome] = await engine.outbox.deliverDue();
		assert.equal(outcome?.status, 'retry');
		const expected = `sms (to ${refused}): HTTP 400 Bad Request: Twilio error 21211: The 'To' number ${refused} is not a valid phone number. (https://www.twilio.com/docs/errors/21211) (texted 2 of 3; a retry texts only the others)`;
		assert.equal(outcome?.error, expected);
		const [row] = await outboxRows(engine);
		assert.equal(row?.lastError, expected);
		assert.match(
			log.warnings()[0] ?? '',
			/^delivery to sms \(budget\.exceeded\) failed; retrying in 2 s: sms \(to \+15005550001\): HTTP 400 Bad Request: Twilio error 21211/,
		);
		assert.deepEqual(
			twilio.messages.map((m) => m.to),
			[alice, bob],
		);
		clock.advance(2_000);
		await engine.outbox.deliverDue();
		assert.deepEqual(
			twilio.requests.map((r) => r.form['To']),
			[alice, refused, bob, refused],
			'the retry asked only for the refused number',
		);
	});

	void it('waits as long as a 429’s Retry-After says, backs off after a 500, then delivers', async (t) => {
		const account = testAccount();
		const twilio = await twilioPeer(t, account, [{ status: 429, retryAfter: '3' }, { status: 500 }]);
		const { engine, clock } = await smsEngine(t, twilio, account);
		await budgetWarning(engine, 'over budget', 6);
		await engine.notifications.attach();
		assert.equal((await engine.outbox.deliverDue())[0]?.status, 'retry');
		let [row] = await outboxRows(engine);
		assert.equal(
			row?.lastError,
			`sms (to ${alice}): HTTP 429 Too Many Requests: Twilio error 20429: Too Many Requests (https://www.twilio.com/docs/errors/20429) (retrying in 3000 ms as asked)`,
		);
		assert.equal(row?.nextAttemptAt, new Date(clock.now() + 3_000).toISOString(), 'Retry-After, not the default backoff');
		clock.advance(2_999);
		assert.deepEqual(await engine.outbox.deliverDue(), []);
		clock.advance(1);
		assert.equal((await engine.outbox.deliverDue())[0]?.status, 'retry');
		[row] = await outboxRows(engine);
		assert.equal(
			row?.lastError,
			`sms (to ${alice}): HTTP 500 Internal Server Error: Twilio error 20500: Internal Server Error (https://www.twilio.com/docs/errors/20500)`,
		);
		assert.equal(row?.nextAttemptAt, new Date(clock.now() + 4_000).toISOString(), 'the outbox’s backoff: third attempt after 4 s');
		clock.advance(4_000);
		assert.equal((await engine.outbox.deliverDue())[0]?.status, 'sent');
		[row] = await outboxRows(engine);
		assert.deepEqual([row?.status, row?.attempts], ['sent', 3]);
		assert.equal(twilio.messages.length, 1);
	});

	void it('a refused login names Twilio’s 20003; the token is in no error, log line or row, even when the peer echoes it', async (t) => {
		const account = testAccount();
		const twilio = await twilioPeer(t, account, [{ status: 401, echoAuthorization: true }]);
		const wrong = { ...account, authToken: 'wrongTokenCANARY0c7a21' };
		const { engine, log } = await smsEngine(t, twilio, wrong);
		await budgetWarning(engine, 'over budget', 6);
		await engine.notifications.attach();
		const echoed = await engine.notifications.test('sms');
		assert.equal(echoed.ok, false);
		assert.equal(
			echoed.error,
			`sms (to ${alice}): HTTP 401 Unauthorized: Twilio error 20003: Authenticate: Basic [secret:twilio.authToken] (https://www.twilio.com/docs/errors/20003)`,
		);
		const [outcome] = await engine.outbox.deliverDue();
		assert.equal(outcome?.error, `sms (to ${alice}): HTTP 401 Unauthorized: Twilio error 20003: Authenticate (https://www.twilio.com/docs/errors/20003)`);
		assert.ok(
			twilio.requests.every((r) => r.password === wrong.authToken),
			'the peer did receive the token',
		);
		const basic = Buffer.from(`${account.accountSid}:${wrong.authToken}`).toString('base64');
		const rows = await engine.store.read((db) => JSON.stringify(db.all(sql`select * from notification_outbox`)));
		for (const text of [rows, JSON.stringify([echoed, outcome]), ...log.lines.map((l) => l.message)]) {
			for (const secret of [wrong.authToken, basic, account.accountSid]) assert.ok(!text.includes(secret), `${secret.slice(0, 12)}… leaked: ${text}`);
		}
	});

	void it('a 2xx that is not a message resource (a proxy’s page, a server that is not Twilio’s) is no delivery', async (t) => {
		const account = testAccount();
		const proxy = await httpPeer(t, [
			{ status: 200, body: '<html>Welcome</html>' },
			{ status: 201, headers: { 'content-type': 'application/json' }, body: '{"ok":true}' },
		]);
		const { engine } = await notifyEngine(
			t,
			{ channels: ['sms'], sms: { server: proxy.url, to: [alice], from: sender } },
			{ 'twilio.accountSid': account.accountSid, 'twilio.authToken': account.authToken },
		);
		assert.equal(
			(await engine.notifications.test('sms')).error,
			`sms (to ${alice}): the answer is not Twilio’s message resource (not JSON): is notifications.sms.server Twilio’s API?`,
		);
		assert.equal(
			(await engine.notifications.test('sms')).error,
			`sms (to ${alice}): the answer is not Twilio’s message resource (no sid): is notifications.sms.server Twilio’s API?`,
		);
	});

	void it('says what is missing, by setting and secret name, and never echoes a malformed SID', async (t) => {
		const account = testAccount();
		const twilio = await twilioPeer(t, account);
		const bare = await notifyEngine(t, { channels: ['sms'] });
		assert.deepEqual(
			(await bare.engine.notifications.channels()).find((c) => c.id === 'sms'),
			{
				id: 'sms',
				label: 'SMS (Twilio)',
				enabled: true,
				missing: ['notifications.sms.to', 'notifications.sms.from', 'twilio.accountSid', 'twilio.authToken'],
			},
		);
		assert.equal(
			(await bare.engine.notifications.test('sms')).error,
			'sms: not configured: set notifications.sms.to (the numbers to text) and notifications.sms.from (or notifications.sms.messagingServiceSid)',
		);
		const config = { channels: ['sms' as const], sms: { server: twilio.url, to: [alice], from: sender } };
		const noToken = await notifyEngine(t, config, { 'twilio.accountSid': account.accountSid });
		assert.equal(
			(await noToken.engine.notifications.test('sms')).error,
			'sms: no twilio.authToken is set: store it with “Baton: Store Secret…” in VS Code, or set BATON_TWILIO_AUTH_TOKEN for the CLI',
		);
		const halfKey = await notifyEngine(t, config, { 'twilio.accountSid': account.accountSid, 'twilio.apiKeySid': `SK${'0f'.repeat(16)}` });
		assert.deepEqual((await halfKey.engine.notifications.channels()).find((c) => c.id === 'sms')?.missing, ['twilio.apiKeySecret']);
		const swapped = await notifyEngine(t, config, { 'twilio.accountSid': 'tokenPastedAsSidCANARY', 'twilio.authToken': account.authToken });
		const result = await swapped.engine.notifications.test('sms');
		assert.equal(result.error, 'sms: the stored twilio.accountSid is not an account SID (AC and 32 hexadecimal digits, from the Twilio Console)');
		assert.equal(twilio.requests.length, 0, 'nothing was sent while something was missing');
	});

	void it('refuses numbers that are not E.164, plain http to anywhere but this machine, and credentials in configuration, naming the setting', () => {
		const refused = (notifications: unknown) => assert.throws(() => resolveConfig({ notifications }, '.baton/config.json'));
		assert.throws(
			() => resolveConfig({ notifications: { sms: { to: [alice, '0044 7700 900123'] } } }, 'settings'),
			/^BatonError: settings: notifications\.sms\.to\.1: a phone number in E\.164 form: \+, the country code and the number, digits only \(e\.g\. \+14155550123\)$/,
		);
		assert.throws(
			() => resolveConfig({ notifications: { sms: { from: '4155550100' } } }, 'settings'),
			/settings: notifications\.sms\.from: a phone number in E\.164 form/,
		);
		assert.throws(
			() => resolveConfig({ notifications: { sms: { server: 'http://twilio.example.invalid' } } }, 'settings'),
			/notifications\.sms\.server: Twilio is reached over https:\/\/ \(http:\/\/ only for a server on this machine\)/,
		);
		assert.equal(
			resolveConfig({ notifications: { sms: { server: 'http://127.0.0.1:8080' } } }, 'settings').notifications.sms.server,
			'http://127.0.0.1:8080',
		);
		assert.throws(
			() => resolveConfig({ notifications: { sms: { authToken: 'x' } } }, '.baton/config.json'),
			/^BatonError: \.baton\/config\.json: notifications\.sms\.authToken: secrets never go in configuration or settings/,
		);
		refused({ sms: { accountSid: 'AC1' } });
		refused({ sms: { messagingServiceSid: 'MG-not-a-sid' } });
		refused({ sms: { maxLength: 2000 } });
		const defaults = resolveConfig({}, 'defaults').notifications.sms;
		assert.deepEqual(defaults, { to: [], minPriority: 'critical', maxLength: 320, server: 'https://api.twilio.com' });
	});

	void it('makes one plain line, cut at sms.maxLength with an ellipsis, never inside a character', () => {
		const long = message({
			title: 'Escalation: #4 “Retry path” needs approval',
			summary: `checkpoint #4 needs a person:\n${'cost $9.00 over $5.00; '.repeat(30)}\u001b[2J done`,
		});
		const text = smsText(long, 320);
		assert.equal(text.length, 320);
		assert.ok(text.endsWith('…'));
		assert.ok(!/[\n“”]/.test(text), text);
		assert.match(text, /^Baton critical: Escalation: #4 "Retry path" needs approval - checkpoint #4 needs a person: cost \$9\.00/);
		const short = smsText(message(), 1600);
		assert.equal(
			short,
			'Baton critical: Budget exceeded: payment refactor - Session "payment refactor" has cost $6.00, at or over its $5.00 budget. - Pause the session: baton session suspend ses_1',
		);
		assert.match(smsText(message({ summary: 'escape \u001b[2J here' }), 1600), /escape \\x1b\[2J here/);
		const emoji = smsText(message({ title: '🚨'.repeat(100) }), 71);
		assert.ok(emoji.length <= 71 && emoji.endsWith('…'));
		assert.ok(!/[\ud800-\udbff]…$/.test(emoji), 'no half of a surrogate pair before the ellipsis');
	});
});
