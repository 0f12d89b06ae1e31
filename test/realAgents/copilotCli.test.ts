/**
 * Copilot CLI itself drives Baton: the real `copilot` binary, headless against the Anthropic
 * stand-in, connected with `baton connect copilot`. It runs every hook file in `.github/hooks/`
 * (`baton.json` in Claude's snake_case, `baton-cli.json` in its own camelCase) for each event, and
 * reads a briefing only as a top-level `additionalContext`: each event must take effect once, and
 * the briefing must reach the model.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { agentWorld, briefingIn, hookLogProblems } from './agentWorld';
import { copilotModel, runCopilot, trustForCopilot } from './copilotCli';
import { anthropicStandIn } from './standIns/anthropic';

test('a Copilot CLI conversation, run from both of its hook files, is one durable session labelled Copilot: briefed once, every call one step with exactly its files, every prompt once, a resumed run in the same session', async (t) => {
	const w = agentWorld(t, 'copilot');
	fs.mkdirSync(path.join(w.root, 'notes'));
	fs.writeFileSync(path.join(w.root, 'notes', 'old.md'), 'to be renamed\n');
	w.git(['add', '.']);
	w.git(['commit', '-qm', 'notes']);
	assert.equal(w.baton(['session', 'start', '--name', 'Groundwork']).code, 0);
	assert.equal(w.baton(['session', 'end', '--note', 'Next: wire the exporter (EXP-3)']).code, 0);
	assert.equal(w.baton(['connect', 'copilot']).code, 0);
	assert.deepEqual(
		fs.readdirSync(path.join(w.root, '.github', 'hooks')).sort(),
		['baton-cli.json', 'baton.json'],
		'both hook files, as VS Code and Copilot CLI each read one',
	);
	trustForCopilot(w);

	const model = await anthropicStandIn();
	t.after(() => model.close());
	const file = (p: string) => path.join(w.root, p);
	model.script([
		{ text: 'Creating the exporter.', tools: [{ name: 'create', input: { path: file('src/export.ts'), file_text: 'export const format = "csv";\n' } }] },
		{ tools: [{ name: 'edit', input: { path: file('src/app.ts'), old_str: 'return a + b;', new_str: 'return a + b + 0;' } }] },
		{
			tools: [
				{
					name: 'bash',
					input: { command: 'echo beta >> a.txt && echo fresh > created.txt && mv notes/old.md notes/new.md', description: 'shell edits' },
				},
			],
		},
		{ tools: [{ name: 'bash', input: { command: 'echo gamma >> a.txt; exit 3', description: 'a failing command' } }] },
		{ text: 'Exporter created.' },
	]);
	const first = await runCopilot(w, model, 'Create the exporter');
	assert.equal(model.remaining(), 0, 'every scripted turn was played');
	const firstText = model.requests.find((r) => r.conversation)?.text ?? '';
	assert.match(briefingIn(firstText), /wire the exporter \(EXP-3\)/, 'the previous handoff reached the model’s first request');
	assert.equal(firstText.split('Baton briefing for durable session').length - 1, 1, 'once, though two hook files ran');

	const sessions = (w.batonJson(['session', 'list']).sessions as { id: string; name: string; agent: string | null }[]).filter((s) => s.agent !== null);
	assert.deepEqual(
		sessions.map((s) => s.agent),
		['copilot'],
		'one durable session, labelled as Copilot (never as Claude Code, whose dialect one of its files speaks)',
	);
	const session = sessions[0]!;
	assert.equal(session.name, 'Create the exporter', 'named after its first prompt');
	assert.equal(session.agent, 'copilot');
	assert.ok(JSON.stringify(w.batonJson(['session', 'show', session.id])).includes(first.sessionId), 'Copilot’s own id is an alias of the session');

	const timeline = () =>
		w.batonJson(['timeline', '--session', session.id]).entries as {
			type: string;
			actor?: string;
			tool?: string;
			model?: string;
			text?: string;
			files?: { path: string; change: string }[];
		}[];
	const steps = () =>
		timeline()
			.filter((e) => e.type === 'step')
			.map((s) => [
				s.actor,
				(s.files ?? [])
					.map((f) => `${f.change[0]?.toUpperCase()} ${f.path}`)
					.sort()
					.join(', '),
			]);
	assert.deepEqual(
		steps(),
		[
			['agent', 'A src/export.ts'],
			['agent', 'M src/app.ts'],
			['agent', 'A created.txt, A notes/new.md, D notes/old.md, M a.txt'],
			['agent', 'M a.txt'],
		],
		'each call one step (not one per hook file), with exactly its files',
	);
	assert.ok(
		timeline()
			.filter((e) => e.type === 'step')
			.every((s) => s.model === copilotModel),
		'each step names its model, from Copilot’s session file',
	);

	fs.appendFileSync(file('src/app.ts'), '// reviewed\n');
	model.script([{ tools: [{ name: 'bash', input: { command: 'echo delta >> created.txt', description: 'one more line' } }] }, { text: 'Appended.' }]);
	await runCopilot(w, model, 'Append delta', [`--resume=${first.sessionId}`]);
	assert.equal(
		(w.batonJson(['session', 'list']).sessions as { agent: string | null }[]).filter((s) => s.agent !== null).length,
		1,
		'the resumed run is the same session',
	);
	assert.deepEqual(steps().slice(4), [
		['human', 'M src/app.ts'],
		['agent', 'M created.txt'],
	]);
	assert.deepEqual(
		timeline()
			.filter((e) => e.type === 'prompt')
			.map((e) => e.text),
		['Create the exporter', 'Append delta'],
		'each prompt recorded once',
	);
	// Its session file is archived and readable.
	const transcripts = w.batonJson(['transcripts', 'list', '--session', session.id]).transcripts as {
		id: string;
		agent: string;
		userRequests: number;
		toolCalls: number;
	}[];
	assert.deepEqual(
		transcripts.map((x) => [x.id, x.agent]),
		[[first.sessionId, 'copilot']],
	);
	assert.ok(transcripts[0]!.userRequests >= 2 && transcripts[0]!.toolCalls >= 5, `requests and calls counted: ${JSON.stringify(transcripts[0])}`);
	const shown = w.baton(['transcripts', 'show', first.sessionId]);
	assert.equal(shown.code, 0, shown.stderr);
	assert.match(shown.stdout, /Create the exporter/);
	assert.deepEqual(hookLogProblems(w.hookLog()), [], 'the hook log has no warning');
});
