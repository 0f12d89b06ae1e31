#!/usr/bin/env node
// Sync as a person meets it: sharing turned on from the palette (a modal says what goes where);
// another machine (`ci-runner`, author `ci-bot`) pushed a session to the
// repository's remote, and left another running; in this clone, Baton: Sync Now brings them into
// Session Chains, each row saying who and where it ran (the running one offers no End or Suspend
// here: it runs on the runner), and the session status bar item carries the sync state. The
// runner's person approving this machine's checkpoint shows on its row as their opinion, not applied.
// Dark theme; screenshots in artifacts/ui/sync/.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launch } from '../harness/workbench.mjs';
import { Checks, openBaton, root, rowLabel } from './uiSupport.mjs';

const artifactsDir = path.join(root, 'artifacts', 'ui', 'sync');
fs.rmSync(artifactsDir, { recursive: true, force: true });
const checks = new Checks();
const check = async (name, fn) => {
	if (!(await checks.run(name, fn))) {
		throw new Error(`stopped after: ${name}`);
	}
};

const base = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-ui-sync-'));
const env = {
	...process.env,
	GIT_CONFIG_GLOBAL: '/dev/null',
	GIT_AUTHOR_NAME: 't',
	GIT_AUTHOR_EMAIL: 't@example.invalid',
	GIT_COMMITTER_NAME: 't',
	GIT_COMMITTER_EMAIL: 't@example.invalid',
	BATON_NO_DAEMON: '1',
};
const run = (cwd, cmd, args, extra = {}) => execFileSync(cmd, args, { cwd, env: { ...env, ...extra }, stdio: ['ignore', 'pipe', 'pipe'] });
const cli = path.join(root, 'dist', 'cli.js');
const bare = path.join(base, 'remote.git');
const laptop = path.join(base, 'runner');
const workspace = path.join(base, 'shop');
run(base, 'git', ['init', '-q', '--bare', bare]);
fs.mkdirSync(laptop);
fs.writeFileSync(path.join(laptop, 'README.md'), '# shop\n');
for (const args of [
	['init', '-q', '-b', 'main'],
	['add', '.'],
	['commit', '-qm', 'init'],
	['remote', 'add', 'origin', `file://${bare}`],
	['push', '-q', 'origin', 'main'],
])
	run(laptop, 'git', args);
run(base, 'git', ['clone', '-q', `file://${bare}`, workspace]);
for (const dir of [laptop, workspace]) fs.appendFileSync(path.join(dir, '.git', 'info', 'exclude'), '.baton/\n');
const runner = { BATON_MACHINE_NAME: 'ci-runner', BATON_AUTHOR: 'ci-bot' };
run(laptop, process.execPath, [cli, 'init'], runner);
run(laptop, process.execPath, [cli, 'sync', 'enable', 'origin'], runner);
run(laptop, process.execPath, [cli, 'session', 'start', '--name', 'Nightly fix'], runner);
run(laptop, process.execPath, [cli, 'session', 'end', '--note', 'fixed the flaky test'], runner);
run(laptop, process.execPath, [cli, 'session', 'start', '--name', 'Review on the runner'], runner);
run(laptop, process.execPath, [cli, 'sync', 'push'], runner);
run(workspace, process.execPath, [cli, 'init']);

