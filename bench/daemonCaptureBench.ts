/**
 * Timeline capture as the workspace daemon runs it (issue #15, item 7), on a real ≥ 20,000-file git
 * workspace (captureBench's copy of this checkout's node_modules, committed):
 * - end to end: a real Claude Code PreToolUse/PostToolUse pair (`Bash`) through `dist/cli.js` and the
 *   real daemon it starts, with nothing changed and with 1 file changed between the two hooks, against
 *   the same hooks with capture off (`.baton/agents.json` `"timeline": false`), alternating which runs
 *   first. "Added" is each round's capture-on hook minus its capture-off hook: median and p95. The hook
 *   log says for each capture whether it read the file watcher's paths or scanned; the row counts them.
 * - the capture itself with the daemon's file watcher (`captureTree` with a running `DirtyTracking`, the
 *   daemon's code path, in this process once the daemon is stopped) against `git add -A && git
 *   write-tree` with a private index, alternating order.
 * A row that cannot run says FAILED.
 *   npx tsx bench/daemonCaptureBench.ts [--quick]
 */
import { execFileSync, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defaultCheckpointExcludes } from '../src/engine/config';
import { DirtyTracking } from '../src/engine/watcher/dirtyTracking';
import { ShadowRepo } from '../src/engine/shadow/shadowRepo';
import { silentLogger } from '../src/engine/ports';
import { flushIndexCatchUp } from '../src/engine/timeline/indexCatchUp';
import { captureTree, lastCapture } from '../src/engine/timeline/treeCapture';
import { copyTree } from './captureBench';
import { formatTable, median, percentile, type BenchRow } from './stats';

const cli = path.resolve(process.env['BATON_TEST_CLI'] ?? path.join(__dirname, '..', 'dist', 'cli.js'));
const minFiles = 20_000;
const changes = ['unchanged', '1 changed file'] as const;

export async function benchDaemonCapture(quick: boolean): Promise<BenchRow[]> {
	const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'baton-bench-dcapture-')));
	const ws = path.join(root, 'ws');
	const gitEnv = {
		...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('GIT_'))),
		GIT_CONFIG_GLOBAL: os.devNull,
		GIT_CONFIG_NOSYSTEM: '1',
	};
	const env = { ...gitEnv, BATON_ACTOR: 'bench', BATON_CLAUDE_HOME: path.join(root, 'claude'), BATON_DAEMON_BUDGET_MS: '20000' };
	const baton = (args: string[], input = '') => spawnSync(process.execPath, [cli, ...args], { cwd: ws, env, input, encoding: 'utf8' });
	try {
		const files = copyTree(path.join(__dirname, '..', 'node_modules'), ws);
		execFileSync('git', ['init', '-q'], { cwd: ws, env: gitEnv });
		execFileSync('git', ['add', '-A'], { cwd: ws, env: gitEnv, stdio: 'ignore' });
		execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@example.com', 'commit', '-q', '-m', 'workspace'], {
			cwd: ws,
			env: gitEnv,
			stdio: 'ignore',
		});
		const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: ws, env: gitEnv, maxBuffer: 1 << 28 })
			.toString()
			.split('\0')
			.filter(Boolean);
		process.stderr.write(`  daemon capture workspace: ${files} files copied, ${tracked.length} committed\n`);
		if (tracked.length < minFiles) {
			return allFailed(`only ${tracked.length} files (need ${minFiles})`);
		}
		const init = baton(['init']);
		if (init.status !== 0) {
			return allFailed(`baton init failed: ${init.stderr.slice(0, 200)}`);
		}
		const candidates = tracked.filter((f) => /\.(js|json|md|ts)$/.test(f));
		let edits = 0;
		const editOne = () => fs.appendFileSync(path.join(ws, candidates[(edits++ * 7919) % candidates.length] as string), `\n// capture ${edits}\n`);
		const rows = hookRows(ws, baton, editOne, quick ? 7 : 21);
		baton(['daemon', 'stop']);
		rows.push(...(await captureRows(ws, gitEnv, editOne, quick ? 7 : 21)));
		return rows;
	} catch (error) {
		return allFailed((error as Error).message.split('\n')[0] ?? 'failed');
	} finally {
		baton(['daemon', 'stop']);
		fs.rmSync(root, { recursive: true, force: true });
	}
}

type Baton = (args: string[], input?: string) => SpawnSyncReturns<string>;

