#!/usr/bin/env node
// Checkpoints as a person meets them: an agent's checkpoint that needs review raises a notification
// with Approve / Reject / Review; Review opens the comparison; a file opens in the diff editor; the
// status bar counts what waits; an escalated checkpoint asks in a modal; rejecting offers to roll
// back to the last approved checkpoint. Screenshots go to artifacts/ui/checkpoints/.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launch } from '../harness/workbench.mjs';
import { Checks, openBaton, removeWorkspace, root } from './uiSupport.mjs';

const cliPath = path.join(root, 'dist', 'cli.js');
const artifactsDir = path.join(root, 'artifacts', 'ui', 'checkpoints');
fs.rmSync(artifactsDir, { recursive: true, force: true });
const checks = new Checks();
const check = async (name, fn) => {
	if (!(await checks.run(name, fn))) {
		throw new Error(`stopped after: ${name}`);
	}
};

const baton = (cwd, ...args) => JSON.parse(execFileSync(process.execPath, [cliPath, ...args, '--json'], { cwd, encoding: 'utf8' }));
const gitEnv = {
	...process.env,
	GIT_CONFIG_GLOBAL: '/dev/null',
	GIT_AUTHOR_NAME: 't',
	GIT_AUTHOR_EMAIL: 't@example.invalid',
	GIT_COMMITTER_NAME: 't',
	GIT_COMMITTER_EMAIL: 't@example.invalid',
};

const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-ui-cp-'));
fs.mkdirSync(path.join(workspace, 'src'));
fs.writeFileSync(path.join(workspace, 'src/payment.js'), 'export function charge(card, amount) {\n  return { ok: true, amount };\n}\n');
fs.writeFileSync(path.join(workspace, 'package.json'), '{ "name": "shop", "version": "1.0.0" }\n');
execFileSync('git', ['init', '-q'], { cwd: workspace, env: gitEnv });
execFileSync('git', ['add', '.'], { cwd: workspace, env: gitEnv });
execFileSync('git', ['commit', '-qm', 'init'], { cwd: workspace, env: gitEnv });
baton(workspace, 'init');
baton(workspace, 'session', 'start', '--name', 'Payment retries', '--agent', 'claude-code');
const base = baton(workspace, 'checkpoint', 'create', '--message', 'Before retries', '--trigger', 'periodic').checkpoint;

