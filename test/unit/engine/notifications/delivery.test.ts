/**
 * Delivery behaviour against loopback peers: no alert storms (de-duplication, rate limits), retries
 * with backoff on the fake clock, a dead endpoint that never holds up a write, bounded flushes, the
 * editor presenter, and failures logged with the secret masked.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { eq } from 'drizzle-orm';
import { notificationOutbox } from '../../../../src/engine/storage/schema';
import type { NotificationMessage } from '../../../../src/engine/notifications/notificationMessage';
import { secretNames } from '../../../../src/engine/secrets';
import { actor, openTestEngine } from '../../helpers';
import { closedPort, httpPeer } from './loopbackPeers';
import { budgetWarning, notifyEngine, outboxRows } from './notifyFixtures';

void describe('notification delivery', () => {
	void it('a burst of 50 events sends at most the per-minute limit; the rest are kept as suppressed with a note', async (t) => {
		const hook = await httpPeer(t);
		const { engine, clock } = await notifyEngine(
			t,
			{ channels: ['webhook'], routing: { notice: ['webhook'] }, rateLimit: { perMinute: 5 } },
			{ 'webhook.url': `${hook.url}/in` },
		);
		for (let i = 0; i < 50; i++) {
			const { session } = await engine.sessions.start({ name: `worker ${i}`, actor });
			await engine.sessions.end({ id: session.id, actor });
		}
		const rows = await outboxRows(engine);
		assert.equal(rows.length, 50, 'one row per event and channel, suppressed ones included');
		assert.equal(rows.filter((r) => r.status === 'pending').length, 5);
		const suppressed = rows.filter((r) => r.status === 'suppressed');
		assert.equal(suppressed.length, 45);
		assert.ok(suppressed.every((r) => r.lastError === 'rate limit: more than 5 notifications per minute on webhook'));
		await engine.notifications.attach();
		assert.equal((await engine.outbox.deliverDue()).length, 5);
		assert.equal(hook.requests.length, 5);
		assert.deepEqual(await engine.outbox.deliverDue(), [], 'suppressed rows are never delivered');
		clock.advance(61_000);
		const { session } = await engine.sessions.start({ name: 'a minute later', actor });
		await engine.sessions.end({ id: session.id, actor });
		assert.equal((await outboxRows(engine)).filter((r) => r.status === 'pending').length, 1, 'the next minute has room again');
	});

	void it('critical notifications skip the rate limit but are still de-duplicated', async (t) => {
		const { engine, clock } = await notifyEngine(t, { channels: ['webhook'], rateLimit: { perMinute: 2 } });
		const ids: string[] = [];
		for (let i = 0; i < 6; i++) {
			ids.push(await budgetWarning(engine, `spender ${i}`, 7));
			await engine.sessions.end({ id: ids[i]!, actor });
		}
		let rows = await outboxRows(engine);
		assert.equal(rows.filter((r) => r.event === 'budget.exceeded' && r.status === 'pending').length, 6, 'critical: never rate-limited');
		// The same session crossing its budget again (cost corrected down, then up) within the window: a duplicate.
		await engine.checkpoints.recordMetrics({ sessionId: ids[0]!, costUsd: 1, actor });
		clock.advance(5 * 60_000);
		await engine.checkpoints.recordMetrics({ sessionId: ids[0]!, costUsd: 8, actor });
		rows = await outboxRows(engine);
		const repeats = rows.filter((r) => r.event === 'budget.exceeded' && r.sessionId === ids[0]);
		assert.deepEqual(
			repeats.map((r) => r.status),
			['pending', 'suppressed'],
		);
		assert.match(repeats[1]!.lastError ?? '', /^duplicate of ntf_\w+ \(same budget\.exceeded within 30 min\)$/);
		clock.advance(31 * 60_000);
		await engine.checkpoints.recordMetrics({ sessionId: ids[0]!, costUsd: 1, actor });
		await engine.checkpoints.recordMetrics({ sessionId: ids[0]!, costUsd: 9, actor });
		const later = (await outboxRows(engine)).filter((r) => r.event === 'budget.exceeded' && r.sessionId === ids[0]);
		assert.equal(later.at(-1)?.status, 'pending', 'after the window it is news again');
	});

	void it('retries a failing endpoint with exponential backoff until it answers', async (t) => {
		const hook = await httpPeer(t, [{ status: 500, body: 'boom' }, { status: 502 }, { status: 200 }]);
		const { engine, clock, log } = await notifyEngine(t, { channels: ['webhook'] }, { 'webhook.url': `${hook.url}/flaky` });
		await budgetWarning(engine);
		await engine.notifications.attach();
		assert.deepEqual(
			(await engine.outbox.deliverDue()).map((o) => o.status),
			['retry'],
		);
		let [row] = await outboxRows(engine);
		assert.equal(row?.nextAttemptAt, new Date(clock.now() + 2_000).toISOString(), 'first retry after 2 s');
		assert.equal(row?.lastError, 'webhook: HTTP 500 Internal Server Error: boom');
		clock.advance(1_999);
		assert.deepEqual(await engine.outbox.deliverDue(), []);
		clock.advance(1);
		assert.deepEqual(
			(await engine.outbox.deliverDue()).map((o) => o.status),
			['retry'],
		);
		[row] = await outboxRows(engine);
		assert.equal(row?.nextAttemptAt, new Date(clock.now() + 4_000).toISOString(), 'then 4 s');
		clock.advance(4_000);
		assert.deepEqual(
			(await engine.outbox.deliverDue()).map((o) => o.status),
			['sent'],
		);
		[row] = await outboxRows(engine);
		assert.equal(row?.status, 'sent');
		assert.equal(row?.attempts, 3);
		assert.equal(hook.requests.length, 3);
		assert.deepEqual(
			log.warnings().map((w) => w.replace(/retrying in \d+ s/, 'retrying')),
			[
				'delivery to webhook (budget.threshold_reached) failed; retrying: webhook: HTTP 500 Internal Server Error: boom',
				'delivery to webhook (budget.threshold_reached) failed; retrying: webhook: HTTP 502 Bad Gateway',
			],
		);
	});

	void it('a dead endpoint never holds up or fails a write; it times out and is retried', async (t) => {
		const dead = await httpPeer(t, ['hang']);
		// Long enough that the writes below finish first at any load: order is what is asserted, not time.
		const { engine } = await notifyEngine(
			t,
			{ channels: ['webhook', 'slack'], timeout: '10s' },
			{ 'webhook.url': `${dead.url}/never`, 'slack.webhookUrl': `http://127.0.0.1:${await closedPort()}/closed-port` },
		);
		await budgetWarning(engine);
		await engine.notifications.attach();
		let settled = false;
		const delivering = engine.outbox.deliverDue().finally(() => (settled = true));
		while (dead.requests.length === 0) await new Promise((r) => setTimeout(r, 10));
		await engine.tasks.add({ title: 'written while a delivery hangs', actor });
		await engine.checkpoints.recordMetrics({ sessionId: (await engine.briefings.active())[0]!.id, errorCount: 1, actor });
		assert.equal(settled, false, 'writes go on while a delivery hangs');
		assert.equal(dead.hanging(), 1);
		const outcomes = await delivering;
		const errors = Object.fromEntries(outcomes.map((o) => [o.channel, o.error]));
		assert.equal(errors['webhook'], 'webhook: no answer within 10000 ms');
		assert.equal(errors['slack'], 'slack: request failed: ECONNREFUSED');
		assert.ok(outcomes.every((o) => o.status === 'retry'));
	});

	void it('a bounded flush (the CLI) stops on time: what it could not try waits without spending an attempt', async (t) => {
		const dead = await httpPeer(t, ['hang']);
		const { engine } = await notifyEngine(t, { channels: ['webhook'] }, { 'webhook.url': `${dead.url}/slow` });
		const sessionId = await budgetWarning(engine, 'one');
		const [first] = await outboxRows(engine);
		await engine.checkpoints.recordMetrics({ sessionId, costUsd: 6, actor });
		await engine.notifications.attach({ onlyReady: true });
		// A budget the first attempt starts well within at any load, and half the channel's 10 s timeout.
		const outcomes = await engine.notifications.flush(5_000);
		const rows = await outboxRows(engine);
		assert.equal(rows.find((r) => r.id === first?.id)?.attempts, 1, 'the one it tried timed out: an attempt');
		const waited = Number(/^webhook: no answer within (\d+) ms$/.exec(outcomes[0]?.error ?? '')?.[1]);
		assert.ok(waited > 0 && waited <= 5_000, `the request was given what was left of the flush's 5 s, not the channel's 10 s: ${outcomes[0]?.error}`);
		const deferred = rows.filter((r) => r.id !== first?.id);
		assert.ok(deferred.length >= 1);
		assert.ok(
			deferred.every((r) => r.status === 'pending' && r.attempts === 0),
			'deferred rows keep their attempts',
		);
	});

	void it('the CLI attaches only channels it can deliver: a missing secret leaves the row for the editor’s host', async (t) => {
		const { engine } = await notifyEngine(t, { channels: ['editor', 'slack', 'webhook'] }, { 'webhook.url': 'http://127.0.0.1:1/x' });
		assert.deepEqual(await engine.notifications.attach({ onlyReady: true }), ['webhook']);
		const status = Object.fromEntries((await engine.notifications.channels()).map((c) => [c.id, c]));
		assert.deepEqual(status['slack']?.missing, ['slack.webhookUrl']);
		assert.deepEqual(status['editor']?.missing, ['an open VS Code window']);
		assert.deepEqual(status['email'], {
			id: 'email',
			label: 'Email (SMTP)',
			enabled: false,
			missing: ['notifications.smtp.host', 'notifications.smtp.from', 'notifications.smtp.to'],
		});
	});

	void it('the editor channel hands the message to the host’s presenter, unless it waited over an hour for an editor', async (t) => {
		const { engine, clock } = await notifyEngine(t, {});
		const shown: { id: string; message: NotificationMessage }[] = [];
		assert.deepEqual(await engine.notifications.attach({ editor: async (n) => void shown.push(n) }), ['editor']);
		const { session } = await engine.sessions.start({ name: 'visible', actor });
		await engine.sessions.end({ id: session.id, actor });
		await engine.outbox.deliverDue();
		assert.equal(shown.length, 1);
		assert.equal(shown[0]?.message.title, 'Session completed: visible');
		assert.equal(
			(await engine.store.read((db) => db.select().from(notificationOutbox).where(eq(notificationOutbox.id, shown[0]!.id)).get()))?.status,
			'sent',
		);
		assert.equal((await engine.notifications.test('editor')).ok, true);
		assert.equal(shown.length, 2);
		const old = await engine.sessions.start({ name: 'overnight', actor });
		await engine.sessions.end({ id: old.session.id, actor });
		clock.advance(3_600_001);
		await engine.outbox.deliverDue();
		assert.equal(shown.length, 2, 'not shown');
		assert.ok(
			(await outboxRows(engine)).every((r) => r.status === 'sent'),
			'but done with',
		);
	});

	void it('news from before the window opened is not toasted (its views show it); a warning from then is, and news after it is', async (t) => {
		const { engine, clock } = await notifyEngine(t, {});
		const before = await engine.sessions.start({ name: 'ended by a headless run', actor });
		await engine.sessions.end({ id: before.session.id, actor });
		const review = await engine.checkpoints.create({ trigger: 'complete', reviewRequested: true, message: 'Needs a look', actor });
		clock.advance(60_000);
		const shown: { id: string; message: NotificationMessage }[] = [];
		await engine.notifications.attach({ editor: async (n) => void shown.push(n) });
		await engine.outbox.deliverDue();
		assert.deepEqual(
			shown.map((n) => n.message.checkpoint?.id ?? n.message.title),
			[review.id],
			'only the review that still waits',
		);
		const after = await engine.sessions.start({ name: 'while the window is open', actor });
		await engine.sessions.end({ id: after.session.id, actor });
		await engine.outbox.deliverDue();
		assert.equal(shown.at(-1)?.message.title, 'Session completed: while the window is open');
		assert.ok(
			(await outboxRows(engine)).every((r) => r.status === 'sent'),
			'every row is done with',
		);
	});

	void it('a review asked for while no window was open is not shown once the checkpoint was decided; one still waiting is', async (t) => {
		const { engine } = await notifyEngine(t, {});
		const decided = await engine.checkpoints.create({ trigger: 'complete', reviewRequested: true, message: 'Decided elsewhere', actor });
		const waiting = await engine.checkpoints.create({ trigger: 'complete', reviewRequested: true, message: 'Still waiting', actor });
		await engine.checkpoints.approve(decided.id, { actor, reason: 'fine' });
		// A window opens: the editor channel starts delivering what waited.
		const shown: { id: string; message: NotificationMessage }[] = [];
		await engine.notifications.attach({ editor: async (n) => void shown.push(n) });
		await engine.outbox.deliverDue();
		const reviews = shown.filter((n) => n.message.event === 'checkpoint.needs_review').map((n) => n.message.checkpoint?.id);
		assert.deepEqual(reviews, [waiting.id]);
		assert.ok(
			(await outboxRows(engine)).filter((r) => r.event === 'checkpoint.needs_review').every((r) => r.status === 'sent'),
			'the decided one is done with, not retried',
		);
	});

	void it('logs and records a failure with the secret masked, even when the peer echoes it or the URL is malformed', async (t) => {
		const echo = await httpPeer(t, [{ status: 401, body: 'invalid token Bearer echoedTokenValue77 for /hooks/pathSecretABCDEFGHIJ' }]);
		const { engine, log } = await notifyEngine(
			t,
			{ channels: ['webhook', 'discord'] },
			{
				'webhook.url': `${echo.url}/hooks/pathSecretABCDEFGHIJ`,
				'webhook.token': 'echoedTokenValue77',
				'discord.webhookUrl': 'not a url discordSecretXYZ',
			},
		);
		await budgetWarning(engine);
		await engine.notifications.attach();
		const outcomes = await engine.outbox.deliverDue();
		const rows = await outboxRows(engine);
		const texts = [...outcomes.map((o) => o.error ?? ''), ...rows.map((r) => r.lastError ?? ''), ...log.lines.map((l) => l.message)];
		for (const secret of ['echoedTokenValue77', 'pathSecretABCDEFGHIJ', 'discordSecretXYZ']) {
			assert.ok(
				texts.every((text) => !text.includes(secret)),
				`${secret} never appears`,
			);
		}
		const webhookWarning = log.warnings().find((w) => w.includes('webhook:'));
		assert.match(webhookWarning ?? '', /: webhook: HTTP 401 Unauthorized: invalid token Bearer \[secret:webhook\.token\] for \[secret:webhook\.url\]$/);
		assert.ok(log.warnings().some((w) => w.includes('discord: the configured URL is not a valid URL')));
	});

	void it('a failure’s last masking pass asks the host for every secret at once, not one after another', async (t) => {
		// The editor's backend asks the window for each secret and waits up to 2 s for a busy one: in a row, that was 2 s per secret Baton knows.
		const hook = await httpPeer(t, [{ status: 500, body: 'down' }]);
		let asking = 0;
		let mostAtOnce = 0;
		const secrets = {
			get: async (name: string) => {
				asking += 1;
				mostAtOnce = Math.max(mostAtOnce, asking);
				await new Promise((resolve) => setImmediate(resolve));
				asking -= 1;
				return name === 'webhook.url' ? `${hook.url}/busy` : undefined;
			},
		};
		const { engine } = await openTestEngine(t, { config: { notifications: { channels: ['webhook'] } }, secrets });
		await budgetWarning(engine);
		await engine.notifications.attach();
		assert.equal((await engine.outbox.deliverDue())[0]?.error, 'webhook: HTTP 500 Internal Server Error: down');
		assert.equal(mostAtOnce, Object.keys(secretNames).length);
	});
});
