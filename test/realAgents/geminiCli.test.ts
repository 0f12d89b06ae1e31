/**
 * Gemini CLI itself drives Baton: the real `gemini` program, headless against the Gemini API
 * stand-in, connected with `baton connect gemini` (`.gemini/settings.json`). Its tools are
 * `write_file`, `replace` and `run_shell_command`, its tool payloads carry no call id, and it fires
 * `PreCompress` before every model request: each call must be one step with exactly its files, in one
 * durable session labelled Gemini CLI, and no review asked per request.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { agentWorld, briefingIn, hookLogProblems } from './agentWorld';
import { geminiModel, runGemini } from './geminiCli';
import { geminiStandIn } from './standIns/gemini';

test('a Gemini CLI conversation is one durable session labelled Gemini CLI: briefed from the previous handoff, each write_file, replace and shell call one step with exactly its files, no review per model request', async (t) => {
	const w = agentWorld(t, 'gemini');
	assert.equal(w.baton(['session', 'start', '--name', 'Groundwork']).code, 0);
	assert.equal(w.baton(['session', 'end', '--note', 'Next: draft the release notes (REL-4)']).code, 0);
	const connected = w.baton(['connect', 'gemini']);
	assert.equal(connected.code, 0, connected.stderr);
	assert.match(connected.stdout, /\.gemini\/settings\.json/);

	const model = await geminiStandIn();
	t.after(() => model.close());
	const file = (p: string) => path.join(w.root, p);
	model.script([
		{ text: 'Drafting.', calls: [{ name: 'write_file', args: { file_path: file('NOTES.md'), content: '# Release notes\n' } }] },
		{
			calls: [
				{ name: 'replace', args: { file_path: file('src/app.ts'), old_string: 'return a + b;', new_string: 'return b + a;', instruction: 'swap' } },
			],
		},
		{ calls: [{ name: 'run_shell_command', args: { command: 'echo fresh > created.txt && rm a.txt', description: 'shell edits' } }] },
		{ calls: [{ name: 'run_shell_command', args: { command: 'echo gamma >> created.txt; exit 3', description: 'a failing command' } }] },
		{ text: 'Drafted.' },
	]);
	await runGemini(w, model, 'Draft the release notes');
	assert.equal(model.remaining(), 0, 'every scripted turn was played');
	assert.match(
		briefingIn(model.requests.find((r) => r.conversation)?.text ?? ''),
		/draft the release notes \(REL-4\)/,
		'the previous handoff reached the model’s first request',
	);

	const sessions = (w.batonJson(['session', 'list']).sessions as { id: string; name: string; agent: string | null }[]).filter((s) => s.agent !== null);
	assert.deepEqual(
		sessions.map((s) => s.agent),
		['gemini'],
	);
	const session = sessions[0]!;
	assert.equal(session.name, 'Draft the release notes', 'named after its first prompt');
	assert.equal(session.agent, 'gemini');
	const timeline = w.batonJson(['timeline', '--session', session.id]).entries as {
		type: string;
		actor?: string;
		tool?: string;
		model?: string;
		text?: string;
		files?: { path: string; change: string }[];
	}[];
	assert.ok(
		timeline.filter((e) => e.type === 'step').every((s) => s.model === geminiModel),
		`each step names its model, from Gemini's chat: ${JSON.stringify(timeline.map((e) => e.model))}`,
	);
	assert.deepEqual(
		timeline
			.filter((e) => e.type === 'step')
			.map((s) => [
				s.tool,
				(s.files ?? [])
					.map((f) => `${f.change[0]?.toUpperCase()} ${f.path}`)
					.sort()
					.join(', '),
			]),
		[
			['write_file', 'A NOTES.md'],
			['replace', 'M src/app.ts'],
			['run_shell_command', 'A created.txt, D a.txt'],
			['run_shell_command', 'M created.txt'],
		],
	);
	assert.deepEqual(
		timeline.filter((e) => e.type === 'prompt').map((e) => e.text),
		['Draft the release notes'],
	);
	const checkpoints = w.batonJson(['checkpoint', 'list']).checkpoints as { trigger: string; approvalStatus: string }[];
	assert.equal(checkpoints.filter((c) => c.trigger === 'compact').length, 0, 'no compaction checkpoint per model request');
	assert.ok(checkpoints.filter((c) => c.approvalStatus === 'pending').length <= 1, `one review at most for the run: ${JSON.stringify(checkpoints)}`);
	// Its chat is archived and readable (without the context Gemini CLI put in front of the prompt).
	const transcripts = w.batonJson(['transcripts', 'list', '--session', session.id]).transcripts as {
		id: string;
		agent: string;
		userRequests: number;
		toolCalls: number;
		lastUserText: string | null;
	}[];
	assert.equal(transcripts.length, 1);
	assert.equal(transcripts[0]!.agent, 'gemini');
	assert.equal(transcripts[0]!.userRequests, 1, 'the person’s one request, not Gemini’s own session context');
	assert.equal(transcripts[0]!.toolCalls, 4);
	assert.equal(transcripts[0]!.lastUserText, 'Draft the release notes');
	const shown = w.baton(['transcripts', 'show', transcripts[0]!.id]);
	assert.equal(shown.code, 0, shown.stderr);
	assert.match(shown.stdout, /run_shell_command/);
	assert.deepEqual(hookLogProblems(w.hookLog()), [], 'the hook log has no warning');
});
