#!/usr/bin/env node
// The Agents board as a person meets it (issue 26, item 4): three agents' hooks fed the payloads the
// agents send — Gemini CLI working on a prompt, Claude Code asking permission for a command, Codex done
// with its turn — show in the Agents view with their state and why; the status bar counts the one that
// waits and its click reveals it in the view and opens its session; when the permission is granted the
// count goes. Dark theme; screenshots go to artifacts/ui/board/.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launch } from '../harness/workbench.mjs';
import { Checks, openBaton, removeWorkspace, root } from './uiSupport.mjs';

const cliPath = path.join(root, 'dist', 'cli.js');
const fixtures = path.join(root, 'test', 'fixtures');
const artifactsDir = path.join(root, 'artifacts', 'ui', 'board');
fs.rmSync(artifactsDir, { recursive: true, force: true });
const checks = new Checks();
const check = async (name, fn) => {
	if (!(await checks.run(name, fn))) {
		throw new Error(`stopped after: ${name}`);
	}
};

const base = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-ui-board-'));
const workspace = path.join(base, 'shop');
const home = path.join(base, 'home');
fs.mkdirSync(workspace);
fs.mkdirSync(home);
const env = { ...process.env, HOME: home, BATON_CLAUDE_HOME: path.join(home, '.claude') };
const baton = (...args) => execFileSync(process.execPath, [cliPath, ...args], { cwd: workspace, encoding: 'utf8', env });
/** One hook call with a recorded payload, its placeholder paths moved into this workspace. */
const hook = (file, ...args) => {
	const input = fs
		.readFileSync(path.join(fixtures, file), 'utf8')
		.replaceAll('/home/dev/project', workspace)
		.replaceAll('/home/dev/', `${home}/`)
		// The recorded Claude Code run's conversation is the one that asks permission here.
		.replaceAll('999ecdcc-9b67-44be-a867-f3c122ac146c', claudeId);
	execFileSync(process.execPath, [cliPath, 'hook', ...args], { cwd: workspace, encoding: 'utf8', env, input });
};
const claudeId = '4b2e9c1a-7d3f-4e8b-a1c5-2f6d8e0b9a47';

baton('init');
hook('real/codex-0.171.0/session-start.json', 'session-start', '--agent', 'codex');
hook('real/codex-0.171.0/stop.json', 'stop', '--agent', 'codex');
hook('real/gemini-cli-0.61.0/session-start.json', 'session-start', '--agent', 'gemini');
hook('real/gemini-cli-0.61.0/before-agent.json', 'user-prompt-submit', '--agent', 'gemini');

