#!/usr/bin/env node
// Agents as a person meets them: a Claude Code transcript archived through the real hooks shows in
// the Transcripts view under its session and opens as a readable rendering; Connect Claude Code asks
// about the MCP server, then shows what it wrote; Summarize Session, with no language model in this
// editor, shows the deterministic summary and says why. Dark theme; screenshots in artifacts/ui/agents/.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launch } from '../harness/workbench.mjs';
import { Checks, openBaton, removeWorkspace, root, rowLabel } from './uiSupport.mjs';

const artifactsDir = path.join(root, 'artifacts', 'ui', 'agents');
fs.rmSync(artifactsDir, { recursive: true, force: true });
const checks = new Checks();
const check = async (name, fn) => {
	if (!(await checks.run(name, fn))) {
		throw new Error(`stopped after: ${name}`);
	}
};

/** The webview frame (the markdown preview) showing `text`. */
async function frameWithText(text, timeoutMs) {
	const deadline = Date.now() + timeoutMs;
	while (Date.now() < deadline) {
		for (const frame of s.page.frames()) {
			if (
				frame !== s.page.mainFrame() &&
				(await frame
					.getByText(text)
					.first()
					.isVisible()
					.catch(() => false))
			) {
				return frame;
			}
		}
		await s.page.waitForTimeout(200);
	}
	// Say whether the preview's frame was never created or was created and stayed blank.
	const frames = s.page.frames().filter((f) => f !== s.page.mainFrame());
	const seen = await Promise.all(frames.map(async (f) => `${f.url().split('?')[0]} (${(await f.innerText('body').catch(() => '')).length} chars)`));
	throw new Error(`no frame shows "${text}" within ${timeoutMs} ms; frames: ${seen.join(', ') || 'none'}`);
}

const base = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-ui-agents-'));
const workspace = path.join(base, 'shop');
fs.mkdirSync(path.join(workspace, 'src'), { recursive: true });
fs.writeFileSync(path.join(workspace, 'src/payment.js'), 'export async function charge(card, amount) {\n  return { ok: true, amount };\n}\n');
fs.mkdirSync(path.join(workspace, '.claude'));
fs.writeFileSync(
	path.join(workspace, '.claude/settings.json'),
	'{\n  "hooks": {\n    "Stop": [{ "hooks": [{ "type": "command", "command": "notify-send done" }] }]\n  }\n}\n',
);
// Through the real `baton hook`: SessionStart, a generated transcript, the per-turn Stop that archives it.
execFileSync(process.execPath, ['--import', 'tsx', path.join(root, 'scripts/seedTranscript.ts'), workspace], { cwd: root, encoding: 'utf8' });

