#!/usr/bin/env node
// The real-agent suite (test/realAgents): installs the pinned agent CLIs into their cache dir
// (scripts/agents/install.mjs; from nothing on a fresh machine), then runs every
// test/realAgents/*.test.ts with node's test runner under tsx. Needs dist/ (npm test builds first).
// Extra arguments filter the files (`node scripts/runAgentTests.mjs claude`).
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { agentsHome, install } from './agents/install.mjs';
import { dropAgentShellVariables } from './hermeticEnv.mjs';

dropAgentShellVariables();

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const filters = process.argv.slice(2).filter((a) => !a.startsWith('-'));
try {
	install();
} catch (error) {
	console.error(`real agents: the agent CLIs could not be installed: ${error.message}`);
	console.log('ℹ pass 0\nℹ fail 1');
	process.exit(1);
}
const dir = path.join(root, 'test/realAgents');
const files = readdirSync(dir)
	.filter((f) => f.endsWith('.test.ts') && (filters.length === 0 || filters.some((x) => f.includes(x))))
	.map((f) => path.join('test/realAgents', f))
	.sort();
if (files.length === 0) {
	console.error('no real-agent test files matched');
	process.exit(1);
}
const env = { ...process.env, BATON_AGENTS_HOME: agentsHome, BATON_DAEMON_IDLE_MS: '5000' };
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=1', '--test-timeout=600000', '--test-reporter=spec', ...files], {
	cwd: root,
	stdio: 'inherit',
	env,
});
process.exit(result.status ?? 1);
