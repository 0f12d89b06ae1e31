#!/usr/bin/env node
// Search as a person meets it (docs/search.md): the search button in the Session Chains view's title
// opens Baton: Search Sessions…, whose rows come from the backend's index as the person types; a
// decision opens its session's details, a transcript hit opens the transcript at its line.
// Screenshots go to artifacts/ui/search/.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launch } from '../harness/workbench.mjs';
import { Checks, openBaton, removeWorkspace, root } from './uiSupport.mjs';

const cliPath = path.join(root, 'dist', 'cli.js');
const artifactsDir = path.join(root, 'artifacts', 'ui', 'search');
fs.rmSync(artifactsDir, { recursive: true, force: true });
const checks = new Checks();
const check = async (name, fn) => {
	if (!(await checks.run(name, fn))) {
		throw new Error(`stopped after: ${name}`);
	}
};

const base = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-ui-search-'));
const workspace = path.join(base, 'shop');
const claudeHome = path.join(base, 'claude');
fs.mkdirSync(workspace);
const env = { ...process.env, BATON_CLAUDE_HOME: claudeHome };
const baton = (...args) => JSON.parse(execFileSync(process.execPath, [cliPath, ...args, '--json'], { cwd: workspace, encoding: 'utf8', env }));

// A Claude Code session with a decision and an archived transcript, and a person's session.
const agentId = '0b7f3c4e-9d2a-4e61-8c55-2f1a6d9e7b10';
baton('init');
const { session } = baton('session', 'start', '--name', 'Invoice rounding', '--agent', 'claude-code', '--agent-id', agentId);
baton('decision', 'record', '--text', 'Round the invoice total half to even, once, at the end');
const lines = [];
let n = 0;
const record = (type, message) =>
	lines.push(
		JSON.stringify({
			type,
			uuid: `u${n}`,
			parentUuid: n ? `u${n - 1}` : null,
			sessionId: agentId,
			cwd: workspace,
			timestamp: new Date(Date.UTC(2026, 10, 28, 9, 0, n++)).toISOString(),
			message,
		}),
	);
record('user', { role: 'user', content: 'The checkout shows 10.01 but the ledger says 10.00. Why?' });
for (let i = 0; i < 12; i++) {
	record('assistant', {
		id: `msg_${i}`,
		role: 'assistant',
		model: 'claude-sonnet-4-5',
		content: [{ type: 'text', text: `Looking at step ${i} of the checkout: nothing unusual in module ${i}.` }],
		usage: { input_tokens: 10, output_tokens: 5 },
	});
}
record('assistant', {
	id: 'msg_end',
	role: 'assistant',
	model: 'claude-sonnet-4-5',
	content: [{ type: 'text', text: 'Found it: the ledger truncates the half cent while the invoice rounds it.' }],
	usage: { input_tokens: 10, output_tokens: 5 },
});
const project = path.join(claudeHome, 'projects', workspace.replace(/[^A-Za-z0-9]/g, '-'));
fs.mkdirSync(project, { recursive: true });
fs.writeFileSync(path.join(project, `${agentId}.jsonl`), `${lines.join('\n')}\n`);
baton('transcripts', 'sync');
// Three agent steps, each editing src/module<n>.ts, captured as the hooks capture them.
execFileSync(process.execPath, ['--import', 'tsx', path.join(root, 'test', 'ui', 'replaySession.ts'), workspace, session.id, '3'], {
	cwd: root,
	encoding: 'utf8',
	stdio: ['ignore', 'ignore', 'inherit'],
});
baton('session', 'end', '--id', session.id, '--note', 'Rounding fixed; refunds still use floats');
baton('session', 'start', '--name', 'Onboarding guide');