/** The hook pairs through the daemon, capture on and off alternating; four rows (pre and post, unchanged and 1 changed). */
function hookRows(ws: string, baton: Baton, editOne: () => void, rounds: number): BenchRow[] {
	const driver = hookDriver(ws, baton, editOne);
	try {
		warmUp(driver);
	} catch (error) {
		return changes.flatMap((c) => ['PreToolUse', 'PostToolUse'].map((h) => failedHook(`${h}, ${c}`, (error as Error).message)));
	}
	const rows: BenchRow[] = [];
	for (const change of changes) {
		const logFrom = logSize(driver.hooksLog);
		let timings: { on: HookPair[]; off: HookPair[] };
		try {
			timings = timeHookPairs(driver, change, rounds);
		} catch (error) {
			rows.push(...['PreToolUse', 'PostToolUse'].map((h) => failedHook(`${h}, ${change}`, (error as Error).message)));
			continue;
		}
		const lines = readFrom(driver.hooksLog, logFrom).split('\n');
		for (const which of ['pre', 'post'] as const) {
			rows.push(hookRow(which, change, rounds, lines, timings));
		}
	}
	return rows;
}

/** The times of one PreToolUse and its PostToolUse. */
interface HookPair {
	pre: number;
	post: number;
}

/** Claude Code's hooks run through `baton hook`: capture switched on or off, one hook, one Pre/Post pair, and the hook log. */
interface HookDriver {
	capture: (on: boolean) => void;
	hook: (input: string) => number;
	/** One PreToolUse, the change (if any), one PostToolUse: their times. */
	pair: (change: boolean) => HookPair;
	payload: (event: string, extra: Record<string, unknown>) => string;
	hooksLog: string;
}

/** Drives one Claude Code session's hooks (a Bash tool call per pair) through the CLI. */
function hookDriver(ws: string, baton: Baton, editOne: () => void): HookDriver {
	const agentId = '6f1c2a9e-3b7d-4c21-9e8a-5d4f0b7a1c33';
	const transcript = path.join(ws, '.baton', 'bench-none.jsonl');
	const payload = (event: string, extra: Record<string, unknown>) =>
		JSON.stringify({ session_id: agentId, transcript_path: transcript, cwd: ws, permission_mode: 'default', hook_event_name: event, ...extra });
	const settings = path.join(ws, '.baton', 'agents.json');
	const capture = (on: boolean) => fs.writeFileSync(settings, `${JSON.stringify({ timeline: on })}\n`);
	const hook = (input: string): number => {
		const started = performance.now();
		const run = baton(['hook'], input);
		const ms = performance.now() - started;
		if (run.status !== 0) {
			throw new Error(`baton hook exited ${run.status}: ${run.stderr.slice(0, 300)}`);
		}
		return ms;
	};
	let calls = 0;
	const pair = (change: boolean): HookPair => {
		const id = `toolu_bench_${++calls}`;
		const tool = { tool_name: 'Bash', tool_input: { command: 'true', description: 'bench' }, tool_use_id: id };
		const pre = hook(payload('PreToolUse', tool));
		if (change) {
			editOne();
		}
		const post = hook(payload('PostToolUse', { ...tool, tool_response: { stdout: '', stderr: '', interrupted: false } }));
		return { pre, post };
	};
	return { capture, hook, pair, payload, hooksLog: path.join(ws, '.baton', 'logs', 'hooks.log') };
}

/** Starts the session with capture on and warms up: the daemon's first capture reads every file (seconds); its file watcher then serves. */
function warmUp({ capture, hook, pair, payload, hooksLog }: HookDriver): void {
	capture(true);
	hook(payload('SessionStart', { source: 'startup' }));
	let warm = false;
	for (let i = 0; i < 20 && !warm; i++) {
		const before = logSize(hooksLog);
		pair(true);
		pair(false);
		warm = /PostToolUse .*read \d+ changed paths? from the file watcher/.test(readFrom(hooksLog, before));
	}
	if (!warm) {
		throw new Error(`the daemon's captures never read the file watcher's paths: ${readFrom(hooksLog, 0).split('\n').slice(-3).join(' / ')}`);
	}
}

/** `rounds` hook pairs with capture on and as many with it off, alternating which goes first. */
function timeHookPairs({ capture, pair }: HookDriver, change: (typeof changes)[number], rounds: number): { on: HookPair[]; off: HookPair[] } {
	const on: HookPair[] = [];
	const off: HookPair[] = [];
	for (let i = 0; i < rounds; i++) {
		for (const mode of i % 2 === 0 ? [true, false] : [false, true]) {
			capture(mode);
			(mode ? on : off).push(pair(change !== 'unchanged'));
			if (!mode && change !== 'unchanged') {
				// The edit made while capture was off is not on the timeline: an untimed pair takes it
				// in (as a person's step), so the next timed PreToolUse starts, as with capture always on,
				// from a workspace its timeline already holds.
				capture(true);
				pair(false);
			}
		}
	}
	return { on, off };
}

