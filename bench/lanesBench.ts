/**
 * The daemon serves the many while it works for the one (issue #30, item 3), through real `baton`
 * processes and the real daemon they start, on a workspace of ≥ 20,000 files (captureBench's copy of
 * this checkout's node_modules; `--quick`: 5,000 generated files):
 * - hooks while a checkpoint of the whole tree runs in the daemon: an agent's prompts and session
 *   starts, one after another as an agent sends them, from the moment the daemon says the checkpoint
 *   began until it answered. p95 of a hook's whole process; FAILED over 1 s. The row names the
 *   checkpoint's time and the longest stretch it held the daemon's event loop (daemon.log).
 * - 30 writers at once (`baton task add`, each a whole process) while another checkpoint runs: how
 *   many were refused (FAILED when any), and any acknowledged write not stored exactly once; then the
 *   same thirty with --no-daemon, each in a process of its own, waiting in the journal lock's line.
 *   npx tsx bench/lanesBench.ts [--quick]
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { agentCli } from '../test/unit/cli/agentCli';
import { baton, daemonPids, type Result } from '../test/unit/server/daemonProcesses';
import { countWrites, storedTitles } from '../test/unit/server/faultCounts';
import { copyTree } from './captureBench';
import { formatTable, median, percentile, type BenchRow } from './stats';

const writers = 30;

export async function benchLanes(quick: boolean): Promise<BenchRow[]> {
	const cli = await agentCli();
	const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'baton-bench-lanes-')));
	const ws = path.join(root, 'ws');
	try {
		const files = quick ? generate(ws, 5_000) : copyTree(path.join(__dirname, '..', 'node_modules'), ws);
		process.stderr.write(`  lanes workspace: ${files} files\n`);
		spawnSync('git', ['init', '-q', ws]);
		const init = spawnSync(process.execPath, [cli, 'init'], { cwd: ws, encoding: 'utf8' });
		if (init.status !== 0) {
			throw new Error(`baton init failed: ${init.stderr.slice(0, 200)}`);
		}
		const warm = await baton(cli, ws, ['session', 'list']);
		if (warm.code !== 0) {
			throw new Error(`baton session list failed: ${warm.stderr.slice(0, 200)}`);
		}
		return [await hooksBeside(cli, ws, files), await writersBeside(cli, ws), await writersOnTheirOwn(cli, ws)];
	} catch (error) {
		const reason = (error as Error).message.split('\n')[0] ?? 'failed';
		return [
			failed(`hook while a checkpoint runs in the daemon (${reason})`, '≤ 1,000 ms p95'),
			failed(`${writers} writers at once (${reason})`, 'refused 0'),
			failed(`${writers} writers at once in processes of their own (${reason})`, 'refused 0'),
		];
	} finally {
		for (const pid of daemonPids(ws)) {
			process.kill(pid, 'SIGKILL');
		}
		fs.rmSync(root, { recursive: true, force: true });
	}
}

/** The checkpoint began in the daemon (its long lane says so in daemon.log; a build before the lanes says nothing: 1 s). */
async function began(ws: string, from: number, checkpoint: { done: boolean }): Promise<void> {
	const fallback = Date.now() + 1_000;
	while (
		!checkpoint.done &&
		!/cli\/run checkpoint create began in the long lane/.test(readFrom(daemonLog(ws), from)) &&
		(!process.env['BATON_TEST_CLI'] || Date.now() < fallback)
	) {
		await new Promise((resolve) => setTimeout(resolve, 20));
	}
}

