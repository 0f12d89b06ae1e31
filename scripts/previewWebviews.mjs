#!/usr/bin/env node
// Developer preview of Baton's webviews without VS Code: builds webview/main.ts as esbuild.mjs does,
// serves one page per view and theme from 127.0.0.1 with the real webview CSP, answers the page's
// `ready` with test/fixtures/webviewData.json, screenshots each page into artifacts/webview-preview/,
// and checks that nothing was blocked or logged and that clicks post the right messages.
//
//   node scripts/previewWebviews.mjs            all checks and screenshots
//   node scripts/previewWebviews.mjs --serve    also keep the server running to open pages in a browser
//
// Needs Debian's /usr/bin/chromium and playwright-core from the workbench cache
// (${BATON_WORKBENCH_HOME:-~/.cache/baton-workbench}, filled by scripts/workbench/install.sh).
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const workbenchHome = path.resolve(process.env.BATON_WORKBENCH_HOME || path.join(os.homedir(), '.cache', 'baton-workbench'));
const chromiumPath = process.env.BATON_WORKBENCH_CHROMIUM || '/usr/bin/chromium';
const outDir = path.join(root, 'artifacts', 'webview-preview');
const serve = process.argv.includes('--serve');

// ---- build: the same options as the webview entry in esbuild.mjs ----
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-webview-preview-'));
await esbuild.build({
	bundle: true,
	platform: 'browser',
	format: 'esm',
	target: 'es2022',
	sourcemap: true,
	logLevel: 'silent',
	entryPoints: { main: path.join(root, 'webview/main.ts') },
	outdir: path.join(tmp, 'build'),
	loader: { '.css': 'text' },
});
const bundle = fs.readFileSync(path.join(tmp, 'build', 'main.js'));
const bundleMap = fs.readFileSync(path.join(tmp, 'build', 'main.js.map'));

// ---- fixture: shift every time so the fixture's "now" is this moment ----
const fixture = JSON.parse(fs.readFileSync(path.join(root, 'test/fixtures/webviewData.json'), 'utf8'));
const shift = Date.now() - Date.parse(fixture.now);
const isoPattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const rebase = (value) => {
	if (typeof value === 'string' && isoPattern.test(value)) return new Date(Date.parse(value) + shift).toISOString();
	if (Array.isArray(value)) return value.map(rebase);
	if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, rebase(v)]));
	return value;
};
const data = rebase(fixture);
const ids = Object.fromEntries(data.details.details.chain.map((s, i) => [`chain${i + 1}`, s.id]));

/** Many sessions in many scopes, with chains and forks: the graph must stay fast and readable. */
function largeGraph(count, scopes) {
	const template = data.graph.sessions[0];
	const start = Date.now() - count * 40 * 60_000;
	const lastInScope = new Map();
	const sessions = [];
	for (let i = 0; i < count; i++) {
		const scopeKey = i % scopes === 0 ? 'global' : `task:T${100 + (i % scopes)}`;
		const startedAt = new Date(start + i * 40 * 60_000).toISOString();
		const endedAt = i < count - scopes ? new Date(start + i * 40 * 60_000 + 35 * 60_000).toISOString() : null;
		const previous = lastInScope.get(scopeKey) ?? null;
		const status = endedAt ? (i % 17 === 0 ? 'orphaned' : 'ended') : i % 3 === 0 ? 'suspended' : 'active';
		const parent = i % 11 === 5 ? (sessions[Math.max(0, i - 7)]?.id ?? null) : null;
		const id = `ses_${String(20250101000000 + i)}_${((i * 2654435761) % 16777216).toString(16).padStart(6, '0')}`;
		sessions.push({
			...template,
			id,
			name: `Session ${i + 1} in ${scopeKey}`,
			status,
			scope: { type: 'task', rootTaskId: scopeKey },
			scopeKey,
			previousSessionId: previous,
			nextSessionId: null,
			parentSessionId: parent,
			startedAt,
			endedAt,
			lastActivity: endedAt ?? new Date().toISOString(),
			suspendedAt: null,
		});
		lastInScope.set(scopeKey, id);
	}
	return { type: 'graph', sessions, focusId: sessions[Math.floor(count / 2)].id };
}

/** A comparison of thousands of files: the page must draw the first rows fast and show the rest on request. */
function largeComparison(count) {
	const template = data.compare.comparison.files[0];
	const kinds = ['modified', 'added', 'modified', 'deleted'];
	const files = Array.from({ length: count }, (_, i) => {
		const change = kinds[Math.floor(i / 7) % kinds.length];
		const path = `packages/pkg-${String(i % 60).padStart(2, '0')}/src/generated/module-${String(i).padStart(5, '0')}.ts`;
		return {
			...template,
			path,
			change,
			additions: change === 'deleted' ? 0 : (i * 7) % 90,
			deletions: change === 'added' ? 0 : (i * 3) % 40,
			binary: false,
			oldMode: change === 'added' ? null : '100644',
			newMode: change === 'deleted' ? null : '100644',
		};
	}).sort((a, b) => (a.path < b.path ? -1 : 1));
	return { type: 'compare', comparison: { ...data.compare.comparison, files } };
}

