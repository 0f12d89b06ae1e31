/**
 * Agents in the editor (workspace prepared by scripts/runEditorTests.mjs: Baton set up and a Claude
 * Code transcript archived through the real hooks): the connect commands write hook and MCP
 * configuration beside the user's own — with a `node` from PATH, never the editor's binary — and
 * undo it exactly; the Transcripts view lists and opens the archive; the summary falls back to the
 * deterministic one when the editor has no language model; VS Code gets Baton's MCP server from the
 * definition provider, and that server answers the MCP SDK's client.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { SummaryOutcome } from '../../src/extension/agents/summarizeCommand';
import type { TranscriptNode } from '../../src/extension/agents/transcriptsView';
import type { BatonApi } from '../../src/extension/extension';
import { activateBaton } from './activateBaton';
import { CommandIds } from '../../src/extension/ids';
import type { ConnectAgentResult } from '../../src/protocol/agentDto';

let api: BatonApi;
const root = (): string => vscode.workspace.workspaceFolders?.[0]?.uri.fsPath as string;
const file = (name: string): string => path.join(root(), name);
const read = (name: string): string => fs.readFileSync(file(name), 'utf8');
const tabs = (): vscode.Tab[] => vscode.window.tabGroups.all.flatMap((g) => g.tabs);
/** The binary this extension host runs on (code-server's Node here; VS Code's Electron on a desktop). */
const editorBinaries = (): string[] => [process.execPath, fs.realpathSync(process.execPath)];

const userSettings =
	'{\n  "hooks": {\n    "Stop": [\n      { "hooks": [{ "type": "command", "command": "notify-send done" }] }\n    ]\n  },\n  "model": "opus"\n}\n';
const userMcp = '{\n  "mcpServers": {\n    "github": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"] }\n  }\n}\n';

