/**
 * Session names (#27 item 6): a hook-started session is called after its agent until its first
 * prompt names it; a person renames any session of this machine (audited, refused when empty, too
 * long or a teammate's); the rename reaches a teammate through sync, also after the session arrived.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { agentSettingsSchema } from '../../../../src/engine/agentConfig/agentSettings';
import { normaliseHookPayload } from '../../../../src/engine/hooks/normaliseHookPayload';
import { runHook } from '../../../../src/engine/hooks/runHook';
import { hasPlaceholderName, nameFromPrompt, placeholderName } from '../../../../src/engine/sessions/sessionName';
import { TranscriptArchive } from '../../../../src/engine/transcripts/transcriptArchive';
import { auditLog } from '../../../../src/engine/storage/schema';
import { hookFixture } from '../../cli/agentCli';
import { actor, openTestEngine, tempDir } from '../../helpers';
import { enabledWorld, git } from '../sync/syncWorld';
import { baton } from '../../cli/cliRunner';
import fs from 'node:fs';

void describe('session names', () => {
	void it('takes a row title from the first line of a prompt that has words', () => {
		assert.equal(nameFromPrompt('Fix the flaky payment webhook test\n\nIt fails on CI about once a day.'), 'Fix the flaky payment webhook test');
		assert.equal(nameFromPrompt('\n   \n  add   retries\tto the  client  '), 'add retries to the client');
		assert.equal(nameFromPrompt('/compact'), null, 'a bare slash command names nothing');
		assert.equal(nameFromPrompt('/review\nthe parser please'), 'the parser please');
		assert.equal(nameFromPrompt('   \n…\n'), null);
		assert.equal(nameFromPrompt('a\u0000b c'), 'ab c', 'NUL never enters a name');
		const long = nameFromPrompt('Refactor the checkout flow so that payment retries are handled by one queue with backoff and jitter');
		assert.equal(long, 'Refactor the checkout flow so that payment retries are…');
		assert.ok(long && long.length <= 60);
		assert.equal(nameFromPrompt('x'.repeat(100)), `${'x'.repeat(59)}…`, 'a word longer than a row is cut where the row ends');
	});

	void it('knows the name a hook gives, and only that one, as a placeholder', () => {
		assert.equal(placeholderName('claude-code', '6f1c2a9e-0b4d-4a8e-9d51-2f7c3a1b8e90'), 'Claude Code session 6f1c2a9e');
		assert.ok(hasPlaceholderName({ name: 'Gemini CLI session 1234abcd', agent: 'gemini' }));
		assert.ok(!hasPlaceholderName({ name: 'Gemini CLI session 1234abcd', agent: 'codex' }), 'another agent’s label is a name someone chose');
		assert.ok(!hasPlaceholderName({ name: 'Claude Code session on the parser', agent: 'claude-code' }));
		assert.ok(!hasPlaceholderName({ name: 'Claude Code session 6f1c2a9e', agent: null }));
	});

	void it('names a hook-started session after its first prompt, once, and never over a person’s name', async (t) => {
		const base = tempDir(t, 'baton-names-');
		const te = await openTestEngine(t, { root: base });
		const claudeHome = path.join(base, '.claude-home');
		const options = {
			actor,
			settings: agentSettingsSchema.parse({}),
			archive: new TranscriptArchive({ workspaceRoot: te.root, claudeHome, log: te.log }),
			log: te.log,
		};
		const hook = async (name: string, overrides: Record<string, unknown> = {}) => {
			const event = normaliseHookPayload(hookFixture('claude', name, { root: te.root, claudeHome }, overrides));
			assert.ok(event.ok);
			return runHook(te.engine, event.event, options);
		};
		const started = await hook('session-start-startup');
		assert.ok(started.sessionId);
		const placeholder = (await te.engine.briefings.get(started.sessionId)).name;
		assert.match(placeholder, /^Claude Code session \S{8}$/);
		await hook('user-prompt-submit', { prompt: '/compact' });
		assert.equal((await te.engine.briefings.get(started.sessionId)).name, placeholder, 'a slash command leaves the placeholder');
		await hook('user-prompt-submit', { prompt: 'Add retries to the payment client\nwith backoff' });
		assert.equal((await te.engine.briefings.get(started.sessionId)).name, 'Add retries to the payment client');
		await hook('user-prompt-submit', { prompt: 'now write the tests' });
		assert.equal((await te.engine.briefings.get(started.sessionId)).name, 'Add retries to the payment client', 'only the first prompt names it');
		const audit = (await te.engine.store.read((db) => db.select().from(auditLog).all())).filter((a) => a.operation === 'session.rename');
		assert.equal(audit.length, 1);

		// A person's name stays, whatever the agent says first.
		await te.engine.sessions.end({ id: started.sessionId, actor });
		const next = await hook('session-start-startup', { session_id: 'a4c0b7de-1111-4222-8333-944455556666' });
		assert.ok(next.sessionId && next.sessionId !== started.sessionId);
		await te.engine.sessions.rename({ id: next.sessionId, name: '  Parser: the second pass ', actor });
		await hook('user-prompt-submit', { session_id: 'a4c0b7de-1111-4222-8333-944455556666', prompt: 'continue' });
		assert.equal((await te.engine.briefings.get(next.sessionId)).name, 'Parser: the second pass');
	});

	void it('refuses a name that is empty or too long, and a session that is not there', async (t) => {
		const te = await openTestEngine(t);
		const { session } = await te.engine.sessions.start({ name: 'first', actor });
		await assert.rejects(te.engine.sessions.rename({ id: session.id, name: ' \n ', actor }), /1 to 200 characters/);
		await assert.rejects(te.engine.sessions.rename({ id: session.id, name: 'x'.repeat(201), actor }), /1 to 200 characters/);
		await assert.rejects(te.engine.sessions.rename({ id: 'ses_missing', name: 'x', actor }), /does not exist/);
		assert.equal((await te.engine.briefings.get(session.id)).name, 'first');
	});

	void it('carries a rename to a teammate, before and after the session reached them, and refuses renaming theirs', async (t) => {
		const w = await enabledWorld(t);
		const { session } = await w.a.engine.sessions.start({ name: 'Claude Code session 1a2b3c4d', agent: 'claude-code', actor });
		await w.a.engine.sessions.rename({ id: session.id, name: 'Payment retries', actor });
		await w.a.engine.sync.push();
		await w.b.engine.sync.pull();
		assert.equal((await w.b.engine.briefings.get(session.id)).name, 'Payment retries', 'a session arriving with its rename');
		await w.a.engine.sessions.rename({ id: session.id, name: 'Payment retries with backoff', actor });
		await w.a.engine.sync.push();
		const pulled = await w.b.engine.sync.pull();
		assert.equal((await w.b.engine.briefings.get(session.id)).name, 'Payment retries with backoff', 'a session B already had');
		assert.equal(pulled.sessions.updated, 1);
		await assert.rejects(w.b.engine.sessions.rename({ id: session.id, name: 'mine now', actor }), /runs on another machine; rename it there/);
		assert.equal((await w.b.engine.briefings.get(session.id)).name, 'Payment retries with backoff');
	});

	void it('baton session rename renames, prints the new name, and refuses with a clear error', (t) => {
		const root = path.join(tempDir(t, 'baton-rename-cli-'), 'project');
		fs.mkdirSync(root);
		git(root, ['init', '-q', '-b', 'main']);
		assert.equal(baton(root, 'init').code, 0);
		const started = baton(root, 'session', 'start', '--name', 'first try', '--json');
		const id = (started.json['session'] as { id: string }).id;
		const renamed = baton(root, 'session', 'rename', id, 'Parser: second pass');
		assert.equal(renamed.code, 0, renamed.stderr);
		assert.equal(renamed.stdout.trim(), `Renamed ${id} to Parser: second pass`);
		assert.equal((baton(root, 'session', 'show', id, '--json').json['session'] as { name: string }).name, 'Parser: second pass');
		const empty = baton(root, 'session', 'rename', id, '  ');
		assert.notEqual(empty.code, 0);
		assert.match(empty.stderr, /a session needs a name of 1 to 200 characters/);
		const missing = baton(root, 'session', 'rename', id);
		assert.equal(missing.code, 2);
		assert.match(missing.stderr, /baton session rename ID NAME/);
	});
});
