/**
 * Checkpoints on a real tree: copies of this checkout's node_modules under `lib/` (≥ 20,000 files,
 * real package layouts, nested .gitignore files) committed into a fresh git repository. Baton's snapshot (listing,
 * update-index, write-tree, commit-tree, ref) with 1 and 100 changed files, with the file watcher's
 * dirty paths and with the full scan, against `git add -A` + `write-tree` with a private index in the
 * same repository (with the untracked cache and index v4 Baton's shadow uses), alternating A B A B. The ratio is the median of the per-pair ratios; a row that
 * misses its target, or cannot run, says FAILED.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defaultCheckpointExcludes } from '../src/engine/config';
import { DirtyTracking } from '../src/engine/watcher/dirtyTracking';
import { ShadowRepo } from '../src/engine/shadow/shadowRepo';
import { takeSnapshot } from '../src/engine/shadow/shadowSnapshot';
import { silentLogger } from '../src/engine/ports';
import { copyTree } from './captureBench';
import { median, percentile, type BenchRow } from './stats';

const minFiles = 20_000;

const names = [
	'1 changed file, with the watcher',
	'100 changed files, with the watcher',
	'1 changed file, full scan (no watcher)',
	'100 changed files, full scan (no watcher)',
];
const targets = [1.0, 1.0, 1.2, 1.2];

export async function benchRealTree(quick: boolean): Promise<BenchRow[]> {
	const source = path.join(__dirname, '..', 'node_modules');
	const root = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-bench-real-'));
	try {
		const ws = path.join(root, 'ws');
		const { tracked, env } = copyAndCommit(source, ws);
		if (tracked.length < minFiles) {
			return names.map((n) => failed(n, `only ${tracked.length} tracked files (need ${minFiles}): node_modules is too small here`));
		}
		const baseline = privateIndexBaseline(root, ws, env);
		const ours: OurSide = {
			shadow: new ShadowRepo(ws, path.join(ws, '.baton')),
			tracking: new DirtyTracking(ws, path.join(ws, '.baton'), silentLogger),
			stamp: Date.parse('2026-03-01T09:00:00Z'),
			parent: null,
		};
		// Warm both: the first snapshot and the first `add -A` hash everything.
		await snapshot(ours, false);
		await baseline();
		const measure = measurer(ws, ours, baseline, tracked, quick);
		const rows = await watchedRows(ours, measure);
		rows.push(await measure(names[2] as string, targets[2] as number, 1, false));
		rows.push(await measure(names[3] as string, targets[3] as number, 100, false));
		return rows;
	} catch (error) {
		return names.map((n) => failed(n, (error as Error).message));
	} finally {
		fs.rmSync(root, { recursive: true, force: true });
	}
}

/** node_modules copied to ws and committed into a fresh repository: its tracked files, and the git environment used. */
function copyAndCommit(source: string, ws: string): { tracked: string[]; env: NodeJS.ProcessEnv } {
	const started = performance.now();
	// Copy, never touch the original. Not as `node_modules/` (Baton's default excludes leave that
	// out, so its snapshot would read nothing there): under `lib/`, without excluded folder names.
	copyTree(source, ws);
	const env = {
		...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('GIT_'))),
		GIT_CONFIG_GLOBAL: os.devNull,
		GIT_CONFIG_NOSYSTEM: '1',
		GIT_AUTHOR_NAME: 'u',
		GIT_AUTHOR_EMAIL: 'u@x',
		GIT_COMMITTER_NAME: 'u',
		GIT_COMMITTER_EMAIL: 'u@x',
	};
	const git = (...args: string[]) => execFileSync('git', args, { cwd: ws, env, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 28 }).toString();
	git('init', '-q');
	// Baton's folder (the shadow store) is never the user's work: keep it out of the baseline's `add -A`.
	fs.writeFileSync(path.join(ws, '.git', 'info', 'exclude'), '.baton/\n');
	// Nested repositories inside packages would become gitlinks in the user's repo: none should exist, but be sure.
	git('add', '-A');
	git('commit', '-qm', 'real tree');
	const tracked = git('ls-files', '-z').split('\0').filter(Boolean);
	process.stderr.write(`  real tree: ${tracked.length} tracked files (${Math.round(performance.now() - started)} ms to copy and commit)\n`);
	return { tracked, env };
}

/** The baseline: `git add -A` + `write-tree` with a private index in the same repository. */
function privateIndexBaseline(root: string, ws: string, env: NodeJS.ProcessEnv): () => Promise<void> {
	// The baseline's private index starts as the repository's own, kept between rounds like ours.
	const privateIndex = path.join(root, 'baseline.index');
	fs.copyFileSync(path.join(ws, '.git', 'index'), privateIndex);
	// Configured like Baton's shadow (untracked cache, index v4): the baseline gets the same help.
	const tuned = ['-c', 'core.untrackedCache=true', '-c', 'feature.manyFiles=true'];
	return async () => {
		const benv = { ...env, GIT_INDEX_FILE: privateIndex };
		execFileSync('git', [...tuned, 'add', '-A'], { cwd: ws, env: benv, stdio: 'ignore' });
		execFileSync('git', [...tuned, 'write-tree'], { cwd: ws, env: benv, stdio: 'ignore' });
	};
}

