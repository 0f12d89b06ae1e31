/**
 * End to end through the Engine: sessions link themselves to issues (name, branch, prompt), a
 * checkpoint puts the links on its record and queues a comment, opt-ins close or open issues, and
 * only `engine.outbox.deliverDue()` reaches the (loopback) trackers — with retries on failure.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { agentSettingsSchema } from '../../../../src/engine/agentConfig/agentSettings';
import { normaliseHookPayload } from '../../../../src/engine/hooks/normaliseHookPayload';
import { runHook } from '../../../../src/engine/hooks/runHook';
import { TranscriptArchive } from '../../../../src/engine/transcripts/transcriptArchive';
import { notificationOutbox } from '../../../../src/engine/storage/schema';
import { actor } from '../../helpers';
import { startFakeGithub, startFakeLinear } from './fakePeers';
import { openTrackerEngine, secrets } from './trackerEngine';
import type { Engine } from '../../../../src/engine/engine';

/** The tracker rows of the outbox (notifications of the same events share it and are tested on their own). */
const outboxRows = async (engine: Engine) =>
	(await engine.store.read((db) => db.select().from(notificationOutbox).all())).filter((r) => r.channel.startsWith('tracker:'));

void describe('issue trackers through the engine', () => {
	void it('a session named "Fix login #42" links #42, and its checkpoint comments there on delivery', async (t) => {
		const gh = await startFakeGithub(t, { token: secrets.BATON_GITHUB_TOKEN, issues: [['acme/shop#42', 'Login fails']] });
		const { engine } = await openTrackerEngine(t, { config: { trackers: { enabled: ['github'], github: { apiUrl: gh.url } } } });
		const { session } = await engine.sessions.start({ name: 'Fix login #42', actor });
		assert.deepEqual(await engine.trackers.list({ sessionId: session.id }), [
			{
				sessionId: session.id,
				tracker: 'github',
				issueId: '42',
				url: 'https://github.com/acme/shop/issues/42',
				title: null,
				state: null,
				source: 'name',
			},
		]);

		const checkpoint = await engine.checkpoints.create({ trigger: 'manual', message: 'login form done', sessionId: session.id, actor });
		assert.deepEqual(checkpoint.linkedIssues, [{ tracker: 'github', id: '42', url: 'https://github.com/acme/shop/issues/42' }]);
		assert.deepEqual((await engine.checkpoints.get(checkpoint.id)).linkedIssues, checkpoint.linkedIssues);
		assert.equal(gh.received.length, 0, 'nothing is sent inside the write');
		assert.deepEqual(
			(await outboxRows(engine)).map((r) => [r.channel, r.status, r.event]),
			[['tracker:github', 'pending', 'checkpoint.linked']],
		);

		const outcomes = await engine.outbox.deliverDue();
		assert.deepEqual(
			outcomes.map((o) => o.status),
			['sent'],
		);
		assert.deepEqual(
			gh.received.map((r) => `${r.method} ${r.path}`),
			['POST /repos/acme/shop/issues/42/comments'],
		);
		const body = String(gh.received[0]?.body.body);
		assert.match(body, new RegExp(checkpoint.id));
		assert.match(body, /Fix login #42/);
		assert.match(body, /login form done/);
		assert.deepEqual(await engine.outbox.deliverDue(), [], 'sent once');

		// A periodic checkpoint carries the links but comments nowhere (commentOn: manual, complete, error).
		const periodic = await engine.checkpoints.create({ trigger: 'periodic', sessionId: session.id, actor });
		assert.equal(periodic.linkedIssues.length, 1);
		assert.deepEqual(await engine.outbox.deliverDue(), []);
	});

	void it('an approved complete checkpoint closes the linked issues only with the opt-in', async (t) => {
		for (const closeOnApprovedComplete of [true, false]) {
			const gh = await startFakeGithub(t, { token: secrets.BATON_GITHUB_TOKEN, issues: [['acme/shop#42', 'Login fails']] });
			const { engine } = await openTrackerEngine(t, {
				config: { trackers: { enabled: ['github'], closeOnApprovedComplete, github: { apiUrl: gh.url } } },
			});
			const { session } = await engine.sessions.start({ name: 'Fix login #42', actor });
			const complete = await engine.checkpoints.create({ trigger: 'complete', sessionId: session.id, actor });
			assert.equal(complete.approvalStatus, 'pending', 'complete needs review under the auto policy');
			await engine.outbox.deliverDue();
			assert.deepEqual(
				gh.received.map((r) => r.method),
				['POST'],
				'the comment, and no close before the approval',
			);
			await engine.checkpoints.approve(complete.id, { actor: 'test:reviewer' });
			await engine.outbox.deliverDue();
			if (closeOnApprovedComplete) {
				assert.deepEqual(gh.received.map((r) => `${r.method} ${r.path}`).slice(1), ['PATCH /repos/acme/shop/issues/42']);
				assert.deepEqual(gh.received[1]?.body, { state: 'closed', state_reason: 'completed' });
				assert.equal(gh.issues.get('acme/shop#42')?.state, 'closed');
				assert.equal((await engine.trackers.list({ sessionId: session.id }))[0]?.state, 'closed');
			} else {
				assert.equal(gh.received.length, 1, 'no PATCH without the opt-in');
				assert.equal(gh.issues.get('acme/shop#42')?.state, 'open');
			}
		}
	});

	void it('a tracker that fails is retried with backoff and never blocks the write', async (t) => {
		const gh = await startFakeGithub(t, { token: secrets.BATON_GITHUB_TOKEN, issues: [['acme/shop#42', 'Login fails']] });
		const { engine, clock, log } = await openTrackerEngine(t, { config: { trackers: { enabled: ['github'], github: { apiUrl: gh.url } } } });
		const { session } = await engine.sessions.start({ name: 'Fix login #42', actor });
		gh.failNext(1, 500);
		const cp = await engine.checkpoints.create({ trigger: 'manual', sessionId: session.id, actor });
		const first = await engine.outbox.deliverDue();
		assert.deepEqual(
			first.map((o) => o.status),
			['retry'],
		);
		assert.match(first[0]?.error ?? '', /^GitHub: POST \/repos\/acme\/shop\/issues\/42\/comments answered HTTP 500/);
		const [row] = await outboxRows(engine);
		assert.equal(row?.status, 'pending');
		assert.equal(row?.attempts, 1);
		assert.match(row?.lastError ?? '', /\[secret:github\.token\]/, 'the echoed token is masked in the stored error');
		assert.ok(!(row?.lastError ?? '').includes(secrets.BATON_GITHUB_TOKEN));
		assert.ok(log.warnings().some((w) => /delivery to tracker:github .* failed; retrying in 2 s/.test(w)));

		assert.deepEqual(await engine.outbox.deliverDue(), [], 'not due before the backoff');
		clock.advance(2_000);
		assert.deepEqual(
			(await engine.outbox.deliverDue()).map((o) => o.status),
			['sent'],
		);
		assert.equal(gh.issues.get('acme/shop#42')?.comments.length, 1);
		assert.match(gh.issues.get('acme/shop#42')?.comments[0] ?? '', new RegExp(cp.id));

		// With the tracker unreachable, writes (checkpoint, approval) still complete; delivery waits.
		await gh.close();
		const complete = await engine.checkpoints.create({ trigger: 'error', sessionId: session.id, actor });
		await engine.checkpoints.approve(complete.id, { actor });
		const down = await engine.outbox.deliverDue();
		assert.deepEqual(
			down.map((o) => o.status),
			['retry'],
		);
		assert.match(down[0]?.error ?? '', /ECONNREFUSED/);
	});

	void it('opt-in: an error checkpoint opens one issue, links it, and later errors comment on it', async (t) => {
		const gh = await startFakeGithub(t, { token: secrets.BATON_GITHUB_TOKEN });
		const { engine } = await openTrackerEngine(t, { config: { trackers: { enabled: ['github'], openOnError: true, github: { apiUrl: gh.url } } } });
		const { session } = await engine.sessions.start({ name: 'Payment retries', actor });
		const failed = await engine.checkpoints.create({ trigger: 'error', message: 'tests crashed', sessionId: session.id, actor });
		await engine.outbox.deliverDue();
		assert.deepEqual(
			gh.received.map((r) => `${r.method} ${r.path}`),
			['POST /repos/acme/shop/issues'],
		);
		assert.equal(gh.received[0]?.body.title, 'Baton: Error in Payment retries');
		assert.match(gh.received[0]?.body.body, /tests crashed/);
		const links = await engine.trackers.list({ sessionId: session.id });
		assert.deepEqual(
			links.map((l) => [l.tracker, l.issueId, l.source, l.title, l.state]),
			[['github', '1', 'created', 'Baton: Error in Payment retries', 'open']],
		);
		assert.deepEqual(
			(await engine.checkpoints.get(failed.id)).linkedIssues.map((l) => l.id),
			['1'],
		);

		await engine.checkpoints.create({ trigger: 'error', sessionId: session.id, actor });
		await engine.outbox.deliverDue();
		assert.deepEqual(
			gh.received.map((r) => `${r.method} ${r.path}`).slice(1),
			['POST /repos/acme/shop/issues/1/comments'],
			'no second issue: a comment on the first',
		);
	});

	void it('opt-in: an escalated checkpoint opens a Linear issue in the configured team', async (t) => {
		const ln = await startFakeLinear(t, { apiKey: secrets.BATON_LINEAR_API_KEY });
		const { engine } = await openTrackerEngine(t, {
			config: { trackers: { enabled: ['linear'], openOnEscalation: true, linear: { apiUrl: ln.url, teamKey: 'ENG' } } },
		});
		const { session } = await engine.sessions.start({ name: 'Refactor auth', actor });
		const cp = await engine.checkpoints.create({ trigger: 'periodic', errorCount: 5, sessionId: session.id, actor });
		assert.equal(cp.approvalStatus, 'pending');
		assert.ok(cp.escalationReasons.length > 0);
		await engine.outbox.deliverDue();
		const create = ln.received.find((r) => /issueCreate/.test(r.body.query));
		assert.equal(create?.body.variables.input.teamId, 'team-eng');
		assert.match(create?.body.variables.input.title, /^Baton: Escalation: .* in Refactor auth$/);
		assert.deepEqual(
			(await engine.trackers.list({ sessionId: session.id })).map((l) => `${l.tracker}:${l.issueId}:${l.source}`),
			['linear:ENG-2:created'],
		);
	});

	void it('links from the branch at start and from prompts in the agent hook, without network', async (t) => {
		const gh = await startFakeGithub(t, { token: secrets.BATON_GITHUB_TOKEN });
		const { engine, root, log, clock } = await openTrackerEngine(t, {
			branch: 'alice/eng-12-77-login',
			config: {
				trackers: { enabled: ['github', 'linear'], github: { apiUrl: gh.url }, linear: { teamKey: 'ENG', apiUrl: 'http://127.0.0.1:9/graphql' } },
			},
		});
		const { session } = await engine.sessions.start({ name: 'Login', actor });
		assert.deepEqual(
			(await engine.trackers.list({ sessionId: session.id })).map((l) => `${l.tracker}:${l.issueId}:${l.source}`),
			['linear:ENG-12:branch'],
		);

		clock.advance(60_000);
		const payload = {
			session_id: '6f1c2a9e-3b7d-4c21-9e8a-5d4f0b7a1c33',
			hook_event_name: 'UserPromptSubmit',
			cwd: root,
			prompt: 'Please fix #12 and look at https://github.com/acme/shop/issues/15 — also ENG-12 again',
		};
		const event = normaliseHookPayload(payload);
		assert.ok(event.ok);
		const claudeHome = path.join(root, '.claude-home');
		const options = {
			actor: 'claude-code:hook',
			settings: agentSettingsSchema.parse({ archiveTranscripts: false }),
			archive: new TranscriptArchive({ workspaceRoot: root, claudeHome, log, now: () => clock.now() }),
			log,
		};
		const result = await runHook(engine, event.event, options);
		assert.equal(result.sessionId, session.id);
		assert.deepEqual(
			(await engine.trackers.list({ sessionId: session.id })).map((l) => `${l.tracker}:${l.issueId}:${l.source}`),
			['linear:ENG-12:branch', 'github:12:prompt', 'github:15:prompt'],
		);
		assert.equal(gh.received.length, 0, 'the hook never reaches a tracker');
		const sequence = engine.store.sequence;
		await runHook(engine, event.event, options);
		assert.equal((await engine.trackers.list({ sessionId: session.id })).length, 3, 'the same prompt again adds nothing');
		assert.ok(engine.store.sequence - sequence <= 1, 'and writes no link rows (only the activity touch)');
	});

	void it('Beads: a session named after a bd id comments in issues.jsonl on delivery', async (t) => {
		const { engine, root } = await openTrackerEngine(t, { config: { trackers: { enabled: ['beads'] } } });
		const file = path.join(root, '.beads', 'issues.jsonl');
		const other = '{"id":"bd-0c0c0c","title":"Other","status":"open"}';
		fs.mkdirSync(path.dirname(file), { recursive: true });
		fs.writeFileSync(file, `{"id":"bd-a1b2","title":"Login","status":"open"}\n${other}\n`);
		const { session } = await engine.sessions.start({ name: 'Work on bd-a1b2', actor });
		const cp = await engine.checkpoints.create({ trigger: 'manual', sessionId: session.id, actor });
		assert.deepEqual(cp.linkedIssues, [{ tracker: 'beads', id: 'bd-a1b2', url: null }]);
		assert.deepEqual(
			(await engine.outbox.deliverDue()).map((o) => o.status),
			['sent'],
		);
		const lines = fs.readFileSync(file, 'utf8').split('\n');
		assert.match(JSON.parse(lines[0] ?? '').comments[0].text, new RegExp(cp.id));
		assert.equal(lines[1], other);
		const shown = await engine.trackers.show('bd-a1b2');
		assert.equal(shown.title, 'Login');
		assert.equal((await engine.trackers.list({ sessionId: session.id }))[0]?.title, 'Login', 'show refreshes the link');
	});
});
