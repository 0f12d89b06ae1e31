#!/usr/bin/env node
// What a person sees before and around sessions: the welcome view of a folder without Baton and its
// set-up button; a realistic history (the demo workspace) with an orphaned session flagged in the
// status bar; the status bar's action menu; the tree's context menu on a session.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launch } from '../harness/workbench.mjs';
import { Checks, contextMenu, openBaton, root, rowLabel } from './uiSupport.mjs';

const artifactsDir = path.join(root, 'artifacts', 'ui', 'states');
fs.rmSync(artifactsDir, { recursive: true, force: true });
const checks = new Checks();
const check = (name, fn) => checks.run(name, fn);

async function withWorkbench(workspace, theme, fn) {
	const s = await launch({ extensionFolders: [root], workspace, theme, artifactsDir, viewport: { width: 1400, height: 900 } });
	checks.session = s;
	try {
		await fn(s);
	} finally {
		await s.close();
	}
}

console.log('workspace states');
const fresh = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-ui-fresh-'));
try {
	await withWorkbench(fresh, 'light', async (s) => {
		await check('a folder without Baton shows the welcome view and no status bar item', async () => {
			await openBaton(s);
			await s.page.getByText('Baton keeps durable sessions for your AI agents').first().waitFor({ timeout: 20_000 });
			await s.page.waitForTimeout(500);
			if (await s.statusBarItem('Baton').isVisible()) {
				throw new Error('the status bar item shows before Baton is set up');
			}
			await s.screenshot('01-welcome');
		});
		await check('the walkthrough opens from the welcome view and lists its steps', async () => {
			await s.page.locator('.welcome-view-content a', { hasText: 'Learn more' }).first().click();
			for (const step of ['Set up Baton in this workspace', 'Start a session', 'End with a handoff']) {
				await s.page.getByText(step, { exact: true }).first().waitFor({ timeout: 20_000 });
			}
			// The step's media (markdown) renders in a webview of its own.
			await s.webview('body', { timeout: 20_000 }).then((f) => f.getByText('Baton keeps, in this workspace').first().waitFor({ timeout: 20_000 }));
			await s.page.waitForTimeout(500);
			await s.screenshot('01b-walkthrough');
			await s.runCommand('View: Close All Editors');
			await openBaton(s);
		});
		await check('the welcome view’s button sets Baton up', async () => {
			await s.page.locator('.welcome-view-content a.monaco-button', { hasText: 'Set Up Baton' }).first().click();
			await s.statusBarItem('Baton: no session').waitFor({ timeout: 15_000 });
			if (!fs.existsSync(path.join(fresh, '.baton', '.gitignore'))) {
				throw new Error('.baton/.gitignore was not created');
			}
			await s.page.getByText('No sessions yet.').first().waitFor({ timeout: 10_000 });
			await s.screenshot('02-set-up');
		});
		await check('the Checkpoints view, opened in the default layout, shows its whole empty state with its button', async () => {
			const header = s.page.locator('.part.sidebar .pane-header', { hasText: /^\s*Checkpoints/i }).first();
			if ((await header.getAttribute('aria-expanded')) !== 'true') {
				await header.click();
			}
			const pane = s.page.locator('.part.sidebar .pane', { has: s.page.locator('.pane-header[aria-label^="Checkpoints"]') });
			const button = pane.locator('.welcome-view-content a.monaco-button', { hasText: 'Create Checkpoint' }).first();
			await button.waitFor({ timeout: 10_000 });
			await s.page.waitForTimeout(500);
			const body = await pane.locator('.pane-body').first().boundingBox();
			const box = await button.boundingBox();
			await s.screenshot('02b-checkpoints-empty');
			if (!body || !box || box.y < body.y || box.y + box.height > body.y + body.height) {
				throw new Error(`the Create Checkpoint button is cut off: button ${JSON.stringify(box)}, view ${JSON.stringify(body)}`);
			}
		});
	});
} finally {
	fs.rmSync(fresh, { recursive: true, force: true });
}