const s = await launch({ extensionFolders: [root], workspace, theme: 'dark', artifactsDir, viewport: { width: 1400, height: 900 } });
checks.session = s;
try {
	await check('the Transcripts view lists the archived transcript under its session', async () => {
		await openBaton(s);
		const header = s.page.locator('.part.sidebar .pane-header', { hasText: /^\s*Transcripts/i }).first();
		await header.waitFor({ timeout: 20_000 });
		if ((await header.getAttribute('aria-expanded')) !== 'true') {
			await header.click();
		}
		await s.treeItem('Claude Code session 6f1c2a9e', { view: 'Transcripts' }).waitFor({ timeout: 15_000 });
		// A wider side bar, as a person reading the rows would drag it.
		const bar = await s.page.locator('.part.sidebar').boundingBox();
		await s.page.mouse.move(bar.x + bar.width + 1, bar.y + 300);
		await s.page.mouse.down();
		await s.page.mouse.move(bar.x + bar.width + 240, bar.y + 300, { steps: 8 });
		await s.page.mouse.up();
		const row = s.treeItem('Payment idempotency key', { view: 'Transcripts' });
		await row.waitFor({ timeout: 10_000 });
		const text = await row.textContent();
		if (!/1 turn · 4 tools · \d+ (KB|B) · /.test(text ?? '')) {
			throw new Error(`the row should say turns, tools and size: ${text}`);
		}
		await s.page.waitForTimeout(400);
		await s.screenshot('01-transcripts-view');
		// Back to the usual width: the editor needs the room for what follows.
		await s.page.mouse.move(bar.x + bar.width + 240, bar.y + 300);
		await s.page.mouse.down();
		await s.page.mouse.move(bar.x + bar.width + 1, bar.y + 300, { steps: 8 });
		await s.page.mouse.up();
	});

	await check('a transcript opens as a readable rendering', async () => {
		await s.treeItem('Payment idempotency key', { view: 'Transcripts' }).click();
		// VS Code's own Markdown preview: its webview loads in 3–4 s alone, and once took past 20 s in a
		// full CI run; 45 s, the longest wait these suites allow.
		const frame = await frameWithText('Add an idempotency key to the payment charge', 45_000);
		await frame.getByText('Add an idempotency key to the payment charge').first().waitFor({ timeout: 15_000 });
		await frame.getByText('expected 409, got 200').first().waitFor();
		await s.page.locator('.tab', { hasText: 'Payment idempotency key' }).first().waitFor();
		await s.page.waitForTimeout(600);
		await s.screenshot('02-transcript-rendering');
	});

	await check('Connect Claude Code asks about the MCP server, then shows the diff it wrote', async () => {
		// Keyboard focus back in the workbench (the preview's frame keeps F1 to itself).
		await s.page.locator('.tab', { hasText: 'Payment idempotency key' }).first().click();
		await s.runCommand('Baton: Connect Claude Code');
		await s.quickPickSelect('Hooks and MCP server');
		// The tool-call hooks are http hooks in Claude's per-machine settings file (docs/daemon.md, "HTTP hooks").
		await s.notification('Connected Claude Code: updated .claude/settings.json (backup kept), created .claude/settings.local.json, created .mcp.json', {
			timeout: 20_000,
		});
		await s.page.locator('.monaco-diff-editor').first().waitFor({ timeout: 15_000 });
		const written = JSON.parse(fs.readFileSync(path.join(workspace, '.claude/settings.json'), 'utf8'));
		if (written.hooks.Stop[0].hooks[0].command !== 'notify-send done' || !/hook session-start$/.test(written.hooks.SessionStart[0].hooks[0].command)) {
			throw new Error(`unexpected settings: ${JSON.stringify(written)}`);
		}
		await s.page.waitForTimeout(600);
		await s.screenshot('03-connected-diff');
	});

	await check('connecting again says nothing changed', async () => {
		await s.clearNotifications();
		await s.runCommand('Baton: Connect Claude Code');
		await s.quickPickSelect('Hooks and MCP server');
		await s.notification('Claude Code was already connected: nothing changed.', { timeout: 15_000 });
	});

	await check('Summarize Session without a language model shows the deterministic summary and says why', async () => {
		await s.clearNotifications();
		await s.runCommand('Baton: Summarize Session with Language Model');
		await s.quickPickSelect('Claude Code session 6f1c2a9e');
		await s.notification('Summary of “Claude Code session 6f1c2a9e”', { timeout: 20_000 });
		await s.page.locator('.notifications-toasts a.monaco-button', { hasText: 'Save as Handoff Note' }).first().waitFor();
		await s.page.locator('.monaco-editor .view-lines', { hasText: 'No language model is available' }).first().waitFor({ timeout: 10_000 });
		await s.page.waitForTimeout(500);
		await s.screenshot('04-summary-fallback');
	});

	await check('a session renamed from its context menu reads its new name, with its agent beside its state', async () => {
		await s.clearNotifications();
		await s.treeItem(rowLabel('Claude Code session 6f1c2a9e'), { view: 'Session Chains' }).click({ button: 'right' });
		await s.clickContextMenuItem('Rename Session…');
		await s.quickInputSubmit('Payment idempotency key');
		const row = s.treeItem(rowLabel('Payment idempotency key'), { view: 'Session Chains' });
		await row.waitFor({ timeout: 15_000 });
		const description = (await row.locator('.label-description').textContent()) ?? '';
		if (!/· Claude Code$/.test(description.trim())) {
			throw new Error(`the row does not say whose session it is: "${description}"`);
		}
		await row.hover();
		await s.page.locator('.monaco-hover', { hasText: 'its own id 6f1c2a9e' }).first().waitFor({ timeout: 10_000 });
		await s.screenshot('05-renamed-session');
	});
} catch {
	// The failed check was reported with a screenshot.
} finally {
	await s.close();
	await removeWorkspace(base);
}
checks.finish();
