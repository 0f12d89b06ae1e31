/**
 * A `baton` an agent's shell tool runs is the agent's (cli/agentShell.ts): through the built CLI, a
 * command run with an agent's marker is recorded as `agent:<agent>` and may not decide what only a
 * person decides — approve or reject a checkpoint, loosen a session's review — and a session it ends
 * is not a person's own end (its complete checkpoint waits for review). The same commands without
 * the marker are the person's. The markers are the ones the real agents set (test/realAgents).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { before, describe, it, type TestContext } from 'node:test';
import { agentShellOf, agentShellVariables } from '../../../src/cli/agentShell';
import { isAgentActor } from '../../../src/engine/text/actorNames';
import { tempDir } from '../helpers';
import { agentCli, runBaton } from './agentCli';

let cli = '';
before(async () => {
	cli = await agentCli();
});

const claudeShell = { CLAUDECODE: '1', CLAUDE_CODE_SESSION_ID: '25c86959-44c1-463b-89fe-94c2e160924f', BATON_ACTOR: 'cli:person' };

function workspace(t: TestContext) {
	const root = fs.realpathSync(tempDir(t, 'baton-agent-shell-'));
	spawnSync('git', ['init', '-q', root]);
	fs.writeFileSync(`${root}/a.txt`, 'alpha\n');
	const baton = (args: string[], env: Record<string, string> = {}) => runBaton(cli, root, [...args, '--json'], { env: { BATON_NO_DAEMON: '1', ...env } });
	assert.equal(baton(['init']).code, 0);
	return { root, baton };
}

void describe('baton run by an agent’s shell tool', () => {
	void it('knows each agent by the variable its real binary sets, and nothing else', async () => {
		assert.deepEqual(agentShellOf({ CLAUDECODE: '1' }), { agent: 'claude-code', variable: 'CLAUDECODE' });
		assert.deepEqual(agentShellOf(claudeShell), { agent: 'claude-code', variable: 'CLAUDECODE', conversation: claudeShell.CLAUDE_CODE_SESSION_ID });
		assert.deepEqual(agentShellOf({ CODEX_THREAD_ID: '01a2370c-9a79-7a80-8c16-99877516605f', CODEX_CI: '1' }), {
			agent: 'codex',
			variable: 'CODEX_THREAD_ID',
			conversation: '01a2370c-9a79-7a80-8c16-99877516605f',
		});
		assert.deepEqual(agentShellOf({ COPILOT_CLI: '1', COPILOT_AGENT_SESSION_ID: 'c1' }), { agent: 'copilot', variable: 'COPILOT_CLI', conversation: 'c1' });
		assert.deepEqual(agentShellOf({ CODEX_CI: '1' }), { agent: 'codex', variable: 'CODEX_CI' });
		assert.deepEqual(agentShellOf({ GEMINI_CLI: '1' }), { agent: 'gemini', variable: 'GEMINI_CLI' });
		assert.deepEqual(agentShellOf({ COPILOT_CLI: '1' }), { agent: 'copilot', variable: 'COPILOT_CLI' });
		// The editor's agents mark the terminals they open (their sources: agentShell.ts); AI_AGENT, the shared one, by its value.
		assert.deepEqual(agentShellOf({ COPILOT_AGENT: '1', AI_AGENT: 'github_copilot_vscode_agent', TERM_PROGRAM: 'vscode' }), {
			agent: 'copilot',
			variable: 'COPILOT_AGENT',
		});
		assert.deepEqual(agentShellOf({ AI_AGENT: 'github_copilot_vscode_agent' }), { agent: 'copilot', variable: 'AI_AGENT' });
		assert.deepEqual(agentShellOf({ CLINE_ACTIVE: 'true', TERM_PROGRAM: 'vscode' }), { agent: 'cline', variable: 'CLINE_ACTIVE' });
		assert.deepEqual(agentShellOf({ ROO_ACTIVE: 'true' }), { agent: 'cline', variable: 'ROO_ACTIVE' });
		assert.deepEqual(agentShellOf({ AI_AGENT: 'claude-code_2-1-263_agent' }), { agent: 'claude-code', variable: 'AI_AGENT' });
		assert.deepEqual(agentShellOf({ AI_AGENT: 'crush' }), { agent: 'crush', variable: 'AI_AGENT' });
		assert.deepEqual(
			agentShellOf({ AI_AGENT: 'Some Tool/2.0 ;rm -rf' }),
			{ agent: 'some-tool-2.0-rm-rf', variable: 'AI_AGENT' },
			'a name of safe characters',
		);
		assert.deepEqual(agentShellOf({ AI_AGENT: '%%%' }), { agent: 'unknown', variable: 'AI_AGENT' });
		assert.equal(
			agentShellOf({ CLAUDECODE: '0', GEMINI_CLI: '', CLINE_ACTIVE: 'false', AI_AGENT: ' ', TERM_PROGRAM: 'vscode', BATON_ACTOR: 'cli:me' }),
			null,
		);
		for (const variable of agentShellVariables) assert.ok(agentShellOf({ [variable]: '1' }), variable);
		const runners = (await import(pathToFileURL(path.resolve(__dirname, '../../../scripts/hermeticEnv.mjs')).href)) as { agentShellVariables: string[] };
		assert.deepEqual([...runners.agentShellVariables].sort(), [...agentShellVariables].sort(), 'the test runners drop every marker');
		for (const actor of ['hook:codex', 'mcp:cursor', 'agent:gemini']) assert.ok(isAgentActor(actor), actor);
		for (const actor of ['cli:me', 'vscode:me', 'baton', 'agentless:x']) assert.ok(!isAgentActor(actor), actor);
	});

	void it('may not approve, reject or loosen a review; the person may; what it ends waits for review', (t) => {
		const { root, baton } = workspace(t);
		assert.equal(baton(['session', 'start', '--name', 'Person’s session']).code, 0);
		const pending = baton(['checkpoint', 'create', '--trigger', 'complete', '--message', 'review me'], claudeShell).json?.['checkpoint'];
		assert.equal(pending?.approvalStatus, 'pending');
		for (const args of [
			['checkpoint', 'approve', pending.id],
			['checkpoint', 'reject', pending.id, '--actor', 'cli:person'],
			['checkpoint', 'policy', '--policy', 'auto'],
		]) {
			const refused = baton(args, claudeShell);
			assert.notEqual(refused.code, 0, args.join(' '));
			assert.equal(refused.json?.['error']?.code, 'personOnly', refused.stdout);
			assert.match(refused.json?.['error']?.message, /^Claude Code may not .*a person’s decision — make it in the editor or in your own terminal$/);
		}
		for (const env of [
			{ GEMINI_CLI: '1' },
			{ CODEX_THREAD_ID: 'x' },
			{ COPILOT_CLI: '1' },
			{ COPILOT_AGENT: '1' },
			{ CLINE_ACTIVE: 'true' },
			{ AI_AGENT: 'crush' },
		] as Record<string, string>[]) {
			assert.equal(baton(['checkpoint', 'approve', pending.id], env).json?.['error']?.code, 'personOnly');
		}
		const shown = baton(['checkpoint', 'show', pending.id]).json?.['checkpoint'];
		assert.equal(shown.approvalStatus, 'pending', 'nothing an agent asked changed it');

		// The agent ends the person's session: not the person's own end, so its complete checkpoint waits.
		fs.appendFileSync(`${root}/a.txt`, 'beta\n');
		const ended = baton(['session', 'end', '--note', 'done'], claudeShell);
		assert.equal(ended.code, 0, ended.stdout);
		const complete = (baton(['checkpoint', 'list']).json?.['checkpoints'] as { id: string; trigger: string; approvalStatus: string }[]).filter(
			(c) => c.trigger === 'complete' && c.id !== pending.id,
		);
		assert.equal(complete.length, 1, 'the end took its complete checkpoint');
		assert.equal(complete[0]?.approvalStatus, 'pending', 'an agent’s end of a person’s session is reviewed, not approved as the person’s own');

		const approved = baton(['checkpoint', 'approve', pending.id]);
		assert.equal(approved.code, 0, approved.stdout);
		assert.equal(approved.json?.['checkpoint']?.approvalStatus, 'approved');
		assert.equal(approved.json?.['checkpoint']?.approvalUser, 'test:agents', 'the person at their terminal (BATON_ACTOR)');
	});

	void it('acts on its own conversation’s session when a command names none, among several active', (t) => {
		const { baton } = workspace(t);
		const task = (title: string): string => baton(['task', 'add', '--title', title]).json?.['task']?.id;
		const own = baton(['session', 'start', '--name', 'Claude’s', '--scope', `task:${task('Parser')}`]).json?.['session'];
		assert.equal(baton(['session', 'alias', own.id, '--agent', 'claude-code', '--agent-id', claudeShell.CLAUDE_CODE_SESSION_ID]).code, 0);
		const other = baton(['session', 'start', '--name', 'Someone else’s', '--scope', `task:${task('Docs')}`]).json?.['session'];
		assert.equal(baton(['decision', 'record', '--text', 'x']).json?.['error']?.code, 'invalidInput', 'a person must say which of two');
		const decided = baton(['decision', 'record', '--text', 'Parse lazily'], claudeShell);
		assert.equal(decided.code, 0, decided.stdout);
		assert.equal(decided.json?.['decision']?.sessionId, own.id);
		const remembered = baton(['memory', 'add', '--kind', 'gotcha', 'The lexer keeps state'], claudeShell).json?.['entry'];
		assert.equal(remembered?.sourceSessionId, own.id);
		const ended = baton(['session', 'end', '--note', 'done'], claudeShell);
		assert.equal(ended.code, 0, ended.stdout);
		assert.equal(ended.json?.['session']?.id, own.id, 'its own session ended, not the other');
		assert.equal(baton(['session', 'show', other.id]).json?.['session']?.status, 'active');
		const notIts = baton(['session', 'end'], { ...claudeShell, CLAUDE_CODE_SESSION_ID: 'another-conversation' });
		assert.equal(notIts.code, 0, 'a conversation with no session of its own ends the one active session, as a person’s command does');
		assert.equal(notIts.json?.['session']?.id, other.id);
	});
});
