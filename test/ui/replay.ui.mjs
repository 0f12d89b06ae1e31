#!/usr/bin/env node
// The Replay view as a person meets it: a real workspace with a 500-step agent session (captured by
// the hooks' own recorder: real files, real git in Baton's store), opened with `Baton: Replay
// Session`; the list stays virtual and fluid while it scrolls; arrows move between steps and show
// each step's files and where they stand now; Enter opens VS Code's diff editor. Screenshots (dark, then
// light) go to artifacts/ui/replay/. The first paint — the frame that shows the page's own rows, before
// its script — is timed from the command and from the page's start, cold and on later openings, beside
// an empty webview opened the same way (test/ui/emptyWebview, the baseline: VS Code's own part), as
// BATON-MEASURE lines for `npm run bench`'s editor section.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launch } from '../harness/workbench.mjs';
import { Checks, removeWorkspace, root } from './uiSupport.mjs';

const cliPath = path.join(root, 'dist', 'cli.js');
const artifactsDir = path.join(root, 'artifacts', 'ui', 'replay');
fs.rmSync(artifactsDir, { recursive: true, force: true });
const checks = new Checks();
const check = async (name, fn) => {
	if (!(await checks.run(name, fn))) {
		throw new Error(`stopped after: ${name}`);
	}
};
const baton = (cwd, ...args) => JSON.parse(execFileSync(process.execPath, [cliPath, ...args, '--json'], { cwd, encoding: 'utf8' }));

const steps = 500;
// A person's edit every 100 agent steps is a step of its own.
const total = steps + steps / 100;
const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-ui-replay-'));
fs.writeFileSync(path.join(workspace, 'README.md'), '# Modules\n');
baton(workspace, 'init');
const session = baton(workspace, 'session', 'start', '--name', 'Module handlers', '--agent', 'claude-code').session;
const recordStarted = Date.now();
execFileSync(process.execPath, ['--import', 'tsx', path.join(root, 'test', 'ui', 'replaySession.ts'), workspace, session.id, String(steps)], {
	cwd: root,
	encoding: 'utf8',
	stdio: ['ignore', 'ignore', 'inherit'],
});
console.log(`  recorded ${steps} steps in ${Date.now() - recordStarted} ms`);
const recorded = baton(workspace, 'timeline', '--session', session.id);
if (recorded.steps.filter((s) => s.actor === 'agent').length !== steps) {
	throw new Error(`expected ${steps} agent steps, found ${recorded.steps.length}`);
}

// A checkpoint that waited for review and that this machine's user rejected: its rows name it by number and the person as "you".
const reviewed = baton(workspace, 'checkpoint', 'create', '--message', 'Handlers done', '--trigger', 'complete').checkpoint;
baton(workspace, 'checkpoint', 'reject', reviewed.id, '--reason', 'needs tests');

const emptyWebview = path.join(root, 'test', 'ui', 'emptyWebview');
/** Both first webviews (the Replay's, the baseline's) are opened this long after the workbench shows Baton's status. */
const settleMs = 3000;
const s = await launch({ extensionFolders: [root, emptyWebview], workspace, theme: 'dark', artifactsDir, viewport: { width: 1400, height: 900 } });
checks.session = s;
const rowsInDom = (frame) => frame.evaluate(() => document.querySelectorAll('.rows .row').length);
/** Every row in the DOM sits on its own line: none overlaps another. */
const rowsLaidOut = async (frame) => {
	const tops = await frame.evaluate(() => [...document.querySelectorAll('.rows .row')].map((r) => Math.round(r.getBoundingClientRect().top)));
	if (new Set(tops).size !== tops.length) throw new Error(`rows overlap: ${tops.length} rows on ${new Set(tops).size} lines`);
};
/** The page's marks: its first frame after the command and after the page started, and how many rows it showed. */
const paintMarks = async (frame) =>
	frame.evaluate(() => ({
		command: Number(document.body.dataset.commandPaintMs),
		page: Number(document.body.dataset.paintMs),
		rows: Number(document.body.dataset.paintRows ?? -1),
		read: Number(document.body.dataset.readMs ?? -1),
	}));