const s = await launch({ extensionFolders: [root], workspace, theme: 'dark', artifactsDir, viewport: { width: 1400, height: 900 } });
checks.session = s;
try {
	await check('an agent’s checkpoint that needs review prompts with Approve, Reject and Review', async () => {
		await s.statusBarItem('Payment retries · active').waitFor({ timeout: 30_000 });
		fs.writeFileSync(
			path.join(workspace, 'src/payment.js'),
			'export function charge(card, amount, key) {\n  // idempotency key prevents double charges\n  return { ok: true, amount, key };\n}\n',
		);
		fs.writeFileSync(path.join(workspace, 'src/retry.js'), 'export const maxRetries = 3;\n');
		baton(workspace, 'checkpoint', 'create', '--message', 'Retry path done', '--trigger', 'complete');
		const toast = await s.notification('“Retry path done” needs review', { timeout: 15_000 });
		for (const button of ['Approve', 'Reject', 'Review']) {
			await toast.locator('a.monaco-button', { hasText: button }).first().waitFor();
		}
		await s.statusBarItem('Payment retries · active').filter({ hasText: '1' }).waitFor({ timeout: 10_000 });
		await s.screenshot('01-review-prompt');
	});

	await check('Review opens the comparison: files, environment, approval', async () => {
		await s.clickNotificationButton('“Retry path done” needs review', 'Review');
		const frame = await s.webview('body[data-rendered="compare"]', { timeout: 20_000 });
		await frame.getByText('src/payment.js').first().waitFor({ timeout: 10_000 });
		await frame.getByText('src/retry.js').first().waitFor();
		await s.page.waitForTimeout(400);
		await s.screenshot('02-comparison');
	});

	await check('a file of the comparison opens in VS Code’s diff editor', async () => {
		const frame = await s.webview('body[data-rendered="compare"]');
		await frame.getByText('src/payment.js').first().click();
		await s.page.locator('.monaco-diff-editor').first().waitFor({ timeout: 15_000 });
		await s.page.locator('.tab', { hasText: 'payment.js' }).first().waitFor();
		await s.page.waitForTimeout(600);
		await s.screenshot('03-file-diff');
	});

	await check('approving from the Pending Approvals view clears the count', async () => {
		await openBaton(s);
		await s.treeItem('Retry path done').first().waitFor({ timeout: 10_000 });
		await s.screenshot('04-pending-approvals');
		await s.runCommand('Baton: Approve Checkpoint');
		await s.quickPickSelect('Retry path done');
		await s.page.waitForFunction(
			() =>
				![...document.querySelectorAll('.part.statusbar .statusbar-item')].some(
					(e) => /Payment retries/.test(e.textContent ?? '') && /\b1\b/.test(e.textContent ?? ''),
				),
			undefined,
			{ timeout: 10_000 },
		);
	});

	await check('an escalated checkpoint asks in a modal; rejecting offers the way back', async () => {
		fs.writeFileSync(path.join(workspace, 'src/payment.js'), 'export function charge() { throw new Error("broken"); }\n');
		baton(workspace, 'checkpoint', 'create', '--message', 'Many errors', '--trigger', 'periodic', '--errors', '7');
		const modal = s.modalDialog('“Many errors” needs your approval');
		await modal.waitFor({ timeout: 15_000 });
		await s.screenshot('05-escalation-modal');
		await modal.locator('a.monaco-button', { hasText: 'Reject' }).first().click();
		await s.quickInputSubmit('Breaks payments');
		await s.clickNotificationButton('Rejected', 'Roll Back to the Last Approved Checkpoint');
		await s
			.modalDialog('Roll the workspace back')
			.locator('a.monaco-button', { hasText: /^Roll Back$/ })
			.first()
			.click();
		await s.notification('Rolled back', { timeout: 20_000 });
		const restored = fs.readFileSync(path.join(workspace, 'src/payment.js'), 'utf8');
		if (!restored.includes('idempotency key')) {
			throw new Error(`payment.js was not restored to the approved checkpoint: ${restored}`);
		}
		await s.screenshot('06-rolled-back');
	});
	await check('a checkpoint message holding a command link is shown as text in its prompt, never as a link', async () => {
		await s.clearNotifications();
		fs.writeFileSync(path.join(workspace, 'src/retry.js'), 'export const maxRetries = 5;\n');
		// What an agent (or a teammate's pushed record) may write: a notification would make it a link that runs the command.
		baton(workspace, 'checkpoint', 'create', '--message', 'Tidy [Approve all](command:workbench.action.closeWindow)', '--trigger', 'complete');
		// The session is escalated by now (its seven errors above): a warning, no longer a modal.
		const toast = await s.notification('Tidy [Approve all]', { timeout: 15_000 });
		const links = await toast.locator('.notification-list-item-message a').count();
		if (links !== 0) {
			throw new Error(`the message holds ${links} link(s): ${await toast.locator('.notification-list-item-message').innerHTML()}`);
		}
		await s.screenshot('07-message-as-text');
	});
	await check('an icon’s syntax in a session’s name is shown as written in the status bar and the tree’s hover, never drawn as an icon', async () => {
		baton(workspace, 'session', 'end', '--note', 'Retries done');
		baton(workspace, 'session', 'start', '--name', 'Fix $(check) then $(warning)', '--agent', 'claude-code');
		const item = s.statusBarItem('(check) then');
		await item.waitFor({ timeout: 20_000 });
		const drawn = await item.locator('.codicon-check, .codicon-warning').count();
		if (drawn !== 0) {
			throw new Error(`the status bar drew ${drawn} icon(s) from the name: ${await item.innerHTML()}`);
		}
		await openBaton(s);
		const row = s.page.locator('.monaco-list-row[role="treeitem"]', { hasText: '(check) then' }).first();
		await row.waitFor({ timeout: 15_000 });
		// The row's hover, asked for again if the first pointing did not open it (the row's inline actions appear under the pointer).
		const hover = s.page.locator('.monaco-hover', { hasText: 'No handoff' }).first();
		for (let attempt = 0; ; attempt++) {
			await s.page.mouse.move(5, 5);
			await row.locator('.label-name').hover();
			try {
				await hover.waitFor({ timeout: 8_000 });
				break;
			} catch (error) {
				if (attempt === 2) throw error;
			}
		}
		const text = await hover.innerText();
		if (!text.includes('$(check) then $(warning)')) {
			throw new Error(`the hover does not show the name as written: ${JSON.stringify(text)} ${await hover.innerHTML()}`);
		}
		const inHover = await hover.locator('.codicon-check, .codicon-warning').count();
		if (inHover !== 0) {
			throw new Error(`the hover drew ${inHover} icon(s) from the name: ${await hover.innerHTML()}`);
		}
		await s.screenshot('08-icons-as-text');
	});
	if (base.approvalStatus !== 'auto_approved') {
		throw new Error(`a periodic checkpoint under the auto policy should be auto-approved, got ${base.approvalStatus}`);
	}
} catch {
	// The failed check was reported with a screenshot.
} finally {
	await s.close();
	await removeWorkspace(workspace);
}
checks.finish();
