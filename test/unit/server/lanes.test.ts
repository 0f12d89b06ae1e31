/**
 * The daemon serves the many while it works for the one (issue #30, item 3), with real processes: a
 * checkpoint of a 5,000-file tree runs in the daemon's long lane while hooks and short commands are
 * answered beside it, and thirty writers at once beside such a checkpoint are all acknowledged and
 * stored once. Ordering, not time: the daemon's own log says what it answered before what.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { laneOf } from '../../../src/server/daemonCommands';
import { countWrites, storedTitles } from './faultCounts';
import { baton, daemonEnv, daemonWorkspace, waitFor, type Result } from './daemonProcesses';

const files = 5_000;

function daemonLog(root: string): string {
	return fs.readFileSync(path.join(root, '.baton', 'logs', 'daemon.log'), 'utf8');
}

/** `count` small source files in folders of 100: a tree whose first checkpoint takes the daemon a while. */
function tree(root: string, count: number): void {
	for (let i = 0; i < count; i++) {
		const dir = path.join(root, `src${Math.floor(i / 100)}`);
		if (i % 100 === 0) {
			fs.mkdirSync(dir, { recursive: true });
		}
		fs.writeFileSync(path.join(dir, `f${i}.ts`), `export const v${i} = ${i};\n`.repeat(20));
	}
}

/** A `baton ARGS` process started now whose stdin is written later (a hook started ahead, its payload sent when the test says). */
function heldOpen(cli: string, cwd: string, args: string[]): { send(input: string): void; result: Promise<Result> } {
	const child = spawn(process.execPath, [cli, ...args], { cwd, env: daemonEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
	let stdout = '';
	let stderr = '';
	child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
	child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
	const result = new Promise<Result>((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
	return { send: (input) => child.stdin.end(input), result };
}

/** The checkpoint began in the daemon's long lane (its log says so), or finished first. */
async function checkpointBegan(root: string, finished: () => boolean): Promise<void> {
	assert.ok(
		await waitFor(() => finished() || /cli\/run checkpoint create began in the long lane/.test(daemonLog(root)), 120_000),
		'the checkpoint never began',
	);
	assert.equal(finished(), false, `the checkpoint finished before the test saw it begin:\n${daemonLog(root)}`);
}

test(`hooks and short commands are answered while a ${files}-file checkpoint runs in the daemon`, async (t) => {
	const { cli, root } = await daemonWorkspace(t);
	tree(root, files);
	assert.equal((await baton(cli, root, ['session', 'list'])).code, 0, 'the daemon started');
	const session = '6f1c2a9e-3b7d-4c21-9e8a-5d4f0b7a1c33';
	const payload = (event: string, extra: Record<string, unknown>): string =>
		JSON.stringify({ session_id: session, cwd: root, hook_event_name: event, transcript_path: path.join(root, 'none.jsonl'), ...extra });
	// The hooks are started ahead (their payload not yet sent), so only their turn in the daemon is raced.
	const start = heldOpen(cli, root, ['hook', 'session-start']);
	const prompt = heldOpen(cli, root, ['hook', 'user-prompt-submit']);
	let finished = false;
	const checkpoint = baton(cli, root, ['checkpoint', 'create', '--message', 'the whole tree', '--json']).then((r) => {
		finished = true;
		return r;
	});
	await checkpointBegan(root, () => finished);
	start.send(payload('SessionStart', { source: 'startup' }));
	const started = await start.result;
	prompt.send(payload('UserPromptSubmit', { prompt: 'beside the checkpoint' }));
	const [prompted, added, listed, done] = await Promise.all([
		prompt.result,
		baton(cli, root, ['task', 'add', '--title', 'beside the checkpoint']),
		baton(cli, root, ['session', 'list', '--json']),
		checkpoint,
	]);
	for (const [name, r] of Object.entries({ started, prompted, added, listed, done })) {
		assert.equal(r.code, 0, `${name}: ${r.stderr}`);
	}
	assert.match(started.stdout, /Baton/, 'the session start was briefed');
	assert.equal(
		(JSON.parse(done.stdout) as { checkpoint: { fileStats: { totalFiles: number } } }).checkpoint.fileStats.totalFiles >= files,
		true,
		done.stdout,
	);
	assert.ok(storedTitles(cli, root).includes('beside the checkpoint'));
	// The daemon answered each of them before it finished the checkpoint that began before them.
	const lines = daemonLog(root).split('\n');
	const at = (pattern: RegExp): number => lines.findIndex((line) => pattern.test(line));
	const end = at(/cli\/run checkpoint create → exit 0/);
	assert.ok(end > at(/cli\/run checkpoint create began in the long lane/), daemonLog(root));
	for (const answered of [
		/hook\/run hook session-start → exit 0/,
		/hook\/run hook user-prompt-submit → exit 0/,
		/cli\/run task add → exit 0/,
		/cli\/run session list → exit 0 .*\n?/,
	]) {
		const line = lines.findIndex((l, i) => i > at(/began in the long lane/) && answered.test(l));
		assert.ok(line > 0 && line < end, `${String(answered)} was not answered while the checkpoint ran:\n${daemonLog(root)}`);
	}
	t.diagnostic(lines.find((l) => /checkpoint create → exit 0/.test(l)) ?? '');
});

test('thirty writers at once beside a checkpoint in the daemon are all acknowledged, none refused, each stored once', async (t) => {
	const { cli, root } = await daemonWorkspace(t);
	tree(root, files);
	assert.equal((await baton(cli, root, ['session', 'list'])).code, 0, 'the daemon started');
	let finished = false;
	const checkpoint = baton(cli, root, ['checkpoint', 'create']).then((r) => {
		finished = true;
		return r;
	});
	await checkpointBegan(root, () => finished);
	const titles = Array.from({ length: 30 }, (_, i) => `writer ${i}`);
	const results = await Promise.all(titles.map((title) => baton(cli, root, ['task', 'add', '--title', title, '--json'])));
	assert.equal((await checkpoint).code, 0);
	const counts = countWrites(results, titles, storedTitles(cli, root));
	t.diagnostic(`thirty writers: ${JSON.stringify(counts)}`);
	assert.deepEqual(
		counts,
		{ acknowledged: 30, refused: 0, spooled: 0, lost: 0, refusedButStored: 0, storedTwice: 0 },
		results.map((r) => r.stderr).join('\n'),
	);
	// Every one ran in the daemon (none fell back to a process of its own, with its own lock waits).
	assert.equal(daemonLog(root).match(/cli\/run task add → exit 0/g)?.length, 30, daemonLog(root));
});

test('which lane a command runs in: long work (a whole-tree checkpoint, sync, import, export, a repair, a search that may build its index) in the long lane; hooks and everything else in the short one', () => {
	for (const argv of [
		['checkpoint', 'create', '--label', 'x'],
		['sync', 'push'],
		['import', 'agents', '--json'],
		['export', '--markdown'],
		['doctor', '--repair'],
		['search', 'invoice', '--json'],
		['transcripts', 'sync'],
	]) {
		assert.equal(laneOf(argv), 'long', argv.join(' '));
	}
	for (const argv of [
		['hook', 'post-tool-use'],
		['hook', 'session-start', '--agent', 'codex'],
		['task', 'add', '--title', 'search'],
		['session', 'list'],
		['checkpoint', 'list'],
	]) {
		assert.equal(laneOf(argv), 'short', argv.join(' '));
	}
});
