/**
 * Secrets never leak (issue 6, item 5): tokens and the webhook URL reach the peers, and appear in no
 * byte of the database, the journal or any other file in the workspace, nor in a log line — even
 * when every peer fails and echoes the credential back in its error.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { it } from 'node:test';
import { notificationOutbox } from '../../../../src/engine/storage/schema';
import { actor } from '../../helpers';
import { startFakeGithub, startFakeLinear, startWebhook } from './fakePeers';
import { openTrackerEngine, secrets } from './trackerEngine';

function filesUnder(dir: string): string[] {
	return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

void it('no tracker secret reaches the database, the workspace files or the log', async (t) => {
	const gh = await startFakeGithub(t, { token: secrets.BATON_GITHUB_TOKEN, issues: [['acme/shop#42', 'Login fails']] });
	const ln = await startFakeLinear(t, { apiKey: secrets.BATON_LINEAR_API_KEY });
	const hook = await startWebhook(t);
	const webhookUrl = `${hook.url}/hooks/T0SECRETPATH0/B1SECRETPATH1`;
	const { engine, clock, log, root, env } = await openTrackerEngine(t, {
		env: { BATON_TRACKER_WEBHOOK_URL: webhookUrl },
		config: {
			trackers: {
				enabled: ['github', 'linear', 'webhook'],
				openOnError: true,
				openIn: 'webhook',
				github: { apiUrl: gh.url },
				linear: { apiUrl: ln.url },
			},
		},
	});
	const { session } = await engine.sessions.start({ name: 'Fix login #42 and ENG-1', actor });
	await engine.trackers.link({ ref: 'webhook:EXT-1', sessionId: session.id, actor });
	for (const peer of [gh, ln, hook]) peer.failNext(1, 500);
	await engine.checkpoints.create({ trigger: 'error', message: 'it broke', sessionId: session.id, actor });

	const first = await engine.outbox.deliverDue();
	assert.equal(first.filter((o) => o.status === 'retry').length, 3, 'each peer failed once');
	const failedRows = await engine.store.read((db) => db.select().from(notificationOutbox).all());
	assert.ok(failedRows.some((r) => /\[secret:github\.token\]/.test(r.lastError ?? '')));
	assert.ok(failedRows.some((r) => /\[secret:linear\.apiKey\]/.test(r.lastError ?? '')));
	assert.ok(failedRows.some((r) => /\[secret:tracker\.webhook\.token\]/.test(r.lastError ?? '')));
	clock.advance(60_000);
	await engine.outbox.deliverDue();
	clock.advance(60_000);
	await engine.outbox.deliverDue();
	// The editor's own notifications of the same events wait for an editor; the tracker rows all went out.
	const rows = (await engine.store.read((db) => db.select().from(notificationOutbox).all())).filter((r) => r.channel.startsWith('tracker:'));
	assert.deepEqual(
		rows.map((r) => r.status),
		rows.map(() => 'sent'),
		JSON.stringify(rows.map((r) => [r.channel, r.status, r.lastError])),
	);
	assert.ok(
		hook.received.some((r) => r.body?.event === 'issue.create'),
		'the opened issue went to the webhook',
	);

	// The peers did get the credentials: the test would see them if anything stored them.
	assert.ok(gh.received.every((r) => r.headers.authorization === `Bearer ${env.BATON_GITHUB_TOKEN}`));
	assert.ok(ln.received.every((r) => r.headers.authorization === env.BATON_LINEAR_API_KEY));
	assert.ok(
		hook.received.every((r) => r.path === '/hooks/T0SECRETPATH0/B1SECRETPATH1' && r.headers.authorization === `Bearer ${env.BATON_TRACKER_WEBHOOK_TOKEN}`),
	);

	const sync = await engine.trackers.sync({ sessionId: session.id });
	assert.ok(sync.updated.length >= 2);
	await engine.store.compact();
	engine.close();

	const needles = [env.BATON_GITHUB_TOKEN, env.BATON_LINEAR_API_KEY, env.BATON_TRACKER_WEBHOOK_TOKEN, webhookUrl, 'T0SECRETPATH0'].map((s) =>
		Buffer.from(s ?? ''),
	);
	const files = filesUnder(root);
	assert.ok(
		files.some((f) => f.endsWith(path.join('.baton', 'baton.db'))),
		'the database file is among the scanned files',
	);
	for (const file of files) {
		const bytes = fs.readFileSync(file);
		for (const needle of needles) {
			assert.equal(bytes.indexOf(needle), -1, `${path.relative(root, file)} holds a secret`);
		}
	}
	const logText = log.lines.map((l) => l.message).join('\n');
	assert.ok(logText.includes('[secret:'), 'the failures were logged, masked');
	for (const needle of needles) {
		assert.ok(!logText.includes(needle.toString()), 'a log line holds a secret');
	}
});
