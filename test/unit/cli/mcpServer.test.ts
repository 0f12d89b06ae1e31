/**
 * `baton mcp` exercised by the MCP SDK's own client: the server process spawned over stdio, every
 * tool called.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { defaultMaxLineBytes } from '../../../src/cli/boundedStdioTransport';
import { createBatonMcpServer } from '../../../src/cli/mcpServer';
import type { Engine } from '../../../src/engine/engine';
import { openTestEngine, tempDir } from '../helpers';
import { agentCli, runBaton } from './agentCli';

let cli = '';
before(async () => {
	cli = await agentCli();
});

type ToolResult = { content: { type: string; text: string }[]; isError?: boolean };

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<{ value: any; isError: boolean }> {
	const result = (await client.callTool({ name, arguments: args })) as ToolResult;
	assert.equal(result.content.length, 1);
	assert.equal(result.content[0]?.type, 'text');
	return { value: JSON.parse(result.content[0]?.text ?? 'null'), isError: result.isError === true };
}

void describe('baton mcp (the SDK client against the server process)', () => {
	void it('serves every tool over stdio and writes nothing but protocol to stdout', async (t) => {
		const root = path.join(tempDir(t, 'baton-mcp-'), 'project');
		fs.mkdirSync(root);
		assert.equal(runBaton(cli, root, ['init']).code, 0);
		assert.equal(runBaton(cli, root, ['task', 'add', '--title', 'Write the MCP server']).code, 0);
		fs.writeFileSync(path.join(root, 'notes.txt'), 'work in progress\n');

		const transport = new StdioClientTransport({
			command: process.execPath,
			args: [cli, 'mcp'],
			cwd: root,
			stderr: 'pipe',
			env: { PATH: process.env['PATH'] ?? '', HOME: root },
		});
		let stderr = '';
		transport.stderr?.on('data', (chunk: Buffer) => {
			stderr += chunk.toString();
		});
		const problems: Error[] = [];
		const client = new Client({ name: 'baton-test-client', version: '1.0.0' });
		client.onerror = (error) => problems.push(error);
		await client.connect(transport);
		t.after(() => client.close());

		const tools = (await client.listTools()).tools;
		assert.deepEqual(tools.map((tool) => tool.name).sort(), [
			'briefing',
			'create_checkpoint',
			'handoff',
			'record_decision',
			'record_memory',
			'request_approval',
			'session_end',
			'session_start',
			'session_status',
		]);
		const start = tools.find((tool) => tool.name === 'session_start');
		assert.deepEqual(start?.inputSchema.required, ['name']);
		assert.ok(start?.description?.includes('briefing'));

		const started = await call(client, 'session_start', { name: 'MCP work', agent: 'copilot', agentSessionId: 'vscode-chat-1' });
		assert.equal(started.isError, false, JSON.stringify(started.value));
		const session = started.value.session;
		assert.match(session.id, /^ses_/);
		assert.equal(session.agentIdentifier, 'vscode-chat-1');
		assert.match(started.value.briefingText, /T1 Write the MCP server/);

		const status = await call(client, 'session_status');
		assert.deepEqual(
			status.value.active.map((s: { id: string }) => s.id),
			[session.id],
		);
		assert.equal(status.value.counts.active, 1);

		const decision = await call(client, 'record_decision', { text: 'Use the official SDK', rationale: 'spec conformance' });
		assert.equal(decision.value.decision.sessionId, session.id);

		const diet = await call(client, 'briefing', { sessionId: session.id, budget: 300 });
		assert.ok(diet.value.text.length <= 300);
		const full = await call(client, 'briefing', { format: 'full' });
		assert.equal(full.value.briefing.sessionId, session.id);

		const checkpoint = await call(client, 'create_checkpoint', { message: 'before the refactor', sessionId: session.id, tags: ['mcp'] });
		assert.equal(checkpoint.isError, false, JSON.stringify(checkpoint.value));
		assert.match(checkpoint.value.checkpoint.id, /^cp_/);
		const approval = await call(client, 'request_approval', { reason: 'please review the schema change', sessionId: session.id });
		assert.equal(approval.isError, false, JSON.stringify(approval.value));
		assert.equal(approval.value.approvalStatus, 'pending', 'a requested approval waits for a person');
		const again = await call(client, 'request_approval', { reason: 'still waiting', checkpointId: approval.value.checkpoint.id });
		assert.equal(again.value.approvalStatus, 'pending');
		assert.equal(again.value.checkpoint.annotations.at(-1).text, 'approval requested: still waiting');

		const ended = await call(client, 'session_end', { note: 'server done', nextAction: 'register it in the extension', blockers: ['none'] });
		assert.equal(ended.value.session.status, 'ended');
		const handoff = await call(client, 'handoff', { sessionId: session.id });
		assert.equal(handoff.value.handoff.note, 'server done');
		assert.deepEqual(
			handoff.value.handoff.decisions.map((d: { text: string }) => d.text),
			['Use the official SDK'],
		);

		const refused = await call(client, 'session_end', {});
		assert.equal(refused.isError, true);
		assert.equal(refused.value.error.code, 'notFound');
		const invalid = (await client.callTool({ name: 'handoff', arguments: {} })) as ToolResult;
		assert.equal(invalid.isError, true, 'schema validation refuses a missing argument');

		const log = runBaton(cli, root, ['session', 'show', session.id, '--json']).json;
		assert.equal(log?.['session'].status, 'ended');
		assert.deepEqual(problems, [], 'the client saw nothing on stdout but protocol');
		assert.equal(stderr, '');
	});

	void it('says so when the workspace has no Baton, or when checkpoints are missing', async (t) => {
		const bare = tempDir(t, 'baton-mcp-bare-');
		const transport = new StdioClientTransport({
			command: process.execPath,
			args: [cli, 'mcp'],
			cwd: bare,
			stderr: 'pipe',
			env: { PATH: process.env['PATH'] ?? '' },
		});
		const client = new Client({ name: 'c', version: '1' });
		await client.connect(transport);
		const status = await call(client, 'session_status');
		assert.equal(status.isError, true);
		assert.equal(status.value.error.code, 'notInitialized');
		await client.close();
		assert.deepEqual(fs.readdirSync(bare), [], 'nothing created');

		const { engine } = await openTestEngine(t);
		const withoutCheckpoints = new Proxy(engine, { get: (target, key) => (key === 'checkpoints' ? undefined : Reflect.get(target, key)) }) as Engine;
		const server = createBatonMcpServer({ engine: async () => withoutCheckpoints, actor: 'test', workspaceRoot: engine.ctx.workspaceRoot });
		const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
		await server.connect(serverSide);
		const local = new Client({ name: 'local', version: '1' });
		await local.connect(clientSide);
		for (const name of ['create_checkpoint', 'request_approval']) {
			const result = await call(local, name, name === 'request_approval' ? { reason: 'x' } : {});
			assert.equal(result.isError, true);
			assert.match(result.value.error.message, /checkpoints are not available/);
		}
		const started = await call(local, 'session_start', { name: 'in memory' });
		assert.equal(started.value.session.name, 'in memory');
		await local.close();
	});

	void it('answers an oversize message with a JSON-RPC error and keeps serving', async (t) => {
		const root = path.join(tempDir(t, 'baton-mcp-big-'), 'project');
		fs.mkdirSync(root);
		assert.equal(runBaton(cli, root, ['init']).code, 0);
		const transport = new StdioClientTransport({
			command: process.execPath,
			args: [cli, 'mcp'],
			cwd: root,
			stderr: 'pipe',
			env: { PATH: process.env['PATH'] ?? '', HOME: root },
		});
		const client = new Client({ name: 'big-sender', version: '1' });
		await client.connect(transport);
		t.after(() => client.close());
		const closed: string[] = [];
		transport.onclose = () => closed.push('closed');

		// Over the SDK's 10 MiB read limit, which used to end the server without a word.
		const huge = 'x'.repeat(defaultMaxLineBytes + 1024);
		await assert.rejects(client.callTool({ name: 'session_start', arguments: { name: huge } }), (error: unknown) => {
			assert.ok(error instanceof McpError, String(error));
			assert.equal(error.code, -32600);
			assert.match(error.message, /over 10485760 bytes/);
			return true;
		});
		const started = await call(client, 'session_start', { name: 'after the big one' });
		assert.equal(started.isError, false, JSON.stringify(started.value));
		assert.equal(started.value.session.name, 'after the big one');
		assert.deepEqual(closed, [], 'the server process is still there');
	});
});