const s = await launch({ extensionFolders: [root], workspace, theme: 'dark', artifactsDir, viewport: { width: 1400, height: 900 } });
checks.session = s;
try {
	await check('sharing is turned on from the palette, after a modal that says what becomes readable to whom', async () => {
		await openBaton(s);
		await s.runCommand('Baton: Share Sessions Through a Git Remote…');
		// One remote: the first question is skipped. Each extra is ticked: here the steps' files, not transcripts.
		await s.quickPickSelect('Each step’s changed files');
		await s.screenshot('01a-share-what');
		await s.quickPickAccept();
		const modal = s.modalDialog('Share Baton’s records through “origin”?');
		await modal.waitFor({ timeout: 15_000 });
		const text = (await modal.textContent()) ?? '';
		if (
			!text.includes('Everyone who can read “origin”') ||
			!text.includes('not the transcripts') ||
			!text.includes('only the files git tracks') ||
			!text.includes('scanned for credentials') ||
			!text.includes('refs/baton/') ||
			!text.includes('Each agent step’s changed files travel too')
		) {
			throw new Error(`the modal should say what goes where: "${text}"`);
		}
		await s.screenshot('01-share-modal');
		await modal.locator('a.monaco-button', { hasText: 'Share' }).first().click();
		await s.notification('Baton shares its records through “origin”');
		const state = JSON.parse(fs.readFileSync(path.join(workspace, '.baton', 'sync', 'state.json'), 'utf8'));
		if (state.remotes?.origin?.enabled !== true || state.remotes.origin.transcripts !== false || state.remotes.origin.timeline !== true) {
			throw new Error(`the sync state should say origin is shared with step files, without transcripts: ${JSON.stringify(state.remotes)}`);
		}
	});
	await check('Sync Now brings the runner’s session into Session Chains with who and where it ran', async () => {
		await s.runCommand('Baton: Sync Now');
		const row = s.treeItem(rowLabel('Nightly fix'), { view: 'Session Chains' });
		await row.waitFor({ timeout: 30_000 });
		const description = (await row.locator('.label-description').textContent()) ?? '';
		if (!description.includes('ci-bot@ci-runner')) {
			throw new Error(`the row should say who and where it ran: "${description}"`);
		}
		await s.page.waitForTimeout(300);
		await s.screenshot('02-pulled-session');
	});
	await check('the session still running on the runner shows as active there, without the lifecycle buttons a session of this machine has', async () => {
		const running = s.treeItem(rowLabel('Review on the runner'), { view: 'Session Chains' });
		await running.waitFor({ timeout: 30_000 });
		const description = (await running.locator('.label-description').textContent()) ?? '';
		if (!/active/.test(description) || !description.includes('ci-bot@ci-runner')) {
			throw new Error(`the row should say it is active on the runner: "${description}"`);
		}
		const buttons = async (row) => {
			await row.hover();
			await s.page.waitForTimeout(400);
			const labels = await row.locator('.actions .action-label').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? ''));
			// The row's hover (it opens over the rows below, and stays while pointed at) goes before the next row is hovered:
			// under load it opened late, over the next row, and that row's hover waited 30 s.
			const viewport = s.page.viewportSize() ?? { width: 1280, height: 800 };
			await s.page.mouse.move(Math.round(viewport.width * 0.75), Math.round(viewport.height * 0.3));
			await s.page.keyboard.press('Escape');
			await s.page
				.locator('.monaco-hover:visible')
				.first()
				.waitFor({ state: 'hidden', timeout: 5_000 })
				.catch(() => undefined);
			return labels;
		};
		const onRunner = await buttons(running);
		if (onRunner.some((label) => /End Session|Suspend/.test(label))) {
			throw new Error(`a teammate's running session offers its lifecycle here: ${onRunner.join(', ')}`);
		}
		// This machine starts a session of its own in the same scope (a teammate's running session refused it before).
		run(workspace, process.execPath, [cli, 'session', 'start', '--name', 'Local review']);
		const local = s.treeItem(rowLabel('Local review'), { view: 'Session Chains' });
		await local.waitFor({ timeout: 30_000 });
		const own = await buttons(local);
		if (!own.some((label) => /End Session/.test(label))) {
			throw new Error(`a session of this machine should offer End Session inline: ${own.join(', ')}`);
		}
		await running.hover();
		await s.page.waitForTimeout(300);
		await s.screenshot('03-running-elsewhere');
		// The row's hover goes with the pointer, so the next check meets the status bar's alone. A hover the
		// pointer lands on stays (VS Code keeps a hover that is pointed at), so the pointer goes where no hover is:
		// the editor area's empty top, then the title bar, with Escape each time.
		const rowHover = s.page.locator('.monaco-hover', { hasText: 'pulled through sync' }).first();
		const viewport = s.page.viewportSize() ?? { width: 1280, height: 800 };
		for (const [x, y] of [
			[Math.round(viewport.width * 0.75), Math.round(viewport.height * 0.3)],
			[Math.round(viewport.width / 2), 5],
			[Math.round(viewport.width * 0.75), Math.round(viewport.height * 0.6)],
		]) {
			await s.page.mouse.move(x, y);
			await s.page.keyboard.press('Escape');
			if (
				await rowHover.waitFor({ state: 'hidden', timeout: 5_000 }).then(
					() => true,
					() => false,
				)
			) {
				break;
			}
		}
		await rowHover.waitFor({ state: 'hidden', timeout: 5_000 });
	});
	await check('hovering the session status bar item shows the sync state', async () => {
		const item = s.page.locator('.statusbar-item', { hasText: 'Local review' }).first();
		await item.hover();
		const hover = s.page.locator('.monaco-hover', { hasText: 'Sync' }).first();
		await hover.waitFor({ timeout: 15_000 });
		const text = (await hover.textContent()) ?? '';
		if (!/origin: 1 ahead, 0 behind, 1 queued/.test(text)) {
			throw new Error(`the tooltip should carry the sync state: "${text}"`);
		}
		// One ahead: the session this machine just started, queued for the next push.
		await s.screenshot('04-status-tooltip');
	});
	await check('a pulled record that is no valid event is left out, and a warning says so', async () => {
		// Something that is not Baton adds a batch on the runner's events ref in the remote.
		const inBare = (args, input) =>
			execFileSync('git', args, { input, encoding: 'utf8', env: { ...env, GIT_DIR: bare, GIT_INDEX_FILE: path.join(base, 'forge.index') } }).trim();
		const ref = inBare(['for-each-ref', '--format=%(refname)', 'refs/baton/events/']).split('\n')[0];
		const tip = inBare(['rev-parse', ref]);
		const blob = inBare(['hash-object', '-w', '--stdin'], '{"id":"evt_01KZZ","kind":"session.sta\n');
		inBare(['read-tree', tip]);
		inBare(['update-index', '--add', '--cacheinfo', `100644,${blob},batches/zz-not-baton.jsonl`]);
		inBare(['update-ref', ref, inBare(['commit-tree', inBare(['write-tree']), '-p', tip, '-m', 'baton events: 1']), tip]);
		await s.runCommand('Baton: Sync Now');
		const toast = s.page.locator('.notification-toast', { hasText: 'Baton sync left out 1 pulled record' }).first();
		await toast.waitFor({ timeout: 20_000 });
		const text = (await toast.textContent()) ?? '';
		if (!text.includes(`${blob.slice(0, 12)}:1`) || !text.includes('not JSON')) {
			throw new Error(`the warning should name the record and why: "${text}"`);
		}
		await toast.locator('a.monaco-button, .monaco-button', { hasText: 'Show Log' }).first().waitFor({ timeout: 5_000 });
		await s.page.waitForTimeout(300);
		await s.screenshot('05-refused-warning');
	});
	await check("a teammate's approval of this machine's checkpoint shows on its row as their opinion; the checkpoint stays pending", async () => {
		// This machine's checkpoint needs review; the runner's person pulls it and approves it there.
		const created = JSON.parse(
			run(workspace, process.execPath, [cli, 'checkpoint', 'create', '--trigger', 'error', '--message', 'Risky change', '--json']).toString(),
		);
		const id = created.checkpoint.id;
		run(workspace, process.execPath, [cli, 'sync', 'push']);
		run(laptop, process.execPath, [cli, 'sync', 'pull'], runner);
		run(laptop, process.execPath, [cli, 'checkpoint', 'approve', id, '--reason', 'looks fine to me'], runner);
		run(laptop, process.execPath, [cli, 'sync', 'push'], runner);
		await s.runCommand('Baton: Sync Now');
		const row = s.treeItem(rowLabel('Risky change'), { view: 'Pending Approvals' });
		await row.waitFor({ timeout: 30_000 });
		await s.page.waitForFunction((el) => /1 teammate opinion/.test(el.textContent ?? ''), await row.elementHandle(), { timeout: 30_000 });
		const description = (await row.locator('.label-description').textContent()) ?? '';
		if (!description.includes('needs review')) {
			throw new Error(`the checkpoint should still need review here: "${description}"`);
		}
		const hover = s.page.locator('.monaco-hover', { hasText: 'a teammate' }).first();
		for (let attempt = 0; attempt < 5 && !(await hover.isVisible().catch(() => false)); attempt++) {
			await row.hover();
			await hover.waitFor({ timeout: 5_000 }).catch(() => {});
		}
		const text = (await hover.textContent()) ?? '';
		if (!text.includes('ci-bot on ci-runner: approved') || !text.includes('looks fine to me') || !text.includes('not applied')) {
			throw new Error(`the hover should say whose opinion it is, and that it is not applied: "${text}"`);
		}
		await s.page.waitForTimeout(300);
		await s.screenshot('06-teammate-opinion');
		const shown = JSON.parse(run(workspace, process.execPath, [cli, 'checkpoint', 'show', id, '--json']).toString());
		if (shown.checkpoint.approvalStatus !== 'pending') {
			throw new Error(`a teammate's approval was applied to this machine's checkpoint: ${shown.checkpoint.approvalStatus}`);
		}
	});
	await check('a teammate’s agent step, shared with its files (--timeline), shows its diff in this machine’s Replay', async () => {
		// On the runner: sharing with step files, and an agent (Claude Code's hook payloads) edits README.md.
		run(laptop, process.execPath, [cli, 'sync', 'enable', 'origin', '--timeline'], runner);
		// The runner's person is done with their session; the agent's run is a session of its own.
		run(laptop, process.execPath, [cli, 'session', 'end', '--note', 'reviewed'], runner);
		const agentId = 'c0ffee00-0000-4000-8000-0000000000aa';
		const hook = (event, payload) =>
			execFileSync(process.execPath, [cli, 'hook', event], {
				cwd: laptop,
				env: { ...env, ...runner },
				input: JSON.stringify({ session_id: agentId, cwd: laptop, ...payload }),
			});
		hook('session-start', { hook_event_name: 'SessionStart', source: 'startup' });
		hook('user-prompt-submit', { hook_event_name: 'UserPromptSubmit', prompt: 'Document the checkout flow' });
		const edit = {
			tool_name: 'Edit',
			tool_input: { file_path: path.join(laptop, 'README.md'), old_string: '# shop', new_string: '# shop\n\nCheckout: cart → address → payment.' },
			tool_use_id: 'toolu_readme_1',
		};
		hook('pre-tool-use', { hook_event_name: 'PreToolUse', ...edit });
		fs.writeFileSync(path.join(laptop, 'README.md'), '# shop\n\nCheckout: cart → address → payment.\n');
		hook('post-tool-use', { hook_event_name: 'PostToolUse', ...edit, tool_response: { success: true } });
		hook('session-end', { hook_event_name: 'SessionEnd', reason: 'other' });
		run(laptop, 'git', ['commit', '-qam', 'Document the checkout flow']);
		run(laptop, 'git', ['push', '-q', 'origin', 'main']);
		run(laptop, process.execPath, [cli, 'sync', 'push'], runner);
		// Here: the code and the records.
		run(workspace, 'git', ['pull', '-q', 'origin', 'main']);
		await s.runCommand('Baton: Sync Now');
		const sessions = JSON.parse(run(workspace, process.execPath, [cli, 'session', 'list', '--json']).toString()).sessions;
		const session = sessions.find((x) => x.agent === 'claude-code');
		if (!session) {
			throw new Error(`the runner's agent session did not arrive: ${JSON.stringify(sessions.map((x) => x.name))}`);
		}
		await s.page.evaluate(() => undefined);
		await s.runCommand('Baton: Replay Session');
		await s.quickPickSelect(session.name, { filter: session.name });
		const frame = await s.webview('body[data-rendered="replay"]', { timeout: 30_000 });
		await frame.locator('.rows').focus();
		await s.page.keyboard.press('ArrowDown');
		await frame.locator('.detail h2', { hasText: 'Step 1 · turn 1' }).waitFor({ timeout: 10_000 });
		await frame.getByText('README.md').first().waitFor();
		const detail = (await frame.locator('.detail').textContent()) ?? '';
		if (/diff is gone|not in this workspace/.test(detail)) {
			throw new Error(`the teammate's step should have its files here: "${detail}"`);
		}
		await s.screenshot('09-teammate-step');
		await s.page.keyboard.press('Enter');
		await s.page.locator('.monaco-diff-editor').first().waitFor({ timeout: 15_000 });
		await s.page.locator('.monaco-diff-editor .line-insert, .monaco-diff-editor .char-insert').first().waitFor({ timeout: 15_000 });
		await s.page.waitForTimeout(400);
		await s.screenshot('10-teammate-step-diff');
	});
	await check(
		'a checkpoint of this machine’s is taken back from the palette, after a modal that says what it cannot undo; the runner drops it on its next pull',
		async () => {
			const listed = JSON.parse(run(workspace, process.execPath, [cli, 'checkpoint', 'list', '--json']).toString());
			const id = (listed.checkpoints ?? listed).find((c) => c.message === 'Risky change').id;
			await s.runCommand('Baton: Retract Shared Records…');
			await s.quickPickSelect('A checkpoint');
			await s.quickPickSelect('Risky change');
			const modal = s.modalDialog('Take back the checkpoint “Risky change”?');
			await modal.waitFor({ timeout: 15_000 });
			const text = (await modal.textContent()) ?? '';
			if (!text.includes('force-pushes') || !text.includes('cannot undo') || !text.includes('garbage collection')) {
				throw new Error(`the modal should say what it does and what it cannot undo: "${text}"`);
			}
			await s.screenshot('07-retract-modal');
			await modal.locator('a.monaco-button', { hasText: 'Retract' }).first().click();
			await s.notification('Baton took back the checkpoint “Risky change”');
			await s.page.waitForTimeout(300);
			await s.screenshot('08-retracted');
			run(laptop, process.execPath, [cli, 'sync', 'pull'], runner);
			let stillThere = true;
			try {
				run(laptop, process.execPath, [cli, 'checkpoint', 'show', id, '--json'], runner);
			} catch {
				stillThere = false;
			}
			if (stillThere) {
				throw new Error('the runner still shows the retracted checkpoint after its pull');
			}
			// This machine keeps it.
			run(workspace, process.execPath, [cli, 'checkpoint', 'show', id, '--json']);
		},
	);
} catch {
	// The failed check was reported with a screenshot.
} finally {
	await s.close();
	fs.rmSync(base, { recursive: true, force: true });
}
checks.finish();
