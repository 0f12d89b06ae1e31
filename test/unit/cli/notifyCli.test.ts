/**
 * Notifications from the CLI process (dist/cli.js), secrets from `BATON_*` variables: `notify test`
 * and `notify list`, the bounded flush of ordinary commands, and `baton hook`, which never touches
 * the network (the next command delivers what it queued).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { hookFixture } from './agentCli';
import { httpPeer } from '../engine/notifications/loopbackPeers';
import { testAccount, twilioPeer } from '../engine/notifications/twilioPeer';
import { tempDir } from '../helpers';
import { batonAsync, cliPath } from './cliRunner';
import { flushBudgetMs } from '../../../src/cli/notifyCommands';

/** Secrets come only from what each run passes. */
const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('BATON_') && k !== 'CLAUDE_CONFIG_DIR'));
const run = (cwd: string, args: string[], env: NodeJS.ProcessEnv = {}, input?: string) =>
	batonAsync(cwd, args, { env: { ...clean, BATON_ACTOR: 'test:cli', ...env }, ...(input !== undefined ? { input } : {}) });

async function workspace(t: Parameters<typeof tempDir>[0], notifications: Record<string, unknown>): Promise<string> {
	const root = tempDir(t);
	assert.equal((await run(root, ['init'])).code, 0);
	fs.writeFileSync(path.join(root, '.baton/config.json'), JSON.stringify({ notifications }));
	return root;
}

