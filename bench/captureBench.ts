/**
 * Timeline capture on a real tree, as a hook process does it (a new ShadowRepo, no watcher): the
 * shadow index brought up to date through git's stat and untracked caches, and the tree id, with
 * nothing changed and with 1 changed file. Against `git add -A && git write-tree` with a private index
 * (untracked cache, index v4) in the same workspace, alternating which runs first; medians and p95 of
 * both. The workspace is copies of this checkout's node_modules under `lib/`, without the folders
 * Baton's default excludes leave out, so both sides read the same ≥ 20,000 files. A row that cannot
 * run says FAILED.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defaultCheckpointExcludes } from '../src/engine/config';
import { ShadowRepo } from '../src/engine/shadow/shadowRepo';
import { captureTree } from '../src/engine/timeline/treeCapture';
import { median, percentile, type BenchRow } from './stats';

const minFiles = 20_000;
const excludedNames = new Set(defaultCheckpointExcludes.filter((e) => e.endsWith('/') && !e.slice(0, -1).includes('/')).map((e) => e.slice(0, -1)));

export async function benchCapture(quick: boolean): Promise<BenchRow[]> {
	const names = ['unchanged', '1 changed file'];
	const root = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-bench-capture-'));
	try {
		const ws = path.join(root, 'ws');
		const files = copyTree(path.join(__dirname, '..', 'node_modules'), ws);
		const sides = captureSides(root, ws);
		// The first of each reads every file: not a per-call cost.
		await sides.ours();
		await sides.baseline();
		await sides.ours();
		await sides.baseline();
		const tracked = sides.indexed();
		process.stderr.write(`  capture workspace: ${files} files copied, ${tracked.length} in the baseline's index\n`);
		if (tracked.length < minFiles) {
			return names.map((n) => failed(n, `only ${tracked.length} files (need ${minFiles})`));
		}
		const candidates = tracked.filter((f) => /\.(js|json|md|ts)$/.test(f));
		const rows: BenchRow[] = [];
		for (const name of names) {
			rows.push(await captureRow(name, sides, tracked.length, candidates, quick ? 7 : 21));
		}
		return rows;
	} catch (error) {
		return names.map((n) => failed(n, (error as Error).message.split('\n')[0] ?? 'failed'));
	} finally {
		fs.rmSync(root, { recursive: true, force: true });
	}
}

/** The two sides timed, and the files the baseline's index holds. */
interface CaptureSides {
	ws: string;
	/** Baton's capture as a hook process does it: a new ShadowRepo, captureTree under its lock. */
	ours: () => Promise<void>;
	/** `git add -A && git write-tree` with a private index (untracked cache, index v4). */
	baseline: () => Promise<void>;
	indexed: () => string[];
}

/** A git repository at ws (with .baton/ excluded) and both sides' captures of it. */
function captureSides(root: string, ws: string): CaptureSides {
	const env = {
		...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('GIT_'))),
		GIT_CONFIG_GLOBAL: os.devNull,
		GIT_CONFIG_NOSYSTEM: '1',
	};
	const tuned = ['-c', 'core.untrackedCache=true', '-c', 'feature.manyFiles=true', '-c', 'index.version=4'];
	const privateIndex = path.join(root, 'baseline.index');
	const benv = { ...env, GIT_INDEX_FILE: privateIndex };
	execFileSync('git', ['init', '-q'], { cwd: ws, env });
	fs.writeFileSync(path.join(ws, '.git', 'info', 'exclude'), '.baton/\n');
	const baseline = async () => {
		execFileSync('git', [...tuned, 'add', '-A'], { cwd: ws, env: benv, stdio: 'ignore' });
		execFileSync('git', [...tuned, 'write-tree'], { cwd: ws, env: benv, stdio: 'ignore' });
	};
	const ours = async () => {
		const shadow = new ShadowRepo(ws, path.join(ws, '.baton'));
		const capture = await shadow.withLock(() =>
			captureTree(shadow, { excludes: defaultCheckpointExcludes, maxFileSize: 5 * 1024 * 1024, deadline: Date.now() + 600_000 }),
		);
		if (!capture.tree) {
			throw new Error(capture.reason);
		}
	};
	const indexed = () =>
		execFileSync('git', ['ls-files', '-z'], { cwd: ws, env: benv, maxBuffer: 1 << 28 })
			.toString()
			.split('\0')
			.filter(Boolean);
	return { ws, ours, baseline, indexed };
}

/** One row: `rounds` captures of both sides, alternating which goes first, each after a changed file unless the row is 'unchanged'. */
async function captureRow(name: string, sides: CaptureSides, trackedCount: number, candidates: string[], rounds: number): Promise<BenchRow> {
	const { ws, ours, baseline } = sides;
	const time = async (fn: () => Promise<void>) => {
		const t = performance.now();
		await fn();
		return performance.now() - t;
	};
	const pairs: { ours: number; base: number }[] = [];
	try {
		for (let i = 0; i < rounds; i++) {
			if (name !== 'unchanged') {
				fs.appendFileSync(path.join(ws, candidates[(i * 7919) % candidates.length] as string), `\n// capture ${i}\n`);
			}
			if (i % 2 === 0) {
				const a = await time(ours);
				pairs.push({ ours: a, base: await time(baseline) });
			} else {
				const b = await time(baseline);
				pairs.push({ ours: await time(ours), base: b });
			}
		}
	} catch (error) {
		return failed(name, (error as Error).message.split('\n')[0] ?? 'failed');
	}
	const ourTimes = pairs.map((p) => p.ours);
	const baseTimes = pairs.map((p) => p.base);
	const ratio = median(pairs.map((p) => p.ours / p.base));
	const ourMedian = median(ourTimes);
	return {
		name: `timeline capture in a hook process, ${name} (${trackedCount} files; p95 ${percentile(ourTimes, 95).toFixed(0)} ms vs ${percentile(baseTimes, 95).toFixed(0)} ms)`,
		ours: ourMedian,
		oursP99: percentile(ourTimes, 99),
		baseline: median(baseTimes),
		baselineName: 'git add -A && git write-tree, private index (untracked cache, v4)',
		ratio,
		target: '≤ 60 ms, ≤ 1.2×',
		passed: ourMedian <= 60 && ratio <= 1.2,
	};
}

/**
 * Copies `source` under `ws/lib`, `ws/lib2`, … until at least `minFiles` files are there, leaving out
 * folders named like Baton's default excludes (node_modules, dist, build, …) and symlinks to outside.
 */
export function copyTree(source: string, ws: string): number {
	let files = 0;
	const real = fs.realpathSync(source);
	for (let copy = 1; files < minFiles && copy <= 5; copy++) {
		const before = files;
		const walk = (from: string, to: string) => {
			fs.mkdirSync(to, { recursive: true });
			for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
				if (entry.isDirectory()) {
					if (!excludedNames.has(entry.name) && entry.name !== '.git') {
						walk(path.join(from, entry.name), path.join(to, entry.name));
					}
				} else if (entry.isFile()) {
					fs.copyFileSync(path.join(from, entry.name), path.join(to, entry.name));
					files++;
				}
			}
		};
		walk(real, path.join(ws, copy === 1 ? 'lib' : `lib${copy}`));
		if (files === before) {
			break;
		}
	}
	return files;
}

function failed(name: string, reason: string): BenchRow {
	return {
		name: `timeline capture in a hook process, ${name} (${reason})`,
		ours: Number.NaN,
		oursP99: Number.NaN,
		baseline: Number.NaN,
		baselineName: '—',
		ratio: Number.NaN,
		target: 'runs',
		passed: false,
	};
}
