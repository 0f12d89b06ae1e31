#!/usr/bin/env node
// Interop as a person meets it: Send Test Notification to the editor shows the editor's own toast;
// its picker lists SMS (Twilio) with what that channel still needs, and Store Secret… offers
// Twilio's credentials;
// Import… brings a CLEO sessions.json in (format picked, the file typed into VS Code's own file
// dialog, a preview to confirm) and its sessions appear in the tree, archived and closed ones kept
// as such, and the active one's focus (CLEO's note and next action) in the tree's hover, its details
// and its briefing. (The import comes late: its active session, started long ago, soon escalates on duration.)
// Import Agent History… reads the Codex session the real Codex CLI wrote for this folder (its rollout in
// the editor's CODEX_HOME) under a progress notification, and the session appears in the tree by its request;
// Rebuild Session Index, after that rollout and the transcript index are deleted, lists it again from the archive;
// a second window on another folder, with baton.agentHistory.scanOnOpen on, shows its Codex session without a command.
// Dark theme; screenshots in artifacts/ui/interop/.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launch } from '../harness/workbench.mjs';
import { Checks, openBaton, removeWorkspace, root } from './uiSupport.mjs';

const artifactsDir = path.join(root, 'artifacts', 'ui', 'interop');
fs.rmSync(artifactsDir, { recursive: true, force: true });
const checks = new Checks();
const check = async (name, fn) => {
	if (!(await checks.run(name, fn))) {
		throw new Error(`stopped after: ${name}`);
	}
};

const base = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-ui-interop-'));
const workspace = path.join(base, 'shop');
fs.mkdirSync(path.join(workspace, '.cleo'), { recursive: true });
fs.writeFileSync(path.join(workspace, 'README.md'), '# shop\n');
const sessionsFile = path.join(workspace, '.cleo', 'sessions.json');
// The fixture the import tests use: CLEO's legacy multi-session file, in CLEO's own format.
execFileSync(
	process.execPath,
	[
		'--import',
		'tsx',
		'-e',
		`require('./test/unit/engine/interop/interopFixtures.ts').writeJson(${JSON.stringify(sessionsFile)}, require('./test/unit/engine/interop/interopFixtures.ts').cleoSessionsData())`,
	],
	{
		cwd: root,
	},
);
execFileSync(process.execPath, [path.join(root, 'dist', 'cli.js'), 'init', '--workspace', workspace]);
const expected = JSON.parse(
	execFileSync(
		process.execPath,
		[path.join(root, 'dist', 'cli.js'), 'import', 'cleo-sessions', sessionsFile, '--dry-run', '--json', '--workspace', workspace],
		{ encoding: 'utf8' },
	),
);

// The agents' homes the editor sees: a rollout the real Codex CLI 0.171.0 wrote, its recorded folder made this workspace.
const rollout = fs.readFileSync(path.join(root, 'test', 'fixtures', 'real', 'codex-rollout', 'rollout-0.171.0-apply-patch.jsonl'), 'utf8');
/** A CODEX_HOME holding that rollout as Codex wrote it for `folder`. */
function codexHomeFor(home, folder) {
	const dir = path.join(home, 'sessions', '2026', '11', '28');
	fs.mkdirSync(dir, { recursive: true });
	fs.writeFileSync(path.join(dir, 'rollout-2026-11-28T09-58-50-01a22197-dbd8-7241-af6b-96b66b737258.jsonl'), rollout.replaceAll('/home/dev/project', folder));
	return home;
}
const agentHomes = {
	CODEX_HOME: codexHomeFor(path.join(base, 'codex-home'), workspace),
	BATON_CLAUDE_HOME: path.join(base, 'claude-home'),
	GEMINI_CLI_HOME: path.join(base, 'gemini-home'),
};

