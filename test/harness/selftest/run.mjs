#!/usr/bin/env node
// End-to-end selftest of test/harness/workbench.mjs with the throwaway fixture extension in this
// folder: UI mode (palette, quick pick, notification, status bar, tree view, webview, theme,
// screenshots), the browser-less server mode, and a mocha suite through runExtensionTests.
//   scripts/workbench/isolated.sh node test/harness/selftest/run.mjs
// Screenshots: artifacts/workbench-selftest/ (BATON_WORKBENCH_ARTIFACTS overrides).
// Ends with 'N passed, N failed'; exit code 0 only when every check passed.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkInstalled, launch, runExtensionTests, startWorkbenchServer } from '../workbench.mjs';

try {
	checkInstalled();
} catch (e) {
	console.error(e.message);
	console.log('0 passed, 1 failed');
	process.exit(1);
}

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../../..');
const out = path.resolve(process.env.BATON_WORKBENCH_ARTIFACTS || path.join(repo, 'artifacts/workbench-selftest'));
fs.mkdirSync(out, { recursive: true });
for (const f of fs.readdirSync(out)) if (f.endsWith('.png')) fs.rmSync(path.join(out, f));
const T0 = Date.now();
const log = (m) => console.log(`[${((Date.now() - T0) / 1000).toFixed(1)}s] ${m}`);
const results = [];
let session;

async function step(name, fn) {
	const t = Date.now();
	try {
		await fn();
		results.push(true);
		log(`ok   ${name} (${Date.now() - t} ms)`);
	} catch (e) {
		results.push(false);
		log(`FAIL ${name}: ${String(e.message).split('\n').slice(0, 3).join(' | ')}`);
		await session?.screenshot(`FAIL-${results.length}`).catch(() => {});
	}
}
const assert = (cond, msg) => {
	if (!cond) throw new Error(msg);
};
const get = (url) =>
	new Promise((resolve) => {
		const req = http.get(url, (res) => {
			res.resume();
			resolve(res.statusCode);
		});
		req.on('error', () => resolve(0));
		req.setTimeout(3000, () => {
			req.destroy();
			resolve(0);
		});
	});

// a workspace with one file, so the explorer is not empty
const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-wb-selftest-ws-'));
fs.writeFileSync(path.join(workspace, 'README.md'), '# selftest workspace\n');

try {
	// ---- 1. UI mode --------------------------------------------------------------------------
	await step('launch: workbench ready (light theme)', async () => {
		session = await launch({ extensionFolders: [here], workspace, theme: 'light', artifactsDir: out, log, viewport: { width: 1280, height: 800 } });
	});
	if (session) {
		const s = session;
		await step('extension activates: status bar item', async () => {
			await s.statusBarItem('Baton Selftest ready').waitFor({ timeout: 30000 });
		});
		await step('light colour theme in force', async () => {
			const kind = await s.themeKind();
			assert(kind === 'vs', `theme kind ${kind}, expected vs (light)`);
		});
		await step('palette runs the command; quick pick lists and picks', async () => {
			await s.runCommand('Baton Selftest: Greet', { shot: '01-palette' });
			const items = await s.quickPickItems();
			assert(
				['Alpha', 'Beta', 'Gamma'].every((x) => items.includes(x)),
				`quick pick items: ${items.join(', ')}`,
			);
			await s.quickPickSelect('Beta', { filter: 'Be' });
			await s.quickInputHidden();
		});
		await step('status bar item updated by the command', async () => {
			await s.statusBarItem('Baton Selftest greeted Beta').waitFor({ timeout: 10000 });
		});
		await step('webview panel shows text from the extension', async () => {
			const wv = await s.webview('#greeting');
			const text = (await wv.textContent('#greeting'))?.trim();
			assert(text === 'Hello, Beta', `webview text: ${text}`);
			const host = await wv.textContent('#host');
			log(`     webview says: "${text}" ${host}`);
		});
		await step('notification button reaches the extension', async () => {
			await s.notification('Greeted Beta');
			await s.screenshot('02-webview-notification');
			await s.clickNotificationButton('Greeted Beta', 'Thanks');
			await s.statusBarItem('Baton Selftest Beta thanked').waitFor({ timeout: 10000 });
		});
		await step('tree view in its activity-bar container; expand an item', async () => {
			await s.showViewContainer('Baton Selftest');
			await s.treeItem('Checkpoint 1').waitFor({ timeout: 10000 });
			await s.expandTreeItem('Checkpoint 1');
			await s.treeItem('handoff of Checkpoint 1.md').waitFor({ timeout: 10000 });
			await s.screenshot('03-tree');
		});
		await step('no request left loopback', async () => {
			assert(!s.blocked.length, `blocked: ${[...new Set(s.blocked)].join(', ')}`);
		});
		await s.close();
		session = undefined;
	}

	// ---- 2. server mode (what a later `npm start` uses) ---------------------------------------
	await step('startWorkbenchServer serves the workbench on 127.0.0.1 and stops', async () => {
		const srv = await startWorkbenchServer({ extensionFolders: [here], workspace, theme: 'dark' });
		try {
			assert(srv.url.startsWith('http://127.0.0.1:'), `url ${srv.url}`);
			const code = await get(srv.url);
			assert(code === 200, `GET ${srv.url} -> ${code}`);
		} finally {
			await srv.stop();
		}
		assert((await get(`${srv.baseUrl}/healthz`)) === 0, 'still answering after stop()');
	});

	// ---- 3. extension tests (mocha inside the extension host) ---------------------------------
	await step('runExtensionTests: fixture mocha suite passes (dark theme)', async () => {
		const code = await runExtensionTests({
			extensionDevelopmentPath: here,
			extensionTestsPath: path.join(here, 'suite/index.js'),
			workspace,
			theme: 'dark',
			env: { BATON_SELFTEST_TOKEN: 'passed-through', BATON_SELFTEST_EXPECT_THEME: 'dark' },
			timeoutMs: 120000,
			print: (m) => console.log(`     | ${m}`),
		});
		assert(code === 0, `exit code ${code}`);
	});
} finally {
	await session?.close().catch(() => {});
	fs.rmSync(workspace, { recursive: true, force: true });
}

const passed = results.filter(Boolean).length;
log(`screenshots in ${path.relative(process.cwd(), out) || out}`);
console.log(`${passed} passed, ${results.length - passed} failed`);
process.exit(passed === results.length && passed > 0 ? 0 : 1);
