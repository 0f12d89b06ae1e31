/**
 * The agents RPCs of the backend, as the editor calls them: the server process runs on a binary that
 * counts as the editor's own (here: the test's Node), so what it writes for agents must name another
 * `node` found on PATH; the MCP definition it hands VS Code starts a server the SDK's client talks
 * to; archived transcripts list and render; a session summary comes back as markdown.
 */
import assert from 'node:assert/strict';
import { fork } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, it, type TestContext } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createMessageConnection, IPCMessageReader, IPCMessageWriter, ResponseError, type MessageConnection } from 'vscode-jsonrpc/node';
import * as rpc from '../../../src/protocol/rpc';
import { seedArchivedTranscript } from '../../../scripts/seedTranscript';
import { agentCli } from '../cli/agentCli';
import { stopBeforeRemoval, stopChild, tempDir } from '../helpers';

const serverMain = path.resolve(__dirname, '../../../src/server/main.ts');
let cli = '';
before(async () => {
	cli = await agentCli();
});

/** A `node` of its own on PATH: a different file from the server's binary, running the same Node. */
function nodeOnPath(dir: string): string {
	fs.mkdirSync(dir, { recursive: true });
	const file = path.join(dir, 'node');
	fs.writeFileSync(file, `#!/bin/sh\nexec "${process.execPath}" "$@"\n`, { mode: 0o755 });
	return file;
}

function startServer(t: TestContext, workspace: string, PATH: string, launcherHome?: string): MessageConnection {
	const child = fork(serverMain, ['--workspace', workspace, '--cli', cli], {
		execArgv: ['--import', 'tsx'],
		stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
		env: { ...process.env, PATH, ...(launcherHome ? { BATON_LAUNCHER_HOME: launcherHome } : {}) },
	});
	const connection = createMessageConnection(new IPCMessageReader(child), new IPCMessageWriter(child));
	connection.listen();
	// Stopped before the test's temp folders are removed: the backend writes into its workspace.
	stopBeforeRemoval(t, async () => {
		connection.dispose();
		await stopChild(child);
	});
	return connection;
}

const codeOf = (e: unknown): string | undefined => (e instanceof ResponseError ? (e.data as rpc.RpcErrorData).code : undefined);

