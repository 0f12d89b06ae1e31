import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { isBuiltin } from 'node:module';
import path from 'node:path';
import { test } from 'node:test';
import * as esbuild from 'esbuild';
import { daemonEnv, daemonWorkspace } from './daemonProcesses';

const repo = path.resolve(__dirname, '../../..');

test('the hook client (dist/cli.js) bundles no engine, no drizzle and no sql.js', async () => {
	const result = await esbuild.build({
		entryPoints: [path.join(repo, 'src/cli/launcher.ts')],
		bundle: true,
		platform: 'node',
		format: 'cjs',
		target: 'node20',
		write: false,
		metafile: true,
		mainFields: ['module', 'main'],
		logLevel: 'silent',
	});
	const inputs = Object.keys(result.metafile.inputs);
	assert.ok(inputs.some((file) => file.endsWith('src/cli/daemonClient.ts')));
	assert.deepEqual(
		// engine/ownFiles.ts imports nothing but node:fs and node:path: the client checks whose endpoint file and socket it meets.
		inputs.filter((file) => /node_modules\/(sql\.js|drizzle-orm|vscode-jsonrpc|zod)\/|src\/engine\/(?!ownFiles\.ts$)/.test(file)),
		[],
	);
	const bytes = result.outputFiles[0]?.contents.byteLength ?? Infinity;
	assert.ok(bytes < 40_000, `dist/cli.js is ${bytes} bytes`);
});

/** A preload that reports, at exit, the modules the process loaded and whether V8 took each code cache it was given. */
function tracer(dir: string): string {
	const file = path.join(dir, 'trace.cjs');
	fs.writeFileSync(
		file,
		`const Module = require('node:module');
const vm = require('node:vm');
const fs = require('node:fs');
const loaded = [];
const load = Module._load;
Module._load = function (request, ...rest) { loaded.push(request); return load.call(this, request, ...rest); };
const caches = [];
const Script = vm.Script;
vm.Script = class extends Script {
	constructor(code, options) { super(code, options); caches.push({ file: options && options.filename, given: !!(options && options.cachedData), script: this }); }
};
process.on('exit', () => fs.writeSync(2, 'TRACE ' + JSON.stringify({ loaded, caches: caches.map((c) => ({ file: c.file, given: c.given, rejected: c.script.cachedDataRejected === true })) }) + '\\n'));
`,
	);
	return file;
}

/** The daemon's log once it has exited: `daemon stop` answers before the process is gone, and the trace is written at its exit. */
async function exitedLog(log: string): Promise<string> {
	for (let waited = 0; waited < 20_000; waited += 100) {
		const text = fs.readFileSync(log, 'utf8');
		if (text.includes('\nTRACE ') || text.startsWith('TRACE ')) {
			return text;
		}
		await new Promise((resolve) => setTimeout(resolve, 100));
	}
	return fs.readFileSync(log, 'utf8');
}

function traced(stderr: string): { loaded: string[]; caches: { file: string; given: boolean; rejected: boolean }[] } {
	const line = stderr.split('\n').find((l) => l.startsWith('TRACE '));
	assert.ok(line, stderr);
	return JSON.parse(line.slice('TRACE '.length)) as { loaded: string[]; caches: { file: string; given: boolean; rejected: boolean }[] };
}

test('a hook answered by the daemon loads only dist/cli.js and Node built-ins; the fallback bundles take their V8 code cache', async (t) => {
	const { cli, root } = await daemonWorkspace(t);
	const trace = tracer(root);
	const payload = JSON.stringify({
		session_id: '0b6c1f3e-8d2a-4e71-9c55-7a1d2e3f4b5c',
		cwd: root,
		hook_event_name: 'SessionStart',
		source: 'startup',
		transcript_path: path.join(root, 'none.jsonl'),
	});
	const run = (args: string[], input = ''): { stderr: string; status: number | null } =>
		spawnSync(process.execPath, ['-r', trace, cli, ...args], { cwd: root, input, env: daemonEnv(), encoding: 'utf8' });
	assert.equal(run(['hook', 'session-start'], payload).status, 0, 'the first hook starts the daemon');
	const warm = run(['hook', 'session-start'], payload);
	assert.equal(warm.status, 0, warm.stderr);
	assert.deepEqual(
		traced(warm.stderr).loaded.filter((m) => !isBuiltin(m)),
		[cli],
		'through the daemon: no engine bundle, no drizzle, no sql.js',
	);
	const daemonLog = fs.readFileSync(path.join(root, '.baton', 'logs', 'daemon.log'), 'utf8');
	assert.equal(daemonLog.match(/hook\/run hook session-start → exit 0/g)?.length, 2);
	// In process (no daemon): each bundle's cache is written once, then taken, under the same V8 flags.
	for (const [args, bundle] of [
		[['hook', 'session-start', '--no-daemon'], 'hook.js'],
		[['task', 'list', '--no-daemon'], 'baton.js'],
	] as const) {
		run([...args], payload);
		const second = traced(run([...args], payload).stderr).caches.find((c) => c.file.endsWith(bundle));
		assert.deepEqual(second && { given: second.given, rejected: second.rejected }, { given: true, rejected: false }, `${bundle}'s code cache`);
	}
});

test('the daemon runs commands and hooks with the CLI built into dist/server.js (through its code cache): it loads no dist/baton.js, one copy of the engine', async (t) => {
	const { cli, root } = await daemonWorkspace(t);
	const env = daemonEnv({ NODE_OPTIONS: `--require ${tracer(root)}` });
	const run = (args: string[], input = ''): { stdout: string; stderr: string; status: number | null } =>
		spawnSync(process.execPath, [cli, ...args], { cwd: root, input, env, encoding: 'utf8' });
	const listed = run(['task', 'list', '--json']);
	assert.equal(listed.status, 0, listed.stderr);
	const payload = JSON.stringify({ session_id: '0b6c1f3e-8d2a-4e71-9c55-7a1d2e3f4b5d', cwd: root, hook_event_name: 'SessionStart', source: 'startup' });
	assert.equal(run(['hook', 'session-start'], payload).status, 0);
	assert.equal(run(['daemon', 'stop']).status, 0);
	const log = path.join(root, '.baton', 'logs', 'daemon.log');
	const daemonLog = await exitedLog(log);
	assert.match(daemonLog, /cli\/run task list → exit 0/);
	assert.match(daemonLog, /hook\/run hook session-start → exit 0/);
	const first = traced(daemonLog);
	const loaded = first.loaded.filter((m) => !isBuiltin(m));
	assert.deepEqual(
		loaded.filter((m) => /\.js$/.test(m) && !/node_modules|trace\.cjs/.test(m)).map((m) => path.basename(m)),
		['backend.js'],
		`the daemon's own modules: ${loaded.join(', ')}`,
	);
	// backend.js compiles server.js, and nothing else, through the code cache beside it.
	assert.deepEqual(
		first.caches.map((c) => path.basename(c.file)),
		['server.js'],
	);
	// Written by then (at the latest at that daemon's exit): the next daemon takes it.
	fs.rmSync(log);
	assert.equal(run(['task', 'list', '--json']).status, 0);
	assert.equal(run(['daemon', 'stop']).status, 0);
	const next = traced(await exitedLog(log)).caches.find((c) => c.file.endsWith('server.js'));
	assert.deepEqual(next && { given: next.given, rejected: next.rejected }, { given: true, rejected: false }, "server.js's code cache");
});
