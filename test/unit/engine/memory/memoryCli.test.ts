/**
 * `baton memory add|list|retire|confirm`, `baton session summary` and the briefing's memory through
 * the bundled CLI as a process; and the path from an agent's token usage (its transcript, read by
 * the real `baton hook`) to the cost that escalates a checkpoint, and to the session summary.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, it, type TestContext } from 'node:test';
import { tempDir } from '../../helpers';
import { agentCli, hookFixture, runBaton, type Run } from '../../cli/agentCli';
import { TranscriptWriter } from '../transcripts/transcriptWriter';

let cli = '';
before(async () => {
	cli = await agentCli();
});

function workspace(t: TestContext): { root: string; claudeHome: string; baton: (...args: string[]) => Run } {
	const base = tempDir(t, 'baton-memory-cli-');
	const root = path.join(base, 'project');
	const claudeHome = path.join(base, 'claude');
	fs.mkdirSync(path.join(root, 'src'), { recursive: true });
	fs.writeFileSync(path.join(root, 'src/app.ts'), 'export const app = 1;\n');
	const baton = (...args: string[]): Run => runBaton(cli, root, args, { env: { BATON_CLAUDE_HOME: claudeHome } });
	assert.equal(baton('init').code, 0);
	return { root, claudeHome, baton };
}

function ok(run: Run, what: string): Record<string, any> {
	assert.equal(run.code, 0, `${what}: exit ${run.code} ${run.stdout} ${run.stderr}`);
	assert.ok(run.json, `${what}: one JSON line`);
	return run.json;
}

void describe('baton memory', () => {
	void it('adds, de-duplicates, lists, retires and confirms facts', (t) => {
		const { root, baton } = workspace(t);
		const added = ok(baton('memory', 'add', '--kind', 'gotcha', 'Run the tests with --runInBand.', '--file', 'src/app.ts', '--json'), 'add');
		assert.equal(added['duplicate'], false);
		assert.equal(added['entry'].kind, 'gotcha');
		assert.deepEqual(added['entry'].files, ['src/app.ts']);
		assert.equal(added['entry'].source, 'manual');
		const again = ok(baton('memory', 'add', '--kind', 'gotcha', 'run', 'the', 'tests', 'with', '"--runInBand"', '--json'), 'add again');
		assert.deepEqual([again['duplicate'], again['entry'].id, again['entry'].confirmations], [true, added['entry'].id, 2]);
		const knowledge = ok(baton('memory', 'add', '--kind', 'knowledge', 'Money is integers in minor units', '--json'), 'knowledge')['entry'];
		assert.match(baton('memory', 'add', '--kind', 'knowledge', 'Money is integers in minor units.').stdout, /^Known already: confirmed mem_\S+ \(2×\)\n$/);

		const listed = ok(baton('memory', 'list', '--json'), 'list')['entries'] as any[];
		assert.deepEqual(
			listed.map((e) => e.id),
			[added['entry'].id, knowledge.id],
			'gotchas first',
		);
		assert.deepEqual(
			(ok(baton('memory', 'list', '--kind', 'knowledge', '--json'), 'list knowledge')['entries'] as any[]).map((e) => e.id),
			[knowledge.id],
		);
		assert.deepEqual(ok(baton('memory', 'list', '--stale', '--json'), 'list stale')['entries'], []);
		fs.rmSync(path.join(root, 'src/app.ts'));
		const stale = ok(baton('memory', 'list', '--stale', '--json'), 'list stale after a delete')['entries'] as any[];
		assert.deepEqual(
			stale.map((e) => [e.id, e.staleReason]),
			[[added['entry'].id, 'src/app.ts is missing']],
			'list refreshes the marks first',
		);
		assert.match(
			baton('memory', 'list').stdout,
			/gotcha {5}Run the tests with --runInBand\. {2}\(src\/app\.ts\) {2}\[stale: src\/app\.ts is missing; ×2\]/,
		);

		const retired = ok(baton('memory', 'retire', knowledge.id, '--json'), 'retire')['entry'];
		assert.notEqual(retired.retiredAt, null);
		assert.deepEqual(
			(ok(baton('memory', 'list', '--json'), 'list')['entries'] as any[]).map((e) => e.id),
			[added['entry'].id],
		);
		assert.deepEqual(
			(ok(baton('memory', 'list', '--all', '--json'), 'list all')['entries'] as any[]).map((e) => e.id),
			[added['entry'].id, knowledge.id],
		);
		const confirmed = ok(baton('memory', 'confirm', added['entry'].id, '--json'), 'confirm')['entry'];
		assert.equal(confirmed.confirmations, 3);
		assert.equal(confirmed.staleSince, null);

		const refused = baton('memory', 'confirm', knowledge.id, '--json');
		assert.equal(refused.code, 1);
		assert.equal(refused.json?.['error'].code, 'invalidInput');
		assert.match(refused.json?.['error'].message, /was retired/);
	});

	void it('refuses bad input clearly: usage errors exit 2, bad values name the field and exit 1', (t) => {
		const { baton } = workspace(t);
		const noKind = baton('memory', 'add', 'a fact');
		assert.equal(noKind.code, 2);
		assert.match(noKind.stderr, /memory add needs --kind knowledge\|gotcha/);
		assert.match(baton('memory', 'add', '--kind', 'trivia', 'x').stderr, /--kind must be one of knowledge, gotcha \(got "trivia"\)/);
		assert.equal(baton('memory', 'add', '--kind', 'gotcha').code, 2, 'no text');
		const outside = baton('memory', 'add', '--kind', 'gotcha', 'x', '--file', '../elsewhere.ts', '--json');
		assert.equal(outside.code, 1);
		assert.deepEqual(outside.json?.['error'], { code: 'invalidInput', message: 'memory files[0]: ../elsewhere.ts is outside the workspace' });
		const noSession = baton('memory', 'add', '--kind', 'gotcha', 'x', '--session', 'ses_20990101000000_abcdef', '--json');
		assert.equal(noSession.json?.['error'].code, 'notFound');
		assert.equal(baton('memory', 'retire', 'mem_missing', '--json').json?.['error'].code, 'notFound');
		assert.deepEqual(ok(baton('memory', 'list', '--all', '--json'), 'nothing written')['entries'], []);
	});

	void it('summarises a session and puts memory in the briefing', (t) => {
		const { baton } = workspace(t);
		const session = ok(baton('session', 'start', '--name', 'Payments', '--json'), 'start')['session'];
		ok(baton('decision', 'record', '--text', 'Keep retries in the adapter', '--rationale', 'one policy', '--json'), 'decision');
		ok(
			baton('session', 'end', '--note', 'Adapter done', '--next-action', 'Persist keys', '--blocker', 'Sandbox refunds older than 24 h fail', '--json'),
			'end',
		);
		const { summary, markdown } = ok(baton('session', 'summary', session.id, '--json'), 'summary') as { summary: any; markdown: string };
		assert.equal(summary.sessionId, session.id);
		assert.deepEqual(summary.blockers, ['Sandbox refunds older than 24 h fail']);
		assert.deepEqual(summary.decisions, [{ text: 'Keep retries in the adapter', rationale: 'one policy', kind: 'decision' }]);
		assert.match(summary.resumeContext, /^Next action: Persist keys\./);
		assert.match(markdown, /^# Session summary: Payments\n/);
		assert.equal(baton('session', 'summary').stdout, `${markdown.trimEnd()}\n`, 'no id: the most recent session, as markdown');

		const briefing = ok(baton('briefing', '--json'), 'briefing')['briefing'];
		assert.deepEqual(
			briefing.memory.entries.map((e: any) => [e.kind, e.text, e.sourceSessionId]),
			[
				['gotcha', 'Sandbox refunds older than 24 h fail', session.id],
				['knowledge', 'Keep retries in the adapter — why: one policy', session.id],
			],
		);
		assert.match(
			baton('briefing').stdout,
			/Project memory:\n {2}gotcha {2}Sandbox refunds older than 24 h fail\n {2}fact {4}Keep retries in the adapter — why: one policy/,
		);
	});
});

void describe('token usage and cost', () => {
	void it('flows from the transcript, through the real hook, into the cost that escalates a checkpoint and into the summary', (t) => {
		const { root, claudeHome, baton } = workspace(t);
		const hook = (name: string): Run =>
			runBaton(cli, root, ['hook'], { input: JSON.stringify(hookFixture('claude', name, { root, claudeHome })), env: { BATON_CLAUDE_HOME: claudeHome } });
		assert.equal(hook('session-start-startup').code, 0);
		const session = (ok(baton('session', 'list', '--json'), 'sessions')['sessions'] as any[])[0];
		const fixture = hookFixture('claude', 'stop', { root, claudeHome });
		const w = new TranscriptWriter(fixture['session_id'], root);
		w.user('Port the billing module');
		// Opus 4.1 list prices ($15 / $75 per million): 400k input + 2k output ≈ $6.15, over the $5 threshold.
		w.assistant([{ text: 'Ported.' }], { input_tokens: 400_000, output_tokens: 2_000 }, 'claude-opus-4-1-20250805');
		w.flush(fixture['transcript_path']);
		const stop = hook('stop');
		assert.deepEqual([stop.code, stop.stdout, stop.stderr], [0, '', '']);

		fs.writeFileSync(path.join(root, 'src/app.ts'), 'export const app = 2;\n');
		const checkpoint = ok(baton('checkpoint', 'create', '--session', session.id, '--trigger', 'periodic', '--json'), 'checkpoint')['checkpoint'];
		assert.equal(checkpoint.metrics.costUsd, 6.15);
		assert.equal(checkpoint.approvalStatus, 'pending', 'a periodic checkpoint is auto-approved unless escalated');
		assert.deepEqual(checkpoint.escalationReasons, ['cost $6.15 reached the $5.00 threshold']);
		const summary = ok(baton('session', 'summary', session.id, '--json'), 'summary')['summary'];
		assert.equal(summary.estimatedCostUsd, 6.15);
		assert.deepEqual(summary.tokens, { input: 400_000, output: 2_000, cacheRead: 0, cacheCreation: 0, total: 402_000 });
		assert.equal(summary.turns, 1);
	});
});
