#!/usr/bin/env node
// The editor tests: the mocha suite inside a real VS Code extension host, then the UI tests that
// drive the workbench like a person. Offline: code-server + Debian chromium (scripts/workbench).
// Prints `editor: N passed, N failed` last; exit code 0 only when everything passed.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleIntegrationTests, integrationOutDir } from './bundleIntegrationTests.mjs';
import { dropAgentShellVariables } from './hermeticEnv.mjs';

dropAgentShellVariables();

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const only = process.argv.slice(2);
const want = (name) => only.length === 0 || only.includes(name);

// 1. The workbench (idempotent; seconds when already installed).
const install = spawnSync('bash', [path.join(root, 'scripts/workbench/install.sh')], { stdio: ['ignore', 'inherit', 'inherit'] });
if (install.status !== 0) {
	console.error('editor tests: the workbench could not be installed (see above)');
	process.exit(1);
}

// 2. The extension-host suite, bundled to CommonJS (vscode and mocha stay external).
const outDir = integrationOutDir;
await bundleIntegrationTests();

let passed = 0;
let failed = 0;
let collected = '';
const isolated = path.join(root, 'scripts/workbench/isolated.sh');

// A suite that runs past this is ended with everything it started (its workbench, chromium, daemons) and counted
// as failed: a hung suite costs minutes, never the rest of CI's time.
const suiteLimitMs = Number(process.env.BATON_EDITOR_SUITE_LIMIT_MS ?? 15 * 60_000);

/** Every live process below `pid` (Linux: read from /proc). */
function descendantsOf(pid) {
	const children = new Map();
	for (const entry of fs.readdirSync('/proc')) {
		if (!/^\d+$/.test(entry)) continue;
		try {
			// The parent pid is the second field after the command, which is in parentheses and may hold spaces.
			const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
			const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
			children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
		} catch {
			// Ended while being read.
		}
	}
	const found = [];
	for (let queue = [pid]; queue.length > 0;) {
		const next = children.get(queue.pop()) ?? [];
		found.push(...next);
		queue.push(...next);
	}
	return found;
}

/** Runs a suite in a process group of its own; resolves with its output and status once it and its group are gone. */
function runSuite(name, command, args, options) {
	const started = Date.now();
	return new Promise((resolve) => {
		const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'inherit'], detached: true });
		let stdout = '';
		child.stdout.setEncoding('utf8');
		// Shown as it comes: a log cut off mid-suite still says how far it got.
		child.stdout.on('data', (chunk) => {
			stdout += chunk;
			process.stdout.write(chunk);
		});
		const killGroup = () => {
			try {
				process.kill(-child.pid, 'SIGKILL');
			} catch {
				// The group is gone.
			}
		};
		const timer = setTimeout(() => {
			const note = `\n${name}: still running after ${Math.round(suiteLimitMs / 1000)} s: ended with everything it started, and counted as failed\n`;
			stdout += note;
			process.stdout.write(note);
			// The workbench runs in a process group of its own: every process below the suite goes, found before any is killed.
			for (const pid of [child.pid, ...descendantsOf(child.pid)]) {
				try {
					process.kill(pid, 'SIGKILL');
				} catch {
					// Already gone.
				}
			}
			killGroup();
		}, suiteLimitMs);
		child.on('exit', () => {
			clearTimeout(timer);
			// What the suite left behind (a workbench, a daemon) goes with it, so that its pipe closes.
			killGroup();
		});
		// 'close' comes after the exit and once every holder of the pipe is gone.
		child.on('close', (code, signal) => {
			const seconds = ((Date.now() - started) / 1000).toFixed(0);
			console.log(`(${name}: ${seconds} s)`);
			resolve({ stdout, status: signal ? 1 : (code ?? 1) });
		});
	});
}