// ---- VS Code's theme variables (Light Modern / Dark Modern, with the registry's chart colours) ----
const common = {
	'--vscode-font-family': 'system-ui, "Ubuntu", "Droid Sans", sans-serif',
	'--vscode-font-size': '13px',
	'--vscode-font-weight': 'normal',
	'--vscode-editor-font-family': '"Droid Sans Mono", "monospace", monospace',
	'--vscode-editor-font-size': '14px',
	'--monaco-monospace-font': '"SF Mono", Monaco, Menlo, Consolas, "Ubuntu Mono", "Liberation Mono", "DejaVu Sans Mono", "Courier New", monospace',
};
const themes = {
	light: {
		kind: 'vscode-light',
		vars: {
			...common,
			'--vscode-editor-background': '#ffffff',
			'--vscode-editor-foreground': '#3b3b3b',
			'--vscode-foreground': '#3b3b3b',
			'--vscode-descriptionForeground': '#3b3b3b',
			'--vscode-focusBorder': '#005fb8',
			'--vscode-button-background': '#005fb8',
			'--vscode-button-foreground': '#ffffff',
			'--vscode-button-hoverBackground': '#0258a8',
			'--vscode-button-border': '#0000001a',
			'--vscode-button-secondaryBackground': '#e5e5e5',
			'--vscode-button-secondaryForeground': '#3b3b3b',
			'--vscode-button-secondaryHoverBackground': '#cccccc',
			'--vscode-badge-background': '#cccccc',
			'--vscode-badge-foreground': '#3b3b3b',
			'--vscode-textLink-foreground': '#005fb8',
			'--vscode-textLink-activeForeground': '#005fb8',
			'--vscode-panel-border': '#e5e5e5',
			'--vscode-widget-border': '#e5e5e5',
			'--vscode-editorWidget-background': '#f8f8f8',
			'--vscode-textPreformat-foreground': '#3b3b3b',
			'--vscode-textPreformat-background': '#0000001f',
			'--vscode-textBlockQuote-background': '#f8f8f8',
			'--vscode-textBlockQuote-border': '#e5e5e5',
			'--vscode-errorForeground': '#f85149',
			'--vscode-editorError-foreground': '#e51400',
			'--vscode-editorWarning-foreground': '#bf8803',
			'--vscode-editorInfo-foreground': '#1a85ff',
			'--vscode-progressBar-background': '#005fb8',
			'--vscode-list-hoverBackground': '#f2f2f2',
			'--vscode-icon-foreground': '#3b3b3b',
			'--vscode-checkbox-background': '#f8f8f8',
			'--vscode-checkbox-border': '#cecece',
			'--vscode-checkbox-foreground': '#3b3b3b',
			'--vscode-settings-checkboxBackground': '#f8f8f8',
			'--vscode-settings-checkboxBorder': '#cecece',
			'--vscode-settings-checkboxForeground': '#3b3b3b',
			'--vscode-charts-foreground': '#616161',
			'--vscode-charts-lines': '#61616180',
			'--vscode-charts-red': '#e51400',
			'--vscode-charts-blue': '#1a85ff',
			'--vscode-charts-yellow': '#bf8803',
			'--vscode-charts-orange': '#d18616',
			'--vscode-charts-green': '#388a34',
			'--vscode-charts-purple': '#652d90',
			'--vscode-scrollbarSlider-background': '#64646466',
			'--vscode-scrollbarSlider-hoverBackground': '#646464b3',
			'--vscode-scrollbarSlider-activeBackground': '#00000099',
			'--vscode-widget-shadow': '#00000029',
		},
	},
	dark: {
		kind: 'vscode-dark',
		vars: {
			...common,
			'--vscode-editor-background': '#1f1f1f',
			'--vscode-editor-foreground': '#cccccc',
			'--vscode-foreground': '#cccccc',
			'--vscode-descriptionForeground': '#9d9d9d',
			'--vscode-focusBorder': '#0078d4',
			'--vscode-button-background': '#0078d4',
			'--vscode-button-foreground': '#ffffff',
			'--vscode-button-hoverBackground': '#026ec1',
			'--vscode-button-border': '#ffffff1a',
			'--vscode-button-secondaryBackground': '#00000000',
			'--vscode-button-secondaryForeground': '#cccccc',
			'--vscode-button-secondaryHoverBackground': '#2b2b2b',
			'--vscode-badge-background': '#616161',
			'--vscode-badge-foreground': '#f8f8f8',
			'--vscode-textLink-foreground': '#4daafc',
			'--vscode-textLink-activeForeground': '#4daafc',
			'--vscode-panel-border': '#2b2b2b',
			'--vscode-widget-border': '#313131',
			'--vscode-editorWidget-background': '#202020',
			'--vscode-textPreformat-foreground': '#d0d0d0',
			'--vscode-textPreformat-background': '#3c3c3c',
			'--vscode-textBlockQuote-background': '#2b2b2b',
			'--vscode-textBlockQuote-border': '#616161',
			'--vscode-errorForeground': '#f85149',
			'--vscode-editorError-foreground': '#f14c4c',
			'--vscode-editorWarning-foreground': '#cca700',
			'--vscode-editorInfo-foreground': '#3794ff',
			'--vscode-progressBar-background': '#0078d4',
			'--vscode-list-hoverBackground': '#2a2d2e',
			'--vscode-icon-foreground': '#cccccc',
			'--vscode-checkbox-background': '#313131',
			'--vscode-checkbox-border': '#3c3c3c',
			'--vscode-checkbox-foreground': '#cccccc',
			'--vscode-settings-checkboxBackground': '#313131',
			'--vscode-settings-checkboxBorder': '#3c3c3c',
			'--vscode-settings-checkboxForeground': '#cccccc',
			'--vscode-charts-foreground': '#cccccc',
			'--vscode-charts-lines': '#cccccc80',
			'--vscode-charts-red': '#f14c4c',
			'--vscode-charts-blue': '#3794ff',
			'--vscode-charts-yellow': '#cca700',
			'--vscode-charts-orange': '#d18616',
			'--vscode-charts-green': '#89d185',
			'--vscode-charts-purple': '#b180d7',
			'--vscode-scrollbarSlider-background': '#79797966',
			'--vscode-scrollbarSlider-hoverBackground': '#646464b3',
			'--vscode-scrollbarSlider-activeBackground': '#bfbfbf66',
			'--vscode-widget-shadow': '#0000005c',
		},
	},
	// Default High Contrast: borders everywhere, no tints to lean on.
	hc: {
		kind: 'vscode-high-contrast',
		vars: {
			...common,
			'--vscode-editor-background': '#000000',
			'--vscode-editor-foreground': '#ffffff',
			'--vscode-foreground': '#ffffff',
			'--vscode-descriptionForeground': '#ffffffb3',
			'--vscode-contrastBorder': '#6fc3df',
			'--vscode-contrastActiveBorder': '#f38518',
			'--vscode-focusBorder': '#f38518',
			'--vscode-button-background': '#000000',
			'--vscode-button-foreground': '#ffffff',
			'--vscode-button-border': '#6fc3df',
			'--vscode-button-secondaryBackground': '#000000',
			'--vscode-button-secondaryForeground': '#ffffff',
			'--vscode-badge-background': '#000000',
			'--vscode-badge-foreground': '#ffffff',
			'--vscode-textLink-foreground': '#21a6ff',
			'--vscode-textLink-activeForeground': '#21a6ff',
			'--vscode-panel-border': '#6fc3df',
			'--vscode-widget-border': '#6fc3df',
			'--vscode-textPreformat-foreground': '#ffffff',
			'--vscode-textPreformat-background': '#ffffff1a',
			'--vscode-textBlockQuote-background': '#000000',
			'--vscode-textBlockQuote-border': '#ffffff',
			'--vscode-errorForeground': '#f48771',
			'--vscode-editorWarning-foreground': '#ffd370',
			'--vscode-editorInfo-foreground': '#3794ff',
			'--vscode-progressBar-background': '#6fc3df',
			'--vscode-checkbox-background': '#000000',
			'--vscode-checkbox-border': '#6fc3df',
			'--vscode-settings-checkboxBackground': '#000000',
			'--vscode-settings-checkboxBorder': '#6fc3df',
			'--vscode-charts-foreground': '#ffffff',
			'--vscode-charts-red': '#f48771',
			'--vscode-charts-blue': '#3794ff',
			'--vscode-charts-yellow': '#ffd370',
			'--vscode-charts-orange': '#d18616',
			'--vscode-charts-green': '#89d185',
			'--vscode-charts-purple': '#b180d7',
		},
	},
};

