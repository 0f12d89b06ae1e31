/**
 * The Agents board over JSON-RPC (`agents/board`), as the Agents view and the status bar ask it: the
 * backend answers the engine's board, and after a hook in another process (the built CLI, fed the
 * payloads the agents send) its next answer has the new state — the backend reads what the hook
 * wrote, not a copy of its own.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import * as board from '../../../src/protocol/boardRpc';
import * as rpc from '../../../src/protocol/rpc';
import { agentCli, runBaton } from '../cli/agentCli';
import { tempDir } from '../helpers';
import { startServer } from './serverHarness';

const fixtures = path.resolve(__dirname, '../../fixtures');

function payload(file: string, root: string, home: string): string {
	return fs.readFileSync(path.join(fixtures, file), 'utf8').replaceAll('/home/dev/project', root).replaceAll('/home/dev/', `${home}/`);
}

void describe('agents/board over JSON-RPC', () => {
	void it('answers nobody before the workspace is set up, then every conversation with its state after each hook', async (t) => {
		const cli = await agentCli();
		const base = tempDir(t, 'baton-board-rpc-');
		const root = path.join(base, 'project');
		const home = path.join(base, 'home');
		fs.mkdirSync(root);
		fs.mkdirSync(home);
		const { connection } = startServer(t, root);
		const before = await connection.sendRequest(board.agentsBoard, undefined);
		assert.deepEqual([before.entries, before.waiting], [[], 0]);

		await connection.sendRequest(rpc.workspaceInit, undefined);
		const hook = (file: string, ...args: string[]): void => {
			const run = runBaton(cli, root, ['hook', ...args], {
				input: payload(file, root, home),
				env: { HOME: home, BATON_CLAUDE_HOME: path.join(home, '.claude') },
			});
			assert.equal(run.code, 0, run.stderr);
		};
		hook('real/gemini-cli-0.61.0/session-start.json', 'session-start', '--agent', 'gemini');
		const working = await connection.sendRequest(board.agentsBoard, undefined);
		assert.deepEqual(
			working.entries.map((e) => [e.agent, e.state, e.reason, e.source]),
			[['gemini', 'working', 'working', 'hook']],
		);
		assert.equal(working.waiting, 0);

		hook('hooks/board/gemini-notification.json', 'notification', '--agent', 'gemini');
		const waiting = await connection.sendRequest(board.agentsBoard, undefined);
		assert.equal(waiting.waiting, 1);
		const [entry] = waiting.entries;
		assert.deepEqual(
			[entry?.state, entry?.waitingOn, entry?.reason, entry?.event],
			['waiting', 'permission', 'Tool execution for "Shell" requires confirmation', 'notification/ToolPermission'],
		);
		assert.equal(entry?.agentSessionId, '88091997-cf39-4d12-b26f-709e837160fd');
		assert.equal(entry?.since, waiting.entries[0]?.since);

		hook('real/gemini-cli-0.61.0/session-end.json', 'session-end', '--agent', 'gemini');
		const done = await connection.sendRequest(board.agentsBoard, undefined);
		assert.deepEqual(
			done.entries.map((e) => [e.state, e.status]),
			[['done', 'ended']],
		);
		assert.equal(done.waiting, 0);
	});
});