/** Runs one extension-host suite against a workspace (a folder or a .code-workspace file). */
async function runExthost(suite, workspace) {
	// BATON_EXTHOST_ONLY=notifications,agents runs just those suites (while working on one).
	const onlySuites = process.env.BATON_EXTHOST_ONLY?.split(',');
	if (onlySuites && !onlySuites.includes(suite)) return;
	const run = await runSuite(
		`extension-host suite ${suite}`,
		isolated,
		[
			process.execPath,
			path.join(root, 'test/harness/runExtensionTests.mjs'),
			'--extensionDevelopmentPath',
			root,
			'--extensionTestsPath',
			path.join(outDir, 'index.js'),
			'--workspace',
			workspace,
			'--timeout',
			'300',
		],
		{ env: { ...process.env, BATON_EXTHOST_SUITE: suite } },
	);
	collected += run.stdout;
	const summary = /BATON-EXTHOST-SUMMARY (\d+) passed, (\d+) failed/.exec(run.stdout);
	if (summary) {
		passed += Number(summary[1]);
		failed += Number(summary[2]);
	}
	if (run.status !== 0 && (!summary || Number(summary[2]) === 0)) {
		failed += 1; // the suite did not run to its end
	}
}

if (want('exthost')) {
	const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-exthost-ws-'));
	spawnSync('git', ['init', '-q', workspace]);
	fs.writeFileSync(path.join(workspace, 'README.md'), '# extension-host test workspace\n');
	await runExthost('extension', workspace);
	fs.rmSync(workspace, { recursive: true, force: true });

	// A git repository with files and Baton set up, for the checkpoint suite.
	const repo = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-checkpoints-ws-'));
	const git = (...args) =>
		spawnSync('git', args, {
			cwd: repo,
			env: {
				...process.env,
				GIT_CONFIG_GLOBAL: '/dev/null',
				GIT_AUTHOR_NAME: 't',
				GIT_AUTHOR_EMAIL: 't@example.invalid',
				GIT_COMMITTER_NAME: 't',
				GIT_COMMITTER_EMAIL: 't@example.invalid',
			},
		});
	git('init', '-q');
	fs.mkdirSync(path.join(repo, 'src'));
	fs.writeFileSync(path.join(repo, 'src/app.js'), 'export const answer = 42;\n');
	fs.writeFileSync(path.join(repo, 'README.md'), '# checkpoints\n');
	git('add', '.');
	git('commit', '-qm', 'init');
	spawnSync(process.execPath, [path.join(root, 'dist/cli.js'), 'init', '--workspace', repo]);
	await runExthost('checkpoints', repo);
	fs.rmSync(repo, { recursive: true, force: true });

	// A git repository with one committed file and Baton set up, for the provenance suite (it drives an agent's hooks itself).
	const provenanceWs = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-provenance-ws-'));
	const provenanceGit = (...args) =>
		spawnSync('git', args, {
			cwd: provenanceWs,
			env: {
				...process.env,
				GIT_CONFIG_GLOBAL: '/dev/null',
				GIT_AUTHOR_NAME: 'Dana Dev',
				GIT_AUTHOR_EMAIL: 'dana@example.invalid',
				GIT_COMMITTER_NAME: 'Dana Dev',
				GIT_COMMITTER_EMAIL: 'dana@example.invalid',
			},
		});
	provenanceGit('init', '-q');
	fs.mkdirSync(path.join(provenanceWs, 'src'));
	fs.writeFileSync(path.join(provenanceWs, 'src/app.ts'), 'export const rate = 1.2;\n');
	fs.writeFileSync(path.join(provenanceWs, '.gitignore'), '.baton/\n.baton-test-claude/\n');
	provenanceGit('add', '.');
	provenanceGit('commit', '-qm', 'init');
	spawnSync(process.execPath, [path.join(root, 'dist/cli.js'), 'init', '--workspace', provenanceWs]);
	await runExthost('provenance', provenanceWs);
	fs.rmSync(provenanceWs, { recursive: true, force: true });

	// An empty folder with Baton set up, for the import/export suite (it writes its sources itself).
	const interop = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-interop-ws-'));
	spawnSync(process.execPath, [path.join(root, 'dist/cli.js'), 'init', '--workspace', interop]);
	await runExthost('interop', interop);
	fs.rmSync(interop, { recursive: true, force: true });
	// A folder with Baton set up, for notifications and secrets (a loopback webhook inside the test).
	const notifyWs = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-notify-ws-'));
	fs.writeFileSync(path.join(notifyWs, 'README.md'), '# notifications\n');
	spawnSync(process.execPath, [path.join(root, 'dist/cli.js'), 'init', '--workspace', notifyWs]);
	await runExthost('notifications', notifyWs);
	fs.rmSync(notifyWs, { recursive: true, force: true });

	// Two folders, one with Baton data, opened as a multi-root workspace.
	const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-multiroot-'));
	const one = path.join(parent, 'one');
	const two = path.join(parent, 'two');
	fs.mkdirSync(one);
	fs.mkdirSync(two);
	fs.writeFileSync(path.join(one, 'README.md'), '# folder one\n');
	fs.writeFileSync(path.join(two, 'notes.md'), '# folder two\n');
	spawnSync(process.execPath, [path.join(root, 'dist/cli.js'), 'init', '--workspace', one]);
	// Set-up scripts start no daemon (it would keep this runner's environment, not the editor's).
	spawnSync(process.execPath, [path.join(root, 'dist/cli.js'), 'session', 'start', '--name', 'seeded in folder one', '--workspace', one], {
		env: { ...process.env, BATON_NO_DAEMON: '1' },
	});
	const file = path.join(parent, 'both.code-workspace');
	fs.writeFileSync(file, JSON.stringify({ folders: [{ path: 'one' }, { path: 'two' }] }));
	await runExthost('multiRoot', file);
	fs.rmSync(parent, { recursive: true, force: true });

	// Sync: a bare remote, clone A (another machine, `ci-runner`/`ci-bot`) that pushed an ended
	// session and one still active, and clone B with sync enabled: the workspace the suite opens.
	const syncBase = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-sync-ws-'));
	const syncEnv = {
		...process.env,
		GIT_CONFIG_GLOBAL: '/dev/null',
		GIT_AUTHOR_NAME: 't',
		GIT_AUTHOR_EMAIL: 't@example.invalid',
		GIT_COMMITTER_NAME: 't',
		GIT_COMMITTER_EMAIL: 't@example.invalid',
		BATON_NO_DAEMON: '1',
	};
	const inDir = (cwd, cmd, args, env = syncEnv) => spawnSync(cmd, args, { cwd, env, encoding: 'utf8' });
	const bare = path.join(syncBase, 'remote.git');
	const cloneA = path.join(syncBase, 'a');
	const cloneB = path.join(syncBase, 'b');
	inDir(syncBase, 'git', ['init', '-q', '--bare', bare]);
	fs.mkdirSync(cloneA);
	fs.writeFileSync(path.join(cloneA, 'app.js'), 'export const x = 1;\n');
	for (const args of [
		['init', '-q', '-b', 'main'],
		['add', '.'],
		['commit', '-qm', 'init'],
		['remote', 'add', 'origin', `file://${bare}`],
		['push', '-q', 'origin', 'main'],
	])
		inDir(cloneA, 'git', args);
	inDir(syncBase, 'git', ['clone', '-q', `file://${bare}`, cloneB]);
	const cli = path.join(root, 'dist/cli.js');
	const runner = { ...syncEnv, BATON_MACHINE_NAME: 'ci-runner', BATON_AUTHOR: 'ci-bot' };
	const syncSetup = [
		inDir(cloneA, process.execPath, [cli, 'init'], runner),
		inDir(cloneA, process.execPath, [cli, 'sync', 'enable', 'origin'], runner),
		inDir(cloneA, process.execPath, [cli, 'session', 'start', '--name', 'nightly fix on the CI runner'], runner),
		inDir(cloneA, process.execPath, [cli, 'session', 'end', '--note', 'fixed the flaky test'], runner),
		// Still running there: on B it shows as active on the runner and holds nothing.
		inDir(cloneA, process.execPath, [cli, 'session', 'start', '--name', 'review on the CI runner'], runner),
		inDir(cloneA, process.execPath, [cli, 'sync', 'push'], runner),
		inDir(cloneB, process.execPath, [cli, 'init']),
		inDir(cloneB, process.execPath, [cli, 'sync', 'enable', 'origin']),
	];
	for (const dir of [cloneA, cloneB]) fs.appendFileSync(path.join(dir, '.git', 'info', 'exclude'), '.baton/\n');
	const setupFailed = syncSetup.find((r) => r.status !== 0);
	if (setupFailed) {
		console.log(`sync workspace: set-up failed: ${setupFailed.stderr}`);
		failed += 1;
	} else {
		await runExthost('sync', cloneB);
	}
	fs.rmSync(syncBase, { recursive: true, force: true });

	// A workspace where Claude Code worked: a transcript archived through the real `baton hook`.
	const agentsBase = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-agents-ws-'));
	const shop = path.join(agentsBase, 'shop');
	fs.mkdirSync(path.join(shop, 'src'), { recursive: true });
	fs.writeFileSync(path.join(shop, 'src/payment.js'), 'export async function charge(card, amount) {\n  return { ok: true, amount };\n}\n');
	const seeded = spawnSync(process.execPath, ['--import', 'tsx', path.join(root, 'scripts/seedTranscript.ts'), shop], {
		cwd: root,
		encoding: 'utf8',
		env: { ...process.env, BATON_NO_DAEMON: '1' },
	});
	if (seeded.status !== 0) {
		console.log(`agents workspace: seeding failed: ${seeded.stderr}`);
		failed += 1;
	} else {
		await runExthost('agents', shop);
	}
	fs.rmSync(agentsBase, { recursive: true, force: true });

	// 5,000 sessions in 250 chains: the tree at scale (its timings go to `npm run bench`).
	const scaleWs = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-scale-ws-'));
	const seededScale = spawnSync(process.execPath, ['--import', 'tsx', path.join(root, 'scripts/seedSessions.ts'), scaleWs, '5000'], {
		cwd: root,
		encoding: 'utf8',
	});
	if (seededScale.status !== 0) {
		console.log(`scale workspace: seeding failed: ${seededScale.stderr}`);
		failed += 1;
	} else {
		await runExthost('scale', scaleWs);
	}
	fs.rmSync(scaleWs, { recursive: true, force: true });
}

