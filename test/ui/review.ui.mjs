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
import { Checks, openBaton, removeWorkspace, root } from './uiSupport.mjs';

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
const gitEnv = {
	...process.env,
	GIT_CONFIG_GLOBAL: '/dev/null',
	GIT_AUTHOR_NAME: 't',
	GIT_AUTHOR_EMAIL: 't@example.invalid',
	GIT_COMMITTER_NAME: 't',
	GIT_COMMITTER_EMAIL: 't@example.invalid',
};
const good = 'export function charge(card, amount, key) {\n  // idempotency key prevents double charges\n  return { ok: true, amount, key };\n}\n';

const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-ui-review-'));
fs.mkdirSync(path.join(workspace, 'src'));
fs.writeFileSync(path.join(workspace, 'src/payment.js'), good);
execFileSync('git', ['init', '-q'], { cwd: workspace, env: gitEnv });
execFileSync('git', ['add', '.'], { cwd: workspace, env: gitEnv });
execFileSync('git', ['commit', '-qm', 'init'], { cwd: workspace, env: gitEnv });
baton(workspace, 'init');
baton(workspace, 'session', 'start', '--name', 'Payment retries', '--agent', 'claude-code');
const approved = baton(workspace, 'checkpoint', 'create', '--message', 'Retries work', '--trigger', 'periodic').checkpoint;

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

		// A page that refreshes gives the focus back to the control that had it only while the page has
		// the focus: otherwise a refresh behind a quick pick took the focus and closed it (stop 37 and 38
		// lost this suite's Compare Checkpoints to it, after the rollback's refresh).
		await check(`${theme}: a quick pick stays open while the comparison behind it refreshes`, async () => {
			const frame = await s.webview('body[data-rendered="compare"]', { timeout: 20_000 });
			await frame.locator('vscode-button', { hasText: 'Refresh' }).first().click();
			await s.page.waitForTimeout(600);
			await s.runCommand('Baton: Compare Checkpoints');
			await s.quickPickItems();
			baton(workspace, 'checkpoint', 'tag', approved.id, `behind-${theme}`);
			await frame.getByText(`behind-${theme}`).first().waitFor({ state: 'attached', timeout: 20_000 });
			await s.page.waitForTimeout(800);
			if (!(await s.page.locator('.quick-input-widget .quick-input-box input:visible').count())) {
				throw new Error('the quick pick closed when the comparison behind it refreshed');
			}
			await s.screenshot(`${theme}-04b-quick-pick-over-refresh`);
			await s.quickPickCancel();
		});
	} catch {
		// The failed check was reported with a screenshot.
	} finally {
		await s.close();
	}
}
await removeWorkspace(workspace);

// Pending Approvals shows what needs review: a click on a pending checkpoint opens what it changed
// (the checkpoint before it → it), named as people know it, with Approve inside. The workspace's
// first checkpoint has nothing before it and says so.
const fresh = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-ui-review-first-'));
fs.mkdirSync(path.join(fresh, 'src'));
fs.writeFileSync(path.join(fresh, 'src/payment.js'), good);
fs.writeFileSync(path.join(fresh, 'README.md'), '# shop\n');
execFileSync('git', ['init', '-q'], { cwd: fresh, env: gitEnv });
execFileSync('git', ['add', '.'], { cwd: fresh, env: gitEnv });
execFileSync('git', ['commit', '-qm', 'init'], { cwd: fresh, env: gitEnv });
baton(fresh, 'init');
baton(fresh, 'session', 'start', '--name', 'Refund flow', '--agent', 'claude-code');
const first = baton(fresh, 'checkpoint', 'create', '--message', 'Refunds started', '--trigger', 'complete').checkpoint;

/** The page's text, without the ids a person does not know (they may sit in hovers, not in the text). */
const pageText = async (frame) => {
	// The side cards' labelled Id fact is where a power user finds the id; everything else names things.
	const text = await frame.locator('body').evaluate((body) => {
		const ids = [...body.querySelectorAll('.raw-id')];
		for (const id of ids) id.hidden = true;
		const shown = body.innerText;
		for (const id of ids) id.hidden = false;
		return shown;
	});
	const raw = /ses_\d{14}|cp_\d{14}|vscode:|cli:/.exec(text);
	if (raw) {
		throw new Error(`the comparison shows a raw id (${raw[0]}):\n${text}`);
	}
	return text;
};
/** Clicks Approve inside the comparison and waits until the checkpoint is approved. */
const approveInside = async (s, frame, id) => {
	await frame.locator('vscode-button', { hasText: 'Approve' }).first().click();
	for (let i = 0; i < 100 && baton(fresh, 'checkpoint', 'show', id).checkpoint.approvalStatus !== 'approved'; i++) {
		await s.page.waitForTimeout(200);
	}
	const status = baton(fresh, 'checkpoint', 'show', id).checkpoint.approvalStatus;
	if (status !== 'approved') {
		throw new Error(`Approve in the comparison left the checkpoint ${status}`);
	}
};