// The part of VS Code's webview defaults (webview/browser/pre/index.html) that shapes a page.
const vscodeDefaults = `@layer vscode-default {
	html { scrollbar-color: var(--vscode-scrollbarSlider-background) var(--vscode-editor-background); }
	body { overscroll-behavior-x: none; background-color: transparent; color: var(--vscode-editor-foreground); font-family: var(--vscode-font-family); font-weight: var(--vscode-font-weight); font-size: var(--vscode-font-size); margin: 0; padding: 0 20px; }
	a, a code { color: var(--vscode-textLink-foreground); }
	a:hover { color: var(--vscode-textLink-activeForeground); }
	code { font-family: var(--monaco-monospace-font); color: var(--vscode-textPreformat-foreground); background-color: var(--vscode-textPreformat-background); padding: 1px 3px; border-radius: 4px; }
	::-webkit-scrollbar { width: 10px; height: 10px; }
	::-webkit-scrollbar-corner { background-color: var(--vscode-editor-background); }
	::-webkit-scrollbar-thumb { background-color: var(--vscode-scrollbarSlider-background); }
}
/* The webview iframe itself shows the editor background. */
html { background: var(--vscode-editor-background); }`;

/** The CSP webviewHtml.ts writes, with this server's origin in place of webview.cspSource. */
const csp = (source, nonce) =>
	`default-src 'none'; img-src ${source} data:; style-src ${source} 'nonce-${nonce}'; font-src ${source}; script-src 'nonce-${nonce}'`;

const json = (value) => JSON.stringify(value).replace(/</g, '\\u003c');

