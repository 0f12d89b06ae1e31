/**
 * The Session Chains tree at 5,000 sessions in a real extension host: the workspace was seeded by
 * scripts/seedSessions.ts (250 scopes of 20 chained sessions, four of them active). Measures the
 * first root request (what the view awaits: the RPC to the backend and the overview it computes) and
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

	test('the Session Chains tree shows every chain; its first request is measured', async () => {
		const started = performance.now();
		const groups = (await api.chains.getChildren()) as ScopeNode[];
		const firstCallMs = performance.now() - started;
		// The view may have asked first; the provider timed whichever request loaded the overview.
		const firstLoadMs = api.chains.lastLoadMs;
		assert.ok(firstLoadMs > 0, 'the overview was loaded from the backend');
		console.log(`BATON-MEASURE treeFirstMs=${firstLoadMs.toFixed(2)}`);
		assert.equal(groups.length, 250, 'one group per scope');

		const rowsStarted = performance.now();
		let sessions = 0;
		let active = 0;
		for (const group of groups) {
			const item = api.chains.getTreeItem(group);
			assert.ok(typeof item.label === 'string' || item.label, 'a labelled scope row');
			const children = (await api.chains.getChildren(group)) as SessionNode[];
			for (const child of children) {
				api.chains.getTreeItem(child);
			}
			sessions += group.chains.sessions.length;
			active += group.chains.sessions.filter((s) => s.status === 'active').length;
			assert.equal(children.length, 20, `${group.chains.scopeKey}: its chain of 20`);
		}
		const rowsMs = performance.now() - rowsStarted;
		console.log(`BATON-MEASURE treeRowsMs=${rowsMs.toFixed(2)}`);
		assert.equal(sessions, 5000);
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
		const names = groups.flatMap((g) => g.chains.sessions.map((s) => s.name));
		assert.ok(names.includes('from the terminal'), 'the new session is in the tree');
		assert.equal(names.length, 5001);
	});
});
