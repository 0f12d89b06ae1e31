/**
 * The Session Chains tree at 5,000 sessions in a real extension host: the workspace was seeded by
 * scripts/seedSessions.ts (250 scopes of 20 chained sessions, four of them active). Measures the
 * first root request (what the view awaits: the RPC to the backend, served from its warm overview) and
 * the rows VS Code asks for, for `npm run bench`; asserts only what the tree shows.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import * as vscode from 'vscode';
import type { BatonApi } from '../../src/extension/extension';
import { activateBaton } from './activateBaton';
import type { ScopeNode, SessionNode } from '../../src/extension/views/sessionChainsProvider';

let api: BatonApi;
let extensionPath: string;

const root = (): string => vscode.workspace.workspaceFolders?.[0]?.uri.fsPath as string;

suite('5,000 sessions in the real editor', () => {
	suiteSetup(async () => {
		({ api, extensionPath } = await activateBaton());
	});

	test('the Session Chains tree shows every chain, a page of groups at a time; its first request is measured', async () => {
		console.log(`BATON-MEASURE activationMs=${api.activationMs.toFixed(2)}`);
		const started = performance.now();
		const firstPage = await api.chains.getChildren();
		const firstCallMs = performance.now() - started;
		// The view may have asked first; the provider timed whichever request loaded the first level.
		const firstLoadMs = api.chains.lastLoadMs;
		assert.ok(firstLoadMs > 0, 'the first level was loaded from the backend');
		console.log(`BATON-MEASURE treeFirstMs=${firstLoadMs.toFixed(2)}`);
		// A hundred groups and a row that shows the next hundred (run through its own command, as a click or Enter runs it).
		for (const [shown, label] of [
			[100, 'Show 100 more groups'],
			[200, 'Show 50 more groups'],
		] as const) {
			const nodes = await api.chains.getChildren();
			assert.equal(nodes.length, shown + 1);
			// The test's bundle has its own copy of the classes: rows are told apart by their tree items.
			const item = api.chains.getTreeItem(nodes.at(-1) as ScopeNode);
			assert.deepEqual([item.contextValue, item.label, item.description], ['more', label, `${shown} of 250`], 'the last row shows more');
			assert.ok(item.command);
			await vscode.commands.executeCommand(item.command.command, ...(item.command.arguments ?? []));
		}
		assert.equal(firstPage.length, 101);
		const groups = (await api.chains.getChildren()) as ScopeNode[];
		assert.equal(groups.length, 250, 'one group per scope, every one shown: no "show more" row left');
		assert.ok(groups.every((g) => api.chains.getTreeItem(g).contextValue === 'scope'));
		assert.deepEqual(
			groups.slice(0, 100).map((g) => g.chains.scopeKey),
			(firstPage.slice(0, 100) as ScopeNode[]).map((g) => g.chains.scopeKey),
			'the pages follow the first one',
		);

		// What the view shows without a click: every group's row, and the rows of the groups that open
		// expanded (the four with an active session), which came with the first answer.
		const visibleStarted = performance.now();
		const expanded: ScopeNode[] = [];
		for (const group of groups) {
			const item = api.chains.getTreeItem(group);
			assert.ok(typeof item.label === 'string' && item.label.length > 0, 'a labelled scope row');
			if (item.collapsibleState === vscode.TreeItemCollapsibleState.Expanded) {
				expanded.push(group);
				for (const child of (await api.chains.getChildren(group)) as SessionNode[]) api.chains.getTreeItem(child);
			}
		}
		console.log(`BATON-MEASURE treeVisibleMs=${(performance.now() - visibleStarted).toFixed(2)}`);
		assert.equal(expanded.length, 4, 'the groups with an active session open expanded');
		assert.equal(groups[0]?.chains.sessionCount, 20);
		assert.match(String(api.chains.getTreeItem(groups.find((g) => g.chains.activeCount === 0) as ScopeNode).tooltip), /— 20 sessions; last activity/);

		// Every row, each collapsed group expanded by its own request (what expanding them all costs).
		const rowsStarted = performance.now();
		let sessions = 0;
		let counted = 0;
		let active = 0;
		const expandMs: number[] = [];
		for (const group of groups) {
			const opened = performance.now();
			const children = (await api.chains.getChildren(group)) as SessionNode[];
			if (!expanded.includes(group)) expandMs.push(performance.now() - opened);
			for (const child of children) {
				api.chains.getTreeItem(child);
				if (child.session.status === 'active') active += 1;
			}
			sessions += children.length;
			counted += group.chains.sessionCount;
			assert.equal(children.length, 20, `${group.chains.scopeKey}: its chain of 20`);
			assert.deepEqual(
				children.map((c) => c.position),
				children.map((_, i) => i + 1),
				'chain order',
			);
		}
		const rowsMs = performance.now() - rowsStarted;
		console.log(`BATON-MEASURE treeRowsMs=${rowsMs.toFixed(2)}`);
		// One collapsed group expanded (a request to the backend each): the median of the 246.
		console.log(`BATON-MEASURE treeExpandMs=${(expandMs.sort((a, b) => a - b)[Math.floor(expandMs.length / 2)] ?? 0).toFixed(2)}`);
		assert.equal(expandMs.length, 246);
		assert.equal(sessions, 5000);
		assert.equal(counted, 5000);
		assert.equal(active, 4);
		assert.ok(firstCallMs >= 0);
	});

	test('a session started from a terminal reloads the tree with it', async () => {
		const changed = new Promise<void>((resolve) => {
			const listener = api.workspace.onDidChangeData(() => {
				listener.dispose();
				resolve();
			});
		});
		const run = spawnSync(process.execPath, [path.join(extensionPath, 'dist', 'cli.js'), 'session', 'start', '--name', 'from the terminal', '--json'], {
			cwd: root(),
			encoding: 'utf8',
			env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
		});
		assert.equal(run.status, 0, run.stdout + run.stderr);
		await changed;
		const started = performance.now();
		const groups = (await api.chains.getChildren()) as ScopeNode[];
		console.log(`BATON-MEASURE treeReloadMs=${(performance.now() - started).toFixed(2)}`);
		assert.equal(
			groups.reduce((n, g) => n + g.chains.sessionCount, 0),
			5001,
		);
		// A new group of one opens expanded: its row came with the groups, no second request.
		const global = groups.find((g) => g.chains.scopeKey === 'global');
		assert.ok(global?.rows, 'the new group came with its row');
		const names = ((await api.chains.getChildren(global)) as SessionNode[]).map((n) => n.session.name);
		assert.deepEqual(names, ['from the terminal'], 'the new session is in the tree');
	});
});
