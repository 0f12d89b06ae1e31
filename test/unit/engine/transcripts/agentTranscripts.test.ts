/**
 * Codex's rollouts and Gemini CLI's chats read into the transcript archive (agentTranscripts.ts): a
 * published Codex rollout (simonw/claude-code-transcripts), one the real Codex CLI 0.171.0 wrote in
 * the real-agent suite, and a Gemini chat written as the real Gemini CLI 0.61.0 writes one (a header,
 * a `$set` of the opening messages, a message record written again as it grows). Counts were read off
 * the raw files (test/fixtures/real/README.md).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { silentLogger } from '../../../../src/engine/ports';
import { TranscriptArchive } from '../../../../src/engine/transcripts/transcriptArchive';
import { tempDir } from '../../helpers';
import { repoRoot } from '../../cli/agentCli';

const rollouts = path.join(repoRoot, 'test', 'fixtures', 'real', 'codex-rollout');

async function archived(t: Parameters<typeof tempDir>[0], agent: 'codex' | 'gemini' | 'copilot', id: string, source: string) {
	const root = tempDir(t, 'baton-agent-transcripts-');
	fs.mkdirSync(path.join(root, '.baton'), { recursive: true });
	const archive = new TranscriptArchive({ workspaceRoot: root, claudeHome: path.join(root, 'claude'), log: silentLogger });
	const report = await archive.sync({ link: async () => 'ses_1', agent, agentSessionIds: [id], sources: [source], sessionId: 'ses_1' });
	return { archive, report, root };
}

test('a published Codex rollout and one the real Codex CLI wrote: requests, answers, calls with their files, the failed call, tokens', async (t) => {
	const sample = await archived(t, 'codex', 'test-session', path.join(rollouts, 'sample_codex_session.jsonl'));
	const [one] = sample.archive.list({ sessionId: 'ses_1' });
	assert.equal(one?.agent, 'codex');
	assert.equal(one?.userRequests, 1);
	assert.equal(one?.lastUserText, 'Write a hello world function');
	assert.equal(one?.lastAssistantText, 'Here is a simple hello world function.');

	const real = await archived(t, 'codex', '01a22197-dbd8-7241-af6b-96b66b737258', path.join(rollouts, 'rollout-0.171.0-apply-patch.jsonl'));
	const [info] = real.archive.list({ sessionId: 'ses_1' });
	assert.equal(info?.userRequests, 1, 'the person’s prompt, not Codex’s <environment_context>');
	assert.equal(info?.lastUserText, 'patch the files');
	assert.equal(info?.toolCalls, 2, 'apply_patch and exec_command');
	assert.equal(info?.errors, 1, 'the command that exited 3');
	assert.deepEqual(info?.filesTouched, ['c.txt', 'a.txt'], 'the patch’s files');
	assert.equal(info?.lastAssistantText, 'Done.');
	assert.ok(Object.keys(info?.tokens ?? {}).includes('gpt-5.5'), `tokens by model: ${JSON.stringify(info?.tokens)}`);
	const read = real.archive.read('01a22197-dbd8-7241-af6b-96b66b737258');
	assert.deepEqual(
		read?.excerpts.map((e) => e.type),
		['user', 'assistant', 'tool', 'tool', 'error', 'assistant'],
	);
	// Reading it again changes nothing.
	const again = await real.archive.sync({
		link: async () => 'ses_1',
		agent: 'codex',
		agentSessionIds: ['01a22197-dbd8-7241-af6b-96b66b737258'],
		sources: [path.join(rollouts, 'rollout-0.171.0-apply-patch.jsonl')],
	});
	assert.equal(again.excerpts, 0);
});

test('a Gemini CLI chat: its own session context and the hook context left out, a message written twice read once, its tool calls and model', async (t) => {
	const dir = tempDir(t, 'baton-gemini-chat-');
	const file = path.join(dir, 'session-2026-11-28T10-02-88091997.jsonl');
	const lines = [
		{ sessionId: 'g-1', projectHash: 'abc', startTime: '2026-11-28T10:02:44.501Z', lastUpdated: '2026-11-28T10:02:44.501Z', kind: 'main' },
		{
			$set: {
				messages: [
					{
						id: 'm0',
						timestamp: '2026-11-28T10:02:44.501Z',
						type: 'user',
						content: [{ text: '<session_context>\nThis is the Gemini CLI.\n</session_context>' }],
					},
				],
			},
		},
		{
			id: 'm1',
			timestamp: '2026-11-28T10:02:44.543Z',
			type: 'user',
			content: [{ text: '<hook_context>Baton briefing</hook_context>\n\nwrite b.txt and append' }],
		},
		{ $set: { lastUpdated: '2026-11-28T10:02:44.544Z' } },
		{
			id: 'm2',
			timestamp: '2026-11-28T10:02:44.670Z',
			type: 'gemini',
			content: 'Writing.',
			tokens: { input: 120, output: 30, cached: 0, thoughts: 0, tool: 0, total: 150 },
			model: 'gemini-2.5-pro',
		},
		{
			id: 'm2',
			timestamp: '2026-11-28T10:02:44.670Z',
			type: 'gemini',
			content: 'Writing.',
			tokens: { input: 120, output: 30, cached: 0, thoughts: 0, tool: 0, total: 150 },
			model: 'gemini-2.5-pro',
			toolCalls: [{ id: 'write_file_1', name: 'write_file', args: { file_path: '/home/dev/project/b.txt', content: 'x\n' }, status: 'success' }],
		},
		{
			id: 'm3',
			timestamp: '2026-11-28T10:02:44.800Z',
			type: 'gemini',
			content: '',
			model: 'gemini-2.5-pro',
			toolCalls: [{ id: 'shell_1', name: 'run_shell_command', args: { command: 'exit 3' }, status: 'error', resultDisplay: 'Exit code: 3' }],
		},
		{ id: 'm4', timestamp: '2026-11-28T10:02:44.900Z', type: 'gemini', content: 'Done.', model: 'gemini-2.5-pro' },
	];
	fs.writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
	const { archive } = await archived(t, 'gemini', 'g-1', file);
	const [info] = archive.list({ sessionId: 'ses_1' });
	assert.equal(info?.userRequests, 1);
	assert.equal(info?.lastUserText, 'write b.txt and append');
	assert.equal(info?.toolCalls, 2);
	assert.equal(info?.errors, 1);
	assert.equal(info?.lastAssistantText, 'Done.');
	assert.deepEqual(
		archive.read('g-1')?.excerpts.map((e) => e.type),
		['user', 'assistant', 'tool', 'tool', 'error', 'assistant'],
	);
});

test('another agent’s long line with Claude Code’s markers in its data (an MCP result of content blocks) is read, not skipped as a Claude tool result', async (t) => {
	const dir = tempDir(t, 'baton-gemini-markers-');
	const file = path.join(dir, 'session-2026-11-28T10-02-5c1d0a2e.jsonl');
	// What an MCP server can answer: content blocks, one of them Anthropic-shaped, kept as objects in the call's result.
	const blocks = [{ type: 'tool_result', tool_use_id: 'inner', content: 'x'.repeat(3_000) }];
	const lines = [
		{ sessionId: 'g-2', projectHash: 'abc', startTime: '2026-11-28T10:02:44.501Z', lastUpdated: '2026-11-28T10:02:44.501Z', kind: 'main' },
		{ id: 'm1', timestamp: '2026-11-28T10:02:44.543Z', type: 'user', content: [{ text: 'ask the server' }] },
		{
			id: 'm2',
			timestamp: '2026-11-28T10:02:44.670Z',
			type: 'gemini',
			content: 'The server answered with one block.',
			model: 'gemini-2.5-pro',
			toolCalls: [
				{
					id: 'mcp_1',
					name: 'lookup',
					args: { q: 'billing' },
					result: [{ functionResponse: { id: 'mcp_1', name: 'lookup', response: { content: blocks } } }],
					status: 'success',
				},
			],
		},
	];
	const text = `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`;
	assert.ok(text.includes('"type":"tool_result"') && text.split('\n')[2]!.length > 2_048, 'the line carries the marker and is long');
	fs.writeFileSync(file, text);
	const { archive } = await archived(t, 'gemini', 'g-2', file);
	const [info] = archive.list({ sessionId: 'ses_1' });
	assert.equal(info?.toolCalls, 1, 'the call on that line');
	assert.equal(info?.lastAssistantText, 'The server answered with one block.');
});

test('a session file the real Copilot CLI wrote: the request, the answers, both calls, the refused one as an error', async (t) => {
	const file = path.join(repoRoot, 'test', 'fixtures', 'real', 'copilot-cli-session', 'events.jsonl');
	const { archive } = await archived(t, 'copilot', 'a88f76da-cc2b-48a7-bce5-29305a80223e', file);
	const [info] = archive.list({ sessionId: 'ses_1' });
	assert.equal(info?.agent, 'copilot');
	assert.equal(info?.userRequests, 1);
	assert.equal(info?.lastUserText, 'write b.txt and append', 'the content the person typed, not the transformed one');
	assert.equal(info?.toolCalls, 2);
	assert.equal(info?.errors, 2, 'the refused create (success false) and the command that exited 3');
	assert.equal(info?.lastAssistantText, 'Done.');
	assert.deepEqual(info?.filesTouched, ['/home/dev/project/b.txt'], 'outside this test’s workspace, so named as the file recorded it');
});
