/**
 * Import and export through the editor's commands, with their arguments instead of the dialogs
 * (workspace prepared by scripts/runEditorTests.mjs: an empty folder with Baton set up). The sources
 * are written here in their peers' formats: Beads JSONL and CLEO's legacy sessions.json.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import type { BatonApi } from '../../src/extension/extension';
import { activateBaton } from './activateBaton';
import { CommandIds } from '../../src/extension/ids';
import type { ExportResultDto, ImportReportDto } from '../../src/protocol/interopDto';
import type { ScopeNode, SessionNode } from '../../src/extension/views/sessionChainsProvider';

let api: BatonApi;
let sources: string;
let extensionPath: string;

/** The task list as the bundled CLI (another process) sees it. (RequestTypes from this bundle are not the extension's.) */
function cliTasks(): { title: string; status: string; priority: string }[] {
	const root = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath as string;
	const run = spawnSync(process.execPath, [path.join(extensionPath, 'dist', 'cli.js'), 'task', 'list', '--json'], {
		cwd: root,
		encoding: 'utf8',
		env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
	});
	return (JSON.parse(run.stdout) as { tasks: { title: string; status: string; priority: string }[] }).tasks;
}
const ended = 'session_20251228_100000_b2b2b2';

const at = '2026-02-01T10:00:00Z';
const issues = [
	{ id: 'bd-a1', title: 'Search', status: 'open', priority: 1, issue_type: 'epic', created_at: at },
	{ id: 'bd-a1.1', title: 'Index products', status: 'in_progress', priority: 0, issue_type: 'task', created_at: at },
	{
		id: 'bd-b2',
		title: 'Query parser',
		status: 'blocked',
		priority: 2,
		issue_type: 'feature',
		created_at: at,
		dependencies: [{ issue_id: 'bd-b2', depends_on_id: 'bd-a1.1', type: 'blocks' }],
	},
];

const legacySessions = {
	version: '1.0.0',
	project: 'shop',
	config: { maxConcurrentSessions: 5, maxActiveTasksPerScope: 1, scopeValidation: 'warn', allowNestedScopes: true, allowScopeOverlap: false },
	sessions: [
		{
			id: ended,
			status: 'ended',
			name: 'Payments spike',
			scope: { type: 'epic', rootTaskId: 'T020' },
			focus: { currentTask: 'T021', sessionNote: 'Webhooks verified', nextAction: 'Wire refunds' },
			startedAt: '2025-12-28T10:00:00Z',
			endedAt: '2025-12-28T12:00:00Z',
		},
		{
			id: 'session_20251220_100000_c3c3c3',
			status: 'archived',
			name: 'Old cleanup',
			scope: { type: 'subtree', rootTaskId: 'T030' },
			startedAt: '2025-12-20T10:00:00Z',
			endedAt: '2025-12-20T11:00:00Z',
			archivedAt: '2025-12-27T00:00:00Z',
		},
	],
	sessionHistory: [
		{
			id: 'session_20251201_080000_d4d4d4',
			name: 'First payments try',
			scope: { type: 'epic', rootTaskId: 'T020' },
			startedAt: '2025-12-01T08:00:00Z',
			endedAt: '2025-12-01T09:30:00Z',
			resumedAs: ended,
		},
	],
};

async function treeSessions(): Promise<Map<string, string>> {
	const out = new Map<string, string>();
	for (const group of (await api.chains.getChildren()) as ScopeNode[]) {
		for (const row of (await api.chains.getChildren(group)) as SessionNode[]) out.set(row.session.id, row.session.status);
	}
	return out;
}