function page({ view, theme, answer }, nonce) {
	const vars = Object.entries(themes[theme].vars)
		.map(([k, v]) => `${k}: ${v};`)
		.join(' ');
	// The stub stands in for VS Code's webview API: messages are recorded on window.__posted, state
	// lives in sessionStorage (so a reload restores like a hidden-then-shown panel), and `ready` and
	// `refresh` are answered with the page's fixture message when it has one.
	const stub = `(() => {
	const answer = ${json(answer ?? null)};
	const stateKey = 'baton-preview-state:' + location.pathname;
	window.__posted = [];
	window.__violations = [];
	document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(e.violatedDirective + ' ' + (e.blockedURI || e.sample || '')));
	let acquired = false;
	window.acquireVsCodeApi = () => {
		if (acquired) throw new Error('acquireVsCodeApi called twice');
		acquired = true;
		return {
			postMessage(message) {
				window.__posted.push(JSON.parse(JSON.stringify(message)));
				const silent = new URLSearchParams(location.search).has('silent');
				if (answer && !silent && (message.type === 'ready' || message.type === 'refresh')) setTimeout(() => window.postMessage(answer, '*'), 10);
			},
			getState() { const s = sessionStorage.getItem(stateKey); return s ? JSON.parse(s) : undefined; },
			setState(state) { sessionStorage.setItem(stateKey, JSON.stringify(state)); },
		};
	};
})();`;
	return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>Baton ${view} (${theme})</title>
<style nonce="${nonce}">${vscodeDefaults}\n:root { ${vars} }</style>
<script nonce="${nonce}">${stub}</script>
</head>
<body class="${themes[theme].kind}" data-vscode-theme-kind="${themes[theme].kind}" data-view="${view}">
<main id="root"></main>
<script type="module" nonce="${nonce}" src="/main.js"></script>
</body>
</html>`;
}

const detailsActive = structuredClone(data.details);
Object.assign(detailsActive.details.session, { status: 'active', endedAt: null, endNote: null });
detailsActive.details.chain = detailsActive.details.chain.map((s) => (s.id === detailsActive.details.session.id ? detailsActive.details.session : s));

const pages = new Map();
const addPage = (name, spec) => pages.set(`/${name}.html`, spec);
for (const theme of Object.keys(themes)) {
	addPage(`briefing-${theme}`, { view: 'briefing', theme, answer: data.briefing });
	addPage(`details-${theme}`, { view: 'details', theme, answer: data.details });
	addPage(`graph-${theme}`, { view: 'graph', theme, answer: data.graph });
	addPage(`compare-${theme}`, { view: 'compare', theme, answer: data.compare });
}
addPage('compare-worktree-light', { view: 'compare', theme: 'light', answer: data.compareWorkingTree });
addPage('compare-worktree-dark', { view: 'compare', theme: 'dark', answer: data.compareWorkingTree });
addPage('compare-large-dark', { view: 'compare', theme: 'dark', answer: largeComparison(5000) });
addPage('briefing-empty-dark', { view: 'briefing', theme: 'dark', answer: data.briefingEmpty });
addPage('details-active-light', { view: 'details', theme: 'light', answer: detailsActive });
addPage('graph-large-dark', { view: 'graph', theme: 'dark', answer: largeGraph(400, 24) });
addPage('details-error-dark', { view: 'details', theme: 'dark', answer: null });

const server = http.createServer((req, res) => {
	const url = new URL(req.url ?? '/', 'http://127.0.0.1');
	const origin = `http://${req.headers.host}`;
	if (url.pathname === '/main.js') {
		res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-store' });
		res.end(bundle);
		return;
	}
	if (url.pathname === '/main.js.map') {
		res.writeHead(200, { 'content-type': 'application/json' });
		res.end(bundleMap);
		return;
	}
	const spec = pages.get(url.pathname);
	if (spec) {
		const nonce = randomBytes(16).toString('base64');
		res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': csp(origin, nonce), 'cache-control': 'no-store' });
		res.end(page(spec, nonce));
		return;
	}
	if (url.pathname === '/favicon.ico') {
		res.writeHead(204).end();
		return;
	}
	if (url.pathname === '/') {
		res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
		res.end([...pages.keys()].map((p) => `<p><a href="${p}">${p}</a></p>`).join('\n'));
		return;
	}
	res.writeHead(404).end();
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${server.address().port}`;

// ---- browser ----
const playwrightEntry = path.join(workbenchHome, 'node_modules', 'playwright-core', 'index.mjs');
if (!fs.existsSync(playwrightEntry) || !fs.existsSync(chromiumPath)) {
	console.error(
		`Missing ${!fs.existsSync(chromiumPath) ? chromiumPath : playwrightEntry}. Run scripts/workbench/install.sh (BATON_WORKBENCH_HOME=${workbenchHome}).`,
	);
	server.close();
	process.exit(2);
}
const { chromium } = await import(pathToFileURL(playwrightEntry).href);
const userDataDir = path.join(tmp, 'profile');
const context = await chromium.launchPersistentContext(userDataDir, {
	executablePath: chromiumPath,
	headless: true,
	args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
	viewport: { width: 1180, height: 860 },
	deviceScaleFactor: 1,
	reducedMotion: 'reduce',
});
fs.mkdirSync(outDir, { recursive: true });

let passed = 0;
let failed = 0;
const check = (name, ok, detail = '') => {
	if (ok) passed++;
	else failed++;
	console.log(`${ok ? '✓' : '✗'} ${name}${!ok && detail ? `\n    ${detail}` : ''}`);
};

/** Opens a page and records everything that went wrong on it. */
async function open(name, query = '') {
	const page = await context.newPage();
	const problems = [];
	page.on('console', (msg) => {
		if (msg.type() === 'error' || msg.type() === 'warning') problems.push(`console.${msg.type()}: ${msg.text()}`);
	});
	page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
	page.on('requestfailed', (req) => problems.push(`request failed: ${req.url()} ${req.failure()?.errorText ?? ''}`));
	page.on('response', (res) => {
		if (res.status() >= 400) problems.push(`HTTP ${res.status()}: ${res.url()}`);
	});
	await page.goto(`${base}/${name}.html${query}`);
	return { page, problems };
}

async function rendered(page, type) {
	try {
		await page.waitForFunction((t) => document.body.dataset.rendered === t, type, { timeout: 5000 });
		return true;
	} catch {
		return false;
	}
}

async function cleanPage(name, page, problems) {
	const violations = await page.evaluate(() => window.__violations);
	check(
		`${name}: no console errors, CSP violations or failed requests`,
		problems.length === 0 && violations.length === 0,
		[...problems, ...violations].join('\n    '),
	);
}

const posted = (page) => page.evaluate(() => window.__posted);
const lastPosted = async (page) => (await posted(page)).at(-1);
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

async function screenshot(page, name, fullPage = true) {
	await page.evaluate(() => document.fonts.ready);
	await page.screenshot({ path: path.join(outDir, `${name}.png`), fullPage });
}

try {
	// Every view in the light and dark themes (and high contrast): renders, asks with `ready` first,
	// nothing blocked or logged.
	for (const theme of Object.keys(themes)) {
		for (const view of ['briefing', 'details', 'graph', 'compare']) {
			const name = `${view}-${theme}`;
			const { page, problems } = await open(name);
			check(`${name}: renders`, await rendered(page, view));
			check(`${name}: posts ready first`, (await posted(page))[0]?.type === 'ready');
			const text = await page.evaluate(() => document.body.innerText.length);
			check(`${name}: has content`, text > 200, `${text} characters of text`);
			await screenshot(page, name, view !== 'graph');
			await cleanPage(name, page, problems);
			await page.close();
		}
	}

	{
		// A narrow panel (an editor split in two): one column, nothing cut off.
		const { page, problems } = await open('briefing-dark');
		await page.setViewportSize({ width: 520, height: 900 });
		await rendered(page, 'briefing');
		const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
		check('briefing (narrow): no horizontal overflow', overflow <= 0, `${overflow}px wider than the panel`);
		await screenshot(page, 'briefing-narrow-dark');
		await cleanPage('briefing-narrow-dark', page, problems);
		await page.close();
	}
	{
		const { page, problems } = await open('briefing-dark');
		await rendered(page, 'briefing');
		await page.locator('.next vscode-button').first().click();
		check(
			'briefing: Focus on the first next task posts focusTask T8',
			same(await lastPosted(page), { type: 'focusTask', taskId: 'T8' }),
			JSON.stringify(await lastPosted(page)),
		);
		await page.locator('.next vscode-button').nth(1).focus();
		await page.keyboard.press('Enter');
		check(
			'briefing: Enter on a Focus button posts focusTask',
			same(await lastPosted(page), { type: 'focusTask', taskId: 'T15' }),
			JSON.stringify(await lastPosted(page)),
		);
		const stale = await page.locator('.suggestion.is-stale').allInnerTexts();
		check(
			'briefing: stale suggestions are marked and have no Focus button',
			stale.length === 2 && stale[0].includes('stale: done') && (await page.locator('.suggestion.is-stale vscode-button').count()) === 0,
			stale.join(' | '),
		);
		check('briefing: blocked tasks name what they wait on', (await page.locator('.blocked').first().innerText()).includes('waiting on'));
		check('briefing: epic progress is a labelled progressbar', (await page.locator('[role=progressbar][aria-valuenow="62"]').count()) === 1);
		await page.getByRole('button', { name: /Open previous session/ }).click();
		check(
			'briefing: the previous session opens its details',
			same(await lastPosted(page), { type: 'openSession', sessionId: ids.chain3 }),
			JSON.stringify(await lastPosted(page)),
		);
		const facts = await page.locator('.fact').allInnerTexts();
		check(
			'briefing: project memory lists gotchas first, stale facts with why',
			facts.length === 5 &&
				facts[0].startsWith('gotcha') &&
				facts[1].includes('stale: src/payments/gateway.ts changed') &&
				(await page.locator('.fact-stale').count()) === 2,
			facts.join(' | '),
		);
		check('briefing: project memory counts the facts it does not show', (await page.locator('.hint.more').innerText()).includes('and 4 more facts'));
		await page
			.getByRole('button', { name: /where this fact was learned/ })
			.first()
			.click();
		check(
			'briefing: a fact opens the session it was learned in',
			same(await lastPosted(page), { type: 'openSession', sessionId: 'ses_20250311093000_0a1b2c' }),
			JSON.stringify(await lastPosted(page)),
		);
		check('briefing: times carry the ISO time in a title', (await page.locator('time[title]').count()) > 0);
		check('briefing: no start button while a session runs', (await page.getByText('Start session in this scope').count()) === 0);
		await page.evaluate(() => window.postMessage({ type: 'briefing', briefing: { scope: 'global' }, session: null }, '*'));
		await page.waitForTimeout(50);
		check('briefing: data it cannot draw shows an error instead of a blank page', (await page.getByRole('alert').count()) === 1);
		await cleanPage('briefing interactions', page, problems);
		await page.close();
	}
	{
		const { page, problems } = await open('briefing-empty-dark');
		check('briefing-empty-dark: renders', await rendered(page, 'briefing'));
		const text = await page.evaluate(() => document.body.innerText);
		check(
			'briefing-empty: empty sections say so',
			['No open bugs.', 'Nothing is blocked.', 'No epic in progress.', 'No current task', 'No facts yet.'].every((t) => text.includes(t)),
		);
		await page.locator('vscode-button', { hasText: 'Start session in this scope' }).click();
		check(
			'briefing-empty: Start posts startSession with the scope',
			same(await lastPosted(page), { type: 'startSession', scope: 'epic:T30' }),
			JSON.stringify(await lastPosted(page)),
		);
		await screenshot(page, 'briefing-empty-dark');
		await cleanPage('briefing-empty-dark', page, problems);
		await page.close();
	}
	{
		const { page, problems } = await open('details-dark');
		await rendered(page, 'details');
		const text = await page.evaluate(() => document.body.innerText);
		check('details: chain position reads "Session 3 of 4"', text.includes('Session 3 of 4'));
		check('details: git state is shown', text.includes('feat/checkout-v2-retries') && text.includes('4f2a9c81'));
		check(
			'details: an ended session offers Resume only',
			(await page.locator('vscode-button', { hasText: 'Resume' }).count()) === 1 &&
				(await page.locator('vscode-button', { hasText: 'End session' }).count()) === 0,
		);
		await page.locator('vscode-button', { hasText: 'Resume' }).click();
		check(
			'details: Resume posts transition resume',
			same(await lastPosted(page), { type: 'transition', action: 'resume', sessionId: ids.chain3 }),
			JSON.stringify(await lastPosted(page)),
		);
		await page.getByRole('button', { name: /^Previous session/ }).click();
		check(
			'details: previous link opens the predecessor',
			same(await lastPosted(page), { type: 'openSession', sessionId: ids.chain2 }),
			JSON.stringify(await lastPosted(page)),
		);
		await page.getByRole('button', { name: /^Next session/ }).click();
		check(
			'details: next link opens the successor',
			same(await lastPosted(page), { type: 'openSession', sessionId: ids.chain4 }),
			JSON.stringify(await lastPosted(page)),
		);
		await page.locator('vscode-button', { hasText: 'Briefing' }).click();
		check('details: Briefing posts openBriefing', same(await lastPosted(page), { type: 'openBriefing', sessionId: ids.chain3 }));
		check('details: the fork tree lists the worker', text.includes('Worker: retry backoff benchmarks'));
		await page.locator('vscode-button', { hasText: 'Link Issue' }).click();
		check(
			'details: Link Issue posts linkIssue',
			same(await lastPosted(page), { type: 'linkIssue', sessionId: ids.chain3 }),
			JSON.stringify(await lastPosted(page)),
		);
		check(
			'details: linked issues show with their tracker and state',
			text.includes('#482') && text.includes('PAY-117') && text.includes('In Progress') && text.includes('pay-3f9a1c'),
		);
		check(
			'details: a synced issue links to its tracker',
			(await page.locator('a.issue-id').first().getAttribute('href')) === 'https://github.com/acme/payments/issues/482',
		);

		// Restore: a hidden panel is destroyed; shown again, it draws from its state before the host answers.
		await page.goto(`${base}/details-dark.html?silent`);
		check('details: a reloaded page restores from its state without the host', await rendered(page, 'details'));
		check('details interactions: no console errors or failed requests', problems.length === 0, problems.join('\n    '));
		// The harness must see CSP violations, or "no violations" above would prove nothing.
		await page.evaluate(() => document.body.setAttribute('style', 'color: red'));
		await page.waitForTimeout(50);
		check('preview: the CSP is enforced (an inline style attribute is reported)', (await page.evaluate(() => window.__violations.length)) > 0);
		await page.close();
	}
	{
		const { page, problems } = await open('details-active-light');
		await rendered(page, 'details');
		check(
			'details (active): offers End and Suspend, not Resume',
			(await page.locator('vscode-button', { hasText: 'End session' }).count()) === 1 &&
				(await page.locator('vscode-button', { hasText: 'Suspend' }).count()) === 1 &&
				(await page.locator('vscode-button', { hasText: 'Resume' }).count()) === 0,
		);
		await page.locator('vscode-button', { hasText: 'End session' }).click();
		check(
			'details (active): End posts transition end',
			same(await lastPosted(page), { type: 'transition', action: 'end', sessionId: ids.chain3 }),
			JSON.stringify(await lastPosted(page)),
		);
		await page.locator('vscode-button', { hasText: 'Suspend' }).click();
		check(
			'details (active): Suspend posts transition suspend',
			same(await lastPosted(page), { type: 'transition', action: 'suspend', sessionId: ids.chain3 }),
		);
		await screenshot(page, 'details-active-light');
		await cleanPage('details-active-light', page, problems);
		await page.close();
	}
	{
		const { page, problems } = await open('details-error-dark');
		await page.evaluate(() => window.postMessage({ type: 'error', message: 'No session ses_20250101000000_abcdef (notFound)' }, '*'));
		check('error: shown visibly as an alert', await rendered(page, 'error'));
		check('error: the alert carries the message', (await page.getByRole('alert').innerText()).includes('No session ses_20250101000000_abcdef'));
		await page.locator('vscode-button', { hasText: 'Retry' }).click();
		check('error: Retry posts refresh', same(await lastPosted(page), { type: 'refresh' }));
		await screenshot(page, 'details-error-dark');
		await cleanPage('details-error-dark', page, problems);
		await page.close();
	}
	{
		const { page, problems } = await open('graph-dark');
		await rendered(page, 'graph');
		const nodes = page.locator('g.node[role=button][tabindex="0"]');
		check('graph: one focusable node per session', (await nodes.count()) === data.graph.sessions.length, `${await nodes.count()} nodes`);
		const labels = await nodes.evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? ''));
		check(
			'graph: nodes are labelled with name, status and scope',
			labels.every((l) => /, (active|suspended|ended|orphaned), scope \S+/.test(l)),
			labels[0],
		);
		check('graph: the focused session is highlighted', (await page.locator(`g.node.is-focus[data-session-id="${data.graph.focusId}"]`).count()) === 1);
		check('graph: one lane per scope', (await page.locator('.lane-label').count()) === new Set(data.graph.sessions.map((s) => s.scopeKey)).size);
		check(
			'graph: chain and fork edges are drawn',
			(await page.locator('path.edge-chain').count()) === 3 && (await page.locator('path.edge-fork').count()) === 3,
		);
		const target = data.graph.sessions.find((s) => s.status === 'suspended');
		await page.locator(`g.node[data-session-id="${target.id}"] .node-dot`).click();
		check(
			'graph: clicking a node posts openSession',
			same(await lastPosted(page), { type: 'openSession', sessionId: target.id }),
			JSON.stringify(await lastPosted(page)),
		);
		await page.locator(`g.node[data-session-id="${ids.chain1}"]`).focus();
		await page.keyboard.press('ArrowRight');
		const focused = await page.evaluate(() => document.activeElement?.getAttribute('data-session-id'));
		check('graph: ArrowRight moves along the lane', focused === ids.chain2, String(focused));
		await page.keyboard.press('Enter');
		check('graph: Enter on a node posts openSession', same(await lastPosted(page), { type: 'openSession', sessionId: ids.chain2 }));
		await page.keyboard.press('Space');
		check(
			'graph: Space on a node posts openSession',
			(await posted(page)).filter((m) => m.type === 'openSession' && m.sessionId === ids.chain2).length === 2,
		);
		const compactWidth = await page.evaluate(() => document.querySelector('.graph-svg').getBoundingClientRect().width);
		await page.locator('vscode-checkbox').click();
		await page
			.waitForFunction((w) => document.querySelector('.graph-svg')?.getBoundingClientRect().width > w, compactWidth, { timeout: 2000 })
			.catch(() => undefined);
		const alignedWidth = await page.evaluate(() => document.querySelector('.graph-svg').getBoundingClientRect().width);
		check('graph: "Align to time" spreads the graph by time', alignedWidth > compactWidth, `${compactWidth} → ${alignedWidth}`);
		await screenshot(page, 'graph-aligned-dark', false);
		await page.goto(`${base}/graph-dark.html?silent`);
		await rendered(page, 'graph');
		check('graph: the alignment choice survives a reload', await page.evaluate(() => document.querySelector('vscode-checkbox')?.checked === true));
		await cleanPage('graph interactions', page, problems);
		await page.close();
	}
	{
		const { page, problems } = await open('graph-large-dark');
		const started = Date.now();
		check('graph-large: 400 sessions render', await rendered(page, 'graph'));
		const ms = Date.now() - started;
		check('graph-large: renders within 2 s', ms < 2000, `${ms} ms`);
		check('graph-large: every session is a node', (await page.locator('g.node').count()) === 400);
		const scroll = await page.evaluate(() => {
			const s = document.querySelector('.graph-scroll');
			return { scrollable: s.scrollWidth > s.clientWidth, left: s.scrollLeft };
		});
		check('graph-large: scrolls, and starts scrolled to the focused session', scroll.scrollable && scroll.left > 0, JSON.stringify(scroll));
		await screenshot(page, 'graph-large-dark', false);
		await cleanPage('graph-large-dark', page, problems);
		await page.close();
	}
	{
		const cmp = data.compare.comparison;
		const { page, problems } = await open('compare-dark');
		await rendered(page, 'compare');
		const text = await page.evaluate(() => document.body.innerText);
		check(
			'compare: the title names both checkpoints',
			/^Checkpoint #14 → (compared with )?Checkpoint #17$/.test((await page.locator('h1').innerText()).replace(/\s+/g, ' ').trim()),
			await page.locator('h1').innerText(),
		);
		check(
			'compare: both sides show trigger, message, session and tags',
			['complete', 'error', cmp.from.message, cmp.to.message, '#migration', 'needs-review'].every((t) => text.includes(t.replace(/^#/, ''))) &&
				text.includes(cmp.from.sessionId),
		);
		check(
			'compare: approval badges and who/when/why',
			text.includes('Approved by alice') && text.includes('Reviewed the migration') && (await page.locator('.pill.approval-pending').count()) >= 2,
		);
		check(
			'compare: escalation reasons are listed',
			cmp.to.escalationReasons.every((r) => text.includes(r)),
		);
		check(
			'compare: file counts (3 added, 7 modified, 2 deleted)',
			await page.evaluate(
				() =>
					[...document.querySelectorAll('.file-stats > li')]
						.slice(0, 3)
						.map((li) => li.innerText.replace(/\s+/g, ' '))
						.join('|') === '3 added|7 modified|2 deleted',
			),
		);
		const rows = page.locator('tr.file-row');
		check('compare: one row per changed file', (await rows.count()) === cmp.files.length, `${await rows.count()} rows`);
		check(
			'compare: a binary file says binary',
			(await page.locator('tr[data-path="docs/diagrams/retry-flow.png"] .col-lines').innerText()).includes('binary'),
		);
		check(
			'compare: a mode change shows both modes',
			(await page.locator('tr[data-path="scripts/run-e2e.sh"] .col-mode').innerText()).includes('100644 → 100755'),
		);
		check('compare: a symlink is named', (await page.locator('tr[data-path="config/current"] .col-mode').innerText()).includes('symlink'));
		check('compare: the skipped file is called out', (await page.locator('.skipped-callout').innerText()).includes('fixtures/recordings/checkout-e2e.har'));
		check(
			'compare: environment changes per category',
			['Agents', 'MCP servers', 'Runtimes', 'Packages', 'v20.11.1', 'v22.14.0', 'postgres', 'package-lock.json:zod'].every((t) => text.includes(t)) &&
				text.includes('Unchanged: VS Code, Extensions.'),
		);
		check('compare: the approval section shows the change', text.includes('Approved → pending'));
		await page.locator('tr[data-path="src/payments/retry/backoff.ts"] .col-lines').click();
		check(
			'compare: clicking a file row posts openFileDiff',
			same(await lastPosted(page), { type: 'openFileDiff', path: 'src/payments/retry/backoff.ts' }),
			JSON.stringify(await lastPosted(page)),
		);
		await page.getByRole('button', { name: /^package\.json: modified/ }).focus();
		await page.keyboard.press('Enter');
		check(
			'compare: Enter on a file posts openFileDiff',
			same(await lastPosted(page), { type: 'openFileDiff', path: 'package.json' }),
			JSON.stringify(await lastPosted(page)),
		);
		await page.keyboard.press('Tab');
		await page.keyboard.press('Space');
		check(
			'compare: Tab reaches the next file, Space opens it',
			same(await lastPosted(page), { type: 'openFileDiff', path: 'scripts/run-e2e.sh' }),
			JSON.stringify(await lastPosted(page)),
		);
		await page.locator('vscode-button', { hasText: 'Approve' }).click();
		check(
			'compare: Approve posts checkpointAction approve for the newer side',
			same(await lastPosted(page), { type: 'checkpointAction', action: 'approve', checkpointId: cmp.to.id }),
			JSON.stringify(await lastPosted(page)),
		);
		await page.locator('vscode-button', { hasText: 'Reject' }).click();
		check(
			'compare: Reject posts checkpointAction reject for the newer side',
			same(await lastPosted(page), { type: 'checkpointAction', action: 'reject', checkpointId: cmp.to.id }),
			JSON.stringify(await lastPosted(page)),
		);
		await page.locator('vscode-button', { hasText: 'Roll back to this checkpoint' }).click();
		check(
			'compare: Roll back posts checkpointAction rollback for the from side',
			same(await lastPosted(page), { type: 'checkpointAction', action: 'rollback', checkpointId: cmp.from.id }),
			JSON.stringify(await lastPosted(page)),
		);
		check(
			'compare: only one Roll back button, on the from side',
			(await page.locator('.side-from vscode-button', { hasText: 'Roll back' }).count()) === 1 &&
				(await page.locator('.side-to vscode-button').count()) === 0,
		);
		await page.getByRole('searchbox', { name: 'Filter changed files by path' }).fill('retry');
		check(
			'compare: the filter narrows the files',
			(await rows.count()) === 3 && (await page.locator('.file-status').innerText()).includes('3 files of 12 match'),
			`${await rows.count()} rows`,
		);
		await page.evaluate((message) => window.postMessage(message, '*'), data.compare);
		await page.waitForTimeout(50);
		check('compare: fresh data keeps the filter', (await rows.count()) === 3);
		await page.getByRole('searchbox', { name: 'Filter changed files by path' }).fill('');
		const offenders = await page.evaluate(
			() =>
				[...document.querySelectorAll('button, [role=button], vscode-button, input')].filter(
					(b) => !(b.getAttribute('aria-label') || b.textContent?.trim()),
				).length,
		);
		check('compare: every control has an accessible name', offenders === 0, `${offenders} unnamed`);
		await cleanPage('compare interactions', page, problems);
		await page.close();
	}
	{
		const cmp = data.compareWorkingTree.comparison;
		const { page, problems } = await open('compare-worktree-light');
		check('compare-worktree-light: renders', await rendered(page, 'compare'));
		const text = await page.evaluate(() => document.body.innerText);
		check(
			'compare (working tree): the title ends at the working tree',
			/^Checkpoint #18 → (compared with )?working tree$/.test((await page.locator('h1').innerText()).replace(/\s+/g, ' ').trim()),
			await page.locator('h1').innerText(),
		);
		check(
			'compare (working tree): the partial snapshot is called out',
			text.includes('Checkpoint #18 is a partial snapshot') && text.includes('time budget ran out'),
		);
		check(
			'compare (working tree): skipped files, with the ones not listed counted',
			text.includes('5 files not captured') && text.includes('and 3 more files not listed'),
		);
		check('compare (working tree): the missing environment snapshot is said', text.includes('Not compared: no environment snapshot for the first side'));
		await page.locator('vscode-button', { hasText: 'Approve' }).click();
		check(
			'compare (working tree): Approve acts on the from side',
			same(await lastPosted(page), { type: 'checkpointAction', action: 'approve', checkpointId: cmp.from.id }),
			JSON.stringify(await lastPosted(page)),
		);
		await page.locator('vscode-button', { hasText: 'Roll back to this checkpoint' }).click();
		check(
			'compare (working tree): Roll back acts on the from side',
			same(await lastPosted(page), { type: 'checkpointAction', action: 'rollback', checkpointId: cmp.from.id }),
			JSON.stringify(await lastPosted(page)),
		);
		await page.locator('tr.file-row').first().click();
		check(
			'compare (working tree): a file row posts openFileDiff',
			same(await lastPosted(page), { type: 'openFileDiff', path: cmp.files[0].path }),
			JSON.stringify(await lastPosted(page)),
		);
		await screenshot(page, 'compare-worktree-light');
		await cleanPage('compare-worktree-light', page, problems);
		await page.close();
	}
	{
		const { page, problems } = await open('compare-worktree-dark');
		await page.setViewportSize({ width: 520, height: 900 });
		await rendered(page, 'compare');
		const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
		check('compare (narrow): no horizontal overflow', overflow <= 0, `${overflow}px wider than the panel`);
		await screenshot(page, 'compare-narrow-dark');
		await cleanPage('compare-narrow-dark', page, problems);
		await page.close();
	}
	{
		const { page, problems } = await open('compare-large-dark');
		const started = Date.now();
		check('compare-large: 5,000 files render', await rendered(page, 'compare'));
		const ms = Date.now() - started;
		check('compare-large: renders within 2 s', ms < 2000, `${ms} ms`);
		const rows = page.locator('tr.file-row');
		check(
			'compare-large: draws the first 200 rows and says so',
			(await rows.count()) === 200 && (await page.locator('.file-status').innerText()).includes('Showing 200 of 5,000 files'),
		);
		await screenshot(page, 'compare-large-dark', false);
		const more = page.locator('vscode-button', { hasText: 'Show all 5,000' });
		await more.focus();
		const expandStarted = Date.now();
		await page.keyboard.press('Enter');
		await page.waitForFunction(() => document.querySelectorAll('tr.file-row').length === 5000, undefined, { timeout: 3000 }).catch(() => undefined);
		const expandMs = Date.now() - expandStarted;
		check(
			'compare-large: Show all draws every file within 2 s',
			(await rows.count()) === 5000 && expandMs < 2000,
			`${await rows.count()} rows in ${expandMs} ms`,
		);
		check('compare-large: focus moves to the first newly shown file', await page.evaluate(() => document.activeElement?.closest('tr')?.rowIndex === 201));
		await page.getByRole('searchbox', { name: 'Filter changed files by path' }).fill('pkg-07/');
		check('compare-large: filtering thousands of files', (await rows.count()) > 0 && (await rows.count()) < 200);
		await page.getByRole('searchbox', { name: 'Filter changed files by path' }).fill('');
		await cleanPage('compare-large-dark', page, problems);
		await page.close();
	}
} finally {
	if (!serve) {
		await context.close();
		server.close();
		fs.rmSync(tmp, { recursive: true, force: true });
	}
}

console.log(`\n${passed} passed, ${failed} failed`);
console.log(`Screenshots: ${path.relative(root, outDir)}/`);
if (serve) {
	await context.close();
	console.log(`Serving ${base}/ (Ctrl-C to stop)`);
} else {
	process.exitCode = failed > 0 ? 1 : 0;
}