/** `Baton: Replay Session` on the fixture's session; resolves to the page once its script has taken over, and its marks. */
const openReplay = async (sess) => {
	await sess.runCommand('Baton: Replay Session');
	await sess.quickPickSelect('Module handlers');
	const frame = await sess.webview('body[data-rendered="replay"][data-command-paint-ms]', { timeout: 30_000 });
	const marks = await paintMarks(frame);
	// The first frame is the page's own HTML: it must already hold the rows, never an empty shell.
	if (!(marks.rows >= 15)) throw new Error(`the first frame showed ${marks.rows} rows`);
	if (!(marks.page > 0)) throw new Error('no first-paint time');
	if (!(marks.command >= marks.page - 50))
		throw new Error(`first paint ${marks.command} ms after the command cannot be earlier than ${marks.page} ms after the page started`);
	return { frame, marks };
};
/** The baseline: an empty webview panel (test/ui/emptyWebview), timed the same way. */
const openEmptyWebview = async (sess) => {
	await sess.runCommand('Baton Test: Open Empty Webview');
	const frame = await sess.webview('body[data-view="empty"][data-command-paint-ms]', { timeout: 30_000 });
	return paintMarks(frame);
};
try {
	await check('Baton: Replay Session opens the session’s 500 steps as a virtual list', async () => {
		await s.statusBarItem('Module handlers · active').waitFor({ timeout: 30_000 });
		// The workbench's first webview, a few seconds after start-up (as in the light workbench's baseline below).
		await s.page.waitForTimeout(settleMs);
		const { frame, marks } = await openReplay(s);
		await frame.getByText(`${total} steps`, { exact: false }).first().waitFor({ timeout: 10_000 });
		const rows = await rowsInDom(frame);
		if (rows === 0 || rows > 80) throw new Error(`${rows} rows in the DOM: the list is not virtual`);
		// From the command (once it has its session) to the first frame with rows: the extension's clock
		// written into the page, read against the same machine's clock just after that frame.
		console.log(
			`    first paint ${marks.command} ms after the command (timeline read in ${marks.read} ms meanwhile), ${marks.page} ms after the page started (${recorded.entries.length} entries, ${marks.rows} rows in the first frame, ${rows} in the DOM now)`,
		);
		console.log(`BATON-MEASURE replayPaintMs=${marks.command}`);
		await rowsLaidOut(frame);
		await frame.getByText('Turn 1').first().waitFor();
		await s.screenshot('01-replay-opened');
		// Opened again in the warm workbench, alternating with the baseline: an empty webview opened the same way.
		for (let round = 0; round < 3; round++) {
			const order = round % 2 === 0 ? ['empty', 'replay'] : ['replay', 'empty'];
			for (const what of order) {
				await s.runCommand('View: Close All Editors');
				if (what === 'empty') {
					const empty = await openEmptyWebview(s);
					console.log(`    empty webview (baseline): first paint ${empty.command} ms after the command, ${empty.page} ms after the page started`);
					console.log(`BATON-MEASURE webviewBaselineReopenMs=${empty.command}`);
				} else {
					const again = await openReplay(s);
					console.log(
						`    opened again: first paint ${again.marks.command} ms after the command (read ${again.marks.read} ms), ${again.marks.page} ms after the page started`,
					);
					console.log(`BATON-MEASURE replayReopenPaintMs=${again.marks.command}`);
				}
			}
		}
		await s.runCommand('View: Close All Editors');
		await openReplay(s);
	});

	await check('arrows move between steps and show the step’s files and where they stand now', async () => {
		const frame = await s.webview('body[data-rendered="replay"]');
		await frame.locator('.rows').focus();
		await s.page.keyboard.press('ArrowDown');
		await frame.locator('.detail h2', { hasText: 'Step 1 · turn 1' }).waitFor({ timeout: 10_000 });
		await s.page.keyboard.press('ArrowDown');
		await frame.locator('.detail h2', { hasText: 'Step 2 · turn 1' }).waitFor({ timeout: 10_000 });
		await frame.getByText('src/module2.ts').first().waitFor();
		await frame.locator('.detail .now-changed, .detail .now-unchanged').first().waitFor();
		await s.screenshot('02-step-selected');
	});

	await check('a person’s step says it has no prompt or transcript, instead of showing the agent’s prompt', async () => {
		const frame = await s.webview('body[data-rendered="replay"]');
		await frame.locator('.rows').focus();
		await s.page.keyboard.press('Home');
		const person = frame.locator('.detail .meta', { hasText: 'You (between agent steps)' });
		for (let i = 0; i < 110 && !(await person.isVisible().catch(() => false)); i++) {
			await s.page.keyboard.press('ArrowDown');
			if (i >= 98) await person.waitFor({ timeout: 1_500 }).catch(() => undefined);
		}
		await person.waitFor({ timeout: 5_000 });
		await frame.locator('.detail .transcript', { hasText: 'A person’s edit: no prompt or transcript goes with it.' }).waitFor({ timeout: 5_000 });
		await s.screenshot('02b-person-step');
	});

	await check('scrolling through all 500 steps keeps the list virtual and fluid', async () => {
		const frame = await s.webview('body[data-rendered="replay"]');
		const timings = await frame.evaluate(async () => {
			const list = document.querySelector('.rows');
			const frameTimes = [];
			let last = performance.now();
			for (let top = 0; top < list.scrollHeight; top += 600) {
				list.scrollTop = top;
				await new Promise((r) => requestAnimationFrame(r));
				const now = performance.now();
				frameTimes.push(now - last);
				last = now;
			}
			frameTimes.sort((a, b) => a - b);
			return { frames: frameTimes.length, median: frameTimes[Math.floor(frameTimes.length / 2)], worst: frameTimes[frameTimes.length - 1] };
		});
		console.log(`    scrolled in ${timings.frames} jumps: median frame ${timings.median.toFixed(1)} ms, worst ${timings.worst.toFixed(1)} ms`);
		const rows = await rowsInDom(frame);
		if (rows > 80) throw new Error(`${rows} rows in the DOM after scrolling`);
		await rowsLaidOut(frame);
		await frame.getByText(`${total}. Bash`).first().waitFor({ timeout: 5_000 });
		await s.screenshot('03-scrolled-to-the-end');
		await s.page.keyboard.press('End');
		await frame.locator('.detail h2', { hasText: `Step ${total} ·` }).waitFor({ timeout: 10_000 });
	});

	await check('checkpoint and approval rows name the checkpoint by number and the person who decided, ids only in their hover', async () => {
		const frame = await s.webview('body[data-rendered="replay"]');
		await frame.locator('.rows').evaluate((list) => (list.scrollTop = list.scrollHeight));
		const checkpointRow = frame.locator('.row-checkpoint', { hasText: `#${reviewed.seq} (complete) Handlers done` }).first();
		await checkpointRow.waitFor({ timeout: 10_000 });
		const rejected = frame.locator('.row-approval', { hasText: `Checkpoint #${reviewed.seq} by you` }).first();
		await rejected.waitFor({ timeout: 10_000 });
		const shown = (await frame.locator('.rows').innerText()).replace(/\s+/g, ' ');
		const raw = /cp_\d{14}|ses_\d{14}|cli:|vscode:/.exec(shown);
		if (raw) throw new Error(`a row shows a raw id (${raw[0]}): ${shown.slice(-400)}`);
		if ((await rejected.locator('.text').getAttribute('title'))?.includes(reviewed.id) !== true) {
			throw new Error('the approval row keeps the checkpoint id in its hover');
		}
		await s.screenshot('03b-checkpoint-rows');
	});

	await check('Enter opens the step’s diff in VS Code’s diff editor', async () => {
		const frame = await s.webview('body[data-rendered="replay"]');
		await frame.locator('.rows').focus();
		await s.page.keyboard.press('Enter');
		await s.page.locator('.monaco-diff-editor').first().waitFor({ timeout: 15_000 });
		await s.page
			.locator('.tab', { hasText: /module\d+\.ts \(step \d+\)/ })
			.first()
			.waitFor({ timeout: 10_000 });
		// Both sides hold the file from Baton's store: the step's line on the right only.
		await s.page
			.locator('.monaco-diff-editor .modified .view-line', { hasText: `export const step${steps} = ${steps};` })
			.first()
			.waitFor({ timeout: 30_000 });
		await s.page.locator('.monaco-diff-editor .original .view-line', { hasText: 'export const step' }).first().waitFor({ timeout: 10_000 });
		await s.page.waitForTimeout(600);
		await s.screenshot('04-step-diff');
	});
} finally {
	await s.close();
}

