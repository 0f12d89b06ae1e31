import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BatonError } from '../../../../src/engine/errors';
import { handoffDataSchema } from '../../../../src/engine/storage/jsonShapes';
import { parseScope } from '../../../../src/engine/sessions/scope';
import { actor, openTestEngine } from '../../helpers';

const isCode = (code: string) => (error: unknown) => BatonError.is(error) && error.code === code;

void describe('scope rules and legacy limits', () => {
	void it('parses every scope form and refuses malformed ones', () => {
		assert.deepEqual(parseScope('global'), { type: 'global' });
		assert.deepEqual(parseScope('epic:T1'), { type: 'epic', rootTaskId: 'T1' });
		assert.deepEqual(parseScope('epicPhase:T1:core'), { type: 'epicPhase', rootTaskId: 'T1', phaseFilter: 'core' });
		assert.deepEqual(parseScope('custom:T3,T1,T3'), { type: 'custom', explicitTaskIds: ['T1', 'T3'] });
		for (const bad of ['epic', 'epic:', 'planet:T1', 'task:T1:x', 'epicPhase:T1', 'epic:../x', 'custom:T1,,../']) {
			assert.throws(() => parseScope(bad), isCode('invalidScope'), bad);
		}
	});

	void it('validates scopes strictly, with warnings, or not at all', async (t) => {
		const strict = await openTestEngine(t);
		await strict.engine.tasks.add({ title: 'plain task', actor });
		await assert.rejects(strict.engine.sessions.start({ name: 's', scope: 'epic:T9', actor }), isCode('invalidScope'));
		await assert.rejects(strict.engine.sessions.start({ name: 's', scope: 'epic:T1', actor }), isCode('invalidScope'));
		const warn = await openTestEngine(t, { config: { scopeValidation: 'warn' } });
		const warned = await warn.engine.sessions.start({ name: 's', scope: 'epic:T9', actor });
		assert.match(warned.warnings[0] ?? '', /T9, which does not exist/);
		assert.deepEqual(warned.briefing.warnings, warned.warnings);
		const none = await openTestEngine(t, { config: { scopeValidation: 'none' } });
		assert.deepEqual((await none.engine.sessions.start({ name: 's', scope: 'epic:T9', actor })).warnings, []);
	});

	void it('enforces maxConcurrentSessions', async (t) => {
		const { engine } = await openTestEngine(t, { config: { maxConcurrentSessions: 2, scopeValidation: 'none' } });
		await engine.sessions.start({ name: 'a', scope: 'custom:A', actor });
		await engine.sessions.start({ name: 'b', scope: 'custom:B', actor });
		await assert.rejects(engine.sessions.start({ name: 'c', scope: 'custom:C', actor }), isCode('limitReached'));
		await engine.sessions.suspend({ id: (await engine.briefings.active())[0]?.id ?? '', actor });
		await engine.sessions.start({ name: 'c', scope: 'custom:C', actor });
	});

	void it('applies allowNestedScopes and allowScopeOverlap', async (t) => {
		const setup = async (config: Record<string, unknown>) => {
			const te = await openTestEngine(t, { config });
			await te.engine.tasks.add({ title: 'epic', type: 'epic', actor }); // T1
			await te.engine.tasks.add({ title: 'a', parentId: 'T1', actor }); // T2
			await te.engine.tasks.add({ title: 'b', parentId: 'T1', actor }); // T3
			await te.engine.tasks.add({ title: 'c', actor }); // T4
			await te.engine.sessions.start({ name: 'epic', scope: 'epic:T1', actor });
			return te.engine;
		};
		const nestedOk = await setup({ allowNestedScopes: true });
		await nestedOk.sessions.start({ name: 'inner', scope: 'task:T2', actor });
		const nestedNo = await setup({ allowNestedScopes: false });
		await assert.rejects(nestedNo.sessions.start({ name: 'inner', scope: 'task:T2', actor }), isCode('scopeConflict'));
		const overlapNo = await setup({ allowScopeOverlap: false });
		await assert.rejects(overlapNo.sessions.start({ name: 'x', scope: 'custom:T2,T4', actor }), isCode('scopeConflict'));
		const overlapOk = await setup({ allowScopeOverlap: true });
		await overlapOk.sessions.start({ name: 'x', scope: 'custom:T2,T4', actor });
	});

	void it('keeps maxActiveTasksPerScope when focusing', async (t) => {
		const { engine } = await openTestEngine(t);
		await engine.tasks.add({ title: 'epic', type: 'epic', actor });
		await engine.tasks.add({ title: 'a', parentId: 'T1', actor });
		await engine.tasks.add({ title: 'b', parentId: 'T1', actor });
		await engine.tasks.add({ title: 'outside', actor });
		await engine.tasks.add({ title: 'c', parentId: 'T1', actor });
		await engine.sessions.start({ name: 's', scope: 'epic:T1', actor });
		await engine.tasks.focus({ id: 'T2', actor });
		// Moving focus returns the previous task to pending, so it is not a second active task.
		const moved = await engine.tasks.focus({ id: 'T3', actor });
		assert.equal(moved.task.status, 'active');
		assert.equal((await engine.tasks.get('T2')).status, 'pending');
		// Another task made active by hand fills the scope's one slot.
		await engine.tasks.update({ id: 'T2', status: 'active', actor });
		await assert.rejects(engine.tasks.focus({ id: 'T5', actor }), isCode('limitReached'));
		await assert.rejects(engine.tasks.focus({ id: 'T4', actor }), isCode('invalidScope'));
	});
});

