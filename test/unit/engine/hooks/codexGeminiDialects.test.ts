/**
 * Codex CLI 0.171.0 and Gemini CLI 0.61.0 as the real programs behave (test/realAgents runs them):
 * the payloads they sent (test/fixtures/real/codex-0.171.0, gemini-cli-0.61.0) normalise to the
 * events Baton acts on, with the files each tool names, and what Baton answers Codex validates against
 * Codex's own generated output schemas (test/fixtures/real/codex-hook-schemas, openai/codex).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import Ajv from 'ajv';
import { askOutput, contextOutput } from '../../../../src/engine/hooks/hookResponses';
import { normaliseHookPayload } from '../../../../src/engine/hooks/normaliseHookPayload';
import { repoRoot } from '../../cli/agentCli';

const real = path.join(repoRoot, 'test', 'fixtures', 'real');

function sent(dir: string, file: string): Record<string, unknown> {
	return JSON.parse(fs.readFileSync(path.join(real, dir, file), 'utf8')) as Record<string, unknown>;
}

void describe('Codex and Gemini CLI, as their binaries speak', () => {
	void it('Codex: apply_patch names the patch’s files, shell calls are captured, the model and session come through', () => {
		const patch = normaliseHookPayload(sent('codex-0.171.0', 'pre-tool-use-apply-patch.json'), { event: 'pre-tool-use', agent: 'codex' });
		assert.ok(patch.ok);
		assert.equal(patch.event.agent, 'codex');
		assert.equal(patch.event.kind, 'preToolUse');
		assert.equal(patch.event.tool?.name, 'apply_patch');
		assert.equal(patch.event.tool?.edit, true);
		assert.deepEqual(
			patch.event.tool?.filesTouched.map((f) => path.basename(f)),
			['c.txt', 'a.txt'],
			'the files of the patch in tool_input.command',
		);
		assert.equal(patch.event.model, 'gpt-5.5');
		const stop = normaliseHookPayload(sent('codex-0.171.0', 'stop.json'), { event: 'stop', agent: 'codex' });
		assert.ok(stop.ok);
		assert.equal(stop.event.kind, 'stop', 'Codex’s Stop ends a turn');
		const end = normaliseHookPayload(sent('codex-0.171.0', 'session-end.json'), { event: 'session-end', agent: 'codex' });
		assert.ok(end.ok);
		assert.equal(end.event.kind, 'sessionEnd');
		assert.equal(end.event.reason, 'other', 'a headless run ends its session, as Claude Code’s does');
	});

	void it('Gemini CLI: write_file and run_shell_command are captured without a call id, and a prompt loses the briefing Gemini put in front of it', () => {
		const write = normaliseHookPayload(sent('gemini-cli-0.61.0', 'before-tool-write-file.json'), { event: 'pre-tool-use', agent: 'gemini' });
		assert.ok(write.ok);
		assert.equal(write.event.tool?.edit, true);
		assert.equal(write.event.tool?.id, null);
		assert.deepEqual(write.event.tool?.filesTouched, ['/home/dev/project/b.txt']);
		const shell = normaliseHookPayload(sent('gemini-cli-0.61.0', 'after-tool-run-shell-command.json'), { event: 'post-tool-use', agent: 'gemini' });
		assert.ok(shell.ok);
		assert.equal(shell.event.kind, 'postToolUse');
		assert.equal(shell.event.tool?.name, 'run_shell_command');
		const prompt = normaliseHookPayload(
			{
				...sent('gemini-cli-0.61.0', 'before-agent.json'),
				prompt: '<hook_context>Baton briefing for durable session ses_1 (scope global)\n(Full briefing…)</hook_context>\n\nwrite b.txt and append',
			},
			{ event: 'user-prompt-submit', agent: 'gemini' },
		);
		assert.ok(prompt.ok);
		assert.equal(prompt.event.prompt, 'write b.txt and append');
		assert.equal(normaliseHookPayload(sent('gemini-cli-0.61.0', 'after-agent.json'), { event: 'stop', agent: 'gemini' }).ok, true);
	});

	void it('Baton’s answers are what Codex’s own output schemas allow', () => {
		const ajv = new Ajv({ allErrors: true, strict: false });
		const schema = (name: string) =>
			JSON.parse(fs.readFileSync(path.join(real, 'codex-hook-schemas', `${name}.command.output.schema.json`), 'utf8')) as object;
		const start = ajv.compile(schema('session-start'));
		assert.ok(start(JSON.parse(contextOutput('codex', 'Baton briefing for durable session ses_1'))), JSON.stringify(start.errors));
		const pre = ajv.compile(schema('pre-tool-use'));
		assert.ok(pre(JSON.parse(askOutput('codex', 'checkpoint #3 awaits your approval'))), JSON.stringify(pre.errors));
		assert.ok(
			!start({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: 'x' }, additionalContext: 'x' }),
			'the schema refuses a top-level additionalContext: only Copilot CLI is answered that way',
		);
	});
});