// A second, fresh workbench in the light theme: here the empty webview is the first one opened (the
// cold baseline beside the first opening above), then the Replay, painted in the light theme.
try {
	const light = await launch({ extensionFolders: [root, emptyWebview], workspace, theme: 'light', artifactsDir, viewport: { width: 1400, height: 900 } });
	checks.session = light;
	try {
		await check('in a fresh light workbench: an empty webview first (the baseline), then the Replay painted in the theme', async () => {
			await light.statusBarItem('Module handlers · active').waitFor({ timeout: 30_000 });
			await light.page.waitForTimeout(settleMs);
			const empty = await openEmptyWebview(light);
			console.log(
				`    empty webview, first of the workbench (baseline): first paint ${empty.command} ms after the command, ${empty.page} ms after the page started`,
			);
			console.log(`BATON-MEASURE webviewBaselinePaintMs=${empty.command}`);
			await light.runCommand('View: Close All Editors');
			const { frame, marks } = await openReplay(light);
			console.log(
				`    then the Replay: first paint ${marks.command} ms after the command (read ${marks.read} ms), ${marks.page} ms after the page started`,
			);
			console.log(`BATON-MEASURE replayReopenPaintMs=${marks.command}`);
			await frame.getByText('Turn 1').first().waitFor();
			await rowsLaidOut(frame);
			await light.screenshot('05-replay-light');
		});
	} finally {
		await light.close();
	}
} finally {
	await removeWorkspace(workspace);
}
checks.finish();
