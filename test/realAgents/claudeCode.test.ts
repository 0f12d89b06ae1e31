/**
 * Claude Code itself drives Baton (issue: the agents themselves): the real `claude` binary, run
 * headless against the Anthropic stand-in, connected with `baton connect claude`. One conversation
 * over three runs (start, `--resume`, `--continue`), then a new conversation: what Baton keeps must
 * be exactly what the agent did, and what the next conversation is told must cover all of it.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { agentWorld, briefingIn, handledLines, hookLogProblems } from './agentWorld';
import { claudeModel, runClaude } from './claudeCode';
import { anthropicStandIn } from './standIns/anthropic';

interface Step {
	step: number;
	actor: string;
	tool: string | null;
	files: { path: string; change: string }[];
	model?: string;
}

test('a Claude Code conversation over three headless runs is one durable session: every call (the failed one too) a step with exactly its files, the person’s edit between runs, a subagent and a compaction in the same session, a briefing that covers every run, blame with the model, no review for a run that changed nothing or a compaction', async (t) => {
	const w = agentWorld(t, 'claude');
	fs.mkdirSync(path.join(w.root, 'notes'));
	fs.writeFileSync(path.join(w.root, 'notes', 'old.md'), 'to be renamed\n');
	fs.writeFileSync(path.join(w.root, 'notes', 'gone.md'), 'to be deleted\n');
	w.git(['add', '.']);
	w.git(['commit', '-qm', 'notes']);
	// A previous session's handoff: the first request of the conversation must carry it.
	assert.equal(w.baton(['session', 'start', '--name', 'Parser groundwork']).code, 0);
	assert.equal(w.baton(['session', 'end', '--note', 'Next: make the parser accept empty input (PARSER-7)']).code, 0);
	const connected = w.baton(['connect', 'claude']);
	assert.equal(connected.code, 0, connected.stderr);

	const model = await anthropicStandIn();
	t.after(() => model.close());
	const file = (p: string) => path.join(w.root, p);
	model.script([
		{
			text: 'Writing the parser.',
			tools: [
				{
					name: 'Write',
					input: { file_path: file('src/parse.ts'), content: 'export function parse(text: string): string[] {\n\treturn text.split(",");\n}\n' },
				},
			],
		},
		{ tools: [{ name: 'Read', input: { file_path: file('src/app.ts') } }] },
		{ tools: [{ name: 'Edit', input: { file_path: file('src/app.ts'), old_string: 'return a + b;', new_string: 'return Math.round(a + b);' } }] },
		{
			tools: [
				{
					name: 'Bash',
					input: {
						command: 'echo beta >> a.txt && echo fresh > created.txt && rm notes/gone.md && mv notes/old.md notes/new.md',
						description: 'shell edits',
					},
				},
			],
		},
		{ tools: [{ name: 'Bash', input: { command: 'echo gamma >> a.txt; exit 3', description: 'a failing command' } }] },
		{ text: 'Parser written; the last command failed.' },
	]);
	const first = await runClaude(w, model, 'Write the parser and tidy the notes');
	assert.equal(model.remaining(), 0, 'every scripted turn was played');
	const firstRequest = model.requests.find((r) => r.conversation);
	assert.match(
		briefingIn(firstRequest?.text ?? ''),
		/make the parser accept empty input \(PARSER-7\)/,
		'the previous handoff reached the model’s first request',
	);

	const sessions = () => w.batonJson(['session', 'list']).sessions as { id: string; name: string; agent: string | null; status: string }[];
	const claudeSessions = () => sessions().filter((s) => s.agent === 'claude-code');
	assert.equal(claudeSessions().length, 1, 'one durable session for the conversation');
	const session = claudeSessions()[0]!;
	const shown = w.batonJson(['session', 'show', session.id]);
	assert.ok(JSON.stringify(shown).includes(first.sessionId), 'Claude Code’s own id is an alias of the session');
	assert.equal(session.name, 'Write the parser and tidy the notes', 'named after its first prompt');
	assert.equal(session.agent, 'claude-code', 'labelled as the agent’s session');
	const steps = (): Step[] => (w.batonJson(['timeline', '--session', session.id]).entries as (Step & { type: string })[]).filter((e) => e.type === 'step');
	const filesOf = (s: Step) =>
		s.files
			.map((f) => `${f.change[0]?.toUpperCase()} ${f.path}`)
			.sort()
			.join(', ');
	assert.deepEqual(
		steps().map((s) => [s.actor, s.tool, filesOf(s)]),
		[
			['agent', 'Write', 'A src/parse.ts'],
			['agent', 'Edit', 'M src/app.ts'],
			['agent', 'Bash', 'A created.txt, A notes/new.md, D notes/gone.md, D notes/old.md, M a.txt'],
			['agent', 'Bash', 'M a.txt'],
		],
		'each call that changed files is one step with exactly its files, the failed command included',
	);

	// The person edits between runs; then the conversation is resumed, then continued.
	fs.appendFileSync(file('src/app.ts'), '// reviewed by a person\n');
	model.script([
		{ tools: [{ name: 'Read', input: { file_path: file('a.txt') } }] },
		{ tools: [{ name: 'Edit', input: { file_path: file('a.txt'), old_string: 'alpha', new_string: 'ALPHA' } }] },
		{ text: 'Capitalised.' },
	]);
	const resumed = await runClaude(w, model, 'Capitalise alpha', ['--resume', first.sessionId]);
	model.script([{ tools: [{ name: 'Bash', input: { command: 'echo delta >> created.txt', description: 'one more line' } }] }, { text: 'Appended.' }]);
	await runClaude(w, model, 'Append delta', ['--continue']);
	assert.equal(claudeSessions().length, 1, `resume and continue keep the one session (Claude ids ${first.sessionId}, ${resumed.sessionId})`);
	assert.deepEqual(
		steps()
			.slice(4)
			.map((s) => [s.actor, filesOf(s)]),
		[
			['human', 'M src/app.ts'],
			['agent', 'M a.txt'],
			['agent', 'M created.txt'],
		],
		'the person’s edit is a human step; each resumed run’s call is a step of the same session',
	);
	assert.ok(
		steps()
			.filter((s) => s.actor === 'agent')
			.every((s) => s.model === claudeModel),
		'every agent step names its model',
	);

	// A read-only run asks no review; a run that changed files did.
	const checkpoints = () => w.batonJson(['checkpoint', 'list']).checkpoints as { id: string; trigger: string; approvalStatus: string }[];
	const before = checkpoints();
	assert.ok(
		before.some((c) => c.trigger === 'complete' && c.approvalStatus === 'pending'),
		`the runs that changed files ask a review: ${JSON.stringify(before.map((c) => [c.trigger, c.approvalStatus]))}`,
	);
	model.script([{ tools: [{ name: 'Read', input: { file_path: file('a.txt') } }] }, { text: 'It says ALPHA.' }]);
	await runClaude(w, model, 'What does a.txt say?', ['--continue']);
	assert.deepEqual(
		checkpoints().map((c) => c.id),
		before.map((c) => c.id),
		'a run that changed nothing takes no checkpoint and asks no review',
	);

	// A subagent's calls and a compaction stay in the session; the compaction asks no review.
	model.script([
		{
			text: 'Delegating.',
			tools: [{ name: 'Task', input: { description: 'append a line', prompt: 'Append sub to sub.txt', subagent_type: 'general-purpose' } }],
		},
		{ tools: [{ name: 'Bash', input: { command: 'echo sub >> sub.txt', description: 'append' } }] },
		{ text: 'Appended sub.' },
		{ text: 'The subagent appended.' },
	]);
	await runClaude(w, model, 'Delegate the append', ['--continue']);
	model.clear();
	model.script([{ text: 'Summary: the parser, the notes and sub.txt are done.' }, { text: 'Summary: the parser, the notes and sub.txt are done.' }]);
	await runClaude(w, model, '/compact', ['--continue']);
	model.clear();
	assert.equal(claudeSessions().length, 1, 'the subagent and the compaction stay in the one session');
	assert.deepEqual(
		steps()
			.slice(7)
			.map((s) => [s.actor, s.tool, filesOf(s)]),
		[['agent', 'Bash', 'A sub.txt']],
		'the subagent’s call is a step of the session',
	);
	assert.ok(
		checkpoints()
			.filter((c) => c.trigger === 'compact')
			.every((c) => c.approvalStatus !== 'pending'),
		'a compaction asks no review',
	);

	// A new conversation is briefed with every run of the last one.
	const requestsBefore = model.requests.length;
	model.script([{ text: 'Ready.' }]);
	await runClaude(w, model, 'What is left to do?');
	const briefing = briefingIn(model.requests.slice(requestsBefore).find((r) => r.conversation)?.text ?? '');
	for (const changed of ['src/parse.ts', 'src/app.ts', 'a.txt', 'created.txt', 'notes/new.md', 'sub.txt']) {
		assert.ok(briefing.includes(changed), `the next conversation's briefing names ${changed}:\n${briefing.slice(0, 4000)}`);
	}
	assert.match(
		briefing,
		/Resumed after its handoff: 4 requests \(last: "Delegate the append"\)/,
		'and the resumed runs’ requests, after the write-once handoff',
	);

	// Blame after a commit: agent, session, prompt and model.
	w.git(['add', '-A']);
	w.git(['commit', '-qm', 'parser']);
	const blame = w.batonJson(['blame', 'src/parse.ts', '--line', '1']);
	const line = JSON.stringify(blame);
	assert.match(line, /claude-code/);
	assert.ok(line.includes(session.id), `blame names the session: ${line}`);
	assert.match(line, /Write the parser and tidy the notes/);
	assert.ok(line.includes(claudeModel), `blame names the model: ${line}`);

	// The transcript is archived and readable.
	const transcripts = w.batonJson(['transcripts', 'list', '--session', session.id]).transcripts as { id: string }[];
	assert.ok(transcripts.length >= 1, 'the conversation’s transcript is archived');
	const readable = w.baton(['transcripts', 'show', transcripts[0]!.id]);
	assert.equal(readable.code, 0);
	assert.match(readable.stdout, /Write the parser and tidy the notes/);

	const log = w.hookLog();
	assert.deepEqual(hookLogProblems(log), [], 'the hook log has no warning');
	const prompts = (w.batonJson(['timeline', '--session', session.id]).entries as { type: string; text?: string }[])
		.filter((e) => e.type === 'prompt')
		.map((e) => e.text);
	assert.deepEqual(
		prompts,
		['Write the parser and tidy the notes', 'Capitalise alpha', 'Append delta', 'What does a.txt say?', 'Delegate the append'],
		'each prompt recorded once, in order',
	);
	assert.ok(handledLines(log).length > 0);
});
