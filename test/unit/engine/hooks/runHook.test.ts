/**
 * runHook's settings and hook points, in process: the configured scope, what a session end does,
 * the briefing budget, the approval predicate, the checkpoint and metrics callbacks.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { agentSettingsSchema, type AgentSettings } from '../../../../src/engine/agentConfig/agentSettings';
import { claudeProjectDir } from '../../../../src/engine/transcripts/claudeProjects';
import type { HookEvent } from '../../../../src/engine/hookEvent';
import { normaliseHookPayload } from '../../../../src/engine/hooks/normaliseHookPayload';
import { runHook, type CheckpointTrigger, type HookOptions } from '../../../../src/engine/hooks/runHook';
import { TranscriptArchive } from '../../../../src/engine/transcripts/transcriptArchive';
import type { BatonConfigInput } from '../../../../src/engine/config';
import { actor, openTestEngine, tempDir, type TestEngine } from '../../helpers';
import { hookFixture, type Dialect } from '../../cli/agentCli';
import { TranscriptWriter } from '../transcripts/transcriptWriter';

interface Harness extends TestEngine {
	claudeHome: string;
	calls: { checkpoints: [CheckpointTrigger, string][]; metrics: [string, number, number][] };
	event(dialect: Dialect, name: string, overrides?: Record<string, unknown>): HookEvent;
	options(settings?: Partial<AgentSettings>, extra?: Partial<HookOptions>): HookOptions;
}

async function harness(t: TestContext, config?: BatonConfigInput): Promise<Harness> {
	const base = tempDir(t, 'baton-runhook-');
	const te = await openTestEngine(t, { root: base, ...(config ? { config } : {}) });
	const claudeHome = path.join(base, '.claude-home');
	const calls: Harness['calls'] = { checkpoints: [], metrics: [] };
	return {
		...te,
		claudeHome,
		calls,
		event: (dialect, name, overrides = {}) => {
			const result = normaliseHookPayload(hookFixture(dialect, name, { root: te.root, claudeHome }, overrides));
			assert.ok(result.ok);
			return result.event;
		},
		options: (settings = {}, extra = {}) => ({
			actor,
			settings: agentSettingsSchema.parse(settings),
			archive: new TranscriptArchive({ workspaceRoot: te.root, claudeHome, log: te.log, now: () => te.clock.now() }),
			log: te.log,
			onCheckpoint: async (trigger, sessionId) => {
				calls.checkpoints.push([trigger, sessionId]);
			},
			onMetrics: async (sessionId, m) => {
				calls.metrics.push([sessionId, m.costUsd, m.errorCount]);
			},
			...extra,
		}),
	};
}

void describe('runHook settings and hook points', () => {
	void it('starts in the configured scope, or the task in progress, within the briefing budget', async (t) => {
		const h = await harness(t);
		await h.engine.tasks.add({ title: 'Epic', type: 'epic', actor });
		await h.engine.tasks.add({ title: 'In progress', parentId: 'T1', actor });
		await h.engine.tasks.update({ id: 'T2', status: 'active', actor });
		const result = await runHook(h.engine, h.event('claude', 'session-start-startup'), h.options({ scope: 'current-task', briefingBudget: 300 }));
		assert.equal(result.action, 'started');
		const session = await h.engine.briefings.get(result.sessionId as string);
		assert.equal(session.scopeKey, 'task:T2');
		assert.equal(session.currentTask, 'T2');
		assert.equal(session.name, 'Claude Code session 6f1c2a9e');
		const context = JSON.parse(result.stdout).hookSpecificOutput.additionalContext as string;
		assert.ok(context.length <= 300, `${context.length}`);
		assert.match(context, /Current task:\n- T2 In progress \(active\)/);

		const epic = await harness(t);
		await epic.engine.tasks.add({ title: 'Epic', type: 'epic', actor });
		const inEpic = await runHook(epic.engine, epic.event('cline', 'task-start'), epic.options({ scope: 'epic:T1' }));
		assert.equal((await epic.engine.briefings.get(inEpic.sessionId as string)).scopeKey, 'epic:T1');
		const bad = await runHook(epic.engine, epic.event('copilot', 'session-start'), epic.options({ scope: 'nonsense:' }));
		assert.equal((await epic.engine.briefings.get(bad.sessionId as string)).scopeKey, 'global');
		assert.match(epic.log.warnings().join('\n'), /agents\.json scope: invalid scope/);
	});

	void it('a configured scope naming a task that does not exist still records the session (under global) and tells the agent why', async (t) => {
		const h = await harness(t);
		await h.engine.tasks.add({ title: 'Epic', type: 'epic', actor });
		const result = await runHook(h.engine, h.event('claude', 'session-start-startup'), h.options({ scope: 'task:T99' }));
		assert.equal(result.action, 'started', result.detail ?? '');
		assert.equal((await h.engine.briefings.get(result.sessionId as string)).scopeKey, 'global');
		const context = JSON.parse(result.stdout).hookSpecificOutput.additionalContext as string;
		assert.match(context, /^Baton could not use the scope "task:T99" from \.baton\/agents\.json \(.*T99.*\); this session is recorded under global/);
		assert.match(h.log.warnings().join('\n'), /could not use the scope "task:T99"/);
		// The agent's later calls land in that session, not nowhere.
		const tool = await runHook(h.engine, h.event('claude', 'post-tool-use'), h.options({ scope: 'task:T99' }));
		assert.equal(tool.sessionId, result.sessionId);
	});

	void it('still briefs the agent when no session can be started', async (t) => {
		const h = await harness(t, { maxConcurrentSessions: 1 });
		await h.engine.tasks.add({ title: 'Epic', type: 'epic', actor });
		await h.engine.sessions.start({ name: 'a person', scope: 'epic:T1', actor });
		const result = await runHook(h.engine, h.event('claude', 'session-start-startup'), h.options());
		assert.equal(result.action, 'briefed');
		assert.equal(result.sessionId, null);
		assert.match(JSON.parse(result.stdout).hookSpecificOutput.additionalContext, /^Baton briefing \(scope global\)/);
		assert.match(h.log.warnings().join('\n'), /maxConcurrentSessions is 1/);
	});

	void it('ends, suspends or keeps the session at the agent’s session end, as configured', async (t) => {
		for (const [mode, status, action] of [
			['end', 'ended', 'ended'],
			['suspend', 'suspended', 'suspended'],
			['keep', 'active', 'kept'],
		] as const) {
			const h = await harness(t);
			const started = await runHook(h.engine, h.event('claude', 'session-start-startup'), h.options({ onSessionEnd: mode }));
			const ended = await runHook(h.engine, h.event('claude', 'session-end'), h.options({ onSessionEnd: mode }));
			assert.equal(ended.action, action, mode);
			assert.equal((await h.engine.briefings.get(started.sessionId as string)).status, status, mode);
		}
		// Claude's session end for a /clear is a conversation switch: the durable session stays.
		const h = await harness(t);
		const started = await runHook(h.engine, h.event('claude', 'session-start-startup'), h.options());
		assert.equal((await runHook(h.engine, h.event('claude', 'session-end-clear'), h.options())).action, 'kept');
		assert.equal((await h.engine.briefings.get(started.sessionId as string)).status, 'active');
		// A session end for an id Baton never saw ends nothing.
		assert.equal((await runHook(h.engine, h.event('claude', 'session-end', { session_id: 'never-seen' }), h.options())).action, 'ignored');
		assert.equal((await h.engine.briefings.get(started.sessionId as string)).status, 'active');
	});

	void it('calls the checkpoint and metrics hook points, and asks only while the predicate says so', async (t) => {
		const h = await harness(t);
		const id = '6f1c2a9e-3b7d-4c21-9e8a-5d4f0b7a1c33';
		const started = await runHook(h.engine, h.event('claude', 'session-start-startup'), h.options());
		const sessionId = started.sessionId as string;
		const transcript = new TranscriptWriter(id, h.root);
		transcript.user('go');
		transcript.assistant([{ text: 'done' }], { input_tokens: 1_000_000, output_tokens: 0 });
		transcript.flush(path.join(claudeProjectDir(h.claudeHome, h.root), `${id}.jsonl`));
		await runHook(h.engine, h.event('claude', 'stop'), h.options());
		await runHook(h.engine, h.event('claude', 'stop'), h.options({ periodicCheckpoints: false }));
		await runHook(h.engine, h.event('claude', 'pre-compact'), h.options());
		assert.deepEqual(h.calls.checkpoints, [
			['periodic', sessionId],
			['compact', sessionId],
		]);
		assert.deepEqual(h.calls.metrics, [[sessionId, 3, 0]], 'reported once: the second stop parsed nothing new');

		let waiting: string | null = 'checkpoint cp_x awaits approval';
		const gate = h.options({}, { awaitingApproval: async (sid) => (sid === sessionId ? waiting : null) });
		const ask = await runHook(h.engine, h.event('claude', 'pre-tool-use'), gate);
		assert.deepEqual(JSON.parse(ask.stdout), {
			hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'ask', permissionDecisionReason: 'checkpoint cp_x awaits approval' },
		});
		assert.equal(
			(await runHook(h.engine, h.event('claude', 'pre-tool-use'), h.options({ approvalGate: false }, { awaitingApproval: gate.awaitingApproval })))
				.stdout,
			'',
			'the gate can be turned off',
		);
		assert.equal(
			(await runHook(h.engine, h.event('claude', 'pre-tool-use', { tool_name: 'Grep', tool_input: { pattern: 'x' } }), gate)).stdout,
			'',
			'reads are never gated',
		);
		waiting = null;
		assert.equal((await runHook(h.engine, h.event('claude', 'pre-tool-use'), gate)).stdout, '');
	});
});
