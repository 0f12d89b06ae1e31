#!/usr/bin/env node
// The README's first command, proven from nothing: runs `npm start` exactly as a person on a fresh
// machine would (through npm, so npm's own per-run environment is in place) with an EMPTY workbench
// cache and a new demo workspace, waits for the URL it prints, opens it in Chromium and checks that
// Baton activated and shows the demo's sessions. Then stops it.
//
//   node scripts/freshStartCheck.mjs [CACHE_DIR]
// CACHE_DIR must not exist or be empty; it is left installed (the editor tests can reuse it).
// Prints `fresh start: 1 passed, 0 failed` (or `0 passed, 1 failed` with a one-line reason) last.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cache = path.resolve(process.argv[2] ?? fs.mkdtempSync(path.join(os.tmpdir(), 'baton-fresh-cache-')));
const artifacts = path.join(root, 'artifacts', 'fresh-start');
const startBudgetMs = Number(process.env.BATON_FRESH_START_BUDGET_MS ?? 30 * 60_000);

function finish(ok, reason) {
	if (!ok) console.log(`fresh start: FAILED: ${reason}`);
	console.log(`fresh start: ${ok ? 1 : 0} passed, ${ok ? 0 : 1} failed`);
	process.exit(ok ? 0 : 1);
}

if (fs.existsSync(cache) && fs.readdirSync(cache).length > 0) finish(false, `${cache} is not empty: the check needs an empty cache`);
fs.mkdirSync(cache, { recursive: true });
fs.rmSync(artifacts, { recursive: true, force: true });
fs.mkdirSync(artifacts, { recursive: true });
const demo = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-fresh-demo-'));
fs.rmSync(demo, { recursive: true, force: true }); // start.mjs seeds it only when it has no .baton
const port = await new Promise((resolve, reject) => {
	const srv = net.createServer();
	srv.on('error', reject);
	srv.listen(0, '127.0.0.1', () => {
		const { port: p } = srv.address();
		srv.close(() => resolve(p));
	});
});

// `npm start`, not `node scripts/start.mjs`: the environment npm sets is what broke before.
const env = { ...process.env, BATON_WORKBENCH_HOME: cache, BATON_DEMO_WORKSPACE: demo, BATON_PORT: String(port), BATON_FORCE_WORKBENCH: '1' };
for (const key of Object.keys(env)) if (/^npm_/i.test(key)) delete env[key]; // as typed in a shell
const logFile = path.join(artifacts, 'npm-start.log');
const log = fs.createWriteStream(logFile);
const child = spawn('npm', ['start'], { cwd: root, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
let output = '';
const url = await new Promise((resolve) => {
	const timer = setTimeout(() => resolve(undefined), startBudgetMs);
	const take = (d) => {
		log.write(d);
		output += d;
		const m = /Baton is running[^\n]*\n\s*\n\s*(http:\/\/127\.0\.0\.1:\d+\/\S*)/.exec(output);
		if (m) {
			clearTimeout(timer);
			resolve(m[1]);
		}
	};
	child.stdout.on('data', take);
	child.stderr.on('data', take);
	child.on('exit', () => {
		clearTimeout(timer);
		resolve(undefined);
	});
});

async function stop() {
	if (child.exitCode !== null) return;
	try {
		process.kill(-child.pid, 'SIGTERM'); // start.mjs stops its workbench on SIGTERM
	} catch {
		return;
	}
	const exited = await new Promise((resolve) => {
		const t = setTimeout(() => resolve(false), 20_000);
		child.on('exit', () => {
			clearTimeout(t);
			resolve(true);
		});
	});
	if (!exited) {
		try {
			process.kill(-child.pid, 'SIGKILL');
		} catch {
			// gone meanwhile
		}
	}
}

if (!url) {
	await stop();
	const last = output.trim().split('\n').filter(Boolean).slice(-1)[0] ?? '(no output)';
	finish(false, `npm start did not print its URL from an empty cache (last line: ${last}; log: ${logFile})`);
}

let failure;
process.env.BATON_WORKBENCH_HOME = cache; // the harness reads the cache location when imported
try {
	const { playwright, CHROMIUM, CHROMIUM_ARGS, Session, waitForWorkbench } = await import('../test/harness/workbench.mjs');
	const { chromium } = playwright();
	const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-fresh-chrome-'));
	const context = await chromium.launchPersistentContext(profile, {
		executablePath: CHROMIUM,
		headless: true,
		args: CHROMIUM_ARGS,
		viewport: { width: 1400, height: 900 },
	});
	try {
		const page = context.pages()[0] ?? (await context.newPage());
		await page.goto(url);
		await waitForWorkbench(page, 120_000);
		const session = new Session({ page, context, artifacts, blocked: [], consoleErrors: [], log: () => {} });
		// Activated: Baton's status bar item is there.
		await session.statusBarItem('Baton').waitFor({ timeout: 60_000 });
		// The demo's chains render in Session Chains.
		await session.showViewContainer('Baton');
		await session.treeItem(/Epic T1 · Checkout flow/).waitFor({ timeout: 60_000 });
		await page.screenshot({ path: path.join(artifacts, 'fresh-start.png') });
	} finally {
		await context.close().catch(() => {});
		fs.rmSync(profile, { recursive: true, force: true });
	}
} catch (err) {
	failure = `the workbench from npm start did not show Baton: ${String(err?.message ?? err).split('\n')[0]}`;
}
await stop();
fs.rmSync(demo, { recursive: true, force: true });
finish(!failure, failure);