const s = await launch({ extensionFolders: [root], workspace: fresh, theme: 'dark', artifactsDir, viewport: { width: 1400, height: 900 } });
checks.session = s;
try {
	await check('the first checkpoint, clicked in Pending Approvals, is compared with an empty workspace and says so; Approve there approves it', async () => {
		await s.statusBarItem('Refund flow · active').waitFor({ timeout: 30_000 });
		await s.notification('“Refunds started” needs review', { timeout: 15_000 });
		await s.clearNotifications();
		await openBaton(s);
		await s.treeItem('Refunds started', { view: 'Pending Approvals' }).click();
		const frame = await s.webview('body[data-rendered="compare"]', { timeout: 20_000 });
		await frame.locator('h1', { hasText: 'Empty workspace' }).first().waitFor({ timeout: 10_000 });
		await frame.getByText('src/payment.js').first().waitFor({ timeout: 10_000 });
		const text = await pageText(frame);
		if (!/first checkpoint of this workspace/.test(text) || !/Checkpoint #1/.test(text) || !/Refund flow/.test(text)) {
			throw new Error(`the first checkpoint's review does not say what it is compared with:\n${text}`);
		}
		await s.page.waitForTimeout(400);
		await s.screenshot('dark-05-first-checkpoint-review');
		await approveInside(s, frame, first.id);
	});

	await check(
		'a later pending checkpoint, clicked in Pending Approvals, shows the agent’s changed files and their diff; Approve there approves it',
		async () => {
			fs.writeFileSync(path.join(fresh, 'src/payment.js'), `${good}export function refund(id) {\n  return { ok: true, id };\n}\n`);
			fs.writeFileSync(path.join(fresh, 'src/refund.test.js'), 'import { refund } from "./payment.js";\n');
			const second = baton(fresh, 'checkpoint', 'create', '--message', 'Refund endpoint', '--trigger', 'complete').checkpoint;
			await s.notification('“Refund endpoint” needs review', { timeout: 15_000 });
			await s.clearNotifications();
			await openBaton(s);
			await s.treeItem('Refund endpoint', { view: 'Pending Approvals' }).click();
			const frame = await s.webview('body[data-rendered="compare"]', { timeout: 20_000 });
			await frame.locator('h1', { hasText: 'Checkpoint #2' }).first().waitFor({ timeout: 10_000 });
			await frame.getByText('src/refund.test.js').first().waitFor({ timeout: 10_000 });
			const text = await pageText(frame);
			const rows = await frame.locator('tr[data-path]').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-path')));
			if (JSON.stringify(rows) !== JSON.stringify(['src/payment.js', 'src/refund.test.js'])) {
				throw new Error(`expected the agent's two files, saw ${JSON.stringify(rows)}`);
			}
			const title = await frame.locator('h1').first().innerText();
			if (!/^Checkpoint #1\b[\s\S]*Checkpoint #2$/.test(title.trim())) {
				throw new Error(`the review does not compare with the checkpoint before it: ${title}`);
			}
			if (!/by you/.test(text)) {
				throw new Error(`the approval of the first checkpoint is not shown as yours:\n${text}`);
			}
			await s.page.waitForTimeout(400);
			await s.screenshot('dark-06-review-changes');
			await frame.getByText('src/payment.js').first().click();
			await s.page.locator('.monaco-diff-editor').first().waitFor({ timeout: 15_000 });
			await s.page.locator('.tab', { hasText: 'payment.js (#1 ↔ #2)' }).first().waitFor({ timeout: 10_000 });
			await s.page.waitForTimeout(600);
			await s.screenshot('dark-07-review-file-diff');
			await s.page.locator('.tab', { hasText: 'Baton: Compare' }).first().click();
			const again = await s.webview('body[data-rendered="compare"]', { timeout: 20_000 });
			await approveInside(s, again, second.id);
			await again.locator('vscode-button', { hasText: 'Approve' }).first().waitFor({ state: 'detached', timeout: 15_000 });
			await s.page.waitForTimeout(400);
			await s.screenshot('dark-08-approved-inside');
		},
	);
} catch {
	// The failed check was reported with a screenshot.
} finally {
	await s.close();
}
fs.rmSync(fresh, { recursive: true, force: true });
checks.finish();
