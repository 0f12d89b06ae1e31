#!/usr/bin/env node
// The Session Chains tree at the default sidebar width, as a person reads it: a long session name
// gives way so state and time stay in sight, an orchestrator's workers sit under it (started by a
// real agent through `baton mcp`), clicking a row opens its details, a task-scoped session shows
// its task. Also: Start Session's steps, looked at; 250 groups shown a page at a time. Screenshots in
// both themes: artifacts/ui/tree/.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launch } from '../harness/workbench.mjs';
import { Checks, openBaton, root, rowLabel } from './uiSupport.mjs';

const cliPath = path.join(root, 'dist', 'cli.js');
const artifactsDir = path.join(root, 'artifacts', 'ui', 'tree');
fs.rmSync(artifactsDir, { recursive: true, force: true });
const checks = new Checks();
const baton = (cwd, ...args) => JSON.parse(execFileSync(process.execPath, [cliPath, ...args, '--json'], { cwd, encoding: 'utf8' }));

/** An agent starting a worker session over MCP (stdio, one JSON-RPC message per line), as Claude Code would. */
async function mcpStartWorker(cwd, args) {
	const child = spawn(process.execPath, [cliPath, 'mcp'], { cwd, stdio: ['pipe', 'pipe', 'inherit'] });
	let buffer = '';
	const waiting = new Map();
	child.stdout.on('data', (d) => {
		buffer += d.toString();
		let nl;
		while ((nl = buffer.indexOf('\n')) >= 0) {
			const line = buffer.slice(0, nl);
			buffer = buffer.slice(nl + 1);
			const message = JSON.parse(line);
			waiting.get(message.id)?.(message);
		}
	});
	const call = (id, method, params) =>
		new Promise((resolve, reject) => {
			const timer = setTimeout(() => reject(new Error(`mcp ${method}: no answer`)), 20_000);
			waiting.set(id, (m) => {
				clearTimeout(timer);
				resolve(m);
			});
			child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
		});
	await call(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'ui-test', version: '1' } });
	child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
	const answer = await call(2, 'tools/call', { name: 'session_start', arguments: args });
	child.kill();
	if (answer.error || answer.result?.isError) {
		throw new Error(`session_start over MCP failed: ${JSON.stringify(answer)}`);
	}
}

