/**
 * `baton agents [--json]` against a real workspace (issue 26, item 4): the built CLI's hooks are fed
 * the payloads the agents send (test/fixtures/hooks/board, and the real samples of Claude Code, Codex,
 * Gemini CLI and Copilot CLI in test/fixtures/real), a checkpoint waits for approval, and the board
 * says who works, who waits for you and why, who is done and who failed — in JSON and aligned text.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { agentCli, hookLogLines, runBaton, type Run } from './agentCli';
import { tempDir } from '../helpers';

const fixtures = path.resolve(__dirname, '../../fixtures');

/** A recorded payload with its placeholders moved into the test's workspace and homes. */
function payload(file: string, root: string, home: string, overrides: Record<string, unknown> = {}): string {
	const text = fs
		.readFileSync(path.join(fixtures, file), 'utf8')
		.replaceAll('/home/dev/project', root)
		.replaceAll('/path/to/project', root)
		.replaceAll('/home/dev/', `${home}/`);
	return JSON.stringify({ ...(JSON.parse(text) as Record<string, unknown>), ...overrides });
}

interface Workspace {
	root: string;
	baton: (args: string[], input?: string) => Run;
	feed: (file: string, args: string[], overrides?: Record<string, unknown>) => void;
}

async function workspace(t: TestContext): Promise<Workspace> {
	const cli = await agentCli();
	const base = tempDir(t, 'baton-board-');
	const root = path.join(base, 'project');
	const home = path.join(base, 'home');
	fs.mkdirSync(root);
	fs.mkdirSync(home);
	fs.writeFileSync(path.join(root, 'a.txt'), 'one\n');
	const baton = (args: string[], input?: string): Run =>
		runBaton(cli, root, args, { ...(input !== undefined ? { input } : {}), env: { HOME: home, BATON_CLAUDE_HOME: path.join(home, '.claude') } });
	assert.equal(baton(['init']).code, 0);
	const feed = (file: string, args: string[], overrides: Record<string, unknown> = {}): void => {
		const run = baton(['hook', ...args], payload(file, root, home, overrides));
		assert.equal(run.code, 0, `${file}: ${run.stderr}`);
		assert.equal(run.stderr, '', file);
	};
	return { root, baton, feed };
}

const claudeId = '4b2e9c1a-7d3f-4e8b-a1c5-2f6d8e0b9a47';