void describe('agents over JSON-RPC', () => {
	void it('connects Claude Code with a command that finds Baton on every machine (files people commit name no path of this machine), and keeps the user’s launcher it falls back on; idempotent; a malformed file is refused untouched', async (t) => {
		const base = tempDir(t, 'baton-agent-rpc-');
		const root = path.join(base, 'project');
		fs.mkdirSync(root);
		nodeOnPath(path.join(base, 'bin'));
		const home = path.join(base, 'home');
		const connection = startServer(t, root, `${path.dirname(process.execPath)}:${path.join(base, 'bin')}:/usr/bin:/bin`, home);

		const first = await connection.sendRequest(rpc.agentConnect, { agent: 'claude-code', mcp: true });
		assert.equal(first.launcher, 'node-on-path');
		assert.equal(first.command, '"$(command -v baton || echo "$HOME/.baton/bin/baton")"', 'baton from PATH where there is one, else the user’s launcher');
		assert.equal(first.warning, null);
		assert.match(
			fs.readFileSync(path.join(home, '.baton', 'bin', 'baton'), 'utf8'),
			/cli\.js" "\$@"/,
			'the backend keeps the launcher, running this installation',
		);
		assert.deepEqual(
			first.written.map((w) => `${w.action} ${w.path}`),
			['created .claude/settings.json', 'created .claude/settings.local.json'],
		);
		assert.deepEqual([first.mcp?.action, first.mcp?.path, first.mcp?.name], ['created', '.mcp.json', 'baton']);
		assert.ok(fs.existsSync(path.join(root, '.baton')), 'connecting set Baton up');
		const settings = JSON.parse(fs.readFileSync(path.join(root, '.claude', 'settings.json'), 'utf8'));
		assert.equal(settings.hooks.SessionStart[0].hooks[0].command, '"$(command -v baton || echo "$HOME/.baton/bin/baton")" hook session-start');
		assert.deepEqual(JSON.parse(fs.readFileSync(path.join(root, '.mcp.json'), 'utf8')).mcpServers.baton, {
			type: 'stdio',
			command: 'baton',
			args: ['mcp'],
		});
		for (const file of ['.claude/settings.json', '.mcp.json']) {
			const text = fs.readFileSync(path.join(root, file), 'utf8');
			assert.ok(!text.includes(base) && !text.includes(process.execPath), `${file} names no path of this machine`);
		}

		const again = await connection.sendRequest(rpc.agentConnect, { agent: 'claude-code', mcp: true });
		assert.deepEqual(
			[...again.written, again.mcp].map((w) => w?.action),
			['unchanged', 'unchanged', 'unchanged'],
		);

		fs.writeFileSync(path.join(root, '.claude', 'settings.json'), '{"hooks": ');
		const refused = await connection.sendRequest(rpc.agentConnect, { agent: 'claude-code', mcp: true, remove: true }).catch((e: unknown) => e);
		assert.equal(codeOf(refused), 'configInvalid');
		assert.match((refused as Error).message, /settings\.json is not valid JSON/);
		assert.equal(fs.readFileSync(path.join(root, '.claude', 'settings.json'), 'utf8'), '{"hooks": ');
		assert.ok(JSON.parse(fs.readFileSync(path.join(root, '.mcp.json'), 'utf8')).mcpServers.baton, 'the MCP entry stayed too');

		const copilot = await connection.sendRequest(rpc.agentConnect, { agent: 'copilot' });
		assert.deepEqual([copilot.written[0]?.path, copilot.mcp], ['.github/hooks/baton.json', null]);
		const removed = await connection.sendRequest(rpc.agentConnect, { agent: 'copilot', remove: true });
		assert.equal(removed.written[0]?.action, 'removed');
	});

	void it('refuses to connect when the only Node on PATH is its own binary, saying what to install', async (t) => {
		const root = tempDir(t, 'baton-agent-rpc-nonode-');
		const connection = startServer(t, root, `${path.dirname(process.execPath)}:/usr/bin:/bin`);
		const refused = await connection.sendRequest(rpc.agentConnect, { agent: 'claude-code' }).catch((e: unknown) => e);
		assert.equal(codeOf(refused), 'invalidInput');
		assert.match((refused as Error).message, /No Node\.js 20\+ on PATH.*Install Node\.js 20\+/);
		assert.equal(fs.existsSync(path.join(root, '.claude')), false);
		// For this window only (VS Code's MCP definition), its own binary serves.
		const definition = await connection.sendRequest(rpc.mcpDefinition, undefined);
		assert.deepEqual([definition.launcher, definition.command], ['editor-as-node', process.execPath]);
	});

	void it('hands VS Code an MCP definition that starts a working Baton server', async (t) => {
		const base = tempDir(t, 'baton-agent-rpc-mcp-');
		const root = path.join(base, 'project');
		fs.mkdirSync(root);
		nodeOnPath(path.join(base, 'bin'));
		const connection = startServer(t, root, `${path.join(base, 'bin')}:/usr/bin:/bin`);
		const definition = await connection.sendRequest(rpc.mcpDefinition, undefined);
		assert.deepEqual(definition.args.slice(-3), ['mcp', '--workspace', root]);
		assert.equal(definition.cwd, root);
		const transport = new StdioClientTransport({
			command: definition.command,
			args: definition.args,
			cwd: definition.cwd,
			env: { PATH: '/usr/bin:/bin', HOME: base, ...definition.env },
			stderr: 'pipe',
		});
		const client = new Client({ name: 'vscode-stand-in', version: '1.139.0' });
		await client.connect(transport);
		t.after(() => client.close());
		const tools = (await client.listTools()).tools.map((tool) => tool.name).sort();
		assert.deepEqual(tools, [
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
	});

	void it('lists and renders archived transcripts per session, and summarizes the session', async (t) => {
		const base = tempDir(t, 'baton-agent-rpc-transcripts-');
		const root = path.join(base, 'shop');
		fs.mkdirSync(root);
		const empty = startServer(t, root, '/usr/bin:/bin');
		assert.deepEqual(await empty.sendRequest(rpc.transcriptList, {}), { transcripts: [] }, 'nothing before Baton is set up');
		const seeded = seedArchivedTranscript({ root, cli, claudeHome: path.join(base, 'claude') });
		const { transcripts } = await empty.sendRequest(rpc.transcriptList, {});
		assert.equal(transcripts.length, 1);
		const [row] = transcripts;
		assert.equal(row?.sessionId, seeded.sessionId);
		assert.equal(row?.sessionName, 'Claude Code session 6f1c2a9e');
		assert.equal(row?.sessionStatus, 'active');
		assert.equal(row?.title, 'Payment idempotency key');
		assert.deepEqual([row?.userRequests, row?.toolCalls, row?.errors, row?.filesTouched], [1, 4, 1, 1]);
		assert.ok((row?.tokens ?? 0) > 40_000 && (row?.archiveBytes ?? 0) > 0);

		const shown = await empty.sendRequest(rpc.transcriptShow, { id: seeded.agentSessionId });
		assert.match(shown.markdown, /^# Payment idempotency key — Claude Code transcript/);
		assert.match(shown.markdown, /> Add an idempotency key to the payment charge/);
		assert.match(shown.markdown, /\*\*Error \(Bash\):\*\*/);
		assert.equal(codeOf(await empty.sendRequest(rpc.transcriptShow, { id: 'nope' }).catch((e: unknown) => e)), 'notFound');

		// Claude deletes its copy; the archive still renders.
		fs.rmSync(seeded.transcriptPath);
		assert.deepEqual(await empty.sendRequest(rpc.transcriptSync, undefined), { transcripts: 0, parsedBytes: 0, excerpts: 0, unlinked: 0 });
		assert.match(
			(await empty.sendRequest(rpc.transcriptShow, { id: seeded.agentSessionId })).markdown,
			/deleted by the agent; this archive is what remains/,
		);

		const { summary, markdown } = await empty.sendRequest(rpc.sessionSummary, { id: seeded.sessionId });
		assert.deepEqual([summary.sessionId, summary.turns, summary.filesChanged], [seeded.sessionId, 1, ['src/payment.js']]);
		assert.match(markdown, /^# Session summary: Claude Code session 6f1c2a9e/);
		assert.match(markdown, /Add an idempotency key/);
		assert.match(markdown, /## Files changed\n\n- `src\/payment\.js`/);
	});
});
