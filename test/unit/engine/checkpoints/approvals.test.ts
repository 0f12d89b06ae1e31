import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { and, eq } from 'drizzle-orm';
import { chooseResumePoint, decideApproval } from '../../../../src/engine/checkpoints/approvalPolicy';
import { BatonError } from '../../../../src/engine/errors';
import type { Checkpoint } from '../../../../src/engine/storage/model';
import { auditLog, checkpointTriggers } from '../../../../src/engine/storage/schema';
import { actor } from '../../helpers';
import { openCheckpointEngine, write } from './gitFixtures';

const calm = { costUsd: 0, errorCount: 0, sessionAgeMs: 0 };
const defaults = { costUsd: 5, durationMs: 4 * 3_600_000, errorCount: 3 };

void describe('checkpoint approvals', () => {
	void it('follow the policy table: auto, review, strict', () => {
		const table: Record<string, string[]> = {};
		for (const policy of ['auto', 'review', 'strict'] as const) {
			table[policy] = checkpointTriggers.filter(
				(trigger) => decideApproval({ trigger, policy, metrics: calm, thresholds: defaults }).status === 'auto_approved',
			);
		}
		assert.deepEqual(table, {
			auto: ['manual', 'periodic', 'heartbeat', 'detach', 'pre-rollback', 'compact'],
			review: ['manual', 'periodic', 'pre-rollback', 'compact'],
			strict: ['pre-rollback'],
		});
		for (const trigger of ['complete', 'error']) {
			assert.equal(
				decideApproval({ trigger, policy: 'auto', metrics: calm, thresholds: defaults }).status,
				'pending',
				`${trigger} needs review under auto`,
			);
		}
	});

	void it('evaluate escalation first: over a threshold, even an auto-approved trigger waits, with every reason', () => {
		const hot = { costUsd: 5.2, errorCount: 3, sessionAgeMs: 4 * 3_600_000 };
		const decision = decideApproval({ trigger: 'periodic', policy: 'auto', metrics: hot, thresholds: defaults });
		assert.equal(decision.status, 'pending');
		assert.deepEqual(decision.escalationReasons, [
			'cost $5.20 reached the $5.00 threshold',
			'session active for 4 h reached the 4 h threshold',
			'3 errors reached the threshold of 3',
		]);
		assert.match(decision.reason, /^escalated: /);
		assert.equal(
			decideApproval({ trigger: 'periodic', policy: 'auto', metrics: { ...calm, costUsd: 4.99, errorCount: 2 }, thresholds: defaults }).status,
			'auto_approved',
		);
		assert.equal(
			decideApproval({ trigger: 'periodic', policy: 'auto', metrics: { ...calm, costUsd: 100 }, thresholds: { ...defaults, costUsd: 0 } }).status,
			'auto_approved',
			'a threshold of 0 is off',
		);
	});

	void it('a requested review waits for a person, even for an unchanged state under the auto policy', () => {
		const unchangedSince = { seq: 1, label: 'checkpoint #1' };
		for (const policy of ['auto', 'review', 'strict'] as const) {
			const decision = decideApproval({ trigger: 'manual', policy, metrics: calm, thresholds: defaults, unchangedSince, reviewRequested: true });
			assert.deepEqual([decision.status, decision.reason], ['pending', 'a review was requested'], policy);
		}
		assert.equal(
			decideApproval({ trigger: 'manual', policy: 'auto', metrics: calm, thresholds: defaults, unchangedSince }).status,
			'auto_approved',
			'without the request it is approved',
		);
	});

	void it('ask no review for a safety checkpoint or for a state already approved, under every policy', async (t) => {
		const { engine, root } = await openCheckpointEngine(t);
		const { session } = await engine.sessions.start({ name: 'agent run', actor });
		await engine.checkpoints.configureSession({ sessionId: session.id, policy: 'strict', actor });
		write(root, 'src/app.ts', 'v2\n');
		const first = await engine.checkpoints.create({ actor, trigger: 'complete' });
		assert.equal(first.approvalStatus, 'pending', 'a change waits for review');
		assert.equal(
			(await engine.checkpoints.create({ actor, trigger: 'complete' })).approvalStatus,
			'pending',
			'same tree as a pending one: still not judged',
		);
		await engine.checkpoints.approve(first.id, { actor });
		const again = await engine.checkpoints.create({ actor, trigger: 'complete' });
		assert.equal(again.approvalStatus, 'auto_approved');
		assert.equal(again.approvalReason, `nothing changed since checkpoint #${first.seq} (complete), which was approved`);
		write(root, 'src/app.ts', 'v3\n');
		const changed = await engine.checkpoints.create({ actor, trigger: 'complete' });
		assert.equal(changed.approvalStatus, 'pending');
		const result = await engine.checkpoints.rollback(first.id, { actor });
		const safety = (await engine.checkpoints.list({})).find((c) => c.id === result.safetyCheckpointId);
		assert.equal(safety?.trigger, 'pre-rollback');
		assert.equal(safety?.approvalStatus, 'auto_approved', 'Baton’s own safety snapshot is never a review');
		assert.equal(
			(await engine.checkpoints.list({ status: 'pending' })).some((c) => c.trigger === 'pre-rollback'),
			false,
		);
	});

	void it('keep an unknown trigger pending whatever the policy', () => {
		for (const policy of ['auto', 'review', 'strict'] as const) {
			const decision = decideApproval({
				trigger: 'nightly-build',
				policy,
				metrics: calm,
				thresholds: defaults,
				unchangedSince: { seq: 1, label: 'checkpoint #1 (manual)' },
			});
			assert.equal(decision.status, 'pending');
			assert.equal(decision.reason, 'unknown trigger "nightly-build" needs review');
		}
	});

	void it('escalate on the session’s cost, errors and age, with per-workspace and per-session thresholds', async (t) => {
		const { engine, root, clock } = await openCheckpointEngine(t, { config: { checkpoints: { escalation: { costUsd: 2 } } } });
		const { session } = await engine.sessions.start({ name: 'agent run', actor });
		const calmCp = await engine.checkpoints.create({ actor, trigger: 'periodic', costUsd: 1.5 });
		assert.equal(calmCp.approvalStatus, 'auto_approved');
		assert.equal(calmCp.approvalUser, 'baton');
		assert.deepEqual(calmCp.metrics, { costUsd: 1.5, errorCount: 0, sessionAgeMs: 0 });

		write(root, 'src/app.ts', 'v2\n');
		const costly = await engine.checkpoints.create({ actor, trigger: 'periodic', costUsd: 2.5 });
		assert.equal(costly.approvalStatus, 'pending');
		assert.deepEqual(costly.escalationReasons, ['cost $2.50 reached the $2.00 threshold']);

		// The stored cost applies to later checkpoints until a new figure comes in.
		assert.equal((await engine.checkpoints.create({ actor, trigger: 'heartbeat' })).approvalStatus, 'pending');
		await engine.checkpoints.configureSession({ sessionId: session.id, thresholds: { costUsd: 10 }, actor });
		assert.equal((await engine.checkpoints.create({ actor, trigger: 'heartbeat' })).approvalStatus, 'auto_approved', 'per-session threshold');

		await engine.checkpoints.recordMetrics({ sessionId: session.id, errorCount: 3, actor });
		write(root, 'src/app.ts', 'v3\n');
		assert.deepEqual((await engine.checkpoints.create({ actor, trigger: 'detach' })).escalationReasons, ['3 errors reached the threshold of 3']);
		await engine.checkpoints.recordMetrics({ sessionId: session.id, errorCount: 0, actor });

		clock.advance(4 * 3_600_000);
		write(root, 'src/app.ts', 'v4\n');
		const old = await engine.checkpoints.create({ actor, trigger: 'periodic' });
		assert.deepEqual(old.escalationReasons, ['session active for 4 h reached the 4 h threshold']);

		await engine.checkpoints.configureSession({ sessionId: session.id, policy: 'strict', thresholds: { durationMs: 0 }, actor });
		write(root, 'src/app.ts', 'v5\n');
		const strict = await engine.checkpoints.create({ actor, trigger: 'periodic' });
		assert.equal(strict.approvalStatus, 'pending');
		assert.equal(strict.approvalPolicy, 'strict');
		await assert.rejects(engine.checkpoints.create({ actor, costUsd: -1 }), (e) => BatonError.is(e, 'invalidInput'));
	});

	void it('record approvals and rejections with user, time and reason, in the audit log too', async (t) => {
		const { engine, clock } = await openCheckpointEngine(t);
		const cp = await engine.checkpoints.create({ actor, trigger: 'complete' });
		assert.equal(cp.approvalStatus, 'pending');
		clock.advance(5_000);
		const approved = await engine.checkpoints.approve(cp.id, { actor: 'vscode:alice', reason: 'tests pass' });
		assert.deepEqual(
			[approved.approvalStatus, approved.approvalUser, approved.approvalAt, approved.approvalReason],
			['approved', 'vscode:alice', new Date(clock.now()).toISOString(), 'tests pass'],
		);
		await assert.rejects(engine.checkpoints.approve(cp.id, { actor: 'vscode:bob' }), (e) => BatonError.is(e, 'invalidTransition'));
		const rejected = await engine.checkpoints.reject(cp.id, { actor: 'vscode:bob', reason: 'leaks a key' });
		assert.equal(rejected.approvalStatus, 'rejected');
		const rows = await engine.store.read((db) =>
			db
				.select()
				.from(auditLog)
				.where(and(eq(auditLog.entityType, 'checkpoint'), eq(auditLog.entityId, cp.id)))
				.all(),
		);
		assert.deepEqual(
			rows.map((r) => [r.operation, r.actor, r.details?.['reason'] ?? null]),
			[
				['checkpoint.create', actor, null],
				['checkpoint.approve', 'vscode:alice', 'tests pass'],
				['checkpoint.reject', 'vscode:bob', 'leaks a key'],
			],
		);
		const tagged = await engine.checkpoints.tag(cp.id, 'milestone/v1', actor);
		assert.deepEqual(tagged.tags, ['milestone/v1']);
		assert.deepEqual(
			(await engine.checkpoints.annotate(cp.id, 'looked at the diff', 'vscode:alice')).annotations.map((a) => a.text),
			['looked at the diff'],
		);
		assert.deepEqual((await engine.checkpoints.linkIssue(cp.id, { tracker: 'github', id: '4' }, actor)).linkedIssues, [
			{ tracker: 'github', id: '4', url: null },
		]);
	});

	void it('prefer approved, then auto-approved, then pending with a warning to resume from; rejected only when overridden', async (t) => {
		const { engine, root, clock } = await openCheckpointEngine(t);
		const { session } = await engine.sessions.start({ name: 's', actor });
		assert.equal(await engine.checkpoints.resumePoint({ sessionId: session.id }), null);
		const step = async (trigger: string) => {
			clock.advance(1_000);
			write(root, 'src/app.ts', `${trigger} ${clock.now()}\n`);
			return engine.checkpoints.create({ actor, trigger });
		};
		const rejected = await step('manual');
		await engine.checkpoints.reject(rejected.id, { actor: 'alice' });
		assert.equal(await engine.checkpoints.resumePoint({ sessionId: session.id }), null, 'never a rejected one by default');
		const forced = await engine.checkpoints.resumePoint({ sessionId: session.id, allowRejected: true });
		assert.equal(forced?.checkpoint.id, rejected.id);
		assert.match(forced?.warning ?? '', /was rejected by alice/);

		const pending = await step('complete');
		const viaPending = await engine.checkpoints.resumePoint({ sessionId: session.id });
		assert.equal(viaPending?.checkpoint.id, pending.id);
		assert.match(viaPending?.warning ?? '', /not been reviewed/);

		const approved = await step('manual');
		await engine.checkpoints.approve(approved.id, { actor: 'alice' });
		const auto = await step('periodic');
		assert.equal(auto.approvalStatus, 'auto_approved');
		await step('complete');
		assert.deepEqual(await engine.checkpoints.resumePoint({ sessionId: session.id }), {
			checkpoint: await engine.checkpoints.get(approved.id),
			warning: null,
		});
		await engine.checkpoints.reject(approved.id, { actor: 'alice' });
		assert.equal((await engine.checkpoints.resumePoint({ sessionId: session.id }))?.checkpoint.id, auto.id);
	});

	void it('never resume from a safety checkpoint taken before a rollback', () => {
		const cp = (seq: number, trigger: string, approvalStatus: Checkpoint['approvalStatus']) =>
			({ id: `cp${seq}`, seq, trigger, approvalStatus }) as Checkpoint;
		assert.equal(chooseResumePoint([cp(1, 'complete', 'pending'), cp(2, 'pre-rollback', 'pending')])?.checkpoint.id, 'cp1');
	});
});