void describe('handoffs', () => {
	void it('refuses a second handoff for a session', async (t) => {
		const { engine } = await openTestEngine(t);
		const a = await engine.sessions.start({ name: 'a', actor });
		const ended = await engine.sessions.end({ actor });
		await assert.rejects(engine.sessions.recordHandoff({ sessionId: a.session.id, data: ended.handoff, actor }), isCode('handoffExists'));
	});

	void it('skips a malformed stored handoff with a warning, without stamping it consumed', async (t) => {
		const { engine, log } = await openTestEngine(t);
		const a = await engine.sessions.start({ name: 'a', actor });
		await engine.sessions.end({ actor });
		await engine.store.write(() =>
			engine.store.execCaptured('UPDATE handoffs SET handoff_json = ? WHERE session_id = ?', ['{"lastTask": 42', a.session.id]),
		);
		const b = await engine.sessions.start({ name: 'b', actor });
		assert.equal(b.handoff, null);
		assert.equal(b.session.previousSessionId, a.session.id);
		assert.match(b.warnings[0] ?? '', /malformed/);
		assert.match(b.warnings[0] ?? '', /^the handoff of “a” \(ses_\w+\) is malformed/, 'the session named as people know it, its id beside');
		assert.ok(log.warnings().some((w) => w.includes(a.session.id)));
		assert.equal((await engine.briefings.get(a.session.id)).handoffConsumedAt, null);
		// A handoff that is JSON but the wrong shape is skipped the same way.
		await engine.sessions.end({ actor });
		await engine.store.write(() => engine.store.execCaptured('UPDATE handoffs SET handoff_json = ? WHERE session_id = ?', ['{"note": 7}', b.session.id]));
		const c = await engine.sessions.start({ name: 'c', actor });
		assert.equal(c.handoff, null);
		assert.match(c.warnings[0] ?? '', /malformed/);
	});

	void it('builds the handoff from what the session did', async (t) => {
		const { engine } = await openTestEngine(t);
		await engine.tasks.add({ title: 'existing', actor });
		await engine.sessions.start({ name: 's', actor });
		await engine.tasks.add({ title: 'made here', actor });
		await engine.tasks.focus({ id: 'T1', actor });
		await engine.tasks.update({ id: 'T1', status: 'done', actor });
		await engine.sessions.recordDecision({ text: 'keep it simple', rationale: 'time', actor });
		const { handoff, session } = await engine.sessions.end({ actor });
		assert.ok(handoffDataSchema.safeParse(handoff).success);
		assert.deepEqual(handoff.tasksCompleted, [{ id: 'T1', title: 'existing' }]);
		assert.deepEqual(handoff.tasksCreated, [{ id: 'T2', title: 'made here' }]);
		assert.equal(handoff.lastTask?.id, 'T1');
		assert.equal(handoff.decisionsRecorded, 1);
		assert.deepEqual(
			handoff.nextSuggested.map((t) => t.id),
			['T2'],
		);
		assert.equal(session.stats.tasksCompleted, 1);
		assert.equal(session.stats.tasksCreated, 1);
		assert.equal(session.stats.decisionsRecorded, 1);
	});
});

void describe('aliases and queries', () => {
	void it('maps agent ids to one durable session and refuses stealing an alias', async (t) => {
		const { engine } = await openTestEngine(t, { config: { scopeValidation: 'none' } });
		const a = await engine.sessions.start({ name: 'a', agent: 'claude-code', agentIdentifier: 'c-1', actor });
		await engine.sessions.addAlias({ sessionId: a.session.id, agent: 'claude-code', alias: 'c-2', actor });
		assert.equal((await engine.briefings.byAlias('claude-code', 'c-1'))?.id, a.session.id);
		assert.equal((await engine.briefings.byAlias('claude-code', 'c-2'))?.agentIdentifier, 'c-2');
		assert.equal(await engine.briefings.byAlias('copilot', 'c-1'), undefined);
		const b = await engine.sessions.start({ name: 'b', scope: 'custom:X', actor });
		await assert.rejects(engine.sessions.addAlias({ sessionId: b.session.id, agent: 'claude-code', alias: 'c-1', actor }), isCode('invalidInput'));
	});

	void it('lists by status and scope, finds the most recent, and builds the fork tree', async (t) => {
		const { engine, clock } = await openTestEngine(t, { config: { scopeValidation: 'none', maxConcurrentSessions: 10 } });
		const root = await engine.sessions.start({ name: 'orchestrator', actor });
		clock.advance(1000);
		const w1 = await engine.sessions.start({ name: 'worker 1', scope: 'custom:W1', parentSessionId: root.session.id, actor });
		clock.advance(1000);
		const w2 = await engine.sessions.start({ name: 'worker 2', scope: 'custom:W2', parentSessionId: root.session.id, actor });
		clock.advance(1000);
		await engine.sessions.start({ name: 'sub', scope: 'custom:W3', parentSessionId: w2.session.id, actor });
		await engine.sessions.end({ id: w1.session.id, actor });
		assert.deepEqual(
			(await engine.briefings.list({ status: 'ended' })).map((s) => s.name),
			['worker 1'],
		);
		assert.deepEqual(
			(await engine.briefings.list({ scope: 'custom:W2' })).map((s) => s.name),
			['worker 2'],
		);
		assert.equal((await engine.briefings.mostRecent())?.name, 'sub');
		const tree = await engine.briefings.forkTree(w2.session.id);
		assert.equal(tree.session.id, root.session.id);
		assert.deepEqual(
			tree.children.map((c) => c.session.name),
			['worker 1', 'worker 2'],
		);
		assert.deepEqual(
			tree.children[1]?.children.map((c) => c.session.name),
			['sub'],
		);
		await assert.rejects(
			engine.sessions.start({ name: 'orphan child', scope: 'custom:Z', parentSessionId: 'ses_20200101000000_000000', actor }),
			isCode('notFound'),
		);
	});
});
