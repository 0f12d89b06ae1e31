/**
 * What a real session leaves behind when it ends: facts extracted from its records (decisions,
 * handoff blockers) and from its archived Claude Code transcript (a tool error that a retry on the
 * same file got right), and its deterministic summary with markdown.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { claudeProjectDir } from '../../../../src/engine/transcripts/claudeProjects';
import { aliasLinker } from '../../../../src/engine/hooks/runHook';
import { TranscriptArchive } from '../../../../src/engine/transcripts/transcriptArchive';
import { actor, openTestEngine, tempDir, type TestEngine } from '../../helpers';
import { TranscriptWriter } from '../transcripts/transcriptWriter';

const agentId = '0d9c8b7a-6f5e-4d3c-8b2a-1f0e9d8c7b6a';
const byText = (a: { text: string }, b: { text: string }): number => a.text.localeCompare(b.text);

async function workspace(t: TestContext): Promise<TestEngine & { claudeHome: string }> {
	const base = tempDir(t, 'baton-memory-end-');
	const root = path.join(base, 'shop');
	for (const file of ['src/payments/gateway.ts', 'src/payments/adapter.ts', 'src/payments/util.ts']) {
		fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
		fs.writeFileSync(path.join(root, file), `// ${file}\n`);
	}
	return { ...(await openTestEngine(t, { root })), claudeHome: path.join(base, 'claude') };
}

/** A Claude Code session: a hook-blocked edit retried successfully, an edit-mechanics slip, a failing test run, an edit that failed for good. */
function transcript(root: string): TranscriptWriter {
	const file = (rel: string) => path.join(root, rel);
	const usage = { input_tokens: 10_000, output_tokens: 2_000, cache_read_input_tokens: 50_000 };
	const w = new TranscriptWriter(agentId, root, Date.parse('2026-03-01T09:01:00.000Z'));
	w.user('Make gateway calls retry on 5xx');
	const [blocked] = w.assistant([{ tool: 'Edit', input: { file_path: file('src/payments/gateway.ts'), old_string: 'a', new_string: 'b' } }], usage);
	w.toolResult(
		blocked as string,
		'<tool_use_error>PreToolUse:Edit hook error: run `npm run gen` before editing generated files\nmore detail</tool_use_error>',
		true,
	);
	const [retried] = w.assistant([{ tool: 'Edit', input: { file_path: file('src/payments/gateway.ts'), old_string: 'a', new_string: 'b' } }], usage);
	w.toolResult(retried as string, 'The file was updated.');
	const [slip] = w.assistant([{ tool: 'Edit', input: { file_path: file('src/payments/adapter.ts'), old_string: 'x', new_string: 'y' } }], usage);
	w.toolResult(slip as string, '<tool_use_error>String to replace not found in file.\nString: x</tool_use_error>', true);
	const [fixed] = w.assistant([{ tool: 'Edit', input: { file_path: file('src/payments/adapter.ts'), old_string: '//', new_string: '// y' } }], usage);
	w.toolResult(fixed as string, 'The file was updated.');
	const [tests] = w.assistant([{ tool: 'Bash', input: { command: 'npm test -- gateway', description: 'Run the gateway tests' } }], usage);
	w.toolResult(tests as string, 'FAIL src/payments/gateway.test.ts\n  expected 3 retries, got 1', true);
	const [denied] = w.assistant([{ tool: 'Write', input: { file_path: file('src/payments/util.ts'), content: 'x' } }], usage);
	w.toolResult(denied as string, 'EACCES: permission denied, open src/payments/util.ts', true);
	w.assistant([{ text: 'Retries are in; the gateway test still fails on the retry count.' }], usage);
	return w;
}

/** A session with a decision, an assumption and its Claude transcript archived (linked through the alias). */
async function gatewaySession(w: Awaited<ReturnType<typeof workspace>>) {
	const { engine, root } = w;
	const { session } = await engine.sessions.start({ name: 'Gateway retries', agent: 'claude-code', agentIdentifier: agentId, actor });
	await engine.sessions.recordDecision({ text: 'Retries live in src/payments/adapter.ts, not in each call site', rationale: 'one policy to tune', actor });
	await engine.sessions.recordDecision({ text: 'The sandbox behaves like production', kind: 'assumption', actor });
	transcript(root).flush(path.join(claudeProjectDir(w.claudeHome, root), `${agentId}.jsonl`));
	const synced = await new TranscriptArchive({ workspaceRoot: root, claudeHome: w.claudeHome, log: w.log }).sync({ link: aliasLinker(engine) });
	return { session, synced };
}

