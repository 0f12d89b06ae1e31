/**
 * The editor's notification settings reach the other processes of the workspace: the backend
 * records them, a hook or CLI engine without settings of its own routes and delivers with them,
 * and removing them (or a damaged record) falls back to `.baton/config.json`.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { settings } from '../../../../src/engine/storage/schema';
import { actor, openTestEngine } from '../../helpers';
import { outboxRows, secretsOf } from './notifyFixtures';

void describe('editor notification settings shared through the workspace', () => {
	void it('route a hook’s events as the editor is set up, until the editor drops them', async (t) => {
		const editor = await openTestEngine(t, { config: { notifications: { channels: ['editor', 'slack'], routing: { notice: ['slack'] } } } });
		await editor.engine.notifications.publishHostSettings({ channels: ['editor', 'slack'], routing: { notice: ['slack'] } });
		const hook = await openTestEngine(t, { root: editor.root, secrets: secretsOf({ 'slack.webhookUrl': 'http://127.0.0.1:1/x' }) });
		const { session } = await hook.engine.sessions.start({ name: 'from a hook', actor });
		await hook.engine.sessions.end({ id: session.id, actor });
		assert.deepEqual(
			(await outboxRows(hook.engine)).map((r) => [r.event, r.channel]),
			[['session.completed', 'slack']],
		);
		assert.deepEqual(await hook.engine.notifications.attach({ onlyReady: true }), ['slack'], 'the CLI delivers the channels the editor enabled');

		await editor.engine.notifications.publishHostSettings(undefined);
		await hook.engine.store.refresh();
		const again = await hook.engine.sessions.start({ name: 'settings gone', actor });
		await hook.engine.sessions.end({ id: again.session.id, actor });
		const rows = (await outboxRows(hook.engine)).filter((r) => r.sessionId === again.session.id);
		assert.deepEqual(
			rows.map((r) => r.channel),
			['editor'],
			'back to .baton/config.json (here: the defaults)',
		);
	});

	void it('record nothing when unchanged, and ignore a damaged record with a warning', async (t) => {
		const editor = await openTestEngine(t);
		await editor.engine.notifications.publishHostSettings({ channels: ['webhook'] });
		const sequence = editor.engine.store.sequence;
		await editor.engine.notifications.publishHostSettings({ channels: ['webhook'] });
		assert.equal(editor.engine.store.sequence, sequence, 'the same settings again: no write');
		await editor.engine.store.write(
			(db) =>
				void db
					.update(settings)
					.set({ value: { channels: ['pager'] }, updatedAt: 'x' })
					.where(sql`${settings.key} = 'notifications.hostSettings'`)
					.run(),
		);
		const hook = await openTestEngine(t, { root: editor.root });
		await hook.engine.sessions.start({ name: 'still fine', actor });
		assert.ok(hook.log.warnings().some((w) => /the editor’s recorded notification settings: channels\.0/.test(w)));
	});
});