async function hooksBeside(cli: string, ws: string, files: number): Promise<BenchRow> {
	const from = size(daemonLog(ws));
	const state = { done: false };
	const started = Date.now();
	const checkpoint = baton(cli, ws, ['checkpoint', 'create', '--message', 'whole tree', '--json']).then((r) => {
		state.done = true;
		return r;
	});
	await began(ws, from, state);
	const times: number[] = [];
	const base: number[] = [];
	const session = '6f1c2a9e-3b7d-4c21-9e8a-5d4f0b7a1c33';
	const payload = (event: string, extra: Record<string, unknown>): string =>
		JSON.stringify({ session_id: session, cwd: ws, hook_event_name: event, transcript_path: path.join(ws, 'none.jsonl'), ...extra });
	// Each hook starts while the checkpoint runs (the last may end after it).
	for (let i = 0; !state.done; i++) {
		const input = i % 4 === 0 ? payload('SessionStart', { source: 'startup' }) : payload('UserPromptSubmit', { prompt: `prompt ${i}` });
		const t = Date.now();
		const run = await baton(cli, ws, ['hook'], { input });
		if (run.code !== 0) {
			throw new Error(`baton hook exited ${run.code}: ${run.stderr.slice(0, 200)}`);
		}
		times.push(Date.now() - t);
		// Beside each hook, Node starting and doing nothing, on the same loaded machine: what a hook's process costs at all.
		const b = Date.now();
		await new Promise((resolve) => spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' }).on('close', resolve));
		base.push(Date.now() - b);
	}
	const result = await checkpoint;
	const took = Date.now() - started;
	if (result.code !== 0) {
		return failed(`hook while a checkpoint runs in the daemon (the checkpoint failed: ${result.stderr.slice(0, 200)})`, '≤ 1,000 ms p95');
	}
	const held = /cli\/run checkpoint create → exit 0 .*event loop held up to (\d+) ms/.exec(readFrom(daemonLog(ws), from))?.[1] ?? '?';
	const p95 = percentile(times, 95);
	return {
		name: `baton hook (prompts, session starts) while a ${files}-file checkpoint runs in the daemon (${times.length} hooks; the checkpoint took ${took} ms, held the event loop up to ${held} ms at a stretch; p95 ${p95} ms)`,
		ours: median(times),
		oursP99: percentile(times, 99),
		baseline: median(base),
		baselineName: 'node -e 0, run after each hook',
		ratio: median(times) / median(base),
		target: 'p95 ≤ 1,000 ms',
		passed: p95 <= 1_000,
	};
}

/** Thirty writers at once, each a `baton task add`: refused, acknowledged, lost and stored twice counted from the store. */
async function writersRow(cli: string, ws: string, how: { prefix: string; args: string[]; label: string }): Promise<BenchRow> {
	const titles = Array.from({ length: writers }, (_, i) => `${how.prefix} ${i}`);
	const started = Date.now();
	const times: number[] = [];
	const results: Result[] = await Promise.all(
		titles.map(async (title) => {
			const t = Date.now();
			const r = await baton(cli, ws, [...how.args, 'task', 'add', '--title', title, '--json']);
			times.push(Date.now() - t);
			return r;
		}),
	);
	const all = Date.now() - started;
	const counts = countWrites(results, titles, storedTitles(cli, ws));
	const wrong = counts.lost + counts.refusedButStored + counts.storedTwice;
	return {
		name: `${writers} writers at once (${how.label}: refused ${counts.refused}, acknowledged ${counts.acknowledged}, lost ${counts.lost}, stored twice ${counts.storedTwice} (all done in ${all} ms; load ${os.loadavg()[0]?.toFixed(1)})`,
		ours: median(times),
		oursP99: percentile(times, 99),
		baseline: Number.NaN,
		baselineName: '—',
		ratio: Number.NaN,
		target: 'refused 0',
		passed: counts.refused === 0 && wrong === 0,
	};
}

async function writersBeside(cli: string, ws: string): Promise<BenchRow> {
	fs.appendFileSync(path.join(ws, 'changed.txt'), `${Date.now()}\n`);
	const checkpoint = baton(cli, ws, ['checkpoint', 'create', '--message', 'beside the writers']);
	const row = await writersRow(cli, ws, { prefix: 'writer', args: [], label: 'baton task add) beside a checkpoint in the daemon' });
	await checkpoint;
	return row;
}

/** The same thirty writers with --no-daemon: each opens the store itself and waits in the journal lock's line. */
function writersOnTheirOwn(cli: string, ws: string): Promise<BenchRow> {
	return writersRow(cli, ws, { prefix: 'own process', args: ['--no-daemon'], label: 'baton --no-daemon task add), each in a process of its own' });
}

/** `count` small source files in folders of 100. */
function generate(ws: string, count: number): number {
	for (let i = 0; i < count; i++) {
		const dir = path.join(ws, `src${Math.floor(i / 100)}`);
		if (i % 100 === 0) {
			fs.mkdirSync(dir, { recursive: true });
		}
		fs.writeFileSync(path.join(dir, `f${i}.ts`), `export const v${i} = ${i};\n`.repeat(20));
	}
	return count;
}

function daemonLog(ws: string): string {
	return path.join(ws, '.baton', 'logs', 'daemon.log');
}

function size(file: string): number {
	return fs.statSync(file, { throwIfNoEntry: false })?.size ?? 0;
}

function readFrom(file: string, offset: number): string {
	try {
		return fs.readFileSync(file).subarray(offset).toString('utf8');
	} catch {
		return '';
	}
}

function failed(name: string, target: string): BenchRow {
	return { name, ours: Number.NaN, oursP99: Number.NaN, baseline: Number.NaN, baselineName: '—', ratio: Number.NaN, target, passed: false };
}

if (require.main === module) {
	void benchLanes(process.argv.includes('--quick')).then((rows) => process.stdout.write(`${formatTable(rows)}\n`));
}
