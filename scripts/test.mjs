#!/usr/bin/env node
// `npm test` after type-check and build: the unit suites, then the editor tests in a real VS Code
// workbench. Ends with one `total: N passed, N failed` line; exits non-zero if anything failed.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const started = Date.now();
const minutes = (ms) => `${(ms / 60_000).toFixed(1)} min`;
// Each phase says when it starts and how long it took: a CI log cut off by its time limit still says where the time went.
function run(script, args = [], env = process.env) {
	const phaseStarted = Date.now();
	console.log(`\n>>> ${script} ${args.join(' ')} starts at ${minutes(phaseStarted - started)}`);
	return new Promise((resolve) => {
		const child = spawn(process.execPath, [path.join(root, 'scripts', script), ...args], { cwd: root, env, stdio: ['ignore', 'pipe', 'inherit'] });
		let out = '';
		child.stdout.on('data', (d) => {
			out += d;
			process.stdout.write(d);
		});
		child.on('exit', (code) => resolve({ code: code ?? 1, out, took: minutes(Date.now() - phaseStarted) }));
	});
}

const counts = (result) => {
	const pass = Number(/^ℹ pass (\d+)$/m.exec(result.out)?.[1] ?? 0);
	const fail = Number(/^ℹ fail (\d+)$/m.exec(result.out)?.[1] ?? 0) + (result.code !== 0 && !/^ℹ fail [1-9]/m.test(result.out) ? 1 : 0);
	return { pass, fail };
};
const unit = await run('runUnitTests.mjs');
const { pass: unitPass, fail: unitFail } = counts(unit);
// The real agent CLIs (Claude Code, Copilot CLI, …), installed from the npm registry by the project's
// own files into their cache dir, run headless against model stand-ins on 127.0.0.1.
const agents = await run('runAgentTests.mjs');
const { pass: agentsPass, fail: agentsFail } = counts(agents);
// In CI (and with BATON_FRESH_CHECK=1) the README's `npm start` is proven from nothing: an empty
// workbench cache, installed under npm's own environment, booted with the extension on the demo. The
// editor tests then run on that freshly installed workbench, so nothing a previous run cached counts.
let fresh = { code: 0, out: '' };
let editorEnv = process.env;
let freshCache;
if (process.env.CI || process.env.BATON_FRESH_CHECK === '1') {
	freshCache = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-fresh-cache-'));
	fresh = await run('freshStartCheck.mjs', [freshCache]);
	editorEnv = { ...process.env, BATON_WORKBENCH_HOME: freshCache };
}
const freshPass = Number(/^fresh start: (\d+) passed/m.exec(fresh.out)?.[1] ?? 0);
const freshFail = freshCache ? 1 - freshPass : 0;
const editor = await run('runEditorTests.mjs', [], editorEnv);
if (freshCache) fs.rmSync(freshCache, { recursive: true, force: true });
const m = /^editor: (\d+) passed, (\d+) failed$/m.exec(editor.out);
const editorPass = Number(m?.[1] ?? 0);
const editorFail = Number(m?.[2] ?? 0) + (editor.code !== 0 && !(m && Number(m[2]) > 0) ? 1 : 0);
const passed = unitPass + agentsPass + editorPass + freshPass;
const failed = unitFail + agentsFail + editorFail + freshFail;
console.log(`\nunit: ${unitPass} passed, ${unitFail} failed (${unit.took})`);
console.log(`real agents: ${agentsPass} passed, ${agentsFail} failed (${agents.took})`);
console.log(`editor: ${editorPass} passed, ${editorFail} failed (${editor.took})`);
if (freshCache) console.log(`fresh start: ${freshPass} passed, ${freshFail} failed (${fresh.took})`);
console.log(`time: ${minutes(Date.now() - started)} after type-check, lint and build`);
console.log(`total: ${passed} passed, ${failed} failed`);
// The unit and agent runners' own list of failures (node's spec reporter prints it at the end of its run),
// again at the very end: a CI log cut to its last lines still says why a test failed.
for (const [name, result] of [
	['unit', unit],
	['real agents', agents],
]) {
	const block = /^✖ failing tests:\n([\s\S]*)$/m.exec(result.out)?.[1]?.trim();
	if (block) {
		// Node's own frames say nothing about the failure.
		const lines = block.split('\n').filter((line) => !/^\s+at .*(\(node:|node:internal|node_modules)/.test(line));
		console.log(
			`\n${name}, why it failed:\n${lines.slice(0, 150).join('\n')}${lines.length > 150 ? `\n… ${lines.length - 150} more lines above, in the ${name} run's output` : ''}`,
		);
	}
}
process.exit(failed === 0 && passed > 0 ? 0 : 1);
