/**
 * The HTTP adapters against real loopback peers: what each request carries (method, path, headers,
 * body), how failures read (tracker and status named, secrets never), GraphQL errors, timeouts.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { describe, it } from 'node:test';
import { BatonError } from '../../../../src/engine/errors';
import { GithubAdapter } from '../../../../src/engine/trackers/githubAdapter';
import { LinearAdapter } from '../../../../src/engine/trackers/linearAdapter';
import { WebhookAdapter } from '../../../../src/engine/trackers/webhookAdapter';
import type { CheckpointNote } from '../../../../src/engine/trackers/trackerTypes';
import { startFakeGithub, startFakeLinear, startWebhook } from './fakePeers';

const githubToken = 'ghp_TESTtoken_0123456789abcdef';
const linearKey = 'lin_api_TESTkey_abcdef0123456789';
const note: CheckpointNote = {
	checkpointId: 'cp_20260301090000_abc123',
	sessionId: 'ses_20260301090000_abc123',
	sessionName: 'Fix login #42',
	trigger: 'manual',
	approvalStatus: 'auto_approved',
	message: 'before refactor',
	createdAt: '2026-03-01T09:00:00.000Z',
	files: { added: 1, modified: 2, deleted: 0 },
	escalationReasons: [],
};

function github(url: string, token: string | null = githubToken, timeoutMs = 5_000): GithubAdapter {
	return new GithubAdapter({
		github: { owner: 'acme', repo: 'shop', webUrl: 'https://github.com' },
		apiUrl: url,
		timeoutMs,
		token: async () => token ?? undefined,
	});
}

async function rejection(promise: Promise<unknown>): Promise<BatonError> {
	try {
		await promise;
	} catch (error) {
		assert.ok(BatonError.is(error, 'trackerFailed'), `a trackerFailed BatonError, got ${String(error)}`);
		return error;
	}
	assert.fail('expected a failure');
}

void describe('GitHub adapter (REST v3)', () => {
	void it('gets, closes, comments and creates with the documented requests', async (t) => {
		const gh = await startFakeGithub(t, {
			token: githubToken,
			issues: [
				['acme/shop#42', 'Login fails'],
				['other/lib#7', 'Upstream'],
			],
		});
		const adapter = github(gh.url);

		const issue = await adapter.getIssue('42');
		assert.deepEqual(issue, { tracker: 'github', id: '42', url: `${gh.url}/acme/shop/issues/42`, title: 'Login fails', state: 'open' });
		assert.equal((await adapter.getIssue('other/lib#7')).title, 'Upstream');
		const closed = await adapter.updateStatus('42', 'closed');
		assert.equal(closed.state, 'closed');
		await adapter.linkCheckpoint('42', note);
		const created = await adapter.createIssue({ title: 'Baton: Error', body: 'details', labels: ['baton'] });
		assert.equal(created.id, '43');

		assert.deepEqual(
			gh.received.map((r) => `${r.method} ${r.path}`),
			[
				'GET /repos/acme/shop/issues/42',
				'GET /repos/other/lib/issues/7',
				'PATCH /repos/acme/shop/issues/42',
				'POST /repos/acme/shop/issues/42/comments',
				'POST /repos/acme/shop/issues',
			],
		);
		for (const r of gh.received) {
			assert.equal(r.headers.authorization, `Bearer ${githubToken}`);
			assert.equal(r.headers.accept, 'application/vnd.github+json');
			assert.equal(r.headers['x-github-api-version'], '2022-11-28');
			assert.match(String(r.headers['user-agent']), /Baton/);
		}
		assert.deepEqual(gh.received[2]?.body, { state: 'closed', state_reason: 'completed' });
		assert.match(gh.received[3]?.body.body, /cp_20260301090000_abc123/);
		assert.match(gh.received[3]?.body.body, /Fix login #42/);
		assert.deepEqual(gh.received[4]?.body, { title: 'Baton: Error', body: 'details', labels: ['baton'] });
		assert.equal(gh.issues.get('acme/shop#42')?.state, 'closed');
	});

	void it('failures name GitHub and the status, never the token', async (t) => {
		const gh = await startFakeGithub(t, { token: githubToken });
		const missing = await rejection(github(gh.url).getIssue('9'));
		assert.match(missing.message, /^GitHub: GET \/repos\/acme\/shop\/issues\/9 answered HTTP 404: Not Found$/);
		assert.equal(missing.details?.['status'], 404);

		gh.failNext(1, 500);
		const failed = await rejection(github(gh.url).getIssue('9'));
		assert.match(failed.message, /HTTP 500/);
		assert.ok(gh.received.at(-1)?.headers.authorization?.includes(githubToken), 'the peer did receive the token');
		assert.ok(!failed.message.includes(githubToken), failed.message);
		assert.match(failed.message, /\[secret:github\.token\]/);

		const wrong = await rejection(github(gh.url, 'ghp_wrong_token_value').getIssue('9'));
		assert.match(wrong.message, /HTTP 401: Bad credentials/);

		const none = await rejection(github(gh.url, null).getIssue('9'));
		assert.match(none.message, /GitHub: no token: set BATON_GITHUB_TOKEN/);
	});

	void it('a peer that never answers times out with a clear error', async (t) => {
		const sockets = new Set<Socket>();
		const silent = http.createServer(() => undefined);
		silent.on('connection', (s) => sockets.add(s));
		await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
		t.after(() => {
			for (const s of sockets) s.destroy();
			silent.close();
		});
		const error = await rejection(github(`http://127.0.0.1:${(silent.address() as AddressInfo).port}`, githubToken, 300).getIssue('1'));
		assert.match(error.message, /GitHub: GET \/repos\/acme\/shop\/issues\/1 failed: no answer within 300 ms/);
	});

	void it('a refused connection is named too', async () => {
		const server = http.createServer();
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		const port = (server.address() as AddressInfo).port;
		await new Promise<void>((resolve) => server.close(() => resolve()));
		const error = await rejection(github(`http://127.0.0.1:${port}`).getIssue('1'));
		assert.match(error.message, /^GitHub: GET \/repos\/acme\/shop\/issues\/1 failed: ECONNREFUSED$/);
	});
});

void describe('Linear adapter (GraphQL)', () => {
	const linear = (url: string, extra: Partial<ConstructorParameters<typeof LinearAdapter>[0]> = {}) =>
		new LinearAdapter({
			apiUrl: url,
			timeoutMs: 5_000,
			teamKey: 'ENG',
			teamId: null,
			closedState: null,
			openState: null,
			apiKey: async () => linearKey,
			...extra,
		});

	void it('reads an issue, moves it through the team’s workflow states, comments and creates', async (t) => {
		const ln = await startFakeLinear(t, { apiKey: linearKey });
		const adapter = linear(ln.url);
		assert.deepEqual(await adapter.getIssue('ENG-1'), {
			tracker: 'linear',
			id: 'ENG-1',
			url: 'https://linear.app/acme/issue/ENG-1',
			title: 'Login fails',
			state: 'Todo',
		});
		assert.equal((await adapter.updateStatus('ENG-1', 'in_progress')).state, 'In Progress');
		assert.equal((await adapter.updateStatus('ENG-1', 'closed')).state, 'Done');
		assert.equal((await adapter.updateStatus('ENG-1', 'open')).state, 'Todo', 'the first unstarted state, not the backlog');
		await adapter.linkCheckpoint('ENG-1', note);
		const created = await adapter.createIssue({ title: 'Baton: Error', body: 'details' });
		assert.equal(created.id, 'ENG-2');

		for (const r of ln.received) {
			assert.equal(r.method, 'POST');
			assert.equal(r.path, '/graphql');
			assert.equal(r.headers.authorization, linearKey, 'a personal API key goes bare in Authorization');
			assert.equal(r.headers['content-type'], 'application/json');
		}
		const ops = ln.received.map((r) => /^(query|mutation) (\w+)/.exec(r.body.query)?.[2]);
		assert.deepEqual(ops, [
			'BatonIssue',
			'BatonIssue',
			'BatonIssueUpdate',
			'BatonIssue',
			'BatonIssueUpdate',
			'BatonIssue',
			'BatonIssueUpdate',
			'BatonIssue',
			'BatonCommentCreate',
			'BatonTeam',
			'BatonIssueCreate',
		]);
		assert.deepEqual(ln.received[4]?.body.variables, { id: 'uuid-eng-1', input: { stateId: 'st-done' } });
		assert.equal(ln.received[8]?.body.variables.input.issueId, 'uuid-eng-1');
		assert.match(ln.received[8]?.body.variables.input.body, /cp_20260301090000_abc123/);
		assert.deepEqual(ln.received[9]?.body.variables, { key: 'ENG' });
		assert.deepEqual(ln.received[10]?.body.variables, { input: { teamId: 'team-eng', title: 'Baton: Error', description: 'details' } });
		assert.deepEqual(ln.issues.get('ENG-1')?.comments.length, 1);
	});

	void it('configured state names win over state types', async (t) => {
		const ln = await startFakeLinear(t, { apiKey: linearKey });
		assert.equal((await linear(ln.url, { closedState: 'canceled' }).updateStatus('ENG-1', 'closed')).state, 'Canceled');
		const error = await rejection(linear(ln.url, { closedState: 'Shipped' }).updateStatus('ENG-1', 'closed'));
		assert.match(error.message, /Linear: team ENG has no workflow state named "Shipped" for ENG-1/);
	});

	void it('GraphQL errors and refused credentials are failures that name Linear, never the key', async (t) => {
		const ln = await startFakeLinear(t, { apiKey: linearKey });
		const missing = await rejection(linear(ln.url).getIssue('ENG-404'));
		assert.equal(missing.message, 'Linear: issue failed: Entity not found: Issue');
		const refused = await rejection(linear(ln.url, { apiKey: async () => 'lin_api_wrong_key_123' }).getIssue('ENG-1'));
		assert.match(refused.message, /^Linear: issue answered HTTP 400: Authentication required/);
		ln.failNext(1, 502);
		const failed = await rejection(linear(ln.url).getIssue('ENG-1'));
		assert.match(failed.message, /HTTP 502/);
		assert.ok(!failed.message.includes(linearKey));
		const noTeam = await rejection(linear(ln.url, { teamKey: null }).createIssue({ title: 'x', body: 'y' }));
		assert.match(noTeam.message, /set trackers\.linear\.teamKey/);
	});
});

void describe('webhook adapter', () => {
	void it('posts one JSON event per operation, with the bearer token when there is one', async (t) => {
		const hook = await startWebhook(t, (r) =>
			r.body?.event === 'issue.create' ? { status: 201, body: { id: 'EXT-9', url: 'https://tracker.test/EXT-9' } } : { status: 204 },
		);
		const token = 'whk_TESTtoken_abcdef';
		const adapter = new WebhookAdapter({
			timeoutMs: 5_000,
			url: async () => `${hook.url}/hooks/baton?key=abc`,
			token: async () => token,
			nowIso: () => '2026-03-01T09:00:00.000Z',
		});
		await adapter.comment('EXT-1', 'hello');
		await adapter.linkCheckpoint('EXT-1', note);
		assert.equal((await adapter.updateStatus('EXT-1', 'closed')).id, 'EXT-1');
		const created = await adapter.createIssue({ title: 'Baton: Error', body: 'b' });
		assert.deepEqual(created, { tracker: 'webhook', id: 'EXT-9', url: 'https://tracker.test/EXT-9', title: 'Baton: Error', state: 'open' });
		assert.deepEqual(
			hook.received.map((r) => [r.method, r.path, r.headers.authorization, r.body.event]),
			[
				['POST', '/hooks/baton?key=abc', `Bearer ${token}`, 'issue.comment'],
				['POST', '/hooks/baton?key=abc', `Bearer ${token}`, 'checkpoint.linked'],
				['POST', '/hooks/baton?key=abc', `Bearer ${token}`, 'issue.status'],
				['POST', '/hooks/baton?key=abc', `Bearer ${token}`, 'issue.create'],
			],
		);
		assert.deepEqual(hook.received[0]?.body, {
			event: 'issue.comment',
			tracker: 'webhook',
			issueId: 'EXT-1',
			body: 'hello',
			sentAt: '2026-03-01T09:00:00.000Z',
		});
		assert.equal(hook.received[1]?.body.checkpoint.checkpointId, note.checkpointId);
		assert.match(hook.received[3]?.body.issueId, /^bt-[0-9a-f]{8}$/);

		const bare = new WebhookAdapter({ timeoutMs: 5_000, url: async () => `${hook.url}/x`, token: async () => undefined, nowIso: () => 'now' });
		await bare.comment('EXT-1', 'no token');
		assert.equal(hook.received.at(-1)?.headers.authorization, undefined);
	});

	void it('errors never show the URL (a secret) or the token', async (t) => {
		const hook = await startWebhook(t, () => ({ status: 503, body: { message: 'down' } }));
		const url = `${hook.url}/hooks/secret-path-token`;
		const adapter = new WebhookAdapter({ timeoutMs: 5_000, url: async () => url, token: async () => 'whk_TESTtoken_abcdef', nowIso: () => 'now' });
		const error = await rejection(adapter.comment('EXT-1', 'x'));
		assert.equal(error.message, 'Issue webhook: POST issue.comment answered HTTP 503: down');
		const none = await rejection(
			new WebhookAdapter({ timeoutMs: 5_000, url: async () => undefined, token: async () => undefined, nowIso: () => 'now' }).comment('EXT-1', 'x'),
		);
		assert.match(none.message, /no URL: set BATON_TRACKER_WEBHOOK_URL/);
	});
});
