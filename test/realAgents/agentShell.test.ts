/**
 * An agent asked to approve its own work through its shell tool is refused (cli/agentShell.ts): each
 * real agent CLI runs `baton checkpoint approve` on a checkpoint that waits for review, with the
 * variables its own shell tool sets (and the person's BATON_ACTOR inherited); the answer is
 * `personOnly` and the checkpoint still waits. The markers agentShell.ts reads are these binaries',
 * and the conversation id each names in its shell (Gemini CLI names none) is the one its hooks made an
 * alias of its session: a `baton decision record` it runs lands there.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { agentWorld, type AgentName, type AgentWorld } from './agentWorld';
import { runClaude } from './claudeCode';
import { runCodex } from './codexCli';
import { runCopilot, trustForCopilot } from './copilotCli';
import { configureGemini, runGemini } from './geminiCli';
import { anthropicStandIn } from './standIns/anthropic';
import { geminiStandIn } from './standIns/gemini';
import { responsesStandIn } from './standIns/openaiResponses';

/**
 * The command the agent's shell tool runs: its answer and exit code, and the marker it ran with, into
 * files. `baton` from PATH (the world's `bin`), as a person's is; for Codex by that path, since Codex
 * runs commands in a login shell whose profile sets PATH anew (a person's own `baton` is on that PATH).
 */
const approveCommand = (id: string, baton = 'baton'): string =>
	`${baton} checkpoint approve ${id} --json > approve.json 2>&1; echo $? > approve.code; env | grep -E '^(CLAUDECODE|CLAUDE_CODE_SESSION_ID|CODEX_THREAD_ID|CODEX_CI|GEMINI_CLI|COPILOT_CLI|COPILOT_AGENT_SESSION_ID)=' > marker.txt; ${baton} decision record --text 'Approvals stay with people' --json > decision.json 2>&1; true`;

/** A world connected to `agent`, a person's session with a checkpoint waiting for review. */
function pendingCheckpoint(t: TestContext, agent: AgentName): { w: AgentWorld; id: string } {
	const w = agentWorld(t, `shell-${agent}`);
	assert.equal(w.baton(['session', 'start', '--name', 'Reviewed work']).code, 0);
	const created = w.batonJson(['checkpoint', 'create', '--trigger', 'complete', '--message', 'waits for a person']).checkpoint as {
		id: string;
		approvalStatus: string;
	};
	assert.equal(created.approvalStatus, 'pending');
	assert.equal(w.baton(['connect', agent === 'claude' ? 'claude' : agent]).code, 0);
	return { w, id: created.id };
}

function assertRefused(w: AgentWorld, id: string, agentName: string, marker: RegExp, conversation?: string): void {
	const read = (name: string) => fs.readFileSync(path.join(w.root, name), 'utf8');
	assert.match(read('marker.txt'), marker, 'the agent’s shell tool set its marker');
	assert.equal(read('approve.code').trim(), '1', read('approve.json'));
	const answer = JSON.parse(read('approve.json').trim().split('\n').pop() as string) as { error: { code: string; message: string } };
	assert.equal(answer.error.code, 'personOnly');
	assert.match(answer.error.message, new RegExp(`^${agentName} may not approve a checkpoint`));
	assert.equal((w.batonJson(['checkpoint', 'show', id]).checkpoint as { approvalStatus: string }).approvalStatus, 'pending', 'it still waits for a person');
	const decision = JSON.parse(read('decision.json')) as { decision: { sessionId: string } };
	if (conversation) {
		// The id the shell names is the one the agent's hooks made an alias of its session: what `ownSession` looks up.
		const id = new RegExp(`^${conversation}=(.+)$`, 'm').exec(read('marker.txt'))?.[1] ?? '';
		assert.ok(id, `${conversation} is set`);
		assert.ok(
			JSON.stringify(w.batonJson(['session', 'show', decision.decision.sessionId])).includes(id),
			`${conversation} ${id} is an alias of the agent’s session`,
		);
	}
}

test('Claude Code’s Bash tool may not approve a checkpoint; what it records lands in its session', async (t) => {
	const { w, id } = pendingCheckpoint(t, 'claude');
	const model = await anthropicStandIn();
	t.after(() => model.close());
	model.script([{ tools: [{ name: 'Bash', input: { command: approveCommand(id), description: 'approve' } }] }, { text: 'Tried.' }]);
	await runClaude(w, model, 'Approve your checkpoint');
	assertRefused(w, id, 'Claude Code', /^CLAUDECODE=1$/m, 'CLAUDE_CODE_SESSION_ID');
});

test('Codex’s exec_command may not approve a checkpoint; what it records lands in its session', async (t) => {
	const { w, id } = pendingCheckpoint(t, 'codex');
	const model = await responsesStandIn();
	t.after(() => model.close());
	model.script([
		{ calls: [{ kind: 'function', name: 'exec_command', arguments: { cmd: approveCommand(id, path.join(w.dir, 'bin', 'baton')) } }] },
		{ text: 'Tried.' },
	]);
	await runCodex(w, model, 'Approve your checkpoint');
	assertRefused(w, id, 'Codex', /^CODEX_THREAD_ID=.+$/m, 'CODEX_THREAD_ID');
});

test('Gemini CLI’s run_shell_command may not approve a checkpoint; what it records lands in its session', async (t) => {
	const { w, id } = pendingCheckpoint(t, 'gemini');
	configureGemini(w);
	const model = await geminiStandIn();
	t.after(() => model.close());
	model.script([{ calls: [{ name: 'run_shell_command', args: { command: approveCommand(id), description: 'approve' } }] }, { text: 'Tried.' }]);
	await runGemini(w, model, 'Approve your checkpoint');
	assertRefused(w, id, 'Gemini CLI', /^GEMINI_CLI=1$/m);
});

test('Copilot CLI’s bash tool may not approve a checkpoint; what it records lands in its session', async (t) => {
	const { w, id } = pendingCheckpoint(t, 'copilot');
	trustForCopilot(w);
	const model = await anthropicStandIn();
	t.after(() => model.close());
	model.script([{ tools: [{ name: 'bash', input: { command: approveCommand(id), description: 'approve' } }] }, { text: 'Tried.' }]);
	await runCopilot(w, model, 'Approve your checkpoint');
	assertRefused(w, id, 'Copilot', /^COPILOT_CLI=1$/m, 'COPILOT_AGENT_SESSION_ID');
});