/** The row of one hook (pre or post): the time capture added, and how its captures went according to the hook log's lines. */
function hookRow(which: keyof HookPair, change: string, rounds: number, lines: string[], { on, off }: { on: HookPair[]; off: HookPair[] }): BenchRow {
	const event = which === 'pre' ? 'PreToolUse' : 'PostToolUse';
	const captured = lines.filter((l) => l.includes(` ${event} `) && /from the file watcher|full scan \(/.test(l));
	const watched = captured.filter((l) => l.includes('from the file watcher')).length;
	const scans = [...new Set(captured.filter((l) => l.includes('full scan (')).map((l) => /full scan \(([^)]*)\)/.exec(l)?.[1] ?? ''))];
	const added = on.map((p, i) => p[which] - (off[i] as HookPair)[which]);
	const addedMedian = median(added);
	const ratio = median(on.map((p, i) => p[which] / (off[i] as HookPair)[which]));
	return {
		name: `capture added to a ${event} hook through the daemon, ${change} (${rounds} rounds; added p95 ${percentile(added, 95).toFixed(0)} ms; hook ${median(on.map((p) => p[which])).toFixed(0)} ms on vs ${median(off.map((p) => p[which])).toFixed(0)} ms off; captures that read the watcher ${watched}/${captured.length}${scans.length ? `, full scans: ${scans.join('; ')}` : ''})`,
		ours: addedMedian,
		oursP99: percentile(added, 99),
		baseline: median(off.map((p) => p[which])),
		baselineName: 'the same hook, capture off',
		ratio,
		target: '≤ 60 ms added',
		passed: addedMedian <= 60 && watched === captured.length && captured.length >= rounds,
	};
}

/** The daemon's capture path in this process (a real watcher) against git's own, alternating. */
async function captureRows(ws: string, gitEnv: NodeJS.ProcessEnv, editOne: () => void, rounds: number): Promise<BenchRow[]> {
	const dirty = new DirtyTracking(ws, path.join(ws, '.baton'), silentLogger);
	const sides = watchedCapture(ws, gitEnv, dirty);
	const stop = await dirty.start();
	try {
		// The first of each reads every file (and the first capture after the watcher started scans).
		await sides.ours();
		await sides.catchUp();
		await sides.baseline();
		await sides.ours();
		await sides.catchUp();
		await sides.baseline();
		const rows: BenchRow[] = [];
		for (const change of changes) {
			rows.push(await captureRow(sides, change, editOne, rounds));
		}
		return rows;
	} finally {
		stop();
	}
}

/** Both sides of the in-process capture, and what Baton's captures did (watcher or scan, tree or index, catch-up times). */
interface WatchedCapture {
	ours: () => Promise<void>;
	/** The index brought up to date after the capture (in the daemon: after the hook answered), timed apart, never overlapping the next timing. */
	catchUp: () => Promise<void>;
	baseline: () => Promise<void>;
	claims: string[];
	via: string[];
	catchUps: number[];
}

/** Baton's capture with the daemon's watcher (`dirty`), and `git add -A && git write-tree` with a private index. */
function watchedCapture(ws: string, gitEnv: NodeJS.ProcessEnv, dirty: DirtyTracking): WatchedCapture {
	const tuned = ['-c', 'core.untrackedCache=true', '-c', 'feature.manyFiles=true', '-c', 'index.version=4'];
	const benv = { ...gitEnv, GIT_INDEX_FILE: path.join(path.dirname(ws), 'baseline.index') };
	const baseline = async () => {
		execFileSync('git', [...tuned, 'add', '-A'], { cwd: ws, env: benv, stdio: 'ignore' });
		execFileSync('git', [...tuned, 'write-tree'], { cwd: ws, env: benv, stdio: 'ignore' });
	};
	const shadow = new ShadowRepo(ws, path.join(ws, '.baton'));
	const claims: string[] = [];
	const via: string[] = [];
	const options = { excludes: defaultCheckpointExcludes, maxFileSize: 5 * 1024 * 1024, dirty };
	const ours = async () => {
		const capture = await shadow.withLock(() => captureTree(shadow, { ...options, deadline: Date.now() + 600_000 }));
		if (!capture.tree) {
			throw new Error(capture.reason);
		}
		claims.push(dirty.lastClaim?.kind === 'paths' ? 'watcher' : `full scan (${dirty.lastClaim?.reason ?? '?'})`);
		via.push(lastCapture.via === 'tree' ? 'tree' : `index${lastCapture.reason ? ` (${lastCapture.reason})` : ''}`);
	};
	const catchUps: number[] = [];
	const catchUp = async () => {
		const t = performance.now();
		await flushIndexCatchUp(shadow, options);
		catchUps.push(performance.now() - t);
	};
	return { ours, catchUp, baseline, claims, via, catchUps };
}