// 3. UI tests: each is a plain script that prints `N passed, N failed` last.
for (const file of fs
	.readdirSync(path.join(root, 'test/ui'))
	.filter((f) => f.endsWith('.ui.mjs'))
	.sort()) {
	if (!want(file.replace('.ui.mjs', '')) && !want('ui')) continue;
	const run = await runSuite(file, isolated, [process.execPath, path.join(root, 'test/ui', file)], { cwd: root });
	collected += run.stdout;
	const summary = [...run.stdout.matchAll(/^(\d+) passed, (\d+) failed$/gm)].pop();
	if (summary) {
		passed += Number(summary[1]);
		failed += Number(summary[2]);
	}
	if (run.status !== 0 && (!summary || Number(summary[2]) === 0)) {
		failed += 1;
	}
}

// Figures measured in the real extension host, for `npm run bench` (BATON-MEASURE name=value).
const measures = {};
for (const m of collected.matchAll(/BATON-MEASURE (\w+)=([\d.]+)/g)) {
	(measures[m[1]] ??= []).push(Number(m[2]));
}
if (Object.keys(measures).length > 0) {
	// A run of some suites replaces their figures and keeps the others'.
	const file = path.join(root, 'bench', 'results', 'editor.json');
	let earlier = {};
	try {
		earlier = JSON.parse(fs.readFileSync(file, 'utf8')).values ?? {};
	} catch {
		// No earlier figures.
	}
	fs.mkdirSync(path.dirname(file), { recursive: true });
	fs.writeFileSync(file, JSON.stringify({ at: new Date().toISOString(), values: { ...earlier, ...measures } }, null, 2));
}
console.log(`editor: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
