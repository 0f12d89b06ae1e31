/**
 * Project memory over MCP, driven by the SDK's own client against the `baton mcp` process:
 * `record_memory` (de-duplicated, attributed to the active session, refusals as tool errors) and
 * memory in the `briefing` tool's diet and full output.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { tempDir } from '../../helpers';
import { agentCli, runBaton } from '../../cli/agentCli';

let cli = '';
before(async () => {
	cli = await agentCli();
});

type ToolResult = { content: { type: string; text: string }[]; isError?: boolean };

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<{ value: any; isError: boolean }> {
	const result = (await client.callTool({ name, arguments: args })) as ToolResult;
	return { value: JSON.parse(result.content[0]?.text ?? 'null'), isError: result.isError === true };
}

void describe('project memory over MCP', () => {
	void it('records facts with record_memory and serves them in the briefing', async (t) => {
		const root = path.join(tempDir(t, 'baton-mcp-memory-'), 'project');
		fs.mkdirSync(path.join(root, 'src'), { recursive: true });
		fs.writeFileSync(path.join(root, 'src/gateway.ts'), '// generated\n');
		assert.equal(runBaton(cli, root, ['init']).code, 0);
		const transport = new StdioClientTransport({
			command: process.execPath,
			args: [cli, 'mcp'],
			cwd: root,
			stderr: 'pipe',
			env: { PATH: process.env['PATH'] ?? '', HOME: root },
		});
		const client = new Client({ name: 'memory-test-client', version: '1.0.0' });
		await client.connect(transport);
		t.after(() => client.close());

		const tool = (await client.listTools()).tools.find((x) => x.name === 'record_memory');
		assert.deepEqual(tool?.inputSchema.required, ['kind', 'text']);
		assert.match(tool?.description ?? '', /confirmed instead of duplicated/);

		const session = (await call(client, 'session_start', { name: 'Gateway work', agent: 'copilot' })).value.session;
		const recorded = await call(client, 'record_memory', {
			kind: 'gotcha',
			text: 'gateway.ts is generated: edit gateway.template.ts',
			files: ['src/gateway.ts'],
		});
		assert.equal(recorded.isError, false, JSON.stringify(recorded.value));
		assert.equal(recorded.value.duplicate, false);
		assert.equal(recorded.value.entry.sourceSessionId, session.id, 'the only active session learned it');
		assert.deepEqual(recorded.value.entry.files, ['src/gateway.ts']);
		const repeat = await call(client, 'record_memory', { kind: 'gotcha', text: 'Gateway.ts is generated — edit gateway.template.ts.' });
		assert.deepEqual([repeat.value.duplicate, repeat.value.entry.id, repeat.value.entry.confirmations], [true, recorded.value.entry.id, 2]);
		await call(client, 'record_memory', { kind: 'knowledge', text: 'Amounts are integers in minor units' });

		const refused = await call(client, 'record_memory', { kind: 'gotcha', text: 'x', files: ['../../etc/passwd'] });
		assert.equal(refused.isError, true);
		assert.deepEqual(refused.value.error, { code: 'invalidInput', message: 'memory files[0]: ../../etc/passwd is outside the workspace' });
		const badKind = (await client.callTool({ name: 'record_memory', arguments: { kind: 'trivia', text: 'x' } })) as ToolResult;
		assert.equal(badKind.isError, true, 'the schema refuses an unknown kind');

		const diet = await call(client, 'briefing', { sessionId: session.id });
		assert.match(
			diet.value.text,
			/Project memory \(gotchas first\):\n- Gotcha: gateway\.ts is generated: edit gateway\.template\.ts \(src\/gateway\.ts\)\n- Fact: Amounts are integers in minor units/,
		);
		const full = await call(client, 'briefing', { sessionId: session.id, format: 'full' });
		assert.equal(full.value.briefing.memory.total, 2);
		assert.deepEqual(
			full.value.briefing.memory.entries.map((e: { kind: string }) => e.kind),
			['gotcha', 'knowledge'],
		);
	});
});