const demo = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-ui-demo-'));
fs.rmSync(demo, { recursive: true });
execFileSync(process.execPath, ['--import', 'tsx', path.join(root, 'scripts/seedDemo.ts'), demo], { cwd: root, stdio: 'ignore' });
try {
	await withWorkbench(demo, 'dark', async (s) => {
		await check('an orphaned session puts a warning in the status bar', async () => {
			const item = s.statusBarItem('Baton: 1 orphaned');
			await item.waitFor({ timeout: 20_000 });
			const background = await item.evaluate((el) => getComputedStyle(el).backgroundColor);
			if (background === 'rgba(0, 0, 0, 0)' || background === 'transparent') {
				throw new Error('the orphaned warning has no background');
			}
		});
		await check('the tree shows every chain of the history, grouped by scope', async () => {
			await openBaton(s);
			for (const label of [
				'Checkout: cart and tax',
				'Checkout: payment form',
				'Checkout: webhooks',
				'Search: product index',
				'Release 0.4 orchestration',
				'Spike: Node 22 upgrade',
			]) {
				await s.treeItem(rowLabel(label)).waitFor({ timeout: 10_000 });
			}
			await s.treeItem(/Epic T1 · Checkout flow/).waitFor();
			await s.screenshot('03-demo-tree');
		});
		await check('the status bar offers the actions that fit', async () => {
			await s.statusBarItem('Baton: 1 orphaned').click();
			const items = await s.quickPickItems();
			for (const expected of ['Start Session', 'Resume Session', 'Clean Up Stale Sessions']) {
				if (!items.some((i) => i.includes(expected))) {
					throw new Error(`missing action ${expected} in ${items.join(', ')}`);
				}
			}
			if (items.some((i) => i.includes('End Session'))) {
				throw new Error('End Session is offered with no active session');
			}
			await s.screenshot('04-status-actions');
			await s.quickPickCancel();
		});
		await check('a session’s context menu resumes it', async () => {
			await contextMenu(s, rowLabel('Search: product index'), 'Resume Session');
			await s.statusBarItem('Search: product index · active').waitFor({ timeout: 10_000 });
			await s.screenshot('05-resumed-from-tree');
		});
		await check('a tree that cannot load says it is trying again, and comes back by itself', async () => {
			// Bytes after the journal's last record that are no record: every read of the backend fails until they go.
			const journal = path.join(demo, '.baton', 'baton.db.journal');
			const size = fs.statSync(journal).size;
			fs.appendFileSync(journal, Buffer.alloc(64, 0x58));
			try {
				await s.runCommand('Baton: Refresh');
				await s.page
					.locator('.part.sidebar .pane-body .message', { hasText: 'Could not load the session chains; trying again' })
					.first()
					.waitFor({ timeout: 20_000 });
				if (
					await s
						.statusBarItem('Set Up Baton')
						.isVisible()
						.catch(() => false)
				) {
					throw new Error('a failed read made the workspace look new');
				}
				await s.page.waitForTimeout(300);
				await s.screenshot('06-tree-retrying');
			} finally {
				fs.truncateSync(journal, size);
			}
			await s.treeItem(rowLabel('Checkout: webhooks')).waitFor({ timeout: 40_000 });
			await s.screenshot('07-tree-back');
		});
		await check('the chain graph draws chains and the orchestrator’s forks', async () => {
			await s.runCommand('Baton: Show Chain Graph');
			const frame = await s.webview('body[data-rendered="graph"] svg', { timeout: 20_000 });
			for (const name of ['Checkout: webhooks', 'Worker: changelog', 'Worker: dependency audit']) {
				await frame.locator(`[role="button"][aria-label*="${name}"]`).first().waitFor({ timeout: 10_000 });
			}
			await s.page.waitForTimeout(300);
			await s.screenshot('08-demo-graph');
		});
	});
} finally {
	fs.rmSync(demo, { recursive: true, force: true });
}

checks.finish();
