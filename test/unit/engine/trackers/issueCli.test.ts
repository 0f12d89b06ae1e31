/**
 * `baton issue link|unlink|list|show|sync` as a process (the bundled dist/cli.js), with the token in
 * the environment and a loopback GitHub. `show` and `sync` run asynchronously so the in-process
 * peer can answer while the CLI waits.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { baton, cliPath, type Run } from '../../cli/cliRunner';
import { tempDir } from '../../helpers';
import { startFakeGithub } from './fakePeers';
import { makeRepo } from './trackerEngine';

const token = 'ghp_CLIsecret_token_0123456789';

function batonWith(env: Record<string, string>, cwd: string, ...args: string[]): Promise<Run> {
	return new Promise((resolve) => {
		const child = spawn(process.execPath, [cliPath, ...args], { cwd, env: { ...process.env, BATON_ACTOR: 'test:cli', ...env } });
		let stdout = '';
		let stderr = '';
		child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
		child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
		child.on('close', (code) => {
			const lines = stdout.trim().split('\n').filter(Boolean);
			assert.ok(!args.includes('--json') || lines.length === 1, `--json prints one line: ${stdout}`);
			resolve({ code: code ?? -1, stdout, stderr, json: lines.length === 1 ? (JSON.parse(lines[0] ?? '{}') as Record<string, any>) : {} });
		});
	});
}

void describe('baton issue (the bundled CLI)', () => {
	before(() => {
		assert.ok(fs.existsSync(cliPath), `${cliPath} is missing: run \`npm run build\` first (npm test does)`);
	});

	void it('links, lists, unlinks, shows and syncs with the documented JSON shapes', async (t) => {
		const gh = await startFakeGithub(t, {
			token,
			issues: [
				['acme/shop#42', 'Login fails'],
				['acme/shop#7', 'Typo'],
			],
		});
		const root = tempDir(t, 'baton-issue-cli-');
		makeRepo(root, 'feature/7-typo');
		assert.equal(baton(root, 'init').code, 0);
		fs.writeFileSync(path.join(root, '.baton', 'config.json'), JSON.stringify({ trackers: { enabled: ['github'], github: { apiUrl: gh.url } } }));
		const session = baton(root, 'session', 'start', '--name', 'Fix login #42', '--json').json['session'];

		const listed = baton(root, 'issue', 'list', '--json');
		assert.equal(listed.code, 0, listed.stderr);
		assert.deepEqual(listed.json, {
			links: [
				{
					sessionId: session.id,
					tracker: 'github',
					issueId: '42',
					url: 'https://github.com/acme/shop/issues/42',
					title: null,
					state: null,
					source: 'name',
				},
				{
					sessionId: session.id,
					tracker: 'github',
					issueId: '7',
					url: 'https://github.com/acme/shop/issues/7',
					title: null,
					state: null,
					source: 'branch',
				},
			],
		});

		const linked = baton(root, 'issue', 'link', 'ABC-12', '--json');
		assert.equal(linked.code, 0, linked.stderr);
		assert.deepEqual(linked.json, {
			link: { sessionId: session.id, tracker: 'linear', issueId: 'ABC-12', url: null, title: null, state: null, source: 'manual' },
			added: true,
		});
		assert.equal(baton(root, 'issue', 'link', '--session', session.id, 'linear:abc-12', '--json').json['added'], false);
		assert.deepEqual(baton(root, 'issue', 'unlink', 'ABC-12', '--json').json, {
			unlinked: { sessionId: session.id, tracker: 'linear', issueId: 'ABC-12' },
		});
		const again = baton(root, 'issue', 'unlink', 'ABC-12', '--json');
		assert.equal(again.code, 1);
		assert.equal(again.json['error'].code, 'notFound');
		const bad = baton(root, 'issue', 'link', 'UTF 8', '--json');
		assert.equal(bad.code, 1);
		assert.deepEqual(bad.json['error'].code, 'invalidInput');
		assert.match(bad.json['error'].message, /"UTF 8" is not an issue reference/);
		assert.equal(baton(root, 'issue', 'list', '--session', 'ses_20990101000000_ffffff', '--json').json['error'].code, 'notFound');

		const shown = await batonWith({ BATON_GITHUB_TOKEN: token }, root, 'issue', 'show', '#42', '--json');
		assert.equal(shown.code, 0, shown.stderr);
		assert.deepEqual(shown.json, { issue: { tracker: 'github', id: '42', url: `${gh.url}/acme/shop/issues/42`, title: 'Login fails', state: 'open' } });
		assert.equal(gh.received.at(-1)?.headers.authorization, `Bearer ${token}`);

		const synced = await batonWith({ BATON_GITHUB_TOKEN: token }, root, 'issue', 'sync', '--json');
		assert.equal(synced.code, 0, synced.stderr);
		assert.deepEqual(
			synced.json['updated'].map((l: { issueId: string; title: string }) => `${l.issueId}:${l.title}`),
			['42:Login fails', '7:Typo'],
		);
		assert.deepEqual(synced.json['failed'], []);
		const after = baton(root, 'issue', 'list', '--json').json['links'];
		assert.deepEqual(
			after.map((l: { title: string; state: string }) => `${l.title}/${l.state}`),
			['Login fails/open', 'Typo/open'],
		);

		const text = baton(root, 'issue', 'list');
		assert.match(text.stdout, /github:42 +name +“Login fails” \[open\]/);
	});

	void it('a refused token fails with the tracker and status named and the token nowhere', async (t) => {
		const gh = await startFakeGithub(t, { token });
		const root = tempDir(t, 'baton-issue-cli-');
		makeRepo(root);
		assert.equal(baton(root, 'init').code, 0);
		fs.writeFileSync(path.join(root, '.baton', 'config.json'), JSON.stringify({ trackers: { enabled: ['github'], github: { apiUrl: gh.url } } }));
		const wrong = 'ghp_WRONGsecret_token_999999';
		const refused = await batonWith({ BATON_GITHUB_TOKEN: wrong }, root, 'issue', 'show', 'github:1', '--json');
		assert.equal(refused.code, 1);
		assert.deepEqual(refused.json['error'], { code: 'trackerFailed', message: 'GitHub: GET /repos/acme/shop/issues/1 answered HTTP 401: Bad credentials' });
		gh.failNext(1, 500);
		const echoed = await batonWith({ BATON_GITHUB_TOKEN: token }, root, 'issue', 'show', 'github:1');
		assert.equal(echoed.code, 1);
		assert.match(
			echoed.stderr,
			/GitHub: GET \/repos\/acme\/shop\/issues\/1 answered HTTP 500: upstream exploded while handling Bearer \[secret:github\.token\]/,
		);
		const missing = await batonWith({ BATON_GITHUB_TOKEN: '' }, root, 'issue', 'show', 'github:1', '--json');
		assert.match(missing.json['error'].message, /no token: set BATON_GITHUB_TOKEN/);
		for (const run of [refused, echoed, missing]) {
			assert.ok(!`${run.stdout}${run.stderr}`.includes(token) && !`${run.stdout}${run.stderr}`.includes(wrong));
		}
	});
	void it('a command that takes a checkpoint posts its comment on the linked issue before it exits', async (t) => {
		const gh = await startFakeGithub(t, { token, issues: [['acme/shop#42', 'Login fails']] });
		const root = tempDir(t, 'baton-issue-cli-');
		makeRepo(root);
		assert.equal(baton(root, 'init').code, 0);
		fs.writeFileSync(path.join(root, '.baton', 'config.json'), JSON.stringify({ trackers: { enabled: ['github'], github: { apiUrl: gh.url } } }));
		assert.equal((await batonWith({ BATON_GITHUB_TOKEN: token }, root, 'session', 'start', '--name', 'Fix login #42')).code, 0);
		const created = await batonWith({ BATON_GITHUB_TOKEN: token }, root, 'checkpoint', 'create', '--message', 'login fixed', '--json');
		assert.equal(created.code, 0, created.stderr);
		assert.deepEqual(
			created.json['checkpoint'].linkedIssues.map((l: { id: string }) => l.id),
			['42'],
		);
		assert.equal(gh.issues.get('acme/shop#42')?.comments.length, 1, 'the comment went out with the command, not later');
		assert.match(gh.issues.get('acme/shop#42')?.comments[0] ?? '', new RegExp(created.json['checkpoint'].id));
	});
});