const s = await launch({ extensionFolders: [root], workspace, theme: 'dark', artifactsDir, viewport: { width: 1400, height: 900 } });
checks.session = s;
try {
	await check('the Session Chains view has a search button in its title', async () => {
		await openBaton(s);
		await s
			.treeItem(/Onboarding guide/)
			.first()
			.waitFor({ timeout: 30_000 });
		// A view's title actions show while the pointer is over its header, as for a person.
		await s.page.locator('.part.sidebar .pane-header', { hasText: 'Session Chains' }).first().hover();
		const button = s.page.locator('.part.sidebar .pane-header .action-label[aria-label^="Search Sessions…"]:visible').first();
		await button.waitFor({ timeout: 10_000 });
		await button.hover();
		await s.page.waitForTimeout(800);
		await s.screenshot('01-view-search-button');
	});

	await check('the button opens Search Sessions…, which lists the ranked hits with their passage as the person types', async () => {
		await s.page.locator('.part.sidebar .pane-header', { hasText: 'Session Chains' }).first().hover();
		await s.clickViewAction('Search Sessions…');
		await s.quickPickType('ledger');
		await s.page.locator('.quick-input-widget .monaco-list-row', { hasText: 'truncates the half cent' }).first().waitFor({ timeout: 20_000 });
		const rows = await s.page
			.locator('.quick-input-widget .monaco-list-row')
			.evaluateAll((els) => els.map((e) => (e.textContent ?? '').replace(/\s+/g, ' ').trim()));
		if (!rows.some((r) => /Invoice rounding/.test(r) && /transcript/.test(r))) throw new Error(`no transcript row: ${rows.join(' | ')}`);
		await s.page.waitForTimeout(400);
		await s.screenshot('02-search-quick-pick');
	});

	await check('a transcript hit opens the transcript at its line', async () => {
		await s.page.locator('.quick-input-widget .monaco-list-row', { hasText: 'truncates the half cent' }).first().click();
		await s.page
			.locator('.tab', { hasText: agentId.slice(0, 8) })
			.first()
			.waitFor({ timeout: 20_000 });
		const cursorLine = s.page.locator('.monaco-editor .view-line', { hasText: 'Found it: the ledger truncates' }).first();
		await cursorLine.waitFor({ timeout: 10_000 });
		await s.page.waitForTimeout(600);
		await s.screenshot('03-transcript-at-line');
	});

	await check('a decision hit opens its session’s details', async () => {
		await s.runCommand('Baton: Search Sessions…', { type: 'half to even' });
		const row = s.page.locator('.quick-input-widget .monaco-list-row', { hasText: 'Round the invoice total' }).first();
		await row.waitFor({ timeout: 20_000 });
		await row.click();
		const frame = await s.webview('body', { timeout: 20_000 });
		await frame.getByText('Invoice rounding').first().waitFor({ timeout: 15_000 });
		await s.page.waitForTimeout(400);
		await s.screenshot('04-decision-opens-session');
	});

	await check('a step hit opens the Replay at that step', async () => {
		await s.runCommand('Baton: Search Sessions…', { type: 'module2.ts' });
		const row = s.page.locator('.quick-input-widget .monaco-list-row', { hasText: 'step 2' }).first();
		await row.waitFor({ timeout: 20_000 });
		await s.screenshot('05-step-hit');
		await row.click();
		const frame = await s.webview('body[data-rendered="replay"]', { timeout: 30_000 });
		await frame.locator('.detail h2', { hasText: 'Step 2 · turn 1' }).waitFor({ timeout: 15_000 });
		await s.page.waitForTimeout(400);
		await s.screenshot('06-replay-at-step');
	});

	await check('a query with FTS syntax is read as words, and one with no word says so', async () => {
		await s.runCommand('Baton: Search Sessions…', { type: '"ledger NEAR (' });
		await s.page
			.locator('.quick-input-widget .monaco-list-row', { hasText: /No match for/ })
			.first()
			.waitFor({ timeout: 20_000 });
		await s.quickPickType('"*"');
		await s.page
			.locator('.quick-input-widget .monaco-list-row', { hasText: /nothing to search for/ })
			.first()
			.waitFor({ timeout: 20_000 });
		await s.screenshot('07-no-word');
		await s.quickPickCancel();
	});
} catch {
	// The failed check was reported with a screenshot.
} finally {
	await s.close();
	await removeWorkspace(base);
}
checks.finish();