void describe('baton notify and deliveries from the CLI', () => {
	before(() => assert.ok(fs.existsSync(cliPath), `${cliPath} is missing: run \`npm run build\` first (npm test does)`));

	void it('notify test sends to a channel with env secrets; a failure exits 1 naming the status, never the secret', async (t) => {
		const hook = await httpPeer(t, [{ status: 200 }, { status: 403, body: 'forbidden for cliTokenSecret123' }]);
		const root = await workspace(t, {});
		const env = { BATON_WEBHOOK_URL: `${hook.url}/cli-hook`, BATON_WEBHOOK_TOKEN: 'cliTokenSecret123' };
		const ok = await run(root, ['notify', 'test', 'webhook', '--json'], env);
		assert.equal(ok.code, 0, ok.stderr);
		assert.deepEqual(Object.keys(ok.json), ['channel', 'ok', 'error', 'durationMs']);
		assert.equal(ok.json['ok'], true);
		assert.equal(hook.requests[0]?.headers['authorization'], 'Bearer cliTokenSecret123');
		assert.equal(JSON.parse(hook.requests[0]!.body).title, 'Test notification');
		const failed = await run(root, ['notify', 'test', 'webhook', '--json'], env);
		assert.equal(failed.code, 1);
		assert.equal(failed.json['ok'], false);
		assert.equal(failed.json['error'], 'webhook: HTTP 403 Forbidden: forbidden for [secret:webhook.token]');
		assert.doesNotMatch(failed.stdout + failed.stderr, /cliTokenSecret123/);
		const missing = await run(root, ['notify', 'test', 'slack']);
		assert.equal(missing.code, 1);
		assert.match(
			missing.stdout,
			/slack: no slack\.webhookUrl is set: store it with “Baton: Store Secret…” in VS Code, or set BATON_SLACK_WEBHOOK_URL for the CLI/,
		);
		assert.equal((await run(root, ['notify', 'test', 'pager'])).code, 2);
		assert.equal((await run(root, ['notify', 'test', 'editor'])).code, 2);
	});

	void it('notify test sms texts through Twilio with BATON_TWILIO_* credentials; a refusal names Twilio’s code, never the token; a bad number names its setting', async (t) => {
		const account = testAccount();
		const twilio = await twilioPeer(t, account);
		const sms = { server: twilio.url, to: ['+14155550100'], from: '+15005550006' };
		const root = await workspace(t, { sms });
		const env = { BATON_TWILIO_ACCOUNT_SID: account.accountSid, BATON_TWILIO_AUTH_TOKEN: account.authToken };
		const ok = await run(root, ['notify', 'test', 'sms'], env);
		assert.equal(ok.code, 0, ok.stderr);
		assert.match(ok.stdout, /^Test notification sent to sms \(\d+ ms\)\.$/m);
		assert.deepEqual(
			twilio.messages.map((m) => [m.to, m.from]),
			[['+14155550100', '+15005550006']],
		);
		assert.deepEqual([twilio.requests[0]?.user, twilio.requests[0]?.password], [account.accountSid, account.authToken]);
		const refused = await run(root, ['notify', 'test', 'sms'], { ...env, BATON_TWILIO_AUTH_TOKEN: 'wrongCliTokenCANARY77' });
		assert.equal(refused.code, 1);
		assert.match(
			refused.stdout,
			/^Test notification to sms failed: sms \(to \+14155550100\): HTTP 401 Unauthorized: Twilio error 20003: Authenticate \(https:\/\/www\.twilio\.com\/docs\/errors\/20003\)$/m,
		);
		assert.doesNotMatch(refused.stdout + refused.stderr, /wrongCliTokenCANARY77|a1b2c3d4a1b2c3d4/);
		const missing = await run(root, ['notify', 'test', 'sms'], { BATON_TWILIO_ACCOUNT_SID: account.accountSid });
		assert.match(
			missing.stdout,
			/sms: no twilio\.authToken is set: store it with “Baton: Store Secret…” in VS Code, or set BATON_TWILIO_AUTH_TOKEN for the CLI/,
		);
		// A workspace of its own: a warm daemon keeps the configuration it opened with.
		const badNumber = await run(await workspace(t, { sms: { ...sms, to: ['415 555 0100'] } }), ['notify', 'test', 'sms'], env);
		assert.notEqual(badNumber.code, 0);
		assert.match(
			badNumber.stderr,
			/notifications\.sms\.to\.0: a phone number in E\.164 form: \+, the country code and the number, digits only \(e\.g\. \+14155550123\)/,
		);
		assert.equal(twilio.requests.length, 2, 'nothing was sent without a token or to a malformed number');
	});

	void it('a hook queues without network; the next ordinary command delivers within its bounded wait', async (t) => {
		const hook = await httpPeer(t);
		const root = await workspace(t, { channels: ['webhook'], routing: { notice: ['webhook'] } });
		const env = { BATON_WEBHOOK_URL: `${hook.url}/after-hook`, CLAUDE_CONFIG_DIR: tempDir(t, 'baton-claude-') };
		const where = { root, claudeHome: env.CLAUDE_CONFIG_DIR };
		assert.equal((await run(root, ['hook'], env, JSON.stringify(hookFixture('claude', 'session-start-startup', where)))).code, 0);
		assert.equal((await run(root, ['hook'], env, JSON.stringify(hookFixture('claude', 'session-end', where)))).code, 0);
		await new Promise((r) => setTimeout(r, 200));
		assert.equal(hook.requests.length, 0, 'baton hook did no network work');
		const queued = await run(root, ['notify', 'list', '--json'], env);
		assert.deepEqual(
			queued.json['notifications'].map((n: { event: string; status: string; attempts: number }) => [n.event, n.status, n.attempts]),
			[['session.completed', 'pending', 0]],
		);

		const noSecret = await run(root, ['session', 'list', '--json']);
		assert.equal(noSecret.code, 0);
		assert.equal((await run(root, ['notify', 'list', '--json'])).json['notifications'][0].attempts, 0, 'a CLI without the secret leaves the row alone');

		const delivering = await run(root, ['session', 'list', '--json'], env);
		assert.equal(delivering.code, 0);
		assert.equal(hook.requests.length, 1);
		assert.equal(JSON.parse(hook.requests[0]!.body).event, 'session.completed');
		const sent = await run(root, ['notify', 'list'], env);
		assert.match(sent.stdout, /^ntf_\S+ {2}sent {7}webhook {2}notice {3} 1× {2}Session completed: /m);
	});

	void it('a dead endpoint delays an ordinary command’s exit by the bounded wait at most, and the row waits for a retry', async (t) => {
		const dead = await httpPeer(t, ['hang']);
		const root = await workspace(t, { channels: ['webhook'], routing: { notice: ['webhook'] } });
		const env = { BATON_WEBHOOK_URL: `${dead.url}/never-answers` };
		const started = await run(root, ['session', 'start', '--name', 'slow peer', '--json'], env);
		const ended = await run(root, ['session', 'end', '--json'], env);
		assert.equal(ended.code, 0, ended.stderr);
		assert.equal(ended.json['session'].id, started.json['session'].id, 'the answer is printed whole');
		assert.equal(dead.requests.length, 1);
		const [row] = (await run(root, ['notify', 'list', '--json'])).json['notifications'];
		assert.equal(row.status, 'pending');
		assert.equal(row.attempts, 1);
		const waited = Number(/^webhook: no answer within (\d+) ms$/.exec(row.lastError)?.[1]);
		assert.ok(
			waited > 0 && waited <= flushBudgetMs,
			`the request waited the CLI's bounded ${flushBudgetMs} ms at most, not the channel's 10 s: ${row.lastError}`,
		);
		assert.match(ended.stderr, /delivery to webhook \(session\.completed\) failed; retrying in 2 s: webhook: no answer within/);
	});
});
