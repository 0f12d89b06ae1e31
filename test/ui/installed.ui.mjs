#!/usr/bin/env node
// The extension as users install it: the .vsix (packed from the current build, as `npm run package`
// does) goes into a fresh extensions dir through code-server's own `--install-extension`, and the
// workbench starts with no development folder. The smoke: it activates, sets up and starts a
// session from the palette, the Session Chains view shows it, and the CLI inside the installed
// extension reads the same journal. One workbench launch; screenshots in artifacts/ui/installed/.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { packageVsix } from '../../scripts/packageVsix.mjs';
import { launch } from '../harness/workbench.mjs';
import { Checks, openBaton, removeWorkspace, root } from './uiSupport.mjs';

const artifactsDir = path.join(root, 'artifacts', 'ui', 'installed');
fs.rmSync(artifactsDir, { recursive: true, force: true });
const checks = new Checks();
// The steps build on each other: after a failure the rest is skipped.
const check = async (name, fn) => {
	if (!(await checks.run(name, fn))) throw new Error(`stopped after: ${name}`);
};

console.log('installed extension');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-installed-'));
const workspace = path.join(tmp, 'ws');
fs.mkdirSync(workspace);
execFileSync('git', ['init', '-q', workspace]);
fs.writeFileSync(path.join(workspace, 'README.md'), '# installed smoke\n');
let s;
try {
	const vsix = packageVsix(path.join(tmp, 'baton.vsix'));
	s = await launch({ vsix: [vsix], workspace, theme: 'dark', artifactsDir, viewport: { width: 1400, height: 900 } });
	checks.session = s;
	const installedDir = path.join(s.server.dirs.ext, `${pkg.publisher}.${pkg.name}-${pkg.version}`);
	const installedCli = (...args) =>
		JSON.parse(execFileSync(process.execPath, [path.join(installedDir, 'dist', 'cli.js'), ...args, '--json'], { cwd: workspace, encoding: 'utf8' }));

	await check('the .vsix is installed in the extensions dir and no development folder is registered', async () => {
		for (const f of ['package.json', 'dist/extension.js', 'dist/sql-wasm.wasm']) {
			if (!fs.existsSync(path.join(installedDir, f))) throw new Error(`${f} is not in the installed extension ${installedDir}`);
		}
		if (fs.existsSync(path.join(installedDir, 'src')) || fs.existsSync(path.join(installedDir, 'node_modules')))
			throw new Error('the installed extension carries sources or node_modules');
		const registered = JSON.parse(fs.readFileSync(path.join(s.server.dirs.ext, 'extensions.json'), 'utf8'));
		const locations = registered.map((e) => e.location?.path ?? e.location?.fsPath ?? '');
		if (!locations.some((p) => p.startsWith(installedDir)) || locations.some((p) => p.startsWith(root))) {
			throw new Error(`extensions.json does not point at the installed copy only: ${locations.join(', ')}`);
		}
	});

	await check('the installed extension activates and sets Baton up from the palette', async () => {
		await openBaton(s);
		await s.runCommand('Baton: Set Up Baton in This Workspace');
		await s.statusBarItem('Baton: no session').waitFor({ timeout: 30_000 });
		if (!fs.existsSync(path.join(workspace, '.baton', 'baton.db.journal'))) throw new Error('no .baton/baton.db.journal after set-up');
	});

	await check('Baton: Start Session from the palette; the Session Chains view and the status bar show it', async () => {
		await s.runCommand('Baton: Start Session');
		await s.quickInputSubmit('Installed smoke');
		await s.quickPickSelect(/Global/);
		await s.quickPickSelect(/Claude Code/);
		await s.statusBarItem('Installed smoke · active').waitFor({ timeout: 20_000 });
		// The briefing the start opens renders from the installed extension's own webview bundle.
		await s.webview('body[data-rendered="briefing"]', { timeout: 20_000 });
		await openBaton(s);
		await s.treeItem('Installed smoke').waitFor({ timeout: 15_000 });
		await s.page.waitForTimeout(500);
		await s.screenshot('01-installed-session');
	});

	await check('the CLI shipped in the installed extension reads that session from the journal', async () => {
		const listed = installedCli('session', 'list');
		const sessions = Array.isArray(listed) ? listed : listed.sessions;
		const found = sessions?.find((x) => x.name === 'Installed smoke');
		if (!found || found.status !== 'active') throw new Error(`the installed CLI lists: ${JSON.stringify(listed).slice(0, 400)}`);
	});

	await check(
		'Connect Claude Code with no baton on PATH: the committed hook names no path of this machine, and run as the agent runs it, it records the session',
		async () => {
			await s.runCommand('Baton: Connect Claude Code');
			await s.quickPickSelect(/Hooks only/);
			await s.notification('Connected Claude Code');
			const settings = JSON.parse(fs.readFileSync(path.join(workspace, '.claude', 'settings.json'), 'utf8'));
			const command = settings.hooks.SessionStart[0].hooks[0].command;
			if (command !== '"$(command -v baton || echo "$HOME/.baton/bin/baton")" hook session-start')
				throw new Error(`the committed hook command: ${command}`);
			if (fs.readFileSync(path.join(workspace, '.claude', 'settings.json'), 'utf8').includes(tmp))
				throw new Error('the committed file names a folder of this machine');
			// The backend wrote the launcher into the (harness's) home; an agent's shell, with no baton on PATH, runs the hook through it.
			const home = path.join(s.server.root, 'home');
			const noBaton = process.env.PATH.split(':')
				.filter((dir) => !fs.existsSync(path.join(dir, 'baton')))
				.join(':');
			const answer = execFileSync('sh', ['-c', command], {
				cwd: workspace,
				encoding: 'utf8',
				env: { PATH: noBaton, HOME: home },
				input: JSON.stringify({
					session_id: 'd00dfeed-0000-4000-8000-000000000001',
					hook_event_name: 'SessionStart',
					cwd: workspace,
					source: 'startup',
				}),
			});
			if (!/Baton briefing/.test(answer)) throw new Error(`the hook answered: ${answer.slice(0, 300)}`);
			const log = fs.readFileSync(path.join(workspace, '.baton', 'logs', 'hooks.log'), 'utf8');
			if (!/claude-code session-start d00dfeed-0000-4000-8000-000000000001 → /.test(log)) throw new Error(`the hook log: ${log.slice(-600)}`);
			await s.page.waitForTimeout(300);
			await s.screenshot('02-connected-without-baton-on-path');
		},
	);

	// The other agents, each from its palette command, their committed session-start hook run as the
	// real binary runs it (the payload the binary sent, test/fixtures/real/), with no baton on PATH.
	const realPayload = (file, id) => ({ ...JSON.parse(fs.readFileSync(path.join(root, 'test/fixtures/real', file), 'utf8')), cwd: workspace, ...id });
	const agents = [
		{
			title: 'Baton: Connect Copilot Agent',
			hookFile: '.github/hooks/baton-cli.json',
			event: / hook sessionStart\b/,
			payload: realPayload('copilot-cli/baton-cli-json-session-start.json', { sessionId: 'c0c0c0c0-0000-4000-8000-000000000002' }),
			env: { COPILOT_CLI: '1' },
			logged: /copilot (sessionStart|session-start) c0c0c0c0-0000-4000-8000-000000000002 → /,
		},
		{
			title: 'Baton: Connect Codex',
			hookFile: '.codex/hooks.json',
			event: / hook session-start\b/,
			payload: realPayload('codex-0.171.0/session-start.json', { session_id: 'c0dec0de-0000-4000-8000-000000000003', transcript_path: undefined }),
			env: {},
			logged: /codex session-start c0dec0de-0000-4000-8000-000000000003 → /,
		},
		{
			title: 'Baton: Connect Gemini CLI',
			hookFile: '.gemini/settings.json',
			event: / hook session-start\b/,
			payload: realPayload('gemini-cli-0.61.0/session-start.json', { session_id: '6e6e6e6e-0000-4000-8000-000000000004', transcript_path: undefined }),
			env: {},
			logged: /gemini session-start 6e6e6e6e-0000-4000-8000-000000000004 → /,
		},
	];
	for (const agent of agents) {
		await check(
			`${agent.title.replace('Baton: ', '')} with no baton on PATH: its committed hook names no path of this machine and records the session`,
			async () => {
				await s.clearNotifications();
				await s.runCommand(agent.title);
				const hooksOnly = s.quickPickItem(/Hooks only/);
				if (
					await hooksOnly.waitFor({ timeout: 5_000 }).then(
						() => true,
						() => false,
					)
				)
					await hooksOnly.click();
				await s.notification(/Connected|connected/, { timeout: 20_000 });
				const text = fs.readFileSync(path.join(workspace, agent.hookFile), 'utf8');
				if (text.includes(tmp)) throw new Error(`${agent.hookFile} names a folder of this machine`);
				const commands = [];
				const walk = (v) =>
					Array.isArray(v)
						? v.forEach(walk)
						: v && typeof v === 'object'
							? Object.entries(v).forEach(([k, x]) => ((k === 'command' || k === 'bash') && typeof x === 'string' ? commands.push(x) : walk(x)))
							: undefined;
				walk(JSON.parse(text));
				const command = commands.find((c) => agent.event.test(c));
				if (!command?.startsWith('"$(command -v baton || echo "$HOME/.baton/bin/baton")" hook '))
					throw new Error(`the committed session-start hook of ${agent.hookFile}: ${command} (of ${commands.join(' | ')})`);
				const home = path.join(s.server.root, 'home');
				const noBaton = process.env.PATH.split(':')
					.filter((dir) => !fs.existsSync(path.join(dir, 'baton')))
					.join(':');
				execFileSync('sh', ['-c', command], {
					cwd: workspace,
					encoding: 'utf8',
					env: { PATH: noBaton, HOME: home, ...agent.env },
					input: JSON.stringify(agent.payload),
				});
				const log = fs.readFileSync(path.join(workspace, '.baton', 'logs', 'hooks.log'), 'utf8');
				if (!agent.logged.test(log)) throw new Error(`the hook log: ${log.slice(-600)}`);
			},
		);
	}
	await s.screenshot('03-four-agents-connected');
} catch (error) {
	if (!String(error?.message).startsWith('stopped after')) {
		checks.failed++;
		console.log(
			`  ✖ ${String(error?.stack ?? error)
				.split('\n')
				.slice(0, 8)
				.join('\n    ')}`,
		);
	}
} finally {
	await s?.close();
	await removeWorkspace(tmp);
}
checks.finish();