/** One row: `rounds` captures of both sides, alternating which goes first, each after a changed file unless the row is 'unchanged'. */
async function captureRow(sides: WatchedCapture, change: (typeof changes)[number], editOne: () => void, rounds: number): Promise<BenchRow> {
	const { ours, catchUp, baseline, claims, via, catchUps } = sides;
	const time = async (fn: () => Promise<void>) => {
		const t = performance.now();
		await fn();
		return performance.now() - t;
	};
	const pairs: { ours: number; base: number }[] = [];
	claims.length = 0;
	via.length = 0;
	catchUps.length = 0;
	try {
		for (let i = 0; i < rounds; i++) {
			if (change !== 'unchanged') {
				editOne();
			}
			if (i % 2 === 0) {
				const a = await time(ours);
				await catchUp();
				pairs.push({ ours: a, base: await time(baseline) });
			} else {
				const b = await time(baseline);
				const a = await time(ours);
				await catchUp();
				pairs.push({ ours: a, base: b });
			}
		}
	} catch (error) {
		return failedCapture(change, (error as Error).message.split('\n')[0] ?? 'failed');
	}
	const ourTimes = pairs.map((p) => p.ours);
	const ratio = median(pairs.map((p) => p.ours / p.base));
	const watched = claims.filter((c) => c === 'watcher').length;
	const scans = [...new Set(claims.filter((c) => c !== 'watcher'))];
	const built = via.filter((v) => v === 'tree').length;
	const indexReasons = [...new Set(via.filter((v) => v !== 'tree' && v !== 'index'))];
	return {
		name: `timeline capture with the daemon's file watcher, ${change} (p95 ${percentile(ourTimes, 95).toFixed(0)} ms vs ${percentile(
			pairs.map((p) => p.base),
			95,
		).toFixed(
			0,
		)} ms; watcher path ${watched}/${claims.length}${scans.length ? `, ${scans.join('; ')}` : ''}; tree built from the previous one ${built}/${via.length}${indexReasons.length ? `, through the index: ${indexReasons.join('; ')}` : ''}; index catch-up after it, off the hook's path: median ${median(catchUps).toFixed(0)} ms)`,
		ours: median(ourTimes),
		oursP99: percentile(ourTimes, 99),
		baseline: median(pairs.map((p) => p.base)),
		baselineName: 'git add -A && git write-tree, private index (untracked cache, v4)',
		ratio,
		target: '≤ 60 ms, ≤ 1.2×',
		passed: median(ourTimes) <= 60 && ratio <= 1.2,
	};
}

function logSize(file: string): number {
	try {
		return fs.statSync(file).size;
	} catch {
		return 0;
	}
}

function readFrom(file: string, offset: number): string {
	try {
		return fs.readFileSync(file).subarray(offset).toString('utf8');
	} catch {
		return '';
	}
}

function failedHook(name: string, reason: string): BenchRow {
	return {
		name: `capture added to a ${name} hook through the daemon (${reason.split('\n')[0]})`,
		ours: Number.NaN,
		oursP99: Number.NaN,
		baseline: Number.NaN,
		baselineName: '—',
		ratio: Number.NaN,
		target: 'runs',
		passed: false,
	};
}

function failedCapture(change: string, reason: string): BenchRow {
	return {
		name: `timeline capture with the daemon's file watcher, ${change} (${reason})`,
		ours: Number.NaN,
		oursP99: Number.NaN,
		baseline: Number.NaN,
		baselineName: '—',
		ratio: Number.NaN,
		target: 'runs',
		passed: false,
	};
}

function allFailed(reason: string): BenchRow[] {
	return [
		...changes.flatMap((c) => ['PreToolUse', 'PostToolUse'].map((h) => failedHook(`${h}, ${c}`, reason))),
		...changes.map((c) => failedCapture(c, reason)),
	];
}

if (require.main === module) {
	void benchDaemonCapture(process.argv.includes('--quick')).then((rows) => process.stdout.write(`${formatTable(rows)}\n`));
}
