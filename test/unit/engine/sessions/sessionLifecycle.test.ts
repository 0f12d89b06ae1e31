import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { eq } from 'drizzle-orm';
import { BatonError } from '../../../../src/engine/errors';
import { auditLog, sessions } from '../../../../src/engine/storage/schema';
import { importedNote } from '../../../../src/engine/agentHistory/historyImport';
import { sessionRow } from '../../../../src/engine/interop/sessionRows';
import { actor, openTestEngine } from '../../helpers';

const isCode = (code: string) => (error: unknown) => BatonError.is(error) && error.code === code;

void describe('session lifecycle', () => {
	void it('starts an active session with a canonical id and an empty chain', async (t) => {
		const { engine } = await openTestEngine(t);
		const { session, briefing, handoff } = await engine.sessions.start({ name: 'first', actor });
		assert.match(session.id, /^ses_\d{14}_[0-9a-f]{6}$/);
		assert.equal(session.status, 'active');
		assert.equal(session.scopeKey, 'global');
		assert.equal(session.previousSessionId, null);
		assert.equal(handoff, null);
		assert.equal(briefing.lastSession, null);
	});

	void it('ends a session with a handoff and a debrief, and links the next session of the same scope', async (t) => {
		const { engine, clock } = await openTestEngine(t);
		const a = await engine.sessions.start({ name: 'a', actor });
		clock.advance(90 * 60_000);
		const ended = await engine.sessions.end({ note: 'half done', nextAction: 'write tests', blockers: ['CI is red'], actor });
		assert.equal(ended.session.status, 'ended');
		assert.equal(ended.handoff.note, 'half done');
		assert.equal(ended.handoff.nextAction, 'write tests');
		assert.deepEqual(ended.handoff.openBlockers, ['CI is red']);
		assert.equal(ended.debrief.durationMinutes, 90);
		assert.equal(ended.debrief.chainPosition, 1);
		assert.equal(ended.debrief.chainLength, 1);

		clock.advance(60_000);
		const b = await engine.sessions.start({ name: 'b', actor });
		assert.equal(b.session.previousSessionId, a.session.id);
		assert.equal(b.handoff?.note, 'half done');
		assert.equal(b.briefing.lastSession?.id, a.session.id);
		const predecessor = await engine.briefings.get(a.session.id);
		assert.deepEqual(
			b.briefing.lastSession,
			{ id: a.session.id, name: predecessor.name, endedAt: predecessor.endedAt, durationMinutes: 90, handoff: b.handoff },
			'the start’s briefing shows the predecessor as stored after the start',
		);
		assert.equal(predecessor.nextSessionId, b.session.id);
		assert.equal(predecessor.handoffConsumedBy, b.session.id);
		assert.equal(predecessor.handoffConsumedAt, new Date(clock.now()).toISOString());
		assert.deepEqual(
			(await engine.briefings.chain(b.session.id)).map((s) => s.id),
			[a.session.id, b.session.id],
		);
	});

	void it('a session imported from an agent’s own history, though it ended later, is not the tail the next session continues: the last handoff still reaches it', async (t) => {
		const { engine, clock } = await openTestEngine(t);
		const a = await engine.sessions.start({ name: 'a', actor });
		clock.advance(60_000);
		await engine.sessions.end({ note: 'pick up the retries', actor });
		clock.advance(60_000);
		const at = new Date(clock.now()).toISOString();
		await engine.store.write((db) => {
			db.insert(sessions)
				.values(
					sessionRow({
						id: 'ses_20261128000000_abcdef',
						name: 'imported',
						status: 'ended',
						startedAt: at,
						lastActivity: at,
						endedAt: at,
						updatedAt: at,
						agent: 'codex',
						agentIdentifier: 'rollout-1',
						parentSessionId: null,
						endNote: importedNote('codex'),
					}),
				)
				.run();
		});
		clock.advance(60_000);
		const b = await engine.sessions.start({ name: 'b', actor });
		assert.equal(b.session.previousSessionId, a.session.id);
		assert.equal(b.handoff?.note, 'pick up the retries');
	});

	void it('chooses the handoff of the most recent ended session of the same scope', async (t) => {
		const { engine, clock } = await openTestEngine(t, { config: { scopeValidation: 'none' } });
		await engine.tasks.add({ title: 'epic one', type: 'epic', actor });
		await engine.tasks.add({ title: 'epic two', type: 'epic', actor });
		const old = await engine.sessions.start({ name: 'old', scope: 'epic:T1', actor });
		clock.advance(1_000);
		await engine.sessions.end({ id: old.session.id, note: 'old note', actor });
		clock.advance(1_000);
		const other = await engine.sessions.start({ name: 'other scope', scope: 'epic:T2', actor });
		clock.advance(1_000);
		await engine.sessions.end({ id: other.session.id, note: 'other scope note', actor });
		clock.advance(1_000);
		const mid = await engine.sessions.start({ name: 'mid', scope: 'epic:T1', actor });
		clock.advance(1_000);
		await engine.sessions.end({ id: mid.session.id, note: 'newest note', actor });
		clock.advance(1_000);
		const next = await engine.sessions.start({ name: 'next', scope: 'epic:T1', actor });
		assert.equal(next.session.previousSessionId, mid.session.id);
		assert.equal(next.handoff?.note, 'newest note');
		assert.deepEqual(
			(await engine.briefings.chain(next.session.id)).map((s) => s.name),
			['old', 'mid', 'next'],
		);
	});

	void it('allows one active session per scope', async (t) => {
		const { engine } = await openTestEngine(t);
		await engine.tasks.add({ title: 'epic', type: 'epic', actor });
		await engine.sessions.start({ name: 'one', scope: 'epic:T1', actor });
		await assert.rejects(engine.sessions.start({ name: 'two', scope: 'epic:T1', actor }), isCode('scopeConflict'));
		// A global session coexists with an epic session.
		await engine.sessions.start({ name: 'global', actor });
		await assert.rejects(engine.sessions.start({ name: 'global 2', actor }), isCode('scopeConflict'));
	});

	void it('suspends, resumes and switches; counts resumes', async (t) => {
		const { engine } = await openTestEngine(t, { config: { scopeValidation: 'none' } });
		const a = await engine.sessions.start({ name: 'a', actor });
		const suspended = await engine.sessions.suspend({ id: a.session.id, actor });
		assert.equal(suspended.status, 'suspended');
		assert.equal(suspended.stats.suspendCount, 1);
		const b = await engine.sessions.start({ name: 'b', actor });
		const switched = await engine.sessions.switch({ id: a.session.id, actor });
		assert.equal(switched.suspended?.id, b.session.id);
		assert.equal(switched.suspended?.status, 'suspended');
		assert.equal(switched.session.status, 'active');
		assert.equal(switched.session.resumeCount, 1);
		const resumedB = await engine.sessions.switch({ id: b.session.id, actor });
		assert.equal(resumedB.session.resumeCount, 1);
		assert.equal((await engine.briefings.get(a.session.id)).status, 'suspended');
	});

	void it('resumes an ended session', async (t) => {
		const { engine } = await openTestEngine(t);
		const a = await engine.sessions.start({ name: 'a', actor });
		await engine.sessions.end({ actor });
		const resumed = await engine.sessions.resume({ id: a.session.id, actor });
		assert.equal(resumed.status, 'active');
		assert.equal(resumed.endedAt, null);
		assert.equal(resumed.resumeCount, 1);
		// Ending again keeps the first, write-once handoff and says so.
		const again = await engine.sessions.end({ note: 'second end', actor });
		assert.equal(again.handoff.note, null);
		assert.match(again.warnings[0] ?? '', /write-once/);
	});

	void it('refuses transitions the state machine does not have', async (t) => {
		const { engine } = await openTestEngine(t);
		const a = await engine.sessions.start({ name: 'a', actor });
		await assert.rejects(engine.sessions.resume({ id: a.session.id, actor }), isCode('invalidTransition'));
		await engine.sessions.suspend({ id: a.session.id, actor });
		await assert.rejects(engine.sessions.suspend({ id: a.session.id, actor }), isCode('invalidTransition'));
		await assert.rejects(engine.sessions.end({ id: a.session.id, actor }), isCode('invalidTransition'));
		await engine.sessions.resume({ id: a.session.id, actor });
		await engine.sessions.end({ id: a.session.id, actor });
		await assert.rejects(engine.sessions.end({ id: a.session.id, actor }), isCode('invalidTransition'));
		await assert.rejects(engine.sessions.suspend({ id: a.session.id, actor }), isCode('invalidTransition'));
		await assert.rejects(engine.sessions.resume({ id: 'ses_20260101000000_abcdef', actor }), isCode('notFound'));
		// Legacy states are read-only.
		await engine.store.write((db) => db.update(sessions).set({ status: 'archived' }).where(eq(sessions.id, a.session.id)).run());
		await assert.rejects(
			engine.sessions.resume({ id: a.session.id, actor }),
			(e: unknown) => isCode('invalidTransition')(e) && /legacy/.test((e as Error).message),
		);
	});

	void it('gc with age 0 orphans every active session, and cleanup ends long-idle ones with a note', async (t) => {
		const { engine, clock } = await openTestEngine(t, { config: { scopeValidation: 'none' } });
		await engine.tasks.add({ title: 'e', type: 'epic', actor });
		const a = await engine.sessions.start({ name: 'a', actor });
		const b = await engine.sessions.start({ name: 'b', scope: 'epic:T1', actor });
		const orphanedNow = await engine.sessions.gc({ orphanAfterMs: 0, actor });
		assert.deepEqual(orphanedNow.orphaned.map((s) => s.id).sort(), [a.session.id, b.session.id].sort());
		assert.equal(orphanedNow.ended.length, 0);
		assert.equal((await engine.briefings.active()).length, 0);

		clock.advance(8 * 86_400_000);
		const cleaned = await engine.sessions.gc({ actor });
		assert.equal(cleaned.ended.length, 2);
		for (const s of cleaned.ended) {
			assert.equal(s.status, 'ended');
			assert.match(s.endNote ?? '', /Ended by Baton after 8 days/);
		}
		const stored = await engine.briefings.handoff(a.session.id);
		assert.equal(stored.kind, 'valid');
	});

	void it('gc leaves recently active sessions alone and uses the configured ages', async (t) => {
		const { engine, clock } = await openTestEngine(t, { config: { orphanAfter: '2h' } });
		const a = await engine.sessions.start({ name: 'a', actor });
		clock.advance(60 * 60_000);
		assert.equal((await engine.sessions.gc({ actor })).orphaned.length, 0);
		await engine.sessions.touch({ id: a.session.id, actor });
		clock.advance(90 * 60_000);
		assert.equal((await engine.sessions.gc({ actor })).orphaned.length, 0);
		clock.advance(31 * 60_000);
		assert.equal((await engine.sessions.gc({ actor })).orphaned.length, 1);
		const resumed = await engine.sessions.resume({ id: a.session.id, actor });
		assert.equal(resumed.status, 'active');
	});

	void it('records every write in the audit log with session, actor and operation', async (t) => {
		const { engine } = await openTestEngine(t);
		const a = await engine.sessions.start({ name: 'a', actor: 'agent:claude-code' });
		await engine.sessions.recordDecision({ text: 'use sql.js', actor: 'cli:me' });
		await engine.sessions.end({ actor: 'vscode:me' });
		const rows = await engine.store.read((db) => db.select().from(auditLog).where(eq(auditLog.sessionId, a.session.id)).all());
		assert.deepEqual(
			rows.map((r) => [r.operation, r.actor]),
			[
				['session.start', 'agent:claude-code'],
				['decision.record', 'cli:me'],
				['session.end', 'vscode:me'],
				// The end's decision became a fact of project memory, in the same write.
				['memory.record', 'vscode:me'],
			],
		);
	});
});