for (const theme of ['dark', 'light']) {
	const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-ui-tree-'));
	baton(workspace, 'init');
	baton(workspace, 'task', 'add', '--title', 'Checkout rework', '--type', 'epic');
	baton(workspace, 'task', 'add', '--title', 'Retry webhooks', '--parent', 'T1');
	const orchestrator = baton(
		workspace,
		'session',
		'start',
		'--name',
		'Orchestrate the checkout rework across services',
		'--scope',
		'epic:T1',
		'--agent',
		'claude-code',
	).session;
	await mcpStartWorker(workspace, { name: 'Webhook worker', scope: 'task:T2', agent: 'claude-code', parentSessionId: orchestrator.id });
	// A backlog the agent left while no editor was open: three checkpoints wait for review.
	for (const n of [1, 2, 3]) {
		fs.writeFileSync(path.join(workspace, `step${n}.txt`), `step ${n}\n`);
		baton(workspace, 'checkpoint', 'create', '--message', `Backlog step ${n}`, '--trigger', 'complete', '--session', orchestrator.id);
	}
	const s = await launch({ extensionFolders: [root], workspace, theme, artifactsDir, viewport: { width: 1400, height: 900 } });
	checks.session = s;
	try {
		await checks.run(`${theme}: what arrives together is one notification`, async () => {
			// Toasts hide after a while (and may have before the window was handed over): count what the
			// notification centre holds, every notification this window raised.
			await s.statusBarItem('Webhook worker').waitFor({ timeout: 30_000 });
			await s.page.waitForTimeout(3000);
			await s.runCommand('Notifications: Show Notifications');
			const items = s.page.locator('.notifications-center .notification-list-item');
			await items.filter({ hasText: 'need review' }).first().waitFor({ timeout: 15_000 });
			const toasts = await items.allInnerTexts();
			const about = toasts.filter((t) => /Backlog step|need(s)? review/.test(t));
			if (about.length !== 1) {
				throw new Error(`expected one notification about the backlog, saw ${about.length}: ${JSON.stringify(toasts)}`);
			}
			if (!/3 checkpoints need review/.test(about[0] ?? '')) {
				throw new Error(`the backlog is not grouped: ${about[0]}`);
			}
			if (!/#\d+ “Backlog step 1”/.test(about[0] ?? '')) {
				throw new Error(`the grouped notification does not name the checkpoints by number and label: ${about[0]}`);
			}
			await s.screenshot(`${theme}-00-grouped-reviews`);
			await s.clearNotifications();
		});
		await checks.run(`${theme}: a long name gives way to state and time; workers sit under the orchestrator`, async () => {
			await openBaton(s);
			const row = s.treeItem(rowLabel('Orchestrate the checkout rework across services'));
			await row.waitFor({ timeout: 20_000 });
			const description = (await row.locator('.label-description').innerText()).trim();
			// State and time first, then whose session it is (an agent's), which may give way at the edge.
			const state = /^(active now|active \d+m)(?: · Claude Code)?$/.exec(description)?.[1];
			if (!state) {
				throw new Error(`the row's description is ${JSON.stringify(description)}`);
			}
			// The state and time fully in sight: the sidebar's edge (or the ellipsis before it) cuts only what follows them.
			const clipped = await row.evaluate((el, stateLength) => {
				const d = el.querySelector('.label-description');
				const text = d && document.createTreeWalker(d, NodeFilter.SHOW_TEXT).nextNode();
				if (!d || !text) return true;
				const range = document.createRange();
				range.setStart(text, 0);
				range.setEnd(text, Math.min(stateLength, text.length));
				const ellipsis = d.scrollWidth > d.clientWidth + 1 ? 12 : 0;
				const visibleRight = Math.min(d.getBoundingClientRect().right, el.getBoundingClientRect().right) - ellipsis;
				return range.getBoundingClientRect().right > visibleRight + 0.5;
			}, state.length);
			if (clipped) {
				throw new Error('the state and time are cut off at the default sidebar width');
			}
			const worker = s.treeItem('Webhook worker');
			await worker.waitFor({ timeout: 10_000 });
			const [rowLevel, workerLevel] = [await row.getAttribute('aria-level'), await worker.getAttribute('aria-level')];
			if (Number(workerLevel) !== Number(rowLevel) + 1) {
				throw new Error(`the worker is not under its orchestrator (levels ${rowLevel} and ${workerLevel})`);
			}
			await s.page.waitForTimeout(300);
			await s.screenshot(`${theme}-01-tree`);
		});

		await checks.run(`${theme}: clicking a worker opens its details, which show its task`, async () => {
			await s.treeItem('Webhook worker').click();
			const frame = await s.webview('body[data-rendered="details"]', { timeout: 20_000 });
			await frame.getByText('Webhook worker').first().waitFor({ timeout: 10_000 });
			const text = await frame.locator('body').innerText();
			if (!/Current task\s*T2/.test(text)) {
				throw new Error(`the details do not show T2 as the current task:\n${text}`);
			}
			await s.page.waitForTimeout(300);
			await s.screenshot(`${theme}-02-worker-details`);
		});

		await checks.run(`${theme}: Start Session's scope step keeps its title in sight`, async () => {
			const title = s.page.locator('.quick-input-widget .quick-input-title');
			// A quick pick closes when focus leaves it; in CI, at times, something took the focus within the
			// 800 ms (the picker had closed, twice in some thirty runs). That is not the covered title this
			// check is about: the command runs once more, and a second close fails, saying so.
			for (let attempt = 1; ; attempt++) {
				await s.runCommand('Baton: Start Session');
				await s.quickInputSubmit('A second look');
				await title.waitFor({ timeout: 10_000 });
				await s.page.waitForTimeout(800);
				if (await title.isVisible()) break;
				if (attempt === 2) throw new Error('the picker closed twice before its title could be checked (focus went elsewhere)');
			}
			await s.screenshot(`${theme}-03-start-scope`);
			const covered = await title.evaluate((el) => {
				const r = el.getBoundingClientRect();
				const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
				return !(top && (el === top || el.contains(top)));
			});
			if (covered) {
				throw new Error('something covers the picker’s title');
			}
			await s.quickPickCancel();
		});
	} finally {
		await s.close();
		fs.rmSync(workspace, { recursive: true, force: true });
	}
}
// 250 groups: the view shows a hundred and a row that shows the next hundred, by keyboard as by mouse.
{
	const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-ui-tree-many-'));
	const seeded = spawnSync(process.execPath, ['--import', 'tsx', path.join(root, 'scripts/seedSessions.ts'), workspace, '1000'], {
		cwd: root,
		encoding: 'utf8',
	});
	if (seeded.status !== 0) throw new Error(`seeding 1,000 sessions failed: ${seeded.stderr}`);
	const s = await launch({ extensionFolders: [root], workspace, theme: 'dark', artifactsDir, viewport: { width: 1400, height: 900 } });
	checks.session = s;
	try {
		await checks.run('dark: 250 groups show a hundred at a time; the last row shows more', async () => {
			await openBaton(s);
			const first = s.treeItem(/^\s*Custom S249\s*$/);
			await first.waitFor({ timeout: 30_000 });
			// A click on a group also opens it (its rows arrive after): End is pressed until the list's end is in sight.
			await first.click();
			const more = s.treeItem(/^\s*Show 100 more groups\s*$/);
			for (let attempt = 0; attempt < 10 && !(await more.isVisible()); attempt++) {
				await s.page.keyboard.press('End');
				await s.page.waitForTimeout(300);
			}
			await more.waitFor({ timeout: 10_000 });
			// The opened group's rows may still arrive and move the list (a loaded CI read nothing for 30 s): read again, back at the end.
			let description = '';
			for (let attempt = 0; attempt < 6 && !description; attempt++) {
				if (!(await more.isVisible())) {
					await s.page.keyboard.press('End');
					await s.page.waitForTimeout(300);
				}
				description = (
					await more
						.locator('.label-description')
						.innerText({ timeout: 5_000 })
						.catch(() => '')
				).trim();
			}
			if (description !== '100 of 250') throw new Error(`the "show more" row says ${JSON.stringify(description)}`);
			await s.page.waitForTimeout(300);
			await s.screenshot('dark-04-show-more');
			// Enter on the focused row runs it, as a click would.
			await s.page.keyboard.press('Enter');
			const fifty = s.treeItem(/^\s*Show 50 more groups\s*$/);
			for (let attempt = 0; attempt < 10 && !(await fifty.isVisible()); attempt++) {
				await s.page.keyboard.press('End');
				await s.page.waitForTimeout(300);
			}
			await fifty.waitFor({ timeout: 15_000 });
			await s.page.keyboard.press('Enter');
			// The last group (the oldest activity) opens expanded: it has an active session.
			const last = s.treeItem(/^\s*Custom S0\s*$/);
			for (let attempt = 0; attempt < 10 && !(await last.isVisible()); attempt++) {
				await s.page.keyboard.press('End');
				await s.page.waitForTimeout(300);
			}
			await last.waitFor({ timeout: 15_000 });
			if ((await s.page.locator('.monaco-list-row', { hasText: /more groups/ }).count()) > 0)
				throw new Error('a "show more" row is left after every group is shown');
			await s.page.waitForTimeout(300);
			await s.screenshot('dark-05-every-group');
		});
	} finally {
		await s.close();
		fs.rmSync(workspace, { recursive: true, force: true });
	}
}
checks.finish();
