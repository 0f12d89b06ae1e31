#!/usr/bin/env node
// Reviewing from the comparison webview, as a person does it: Review opens the comparison, Reject in
// the page asks why, then ONE toast offers the way back and its button really rolls back (dialog,
// safety checkpoint, files restored). Comparing the rejected checkpoint with the working tree does
// not contradict itself. Screenshots in both themes go to artifacts/ui/review/.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launch } from '../harness/workbench.mjs';
import { Checks, root } from './uiSupport.mjs';

const cliPath = path.join(root, 'dist', 'cli.js');
const artifactsDir = path.join(root, 'artifacts', 'ui', 'review');
fs.rmSync(artifactsDir, { recursive: true, force: true });
const checks = new Checks();
const check = async (name, fn) => {
	if (!(await checks.run(name, fn))) {
		throw new Error(`stopped after: ${name}`);
	}
};

const baton = (cwd, ...args) => JSON.parse(execFileSync(process.execPath, [cliPath, ...args, '--json'], { cwd, encoding: 'utf8' }));
const gitEnv = { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.invalid', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.invalid' };
const good = 'export function charge(card, amount, key) {\n  // idempotency key prevents double charges\n  return { ok: true, amount, key };\n}\n';

const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-ui-review-'));
fs.mkdirSync(path.join(workspace, 'src'));
fs.writeFileSync(path.join(workspace, 'src/payment.js'), good);
execFileSync('git', ['init', '-q'], { cwd: workspace, env: gitEnv });
execFileSync('git', ['add', '.'], { cwd: workspace, env: gitEnv });
execFileSync('git', ['commit', '-qm', 'init'], { cwd: workspace, env: gitEnv });
baton(workspace, 'init');
baton(workspace, 'session', 'start', '--name', 'Payment retries', '--agent', 'claude-code');
baton(workspace, 'checkpoint', 'create', '--message', 'Retries work', '--trigger', 'periodic');

/** Toasts on screen whose text matches. */
const toasts = (s, pattern) => s.page.locator('.notifications-toasts .notification-toast').filter({ hasText: pattern });

for (const theme of ['dark', 'light']) {
	const s = await launch({ extensionFolders: [root], workspace, theme, artifactsDir, viewport: { width: 1400, height: 900 } });
	checks.session = s;
	try {
		await check(`${theme}: Reject in the comparison webview leads to one working rollback offer`, async () => {
			await s.statusBarItem('Payment retries · active').waitFor({ timeout: 30_000 });
			fs.writeFileSync(path.join(workspace, 'src/payment.js'), `export function charge() { throw new Error('broken ${theme}'); }\n`);
			const pending = baton(workspace, 'checkpoint', 'create', '--message', `Broken ${theme}`, '--trigger', 'complete').checkpoint;
			await s.clickNotificationButton(`“Broken ${theme}” needs review`, 'Review');
			const frame = await s.webview('body[data-rendered="compare"]', { timeout: 20_000 });
			await frame.getByText('src/payment.js').first().waitFor({ timeout: 10_000 });
			await s.page.waitForTimeout(400);
			await s.screenshot(`${theme}-01-comparison-pending`);
			await frame.locator('vscode-button', { hasText: 'Reject' }).first().click();
			await s.quickInputSubmit('Breaks payments');
			await s.notification(`Rejected`, { timeout: 15_000 });
			// Whatever else the backend says about the rejection arrives within a second or two.
			await s.page.waitForTimeout(2500);
			await s.screenshot(`${theme}-02-after-reject`);
			const offers = await toasts(s, /reject/i).count();
			if (offers !== 1) {
				throw new Error(`expected one toast about the rejection, saw ${offers}: ${JSON.stringify(await toasts(s, /reject/i).allInnerTexts())}`);
			}
			const toast = toasts(s, /reject/i).first();
			const label = (await toast.innerText()).split('\n').join(' ');
			if (/cp_\d{14}/.test(label)) {
				throw new Error(`the toast names a checkpoint by its id: ${label}`);
			}
			await toast
				.locator('a.monaco-button', { hasText: /Roll Back/i })
				.first()
				.click();
			await s
				.modalDialog('Roll the workspace back')
				.locator('a.monaco-button', { hasText: /^Roll Back$/ })
				.first()
				.click({ timeout: 10_000 });
			await s.notification('Rolled back', { timeout: 20_000 });
			const restored = fs.readFileSync(path.join(workspace, 'src/payment.js'), 'utf8');
			if (restored !== good) {
				throw new Error(`payment.js was not restored to the approved checkpoint: ${restored}`);
			}
			const { checkpoints } = baton(workspace, 'checkpoint', 'list');
			if (!checkpoints.some((c) => c.trigger === 'pre-rollback')) {
				throw new Error('no safety checkpoint was taken before the rollback');
			}
			if (checkpoints.find((c) => c.id === pending.id)?.approvalStatus !== 'rejected') {
				throw new Error('the checkpoint was not rejected');
			}
			await s.screenshot(`${theme}-03-rolled-back`);
		});

		await check(`${theme}: the approved checkpoint against the working tree after the rollback agrees with itself`, async () => {
			await s.clearNotifications();
			await s.runCommand('Baton: Compare Checkpoints');
			await s.quickPickSelect('Retries work');
			await s.quickPickSelect('The working tree');
			const frame = await s.webview('body[data-rendered="compare"]', { timeout: 20_000 });
			await frame.getByText('compared with').first().waitFor({ state: 'attached', timeout: 10_000 });
			await frame.locator('h1', { hasText: 'working tree' }).first().waitFor({ timeout: 10_000 });
			const text = await frame.locator('body').innerText();
			if (!/The working tree matches Checkpoint #1/.test(text) || !/still matches it/.test(text) || /changed since/.test(text)) {
				throw new Error(`the comparison contradicts itself or says the wrong thing:\n${text}`);
			}
			// Taken by the CLI, compared with the editor's view of the working tree: VS Code is unknown, never "removed".
			if (/\bremoved\b/i.test(text.slice(text.indexOf('ENVIRONMENT') >= 0 ? text.indexOf('ENVIRONMENT') : text.indexOf('Environment')))) {
				throw new Error(`the environment card reports removals across a CLI/editor pair:\n${text}`);
			}
			await s.page.waitForTimeout(400);
			await s.screenshot(`${theme}-04-working-tree-matches`);
		});
	} catch {
		// The failed check was reported with a screenshot.
	} finally {
		await s.close();
	}
}
fs.rmSync(workspace, { recursive: true, force: true });
checks.finish();