const s = await launch({ extensionFolders: [root], workspace, theme: 'dark', artifactsDir, viewport: { width: 1400, height: 900 } });
checks.session = s;
const row = (label) => s.treeItem(label, { view: 'Agents' });
const rowText = async (label) => ((await row(label).textContent()) ?? '').replace(/\s+/g, ' ').trim();
try {
	await check('the Agents view lists the working and the done agent, and the status bar says nobody waits', async () => {
		await openBaton(s);
		// Collapsed by default, like Checkpoints and Transcripts: Session Chains keeps the room.
		const header = s.page.locator('.pane-header[aria-label^="Agents"]').first();
		await header.waitFor({ timeout: 30_000 });
		if ((await header.getAttribute('aria-expanded')) !== 'true') await header.click();
		await row('Gemini CLI').waitFor({ timeout: 30_000 });
		await row('Codex').waitFor({ timeout: 10_000 });
		if (!/working/.test(await rowText('Gemini CLI'))) throw new Error(`Gemini CLI: ${await rowText('Gemini CLI')}`);
		if (!/done: finished its turn/.test(await rowText('Codex'))) throw new Error(`Codex: ${await rowText('Codex')}`);
		if (
			await s
				.statusBarItem('waiting')
				.isVisible()
				.catch(() => false)
		)
			throw new Error('the status bar counts someone waiting');
		await s.page.waitForTimeout(400);
		await s.screenshot('01-working-and-done');
	});

	await check('Claude Code asking permission shows as waiting, first, with its words, and the status bar counts it', async () => {
		hook('real/claude-code-2.1.197/session-start.json');
		hook('hooks/board/claude-permission-request.json');
		hook('hooks/board/claude-notification-permission.json');
		const claude = s.page
			.locator('.pane', { has: s.page.locator('.pane-header[aria-label^="Agents"]') })
			.locator('.monaco-list-row[role="treeitem"]', { hasText: 'Claude needs your permission' })
			.first();
		await claude.waitFor({ timeout: 20_000 });
		const first = s.page
			.locator('.pane', { has: s.page.locator('.pane-header[aria-label^="Agents"]') })
			.locator('.monaco-list-row[role="treeitem"]')
			.first();
		if (!/waiting: Claude needs your permission to use Bash/.test((await first.textContent()) ?? ''))
			throw new Error(`first row: ${await first.textContent()}`);
		await s.statusBarItem('1 waiting').waitFor({ timeout: 10_000 });
		await s.page.waitForTimeout(400);
		await s.screenshot('02-working-waiting-done');
	});

	await check('the status bar’s click reveals the waiting session in the view and opens its details', async () => {
		await s.statusBarItem('1 waiting').click();
		const frame = await s.webview('body', { timeout: 20_000 });
		await frame
			.getByText(/write b\.txt and append|Claude Code/)
			.first()
			.waitFor({ timeout: 15_000 });
		const selected = s.page
			.locator('.pane', { has: s.page.locator('.pane-header[aria-label^="Agents"]') })
			.locator('.monaco-list-row[role="treeitem"].selected, .monaco-list-row[role="treeitem"][aria-selected="true"]')
			.first();
		await selected.waitFor({ timeout: 10_000 });
		if (!/Claude needs your permission/.test((await selected.textContent()) ?? '')) throw new Error(`selected: ${await selected.textContent()}`);
		await s.page.waitForTimeout(400);
		await s.screenshot('03-click-opens-waiting');
	});

	await check('the permission granted, Claude Code works again and the count goes', async () => {
		hook('real/claude-code-2.1.197/post-tool-use-failure.json');
		await s.page.waitForFunction(
			() => ![...document.querySelectorAll('.part.statusbar .statusbar-item')].some((e) => /waiting/.test(e.textContent ?? '')),
			undefined,
			{ timeout: 20_000 },
		);
		await s.page.waitForTimeout(400);
		await s.screenshot('04-nobody-waits');
	});

	await check('a checkpoint of Claude Code’s awaiting approval shows as waiting, and the status bar’s click opens its review with Approve', async () => {
		const board = JSON.parse(baton('agents', '--json'));
		const claude = board.entries.find((e) => e.agent === 'claude-code');
		if (!claude) throw new Error(`no Claude Code row: ${JSON.stringify(board)}`);
		fs.writeFileSync(path.join(workspace, 'refund.js'), 'export const refund = (order) => order.total;\n');
		const created = JSON.parse(baton('checkpoint', 'create', '--trigger', 'complete', '--session', claude.id, '--message', 'Refund flow', '--json'));
		if (created.checkpoint.approvalStatus !== 'pending') throw new Error(`the checkpoint is ${created.checkpoint.approvalStatus}, not pending`);
		await s.statusBarItem('1 waiting').waitFor({ timeout: 20_000 });
		const row = s.page
			.locator('.pane', { has: s.page.locator('.pane-header[aria-label^="Agents"]') })
			.locator('.monaco-list-row[role="treeitem"]', { hasText: `checkpoint #${created.checkpoint.seq}` })
			.first();
		await row.waitFor({ timeout: 10_000 });
		if (!/waiting: checkpoint #\d+ “Refund flow” awaits your approval/.test((await row.textContent()) ?? ''))
			throw new Error(`row: ${await row.textContent()}`);
		// As the view starts (collapsed): the click still shows the waiting row in it.
		const header = s.page.locator('.pane-header[aria-label^="Agents"]').first();
		if ((await header.getAttribute('aria-expanded')) === 'true') await header.click();
		await s.statusBarItem('1 waiting').click();
		await row.waitFor({ state: 'visible', timeout: 10_000 });
		const frame = await s.webview('body[data-rendered="compare"]', { timeout: 20_000 });
		await frame.getByText('refund.js').first().waitFor({ timeout: 15_000 });
		await frame.locator('vscode-button', { hasText: 'Approve' }).first().waitFor({ timeout: 10_000 });
		await s.page.waitForTimeout(400);
		await s.screenshot('05-click-opens-review');
	});
} catch {
	// The failed check was reported with a screenshot.
} finally {
	await s.close();
	await removeWorkspace(base);
}
checks.finish();
