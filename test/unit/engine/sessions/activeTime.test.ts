/**
 * Escalation by duration counts the time a session was active, from its lifecycle in the audit log:
 * not the months it spent suspended, nor the time before an imported session reached Baton.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { eq } from 'drizzle-orm';
import { activeTimeMs } from '../../../../src/engine/sessions/activeTime';
import { sessions } from '../../../../src/engine/storage/schema';
import { actor } from '../../helpers';
import { openCheckpointEngine, write } from '../checkpoints/gitFixtures';

const hour = 3_600_000;
const escalation = { checkpoints: { escalation: { duration: 4 * hour, costUsd: 0, errorCount: 0 } } };

void describe('active time of a session', () => {
	void it('leaves out suspended time, across suspend/resume and switch', async (t) => {
		const { engine, root, clock } = await openCheckpointEngine(t, { config: escalation });
		const { session } = await engine.sessions.start({ name: 'long-lived', actor });
		clock.advance(2 * hour);
		await engine.sessions.suspend({ id: session.id, actor });
		clock.advance(180 * 24 * hour);
		await engine.sessions.resume({ id: session.id, actor });
		clock.advance(1 * hour);

		const cp = await engine.checkpoints.create({ actor, trigger: 'periodic' });
		assert.equal(cp.metrics.sessionAgeMs, 3 * hour, 'two hours, then one after six months away');
		assert.deepEqual(cp.escalationReasons, []);
		assert.equal(cp.approvalStatus, 'auto_approved');

		// Another session takes the scope while this one is suspended; switches move the activity.
		await engine.sessions.suspend({ id: session.id, actor });
		const { session: other } = await engine.sessions.start({ name: 'other', actor });
		clock.advance(50 * hour);
		await engine.sessions.switch({ id: session.id, from: other.id, actor });
		clock.advance(1 * hour);
		write(root, 'src/app.ts', 'v2\n');
		const later = await engine.checkpoints.create({ actor, trigger: 'periodic', sessionId: session.id });
		assert.equal(later.metrics.sessionAgeMs, 4 * hour);
		assert.deepEqual(later.escalationReasons, ['session active for 4 h reached the 4 h threshold']);

		await engine.sessions.switch({ id: other.id, from: session.id, actor });
		clock.advance(10 * hour);
		const [mine, theirs] = await engine.store.read((db) => [
			activeTimeMs(db, { id: session.id, status: 'suspended' }, clock.now()),
			activeTimeMs(db, { id: other.id, status: 'active' }, clock.now()),
		]);
		assert.equal(mine, 4 * hour, 'switching away closed its interval');
		assert.equal(theirs, 60 * hour, 'the other session was active while this one was away, and since');
	});

	void it('does not count the time before an imported session reached Baton', async (t) => {
		const { engine, root, clock } = await openCheckpointEngine(t, { config: escalation });
		const { session } = await engine.sessions.start({ name: 'template', actor });
		await engine.sessions.end({ id: session.id, actor });
		clock.advance(hour);
		// What an import writes: a session that started elsewhere long ago, with no lifecycle of its own here.
		const imported = 'ses_imported0001';
		await engine.store.write((db) => {
			const row = db.select().from(sessions).where(eq(sessions.id, session.id)).get();
			assert.ok(row);
			const longAgo = new Date(clock.now() - 7_819 * hour).toISOString();
			db.insert(sessions)
				.values({
					...row,
					id: imported,
					name: 'imported',
					status: 'active',
					startedAt: longAgo,
					lastActivity: longAgo,
					endedAt: null,
					previousSessionId: null,
					nextSessionId: null,
					debrief: null,
					endNote: null,
				})
				.run();
		});
		clock.advance(30 * 60_000);
		const first = await engine.checkpoints.create({ actor, trigger: 'periodic', sessionId: imported });
		assert.equal(first.metrics.sessionAgeMs, 0, 'nothing happened to it under Baton before this checkpoint');
		assert.deepEqual(first.escalationReasons, []);

		clock.advance(5 * hour);
		write(root, 'src/app.ts', 'v3\n');
		const second = await engine.checkpoints.create({ actor, trigger: 'periodic', sessionId: imported });
		assert.equal(second.metrics.sessionAgeMs, 5 * hour, 'active since the first thing Baton recorded of it');
		assert.deepEqual(second.escalationReasons, ['session active for 5 h reached the 4 h threshold']);
	});
});