void describe('a session’s end feeds project memory', () => {
	void it('extracts decisions as knowledge, blockers and retried tool errors as gotchas, each with its source session', async (t) => {
		const w = await workspace(t);
		const { engine, clock } = w;
		const { session, synced } = await gatewaySession(w);
		assert.equal(synced.synced.length, 1, 'the transcript is linked through the alias');
		clock.advance(30 * 60_000);

		await engine.sessions.end({
			id: session.id,
			note: 'Retry policy in the adapter.',
			nextAction: 'Fix the retry count in the gateway test',
			blockers: ['Staging sandbox rejects refunds older than 24 h', 'CI is flaky on src/payments/adapter.ts.'],
			actor,
		});
		const listed = await engine.memory.list();
		assert.deepEqual(
			listed.map((e) => e.kind),
			['gotcha', 'gotcha', 'gotcha', 'knowledge'],
			'gotchas first',
		);
		const facts = listed.map((e) => ({ kind: e.kind, text: e.text, files: e.files, source: e.source, from: e.sourceSessionId })).sort(byText);
		assert.deepEqual(
			facts,
			[
				{ kind: 'gotcha', text: 'Staging sandbox rejects refunds older than 24 h', files: [], source: 'handoff', from: session.id },
				{ kind: 'gotcha', text: 'CI is flaky on src/payments/adapter.ts.', files: ['src/payments/adapter.ts'], source: 'handoff', from: session.id },
				{
					kind: 'gotcha',
					text: 'src/payments/gateway.ts: PreToolUse:Edit hook error: run `npm run gen` before editing generated files',
					files: ['src/payments/gateway.ts'],
					source: 'transcript',
					from: session.id,
				},
				{
					kind: 'knowledge',
					text: 'Retries live in src/payments/adapter.ts, not in each call site — why: one policy to tune',
					files: ['src/payments/adapter.ts'],
					source: 'decision',
					from: session.id,
				},
			].sort(byText),
		);
		assert.ok(!facts.some((f) => /sandbox behaves/.test(f.text)), 'assumptions stay out of project memory');
		assert.ok(!facts.some((f) => /String to replace|npm test|EACCES/.test(f.text)), 'no mechanics slips, no failures without a successful retry');

		// The next session of the scope hits the same blocker: one fact, confirmed, still from the first session.
		clock.advance(60_000);
		const { session: next } = await engine.sessions.start({ name: 'Gateway retries, part 2', actor });
		await engine.sessions.end({ id: next.id, blockers: ['staging sandbox rejects refunds older than 24h'.replace('24h', '24 h')], actor });
		const sandbox = (await engine.memory.list({ kind: 'gotcha' })).find((e) => /sandbox/i.test(e.text));
		assert.equal(sandbox?.confirmations, 2);
		assert.equal(sandbox?.sourceSessionId, session.id);
		// Ending it again after a resume does not confirm it a third time.
		await engine.sessions.resume({ id: next.id, actor });
		await engine.sessions.end({ id: next.id, actor });
		assert.equal((await engine.memory.get(sandbox?.id as string)).confirmations, 2);
	});

	void it('gives a session that gc ends for idleness the same extraction as an explicit end', async (t) => {
		const w = await workspace(t);
		const { engine, clock } = w;
		const { session } = await gatewaySession(w);
		clock.advance(8 * 86_400_000);

		const gc = await engine.sessions.gc({ actor: 'baton' });
		assert.deepEqual(
			gc.ended.map((s) => s.id),
			[session.id],
		);
		assert.match(gc.ended[0]?.endNote ?? '', /Ended by Baton after/);
		const facts = (await engine.memory.list()).map((e) => ({ kind: e.kind, text: e.text, source: e.source, from: e.sourceSessionId })).sort(byText);
		assert.deepEqual(
			facts,
			[
				{
					kind: 'gotcha',
					text: 'src/payments/gateway.ts: PreToolUse:Edit hook error: run `npm run gen` before editing generated files',
					source: 'transcript',
					from: session.id,
				},
				{
					kind: 'knowledge',
					text: 'Retries live in src/payments/adapter.ts, not in each call site — why: one policy to tune',
					source: 'decision',
					from: session.id,
				},
			].sort(byText),
		);
		assert.equal(
			(await engine.checkpoints.list()).filter((c) => c.trigger === 'complete').length,
			0,
			'no complete checkpoint of a workspace that moved on',
		);
	});

	void it('summarises a session from its records and transcript: progress, files, decisions, failed approaches, blockers, resume context, turns, tokens, cost', async (t) => {
		const w = await workspace(t);
		const { engine, root, clock } = w;
		await engine.tasks.add({ title: 'Retry policy', actor });
		await engine.tasks.add({ title: 'Gateway test', actor });
		const { session } = await engine.sessions.start({ name: 'Gateway retries', agent: 'claude-code', agentIdentifier: agentId, currentTask: 'T2', actor });
		await engine.tasks.update({ id: 'T1', status: 'done', actor });
		await engine.sessions.recordDecision({ text: 'Retries live in the adapter', rationale: 'one policy', actor });
		await engine.sessions.recordDecision({ text: 'The sandbox behaves like production', kind: 'assumption', actor });
		transcript(root).flush(path.join(claudeProjectDir(w.claudeHome, root), `${agentId}.jsonl`));
		await new TranscriptArchive({ workspaceRoot: root, claudeHome: w.claudeHome, log: w.log }).sync({ link: aliasLinker(engine) });
		clock.advance(45 * 60_000);

		const live = await engine.memory.sessionSummary(session.id);
		assert.equal(live.summary.status, 'active');
		assert.equal(live.summary.endedAt, null);
		assert.equal(live.summary.durationMinutes, 45);
		assert.deepEqual(live.summary.blockers, []);
		assert.match(
			live.summary.resumeContext,
			/Current task: T2 \(Gateway test\)\. Last request: "Make gateway calls retry on 5xx"\. Agent's last words: "Retries are in; the gateway test still fails on the retry count\."/,
		);

		await engine.sessions.end({
			id: session.id,
			note: 'Retry policy in the adapter.',
			nextAction: 'Fix the retry count in the gateway test',
			blockers: ['Staging sandbox rejects old refunds'],
			actor,
		});
		const { summary, markdown } = await engine.memory.sessionSummary(session.id);
		assert.equal(summary.sessionId, session.id);
		assert.equal(summary.status, 'ended');
		assert.equal(
			summary.progress,
			'Completed T1 (Retry policy). Worked on T2 (Gateway test). Changed 3 files. Recorded 2 decisions. Note: Retry policy in the adapter.',
		);
		assert.deepEqual(summary.tasksCompleted, [{ id: 'T1', title: 'Retry policy' }]);
		assert.deepEqual(
			summary.filesChanged,
			['src/payments/gateway.ts', 'src/payments/adapter.ts', 'src/payments/util.ts'],
			'every file an edit tool was pointed at',
		);
		assert.deepEqual(summary.decisions, [
			{ text: 'Retries live in the adapter', rationale: 'one policy', kind: 'decision' },
			{ text: 'The sandbox behaves like production', rationale: null, kind: 'assumption' },
		]);
		assert.deepEqual(
			summary.failedApproaches.map((f) => [f.description, f.reason]),
			[
				['Edit src/payments/gateway.ts (a retry worked)', 'PreToolUse:Edit hook error: run `npm run gen` before editing generated files'],
				['Bash npm test -- gateway', 'FAIL src/payments/gateway.test.ts'],
				['Write src/payments/util.ts', 'EACCES: permission denied, open src/payments/util.ts'],
			],
		);
		assert.deepEqual(summary.blockers, ['Staging sandbox rejects old refunds']);
		assert.match(summary.resumeContext, /^Next action: Fix the retry count in the gateway test\./);
		assert.equal(summary.turns, 1);
		assert.equal(summary.toolCalls, 6);
		assert.equal(summary.errors, 4);
		assert.deepEqual(summary.tokens, { input: 70_000, output: 14_000, cacheRead: 350_000, cacheCreation: 0, total: 434_000 });
		// Sonnet list prices: 70k × $3/M + 350k × $0.30/M + 14k × $15/M.
		assert.equal(summary.estimatedCostUsd, 0.525);
		assert.equal(summary.transcripts, 1);
		for (const heading of [
			'# Session summary: Gateway retries',
			'## Progress',
			'## Files changed',
			'## Decisions',
			'## Failed approaches',
			'## Blockers',
			'## Resume from here',
			'## Activity',
		]) {
			assert.ok(markdown.includes(`${heading}\n`), heading);
		}
		assert.match(markdown, /- \(assumption\) The sandbox behaves like production/);
		assert.match(markdown, /- 434,000 tokens .*\n- estimated cost \$0\.53 from 1 transcript/);
		assert.deepEqual((await engine.memory.sessionSummary(session.id)).summary, summary, 'deterministic: the same records give the same summary');

		// A session no agent worked in still has a summary, from Baton's records alone.
		const { session: manual } = await engine.sessions.start({ name: 'By hand', actor });
		const plain = (await engine.memory.sessionSummary(manual.id)).summary;
		assert.equal(plain.transcripts, 0);
		assert.equal(plain.estimatedCostUsd, 0);
		assert.equal(plain.progress, 'No task completed.');
		assert.equal(plain.resumeContext, 'Suggested next: T2.');
	});
});