suite('Agents in the editor', () => {
	suiteSetup(async () => {
		({ api } = await activateBaton());
		fs.mkdirSync(file('.claude'), { recursive: true });
		fs.writeFileSync(file('.claude/settings.json'), userSettings);
		fs.writeFileSync(file('.mcp.json'), userMcp);
	});

	test('Connect Claude Code merges hooks and the MCP server beside the user’s, run by a node on PATH, not the editor', async () => {
		const result = (await vscode.commands.executeCommand(CommandIds.connectClaude, { mcp: true })) as ConnectAgentResult;
		assert.ok(result, 'the command returned what it wrote');
		assert.equal(result.launcher, 'node-on-path');
		assert.deepEqual(
			result.written.map((w) => `${w.action} ${w.path}`),
			['updated .claude/settings.json', 'created .claude/settings.local.json'],
		);
		assert.deepEqual([result.mcp?.action, result.mcp?.path, result.mcp?.name], ['updated', '.mcp.json', 'baton']);
		const settings = JSON.parse(read('.claude/settings.json'));
		assert.deepEqual(settings.hooks.Stop[0], { hooks: [{ type: 'command', command: 'notify-send done' }] }, 'the user’s hook first, unchanged');
		const command = settings.hooks.SessionStart[0].hooks[0].command as string;
		for (const binary of editorBinaries()) {
			assert.ok(!command.includes(binary), `the hook command ${command} is not the editor’s binary ${binary}`);
		}
		// A committed file names no path of this machine: `baton` from PATH, else the user's launcher.
		assert.equal(command, '"$(command -v baton || echo "$HOME/.baton/bin/baton")" hook session-start');
		assert.equal(result.warning, null, 'nothing to fix by hand: the launcher is kept for this installation');
		const mcp = JSON.parse(read('.mcp.json'));
		assert.deepEqual(Object.keys(mcp.mcpServers), ['github', 'baton']);
		assert.ok(!editorBinaries().includes(mcp.mcpServers.baton.command));
		// What was written is shown: the diff of the settings against their backup.
		const diff = tabs().find(
			(t) => t.input instanceof vscode.TabInputTextDiff && (t.input as vscode.TabInputTextDiff).modified.fsPath === file('.claude/settings.json'),
		);
		assert.ok(diff, 'a diff editor shows the change');
		assert.equal(fs.readFileSync((diff.input as vscode.TabInputTextDiff).original.fsPath, 'utf8'), userSettings, 'against the backup');
		// The hook runs as Claude runs it: through sh, in the workspace, with a small environment.
		// A teammate who put Baton's CLI on PATH (here: a link to the extension's) runs it as is.
		const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-path-'));
		const extension = vscode.extensions.all.find((e) => e.packageJSON?.name === 'baton');
		assert.ok(extension, 'the extension is installed');
		fs.symlinkSync(path.join(extension.extensionPath, 'dist', 'cli.js'), path.join(bin, 'baton'));
		const answer = execFileSync('/bin/sh', ['-c', command], {
			cwd: root(),
			encoding: 'utf8',
			input: JSON.stringify({ session_id: 'c-editor-1', hook_event_name: 'SessionStart', source: 'startup', cwd: root() }),
			env: { PATH: `${bin}:${path.dirname(process.execPath)}:/usr/bin:/bin`, HOME: os.tmpdir() },
		});
		fs.rmSync(bin, { recursive: true, force: true });
		assert.equal(JSON.parse(answer).hookSpecificOutput.hookEventName, 'SessionStart');
		await vscode.commands.executeCommand('workbench.action.closeAllEditors');
	});

	test('connecting again changes nothing; a malformed hook file is refused and left as it was', async () => {
		const settings = read('.claude/settings.json');
		const again = (await vscode.commands.executeCommand(CommandIds.connectClaude, { mcp: true })) as ConnectAgentResult;
		assert.deepEqual(
			[...again.written, again.mcp].map((w) => w?.action),
			['unchanged', 'unchanged', 'unchanged'],
		);
		assert.equal(read('.claude/settings.json'), settings);
		assert.equal(tabs().length, 0, 'nothing to show when nothing changed');
		fs.mkdirSync(file('.github/hooks'), { recursive: true });
		fs.writeFileSync(file('.github/hooks/baton.json'), '{ "hooks": ');
		assert.equal(await vscode.commands.executeCommand(CommandIds.connectCopilot, { mcp: true }), undefined, 'refused (reported as a warning)');
		assert.equal(read('.github/hooks/baton.json'), '{ "hooks": ');
		assert.equal(fs.existsSync(file('.vscode/mcp.json')), false, 'nothing else was written either');
		fs.rmSync(file('.github'), { recursive: true });
	});

	test('Connect Cline writes its hook scripts and, asked, an entry of this workspace in Cline’s own MCP settings', async () => {
		const settingsFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'baton-cline-')), 'settings', 'cline_mcp_settings.json');
		assert.match(api.clineMcpSettings, /saoudrizwan\.claude-dev[/\\]settings[/\\]cline_mcp_settings\.json$/);
		const result = (await vscode.commands.executeCommand(CommandIds.connectCline, { mcp: true, clineMcpSettings: settingsFile })) as ConnectAgentResult;
		assert.equal(result.written.filter((w) => w.action === 'created').length, 8);
		assert.equal(result.mcp?.path, settingsFile);
		const script = read('.clinerules/hooks/TaskStart');
		assert.ok(!editorBinaries().some((b) => script.includes(b)), script);
		const entry = JSON.parse(fs.readFileSync(settingsFile, 'utf8')).mcpServers[result.mcp?.name as string];
		assert.deepEqual(entry.args.slice(-3), ['mcp', '--workspace', root()]);
		const removed = (await vscode.commands.executeCommand(CommandIds.disconnectAgent, {
			agent: 'cline',
			mcp: true,
			clineMcpSettings: settingsFile,
		})) as ConnectAgentResult;
		assert.equal(removed.written.filter((w) => w.action === 'removed').length, 8);
		assert.deepEqual(JSON.parse(fs.readFileSync(settingsFile, 'utf8')), {});
	});

	test('the Transcripts view groups the archive per session and opens a readable rendering', async () => {
		const groups = await api.transcripts.groups();
		const group = groups.find((g) => g.sessionId !== null);
		assert.ok(group, JSON.stringify(groups.map((g) => g.name)));
		assert.equal(group.name, 'Claude Code session 6f1c2a9e');
		const item = api.transcripts.getTreeItem(group);
		assert.match(String(item.description), /^Claude Code · 1 turn · /);
		// (The test bundle has its own copy of the classes: shapes, not instanceof.)
		const [node] = (await api.transcripts.getChildren(group)) as TranscriptNode[];
		assert.ok(node && 'transcript' in node);
		const row = api.transcripts.getTreeItem(node);
		assert.equal(row.label, 'Payment idempotency key');
		assert.match(String(row.description), /^1 turn · 4 tools · \d+ (KB|B) · /);
		assert.equal(row.command?.command, CommandIds.openTranscript);
		const uri = (await vscode.commands.executeCommand(CommandIds.openTranscript, ...(row.command?.arguments ?? []))) as vscode.Uri;
		assert.equal(uri.scheme, 'baton-transcript');
		const text = (await vscode.workspace.openTextDocument(uri)).getText();
		assert.match(text, /^# Payment idempotency key — Claude Code transcript/);
		assert.match(text, /> Add an idempotency key to the payment charge/);
		await waitFor(() => tabs().some((t) => /Preview/.test(t.label)), 'the markdown preview opens');
		const synced = (await vscode.commands.executeCommand(CommandIds.syncTranscripts)) as { transcripts: number };
		assert.equal(synced.transcripts, 0, 'nothing new to archive');
		await vscode.commands.executeCommand('workbench.action.closeAllEditors');
	});

	test('Summarize Session falls back to the deterministic summary without a language model, and saves it as the handoff once', async () => {
		const [group] = (await api.transcripts.groups()).filter((g) => g.sessionId);
		const id = group?.sessionId as string;
		const first = (await vscode.commands.executeCommand(CommandIds.summarizeSession, { id, action: 'none' })) as SummaryOutcome;
		assert.equal(first.model, null);
		assert.match(first.note ?? '', /No language model is available/);
		assert.match(first.markdown, /^# Session summary: Claude Code session 6f1c2a9e\n\n> No language model is available[^\n]*\n\n`ses_\w+` · active · /);
		assert.match(first.markdown, /`src\/payment\.js`/);
		assert.equal(first.offered, 'saveAsHandoff', 'an active session without a handoff may keep it');
		const shown = vscode.window.activeTextEditor?.document;
		assert.equal(shown?.languageId, 'markdown');
		assert.equal(shown?.getText(), first.markdown);
		await vscode.commands.executeCommand(CommandIds.summarizeSession, { id, action: 'saveAsHandoff' });
		const after = (await vscode.commands.executeCommand(CommandIds.summarizeSession, { id, useModel: false, action: 'none' })) as SummaryOutcome;
		assert.equal(after.offered, 'copy', 'a session with a handoff is offered Copy');
		assert.match(after.markdown, /`ses_\w+` · ended · /, 'saving the summary as the handoff note ended the session');
		await vscode.commands.executeCommand('workbench.action.closeAllEditors');
	});

	test('Disconnect takes Baton out of Claude’s files and gives them back byte for byte', async () => {
		const removed = (await vscode.commands.executeCommand(CommandIds.disconnectAgent, { agent: 'claude-code' })) as ConnectAgentResult;
		assert.deepEqual([removed.written[0]?.action, removed.mcp?.action], ['updated', 'updated']);
		assert.equal(read('.claude/settings.json'), userSettings);
		assert.equal(read('.mcp.json'), userMcp);
	});

	test('VS Code gets Baton’s MCP server from the definition provider, and it answers the MCP client', async () => {
		assert.equal(api.mcp.registered, true, 'VS Code 1.139 has the API and accepted the provider (package.json declares it)');
		await waitFor(() => api.mcp.provided > 0, 'VS Code asks the provider for its servers by itself');
		const [definition, ...more] = await api.mcp.provideMcpServerDefinitions();
		assert.equal(more.length, 0);
		assert.ok(definition instanceof (vscode as unknown as { McpStdioServerDefinition: new (...a: unknown[]) => object }).McpStdioServerDefinition);
		assert.equal(definition.label, 'Baton');
		assert.deepEqual(definition.args.slice(-3), ['mcp', '--workspace', root()]);
		assert.equal(definition.cwd?.fsPath, root());
		const transport = new StdioClientTransport({
			command: definition.command,
			args: definition.args,
			cwd: definition.cwd?.fsPath,
			env: { PATH: process.env['PATH'] ?? '', HOME: os.tmpdir(), ...(definition.env as Record<string, string>) },
			stderr: 'pipe',
		});
		const client = new Client({ name: 'baton-exthost-test', version: '1.0.0' });
		await client.connect(transport);
		try {
			const tools = (await client.listTools()).tools.map((t) => t.name);
			assert.ok(tools.includes('session_start') && tools.includes('request_approval'), tools.join(', '));
		} finally {
			await client.close();
		}
	});
});

async function waitFor(predicate: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (!predicate()) {
		if (Date.now() > deadline) {
			throw new Error(`timed out: ${what}`);
		}
		await new Promise((r) => setTimeout(r, 100));
	}
}