const s = await launch({ extensionFolders: [root], workspace, theme: 'dark', artifactsDir, viewport: { width: 1400, height: 900 }, env: agentHomes });
checks.session = s;
try {
	await check('Send Test Notification to the editor shows its toast', async () => {
		await openBaton(s);
		await s.runCommand('Baton: Send Test Notification');
		await s.quickPickSelect('VS Code (the editor)');
		await s.notification('Test notification', { timeout: 20_000 });
		await s.page.waitForTimeout(300);
		await s.screenshot('01-test-notification');
	});
	await check('Send Test Notification lists SMS (Twilio) with what it needs; Store Secret… offers Twilio’s credentials', async () => {
		await s.clearNotifications();
		await s.runCommand('Baton: Send Test Notification');
		await s.quickPickType('SMS');
		const row = s.quickPickItem('SMS (Twilio)');
		await row.waitFor({ timeout: 15_000 });
		const text = (await row.textContent()) ?? '';
		for (const part of ['not in baton.notifications.channels', 'Needs notifications.sms.to, notifications.sms.from, twilio.accountSid, twilio.authToken']) {
			if (!text.includes(part)) throw new Error(`the SMS row should say “${part}”: ${text}`);
		}
		// The pointer rests off the list, so no hover covers the row's detail in the screenshot.
		await s.page.mouse.move(700, 700);
		await s.page.waitForTimeout(300);
		await s.screenshot('01b-test-notification-sms');
		await s.quickPickCancel();
		await s.runCommand('Baton: Store Secret…');
		await s.quickPickType('Twilio');
		// The rows' labels (their details are listed too, in the filter's order).
		const labels = (await s.quickPickItems()).filter((l) => l.startsWith('Twilio')).sort();
		const wanted = [
			'Twilio API key SID (SMS, instead of the auth token)',
			'Twilio API key secret (SMS, instead of the auth token)',
			'Twilio account SID (SMS)',
			'Twilio auth token (SMS)',
		];
		if (JSON.stringify(labels) !== JSON.stringify(wanted))
			throw new Error(`Store Secret… should offer Twilio's four credentials: ${JSON.stringify(labels)}`);
		await s.page.mouse.move(700, 700);
		await s.page.waitForTimeout(300);
		await s.screenshot('01c-store-secret-twilio');
		await s.quickPickCancel();
	});
	await check('Import… previews a CLEO sessions.json, imports it on confirmation, and the tree shows its sessions', async () => {
		await s.clearNotifications();
		await s.runCommand('Baton: Import…');
		await s.quickPickSelect('CLEO sessions.json');
		// VS Code's own (simple) file dialog: the path is typed.
		await s.quickInputSubmit(sessionsFile);
		const confirm = s.modalDialog('Import from sessions.json?');
		await confirm.waitFor({ timeout: 20_000 });
		const text = (await confirm.textContent()) ?? '';
		if (!text.includes(`${expected.added.sessions} sessions`)) {
			throw new Error(`the preview should count ${expected.added.sessions} sessions: ${text}`);
		}
		await s.screenshot('02-import-preview');
		await confirm
			.locator('a.monaco-button', { hasText: /^Import$/ })
			.first()
			.click();
		await s.notification('Imported', { timeout: 20_000 });
		// Imported as they were: the active one is active, the archived one stays archived.
		await s.treeItem('Auth Implementation', { view: 'Session Chains' }).waitFor({ timeout: 20_000 });
		await s.treeItem('Old cleanup', { view: 'Session Chains' }).waitFor({ timeout: 10_000 });
		await s.statusBarItem('Auth Implementation').waitFor({ timeout: 10_000 });
		await s.page.waitForTimeout(300);
		await s.screenshot('03-imported-sessions');
	});
	await check('the imported active session’s focus shows in the tree’s hover, its details and its briefing', async () => {
		// Issue #27: CLEO's focus note and next action were kept only on the import record.
		const note = 'Working on JWT validation';
		const next = 'Add error handling';
		await s.clearNotifications();
		const row = s.treeItem('Auth Implementation', { view: 'Session Chains' });
		const hover = s.page.locator('.monaco-hover:not(.hidden), .workbench-hover', { hasText: note }).first();
		for (let attempt = 0; attempt < 5 && !(await hover.isVisible().catch(() => false)); attempt++) {
			await s.page.mouse.move(0, 0);
			await row.hover();
			await hover.waitFor({ timeout: 5_000 }).catch(() => {});
		}
		const hoverText = await hover.innerText({ timeout: 5_000 });
		if (!hoverText.includes('Focus') || !hoverText.includes(next)) throw new Error(`the hover lacks the focus: ${hoverText}`);
		await s.screenshot('04-hover-focus');
		await s.page.mouse.move(0, 0);
		await s.page.keyboard.press('Escape');
		await row.click();
		const details = await s.webview('body[data-view="details"]', { timeout: 20_000 });
		const card = details.locator('section.card', { has: details.locator('h2', { hasText: /^Focus$/ }) });
		await card.getByText(note).waitFor({ timeout: 10_000 });
		await card.getByText(next).waitFor();
		await s.page.waitForTimeout(300);
		await s.screenshot('05-details-focus');
		await s.runCommand('View: Close All Editors');
		// The one active session: Show Briefing briefs it, as an agent resuming it is briefed.
		await s.runCommand('Baton: Show Briefing');
		const briefing = await s.webview('body[data-view="briefing"]', { timeout: 20_000 });
		const focusCard = briefing.locator('section.card', { has: briefing.locator('h2', { hasText: /^Focus$/ }) });
		await focusCard.getByText(note).waitFor({ timeout: 10_000 });
		await focusCard.getByText(next).waitFor();
		await s.page.waitForTimeout(300);
		await s.screenshot('06-briefing-focus');
	});
	await check('Import Agent History… reads the Codex session of this folder from its own files, and the tree shows it by its request', async () => {
		await s.clearNotifications();
		await s.runCommand('View: Close All Editors');
		await s.runCommand('Baton: Import Agent History…');
		await s.quickPickItem('Codex').waitFor({ timeout: 15_000 });
		await s.page.mouse.move(700, 700);
		await s.screenshot('07-agent-history-pick');
		await s.quickPickAccept();
		await s.notification('Imported agent history — Codex: 1 new, 0 updated', { timeout: 30_000 });
		await s.treeItem('patch the files', { view: 'Session Chains' }).waitFor({ timeout: 20_000 });
		await s.page.waitForTimeout(300);
		await s.screenshot('08-agent-history-imported');
	});
	await check(
		'Rebuild Session Index brings the Codex session back from the archive after its rollout and the index were deleted, with progress, and the Transcripts view lists it',
		async () => {
			await s.clearNotifications();
			fs.rmSync(
				path.join(agentHomes.CODEX_HOME, 'sessions', '2026', '11', '28', 'rollout-2026-11-28T09-58-50-01a22197-dbd8-7241-af6b-96b66b737258.jsonl'),
			);
			fs.rmSync(path.join(workspace, '.baton', 'transcripts', 'index.json'));
			await s.runCommand('Baton: Rebuild Session Index');
			await s.notification('Rebuilt the session index: 1 transcript(s) of 1 session(s) — Codex 1 (1 kept from the archive alone).', { timeout: 30_000 });
			const header = s.page.locator('.part.sidebar .pane-header', { hasText: /^\s*Transcripts/i }).first();
			await header.waitFor({ timeout: 20_000 });
			if ((await header.getAttribute('aria-expanded')) !== 'true') {
				await header.click();
			}
			await s.treeItem('patch the files', { view: 'Transcripts' }).waitFor({ timeout: 20_000 });
			await s.page.waitForTimeout(300);
			await s.screenshot('10-session-index-rebuilt');
		},
	);
} catch {
	// The failed check was reported with a screenshot.
} finally {
	await s.close();
	await removeWorkspace(base);
}
// The opt-in scan when the window opens: another folder, its own CODEX_HOME, the setting on.
const scanBase = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-ui-scan-'));
const scanFolder = path.join(scanBase, 'warehouse');
fs.mkdirSync(scanFolder);
fs.writeFileSync(path.join(scanFolder, 'README.md'), '# warehouse\n');
execFileSync(process.execPath, [path.join(root, 'dist', 'cli.js'), 'init', '--workspace', scanFolder]);
const scanHomes = {
	CODEX_HOME: codexHomeFor(path.join(scanBase, 'codex-home'), scanFolder),
	BATON_CLAUDE_HOME: path.join(scanBase, 'claude-home'),
	GEMINI_CLI_HOME: path.join(scanBase, 'gemini-home'),
};
const s2 = await launch({
	extensionFolders: [root],
	workspace: scanFolder,
	theme: 'dark',
	artifactsDir,
	viewport: { width: 1400, height: 900 },
	env: scanHomes,
	settings: { 'baton.agentHistory.scanOnOpen': true },
});
checks.session = s2;
try {
	await checks.run('with baton.agentHistory.scanOnOpen on, the window that opens the folder reads its Codex session in, no command run', async () => {
		await openBaton(s2);
		await s2.treeItem('patch the files', { view: 'Session Chains' }).waitFor({ timeout: 45_000 });
		await s2.page.waitForTimeout(300);
		await s2.screenshot('09-agent-history-scan-on-open');
	});
} finally {
	await s2.close();
	await removeWorkspace(scanBase);
}
checks.finish();
