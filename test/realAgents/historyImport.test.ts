/**
 * `baton import agents` on what the real agent CLIs wrote (issue 26, item 1): Claude Code, Codex,
 * Gemini CLI and Copilot CLI each run once in the project against their stand-in model, none of them
 * connected to Baton, so each keeps the session only in its own files under its HOME. A fresh Baton
 * workspace in that project (its `.baton` made anew) then reads each agent's session from those files,
 * named by its request, and a second run imports nothing new.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { agentWorld } from './agentWorld';
import { runClaude } from './claudeCode';
import { runCodex } from './codexCli';
import { runCopilot, trustForCopilot } from './copilotCli';
import { runGemini } from './geminiCli';
import { anthropicStandIn } from './standIns/anthropic';
import { geminiStandIn } from './standIns/gemini';
import { responsesStandIn } from './standIns/openaiResponses';

test('the sessions the real Claude Code, Codex, Gemini CLI and Copilot CLI kept in their own files become Baton sessions, once', async (t) => {
	const w = agentWorld(t, 'history');
	const file = (p: string) => path.join(w.root, p);

	const claudeModel = await anthropicStandIn([
		{ text: 'Writing.', tools: [{ name: 'Write', input: { file_path: file('claude.txt'), content: 'c\n' } }] },
		{ text: 'Written.' },
	]);
	t.after(() => claudeModel.close());
	const claude = await runClaude(w, claudeModel, 'Write claude.txt');

	const codexModel = await responsesStandIn();
	t.after(() => codexModel.close());
	codexModel.script([
		{ text: 'Writing.', calls: [{ kind: 'function', name: 'exec_command', arguments: { cmd: 'echo x > codex.txt' } }] },
		{ text: 'Written.' },
	]);
	const codex = await runCodex(w, codexModel, 'Write codex.txt');

	const gemini = await geminiStandIn();
	t.after(() => gemini.close());
	gemini.script([{ text: 'Writing.', calls: [{ name: 'write_file', args: { file_path: file('gemini.txt'), content: 'g\n' } }] }, { text: 'Written.' }]);
	await runGemini(w, gemini, 'Write gemini.txt');

	const copilotModel = await anthropicStandIn();
	t.after(() => copilotModel.close());
	trustForCopilot(w);
	copilotModel.script([{ text: 'Writing.', tools: [{ name: 'create', input: { path: file('copilot.txt'), file_text: 'p\n' } }] }, { text: 'Written.' }]);
	const copilot = await runCopilot(w, copilotModel, 'Write copilot.txt');

	// A fresh workspace in the same project: Baton has never seen these sessions.
	fs.rmSync(path.join(w.root, '.baton'), { recursive: true, force: true });
	assert.equal(w.baton(['init']).code, 0);
	const dry = w.batonJson(['import', 'agents', '--dry-run']);
	assert.equal(dry['dryRun'], true);
	const first = w.batonJson(['import', 'agents']);
	const counts = first['agents'] as Record<string, { found: number; imported: number; updated: number; unchanged: number; unknownRecords: number }>;
	assert.equal(counts['claude-code']?.unknownRecords, 0, `every record type the real Claude Code wrote is one the reader knows: ${JSON.stringify(first)}`);
	for (const agent of ['claude-code', 'codex', 'gemini', 'copilot']) {
		assert.equal(counts[agent]?.imported, 1, `${agent}: ${JSON.stringify(first)}`);
		assert.equal(dry['agents'][agent].imported, 1, `the dry run said so first (${agent})`);
	}
	const sessions = first['sessions'] as { agent: string; agentSessionId: string; sessionId: string }[];
	assert.equal(sessions.find((s) => s.agent === 'claude-code')?.agentSessionId, claude.sessionId);
	assert.equal(sessions.find((s) => s.agent === 'codex')?.agentSessionId, codex.sessionId);
	if (copilot.sessionId) {
		assert.equal(sessions.find((s) => s.agent === 'copilot')?.agentSessionId, copilot.sessionId);
	}
	const listed = w.batonJson(['session', 'list', '--status', 'ended']).sessions as { name: string; agent: string | null }[];
	for (const [agent, name] of [
		['claude-code', 'Write claude.txt'],
		['codex', 'Write codex.txt'],
		['gemini', 'Write gemini.txt'],
		['copilot', 'Write copilot.txt'],
	]) {
		assert.ok(
			listed.some((s) => s.agent === agent && s.name === name),
			`${agent}'s session named by its request: ${JSON.stringify(listed)}`,
		);
	}

	const second = w.batonJson(['import', 'agents']);
	for (const [agent, c] of Object.entries(second['agents'] as Record<string, { imported: number; updated: number }>)) {
		assert.equal(c.imported + c.updated, 0, `a second run imports nothing new (${agent}): ${JSON.stringify(second['agents'])}`);
	}
});
