#!/usr/bin/env node
// Runs every test/unit/**/*.test.ts with node's own test runner under tsx (Node 20 has no glob
// support in --test). Extra arguments are passed through (e.g. a file filter: `-- crash`).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { dropAgentShellVariables } from './hermeticEnv.mjs';

dropAgentShellVariables();

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const filters = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const files = [];
const walk = (dir) => {
	for (const entry of readdirSync(dir, { withFileTypes: true })) {
		const full = path.join(dir, entry.name);
		if (entry.isDirectory()) walk(full);
		else if (entry.name.endsWith('.test.ts') && (filters.length === 0 || filters.some((f) => full.includes(f)))) files.push(path.relative(root, full));
	}
};
walk(path.join(root, 'test/unit'));
files.sort();
if (files.length === 0) {
	console.error('no unit test files matched');
	process.exit(1);
}
// Every \`baton\` a test runs joins (or starts) its temp workspace's daemon: each one stops 5 s after
// its last client (and within 2 s of its workspace being deleted), so none outlives the run for long.
// The launcher a backend keeps for agent hooks (~/.baton/bin/baton) goes into a folder of the run's own, never the person's home.
const launcherHome = mkdtempSync(path.join(os.tmpdir(), 'baton-unit-launcher-'));
// A hook's budget (2 s by default) is generous on a busy CI machine: tests that are not about it give hooks a minute, so
// none of their events waits in the spool; the spool's own tests set it short.
const env = { BATON_DAEMON_IDLE_MS: '5000', BATON_HOOK_BUDGET_MS: '60000', ...process.env, BATON_LAUNCHER_HOME: launcherHome };
// Three files at a time on CI's two cores: most of a test's time is spent waiting on the processes it starts
// (git, the CLI, a daemon), so this took the suite from 30 to 20 minutes with every test passing. A test that
// hangs ends after ten minutes as a failure instead of taking the rest of CI's time.
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=3', '--test-timeout=600000', '--test-reporter=spec', ...files], {
	cwd: root,
	stdio: 'inherit',
	env,
});
rmSync(launcherHome, { recursive: true, force: true });
process.exit(result.status ?? 1);