/** Baton's side: its shadow, the watcher's dirty paths, and the last snapshot (its date and commit). */
interface OurSide {
	shadow: ShadowRepo;
	tracking: DirtyTracking;
	stamp: number;
	parent: string | null;
}

/** Baton's snapshot on top of the last one: of the watcher's dirty paths, or of a full scan. */
async function snapshot(ours: OurSide, watched: boolean): Promise<void> {
	ours.stamp += 1000;
	const { shadow, tracking, stamp, parent } = ours;
	const run = (paths: string[] | undefined) =>
		takeSnapshot(shadow, {
			paths,
			excludes: defaultCheckpointExcludes,
			maxFileSize: 5 * 1024 * 1024,
			budgetMs: 600_000,
			message: 'bench',
			parentCommit: parent,
			refId: `bench-${stamp}`,
			dateMs: stamp,
		});
	const result = await shadow.withLock(() => (watched ? tracking.sync(false, run) : run(undefined)));
	ours.parent = result.commit;
	if (watched && tracking.lastClaim?.kind !== 'paths') {
		throw new Error(`the watcher's paths were not used: ${tracking.lastClaim?.reason ?? 'no claim'}`);
	}
}

type Measure = (name: string, target: number, count: number, watched: boolean) => Promise<BenchRow>;

/** A row's measurement: each round changes `count` files, then times both sides on that same change, alternating which goes first. */
function measurer(ws: string, ours: OurSide, baseline: () => Promise<void>, tracked: string[], quick: boolean): Measure {
	const candidates = tracked.filter((f) => /\.(js|json|md|ts)$/.test(f));
	let round = 0;
	const change = (count: number) => {
		for (let i = 0; i < count; i++) {
			fs.appendFileSync(path.join(ws, candidates[(round * 101 + i * 37) % candidates.length] as string), `\n// bench ${round}.${i}\n`);
		}
		round++;
	};
	return async (name, target, count, watched) => {
		const pairs: { ours: number; base: number }[] = [];
		for (let i = 0; i < (quick ? 5 : 11); i++) {
			change(count);
			const time = async (fn: () => Promise<void>) => {
				const t = performance.now();
				await fn();
				return performance.now() - t;
			};
			// Each side sees the same change: the first to run does not make the other's work smaller.
			if (i % 2 === 0) {
				const mine = await time(() => snapshot(ours, watched));
				pairs.push({ ours: mine, base: await time(baseline) });
			} else {
				const base = await time(baseline);
				pairs.push({ ours: await time(() => snapshot(ours, watched)), base });
			}
		}
		const oursMs = pairs.map((p) => p.ours);
		const ratio = median(pairs.map((p) => p.ours / p.base));
		return {
			name: `checkpoint on a real tree (${tracked.length} files): ${name}`,
			ours: median(oursMs),
			oursP99: percentile(oursMs, 99),
			baseline: median(pairs.map((p) => p.base)),
			baselineName: 'git add -A + write-tree, private index (untracked cache)',
			ratio,
			target: `≤ ${target.toFixed(1)}×`,
			passed: ratio <= target,
		};
	};
}

/** The two rows with the watcher running; rows it could not measure say FAILED with the reason. */
async function watchedRows(ours: OurSide, measure: Measure): Promise<BenchRow[]> {
	const rows: BenchRow[] = [];
	const { shadow, tracking } = ours;
	try {
		await tracking.start();
		// The first claim after the watcher starts is a full scan; take it outside the measurement.
		await snapshot(ours, false);
		await shadow.withLock(() =>
			tracking.sync(false, (paths) =>
				takeSnapshot(shadow, {
					paths,
					excludes: defaultCheckpointExcludes,
					maxFileSize: 5 * 1024 * 1024,
					budgetMs: 600_000,
					message: 'bench',
					parentCommit: ours.parent,
					refId: null,
					dateMs: ours.stamp,
				}),
			),
		);
		rows.push(await measure(names[0] as string, targets[0] as number, 1, true));
		rows.push(await measure(names[1] as string, targets[1] as number, 100, true));
	} catch (error) {
		for (const n of names.slice(rows.length, 2)) rows.push(failed(n, (error as Error).message));
	} finally {
		tracking.stop();
	}
	return rows;
}

function failed(name: string, reason: string): BenchRow {
	return {
		name: `checkpoint on a real tree: ${name} (${reason})`,
		ours: Number.NaN,
		oursP99: Number.NaN,
		baseline: Number.NaN,
		baselineName: '—',
		ratio: Number.NaN,
		target: 'runs',
		passed: false,
	};
}