void describe('baton agents', () => {
	void it('lists every agent’s running session with its state and why, waiting first', async (t) => {
		const w = await workspace(t);
		const empty = w.baton(['agents']);
		assert.equal(empty.code, 0, empty.stderr);
		assert.equal(empty.stdout.trim(), 'no agent session is running in this workspace');

		// Claude Code asks permission for a command, then its permission prompt shows.
		w.feed('real/claude-code-2.1.197/session-start.json', [], { session_id: claudeId });
		w.feed('hooks/board/claude-permission-request.json', []);
		w.feed('hooks/board/claude-notification-permission.json', []);
		// Gemini CLI works on a prompt.
		w.feed('real/gemini-cli-0.61.0/session-start.json', ['session-start', '--agent', 'gemini']);
		w.feed('real/gemini-cli-0.61.0/before-agent.json', ['user-prompt-submit', '--agent', 'gemini']);
		// Codex finished its turn.
		w.feed('real/codex-0.171.0/session-start.json', ['session-start', '--agent', 'codex']);
		w.feed('real/codex-0.171.0/stop.json', ['stop', '--agent', 'codex']);
		// Copilot CLI hit an error.
		w.feed('real/copilot/cli/sessionStart.json', ['sessionStart', '--agent', 'copilot']);
		w.feed('real/copilot/cli/errorOccurred.json', ['errorOccurred', '--agent', 'copilot']);
		// A second Claude Code session whose checkpoint awaits approval.
		w.feed('real/claude-code-2.1.197/session-start.json', [], { session_id: 'c0ffee00-0000-4000-8000-000000000001' });
		const second = (w.baton(['session', 'list', '--json']).json?.['sessions'] as any[]).find(
			(s) => s.agentIdentifier === 'c0ffee00-0000-4000-8000-000000000001',
		);
		assert.ok(second, 'the second Claude session exists');
		assert.equal(w.baton(['checkpoint', 'policy', '--session', second.id, '--policy', 'strict']).code, 0);
		fs.writeFileSync(path.join(w.root, 'a.txt'), 'two\n');
		const cp = w.baton(['checkpoint', 'create', '--session', second.id, '--message', 'Retries work', '--json']);
		assert.equal(cp.json?.['checkpoint'].approvalStatus, 'pending', cp.stderr);

		const board = w.baton(['agents', '--json']);
		assert.equal(board.code, 0, board.stderr);
		const entries = board.json?.['entries'] as any[];
		assert.equal(board.json?.['waiting'], 2, JSON.stringify(board.json, null, 1));
		// Every agent joined the scope's one durable session (docs/architecture.md §1): each conversation is its own row.
		assert.deepEqual(
			entries.map((e) => [e.agent, e.agentSessionId, e.state, e.waitingOn, e.reason]),
			[
				['claude-code', claudeId, 'waiting', 'permission', 'Claude needs your permission to use Bash'],
				['claude-code', null, 'waiting', 'approval', `checkpoint #${cp.json?.['checkpoint'].seq} “Retries work” awaits your approval`],
				['copilot', 'copilot-cli-1704614400000', 'failed', null, 'error: Network timeout'],
				['claude-code', 'c0ffee00-0000-4000-8000-000000000001', 'working', null, 'working'],
				['gemini', '88091997-cf39-4d12-b26f-709e837160fd', 'working', null, 'working'],
				['codex', '01a22197-dbd8-7241-af6b-96b66b737258', 'done', null, 'finished its turn'],
			],
			JSON.stringify(entries, null, 1),
		);
		for (const e of entries) {
			assert.equal(e.id, second.id);
			assert.equal(e.scope, 'global');
			assert.equal(e.status, 'active');
			assert.ok(Date.parse(e.since) <= Date.parse(board.json?.['at']), 'since is a time before the read');
			assert.equal(typeof e.name, 'string');
		}
		assert.equal(entries[0].event, 'Notification/permission_prompt');
		assert.equal(entries[1].checkpoint.id, cp.json?.['checkpoint'].id);

		const text = w.baton(['agents']);
		assert.equal(text.code, 0, text.stderr);
		const lines = text.stdout.trimEnd().split('\n');
		assert.equal(lines[0], '6 agent sessions, 2 wait for you');
		assert.deepEqual(
			lines.slice(1).map((l) => l.split(/\s+/)[0]),
			['waiting', 'waiting', 'failed', 'working', 'working', 'done'],
		);
		const reasonAt = lines.slice(1).map((l, i) => l.lastIndexOf(entries[i].reason));
		assert.ok(
			reasonAt.every((at) => at === reasonAt[0] && at > 0),
			`the reasons line up in one column:\n${lines.join('\n')}`,
		);
		assert.match(lines[5] as string, /Gemini CLI/);

		// The permission granted, Claude works again; then its turn fails on the API.
		w.feed('real/claude-code-2.1.197/post-tool-use-failure.json', [], { session_id: claudeId });
		let claude = (w.baton(['agents', '--json']).json?.['entries'] as any[]).find((e) => e.agentSessionId === claudeId);
		assert.deepEqual([claude.state, claude.reason], ['working', 'Bash failed; the agent carries on']);
		w.feed('hooks/board/claude-stop-failure.json', []);
		claude = (w.baton(['agents', '--json']).json?.['entries'] as any[]).find((e) => e.agentSessionId === claudeId);
		assert.deepEqual([claude.state, claude.reason], ['failed', 'stopped by an error: rate_limit']);
	});

	void it('names a checkpoint awaiting approval after the agent whose hook took it, not the session’s first', async (t) => {
		const w = await workspace(t);
		w.feed('real/codex-0.171.0/session-start.json', ['session-start', '--agent', 'codex']);
		const session = (w.baton(['session', 'list', '--json']).json?.['sessions'] as any[])[0];
		assert.equal(session.agent, 'codex', 'the session is Codex’s, which started it');
		assert.equal(w.baton(['checkpoint', 'policy', '--session', session.id, '--policy', 'strict']).code, 0);
		// Claude Code joins the scope's session, then compacts its context with a change on disk: its hook takes
		// the checkpoint, which waits for approval under strict.
		w.feed('real/claude-code-2.1.197/session-start.json', [], { session_id: claudeId });
		fs.writeFileSync(path.join(w.root, 'a.txt'), 'two\n');
		w.feed('hooks/claude/pre-compact.json', [], { session_id: claudeId });
		const checkpoints = w.baton(['checkpoint', 'list', '--json']).json?.['checkpoints'] as any[];
		assert.deepEqual(
			checkpoints.map((c) => [c.sessionId, c.trigger, c.approvalStatus]),
			[[session.id, 'compact', 'pending']],
		);
		const approval = (w.baton(['agents', '--json']).json?.['entries'] as any[]).find((e) => e.waitingOn === 'approval');
		assert.equal(approval?.agent, 'claude-code', JSON.stringify(approval));
	});

	void it('answers an unfamiliar event and a notification of a session it never saw, with a warning and no failure', async (t) => {
		const w = await workspace(t);
		const future = w.baton(['hook'], payload('hooks/board/claude-notification-idle.json', w.root, w.root, { hook_event_name: 'TeammateIdle' }));
		assert.deepEqual([future.code, future.stdout, future.stderr], [0, '', '']);
		const stranger = w.baton(['hook'], payload('hooks/board/claude-notification-idle.json', w.root, w.root));
		assert.deepEqual([stranger.code, stranger.stdout, stranger.stderr], [0, '', '']);
		w.baton(['session', 'list', '--json']);
		const log = hookLogLines(w.root).join('\n');
		assert.match(log, /WARN.*ignored unknown event TeammateIdle from claude-code/i);
		assert.equal((w.baton(['agents', '--json']).json?.['entries'] as any[]).length, 0, 'nothing made up for a session Baton never saw');
	});
});
