/**
 * The words beside a step: a Claude Code session whose transcript the hooks archive, a step found in
 * it by its tool-use id, and the excerpt the Replay view shows around it.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, it } from 'node:test';
import { TranscriptArchive } from '../../../../src/engine/transcripts/transcriptArchive';
import { Engine } from '../../../../src/engine/engine';
import { silentLogger } from '../../../../src/engine/ports';
import { stepTranscript } from '../../../../src/engine/timeline/stepTranscript';
import { tempDir } from '../../helpers';
import { agentCli, hookFixture, runBaton } from '../../cli/agentCli';
import { TranscriptWriter } from '../transcripts/transcriptWriter';

let cli = '';
before(async () => {
	cli = await agentCli();
});

void it('shows the prompt, the assistant’s words and the step’s own tool call from the archived transcript', async (t) => {
	const base = tempDir(t, 'baton-step-transcript-');
	const root = path.join(base, 'project');
	const claudeHome = path.join(base, 'claude');
	fs.mkdirSync(path.join(root, 'src', 'auth'), { recursive: true });
	fs.writeFileSync(path.join(root, 'src/auth/tokens.ts'), 'const ttl = 3600;\n');
	const baton = (args: string[], input?: string) =>
		runBaton(cli, root, args, { ...(input !== undefined ? { input } : {}), env: { BATON_CLAUDE_HOME: claudeHome } });
	assert.equal(baton(['init']).code, 0);
	const where = { root, claudeHome };
	const hook = (name: string, overrides: Record<string, unknown> = {}) =>
		assert.equal(baton(['hook'], JSON.stringify(hookFixture('claude', name, where, overrides))).code, 0);
	const id = hookFixture('claude', 'session-start-startup', where)['session_id'] as string;
	const transcriptFile = path.join(claudeHome, 'projects', root.replace(/[^A-Za-z0-9]/g, '-'), `${id}.jsonl`);
	fs.mkdirSync(path.dirname(transcriptFile), { recursive: true });

	const transcript = new TranscriptWriter(id, root);
	transcript.user('Shorten the token lifetime to 15 minutes');
	const [toolUseId] = transcript.assistant(
		[
			{ text: 'I will lower the ttl in the token module.' },
			{ tool: 'Edit', input: { file_path: path.join(root, 'src/auth/tokens.ts'), old_string: '3600', new_string: '900' } },
		],
		{
			input_tokens: 900,
			output_tokens: 120,
		},
	);
	transcript.toolResult(toolUseId as string, 'ok');
	transcript.assistant([{ text: 'The ttl is 900 seconds now.' }], { input_tokens: 1000, output_tokens: 40 });

	hook('session-start-startup');
	hook('user-prompt-submit', { prompt: 'Shorten the token lifetime to 15 minutes' });
	const edit = { tool_input: { file_path: path.join(root, 'src/auth/tokens.ts'), old_string: '3600', new_string: '900' }, tool_use_id: toolUseId };
	hook('pre-tool-use', edit);
	fs.writeFileSync(path.join(root, 'src/auth/tokens.ts'), 'const ttl = 900;\n');
	hook('pre-tool-use', { ...edit, hook_event_name: 'PostToolUse' });
	transcript.flush(transcriptFile);
	hook('stop');

	const engine = await Engine.open({ workspaceRoot: root, log: silentLogger });
	try {
		const step = await engine.timeline.step(String(1));
		assert.equal(step.toolUseId, toolUseId);
		const archive = new TranscriptArchive({ workspaceRoot: root, claudeHome, log: silentLogger });
		const lines = stepTranscript(archive, step.sessionId, step, 'Shorten the token lifetime to 15 minutes');
		assert.deepEqual(
			lines.map((l) => [l.role, l.current]),
			[
				['user', false],
				['assistant', false],
				['tool', true],
				['assistant', false],
			],
			JSON.stringify(lines),
		);
		assert.equal(lines[1]?.text, 'I will lower the ttl in the token module.');
		assert.match(lines[2]?.text ?? '', /^Edit/);
		assert.equal(lines[3]?.text, 'The ttl is 900 seconds now.');
		// The same step as a person's edit: the turn's prompt was not said to them, and no transcript has it.
		assert.deepEqual(stepTranscript(archive, step.sessionId, { ...step, actor: 'human', toolUseId: null }, 'Shorten the token lifetime to 15 minutes'), []);
	} finally {
		engine.close();
	}
});
