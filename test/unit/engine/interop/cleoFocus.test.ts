/**
 * Issue #27 (item 11): an imported *active* CLEO session's focus note and next action ("Working on
 * JWT validation" / "Add error handling") were kept only on the import record. They are on the
 * session now, so `baton session show`, the briefing of that session (when it is resumed too) and
 * its markdown show them; a session that is not active shows them as its last focus. Re-importing
 * the file changes nothing.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { renderBriefingDiet } from '../../../../src/engine/hooks/briefingDiet';
import { renderBriefingMarkdown } from '../../../../src/engine/interop/markdownViews';
import type { Session } from '../../../../src/engine/storage/model';
import { actor, openTestEngine, snapshotFiles, tempDir } from '../../helpers';
import { baton } from '../../cli/cliRunner';
import { cleoSessionsData, writeJson } from './interopFixtures';

const live = { note: 'Working on JWT validation', nextAction: 'Add error handling', blockedReason: null };

void describe('an imported CLEO session’s focus', () => {
	void it('is on the session, in its briefing (resumed too) and its markdown, as the last focus once it stops; re-import is idempotent', async (t) => {
		const { engine, root } = await openTestEngine(t);
		const file = writeJson(path.join(tempDir(t), 'sessions.json'), cleoSessionsData());
		const first = await engine.imports.run({ format: 'cleo-sessions', path: file, dryRun: false, actor });
		assert.deepEqual(first.errors, []);
		const all = await engine.briefings.list({ limit: 100 });
		const byName = (name: string): Session => {
			const found = all.find((s) => s.name === name);
			assert.ok(found, name);
			return found;
		};
		const auth = byName('Auth Implementation');
		assert.equal(auth.status, 'active');
		assert.deepEqual(auth.focus, live);
		// An ended session's note went into its write-once handoff, not into a focus; one without notes has none.
		assert.equal(byName('Payments spike').focus, null);
		assert.equal((await engine.briefings.handoff(byName('Payments spike').id)).kind, 'valid');
		assert.equal(byName('Docs pass').focus, null);

		const briefing = await engine.briefings.briefing({ sessionId: auth.id });
		assert.deepEqual(briefing.focus, { ...live, last: false });
		const diet = renderBriefingDiet(briefing);
		assert.match(diet, /This session’s focus:\n- Working on: Working on JWT validation\n- Next action: Add error handling\n/);
		assert.match(
			renderBriefingMarkdown(briefing, auth),
			/## This session’s focus\n\n- \*\*Working on:\*\* Working on JWT validation\n- \*\*Next action:\*\* Add error handling\n/,
		);

		// Suspended, it keeps its focus as the last one; resumed, its briefing gives it to the next agent.
		await engine.sessions.suspend({ id: auth.id, actor });
		const suspended = await engine.briefings.briefing({ sessionId: auth.id });
		assert.deepEqual(suspended.focus, { ...live, last: true });
		assert.match(renderBriefingDiet(suspended), /This session’s last focus \(from before it stopped\):\n- Working on: Working on JWT validation\n/);
		await engine.sessions.resume({ id: auth.id, actor });
		assert.deepEqual((await engine.briefings.briefing({ sessionId: auth.id })).focus, { ...live, last: false });
		// A scope's briefing is its running session's: the focus comes with it.
		assert.deepEqual((await engine.briefings.briefing({ scope: auth.scopeKey })).focus, { ...live, last: false });
		// A new session's briefing has no focus of its own.
		assert.equal((await engine.briefings.briefing({ scope: 'task:T999' })).focus, null);

		const before = snapshotFiles(path.join(root, '.baton'));
		const again = await engine.imports.run({ format: 'cleo-sessions', path: file, dryRun: false, actor });
		assert.equal(again.added.sessions, 0);
		assert.deepEqual(again.warnings, []);
		assert.deepEqual(snapshotFiles(path.join(root, '.baton')), before, 'importing the same file again writes nothing');
		assert.deepEqual((await engine.briefings.get(auth.id)).focus, live);
	});

	void it('refuses a focus note over the CLI’s note limit, naming the record and the field', async (t) => {
		const { engine } = await openTestEngine(t);
		const data = cleoSessionsData();
		const sessions = data['sessions'] as { focus?: Record<string, unknown> }[];
		(sessions[0]?.focus as Record<string, unknown>)['sessionNote'] = 'x'.repeat(5_001);
		const file = writeJson(path.join(tempDir(t), 'sessions.json'), data);
		const result = await engine.imports.run({ format: 'cleo-sessions', path: file, dryRun: false, actor });
		assert.deepEqual(result.added.sessions, 0);
		assert.deepEqual(
			result.errors.map((e) => [e.field, e.message]),
			[['focus.sessionNote', '5001 characters; at most 5000 (the same limit as the CLI and MCP)']],
		);
	});

	void it('baton session show prints it (text and --json), as the last focus once the session stops', async (t) => {
		const workspace = tempDir(t);
		assert.equal(baton(workspace, 'init').code, 0);
		const file = writeJson(path.join(workspace, 'sessions.json'), cleoSessionsData());
		assert.equal(baton(workspace, 'import', 'cleo-sessions', file).code, 0);
		const list = baton(workspace, 'session', 'list', '--status', 'active', '--json').json['sessions'] as Session[];
		const auth = list.find((s) => s.name === 'Auth Implementation');
		assert.ok(auth);
		const json = baton(workspace, 'session', 'show', auth.id, '--json');
		assert.equal(json.code, 0, json.stderr);
		assert.deepEqual(json.json['session'].focus, live);
		const text = baton(workspace, 'session', 'show', auth.id);
		assert.match(text.stdout, /\n {2}focus\n {4}note: Working on JWT validation\n {4}next action: Add error handling\n/);
		assert.equal(baton(workspace, 'session', 'suspend', auth.id).code, 0);
		const stopped = baton(workspace, 'session', 'show', auth.id);
		assert.match(stopped.stdout, /\n {2}last focus \(from before the session stopped\)\n {4}note: Working on JWT validation\n/);
		const briefing = baton(workspace, 'briefing', '--session', auth.id);
		assert.match(
			briefing.stdout,
			/This session’s last focus \(from before it stopped\):\n {2}note: Working on JWT validation\n {2}next action: Add error handling\n/,
		);
	});
});