suite('Import and export in the editor', () => {
	suiteSetup(async () => {
		({ api, extensionPath } = await activateBaton());
		sources = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-interop-sources-'));
		fs.writeFileSync(path.join(sources, 'issues.jsonl'), `${issues.map((i) => JSON.stringify(i)).join('\n')}\n`);
		fs.writeFileSync(path.join(sources, 'sessions.json'), JSON.stringify(legacySessions, null, 2));
	});

	suiteTeardown(() => fs.rmSync(sources, { recursive: true, force: true }));

	test('Baton: Import… brings Beads issues in as tasks', async () => {
		const report = (await vscode.commands.executeCommand(CommandIds.importData, {
			format: 'beads',
			path: path.join(sources, 'issues.jsonl'),
			confirmed: true,
		})) as ImportReportDto;
		assert.deepEqual(report.errors, []);
		assert.equal(report.added.tasks, 3);
		assert.deepEqual(
			cliTasks().map((t) => [t.title, t.status, t.priority]),
			[
				['Search', 'pending', 'high'],
				['Index products', 'active', 'critical'],
				['Query parser', 'blocked', 'medium'],
			],
		);
		const again = (await vscode.commands.executeCommand(CommandIds.importData, {
			format: 'beads',
			path: path.join(sources, 'issues.jsonl'),
			confirmed: true,
		})) as ImportReportDto;
		assert.equal(again.added.tasks, 0);
		assert.equal(again.unchanged.tasks, 3);
	});

	test('Baton: Import… brings CLEO sessions in, legacy states visible in the tree', async () => {
		const report = (await vscode.commands.executeCommand(CommandIds.importData, {
			format: 'cleo-sessions',
			path: path.join(sources, 'sessions.json'),
			confirmed: true,
		})) as ImportReportDto;
		assert.deepEqual(report.errors, []);
		assert.deepEqual(report.added, { sessions: 3, tasks: 0, decisions: 0, handoffs: 1, settings: 1 });
		const rows = await treeSessions();
		assert.equal(rows.get(ended), 'ended');
		assert.equal(rows.get('session_20251220_100000_c3c3c3'), 'archived');
		assert.equal(rows.get('session_20251201_080000_d4d4d4'), 'closed');
	});

	test('a bad source is refused with the record named, and nothing is written', async () => {
		const bad = path.join(sources, 'bad.jsonl');
		fs.writeFileSync(bad, `${JSON.stringify({ ...issues[0], id: 'bd-new' })}\n${JSON.stringify({ ...issues[1], id: 'bd-x', priority: 9 })}\n`);
		const before = api.workspace.status?.sequence;
		const report = (await vscode.commands.executeCommand(CommandIds.importData, { format: 'beads', path: bad, confirmed: true })) as ImportReportDto;
		assert.deepEqual(
			report.errors.map((e) => `${e.record}: ${e.field}`),
			['line 2 (bd-x): priority'],
		);
		assert.equal(cliTasks().length, 3);
		assert.equal((await api.workspace.refresh())?.sequence, before);
	});

	test('Baton: Export… writes a chain as JSON files, and the markdown view shows its handoff', async () => {
		const out = path.join(sources, 'export');
		const result = (await vscode.commands.executeCommand(CommandIds.exportSessions, { sessionId: ended, chain: true, out })) as ExportResultDto;
		assert.deepEqual(result.files, ['index.json', '01-First-payments-try.json', '02-Payments-spike.json']);
		const index = JSON.parse(fs.readFileSync(path.join(out, 'index.json'), 'utf8')) as { sessions: { id: string }[] };
		assert.deepEqual(
			index.sessions.map((s) => s.id),
			['session_20251201_080000_d4d4d4', ended],
		);

		const document = (await vscode.commands.executeCommand(CommandIds.showMarkdown, { id: ended, kind: 'handoff', preview: false })) as vscode.TextDocument;
		assert.equal(document.uri.scheme, 'baton-markdown');
		assert.equal(path.posix.basename(document.uri.path), 'Payments spike (handoff).md', 'the tab is titled by the session’s name, not its id');
		assert.equal(document.languageId, 'markdown');
		assert.match(document.getText(), /^# Handoff: Payments spike\n/);
		assert.match(document.getText(), /## Next action\n\nWire refunds\n/);
		await vscode.commands.executeCommand('workbench.action.closeAllEditors');
	});
});
