/**
 * Checkpoint benchmarks on a generated workspace of ~20,000 files (docs/architecture.md §5): first snapshot,
 * 1 changed file, 100 changed files, diff and restore. Each step runs Baton's path and the raw git
 * plumbing doing the same work, alternating A B A B in one process, on one workspace:
 * - snapshot: `add -A` + `write-tree` + `commit-tree` + `update-ref` in a second shadow, configured
 *   exactly like Baton's;
 * - diff: `diff-tree -r --numstat`;
 * - restore: `read-tree --reset -u` (which, unlike Baton, would overwrite ignored files in the way
 *   and remove files no snapshot proved newer).
 * The ratio is the median of the per-pair ratios.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { defaultCheckpointExcludes } from '../src/engine/config';
import { Engine } from '../src/engine/engine';
import { silentLogger } from '../src/engine/ports';
import { planRestore, RestoreRun } from '../src/engine/shadow/restorer';
import { ShadowRepo } from '../src/engine/shadow/shadowRepo';
import { takeSnapshot } from '../src/engine/shadow/shadowSnapshot';
import { diffTrees } from '../src/engine/shadow/treeDiff';
import { splitNul } from '../src/engine/git/gitRunner';
import { median, percentile, type BenchRow } from './stats';

export interface Scale {
	packages: number;
	modules: number;
	files: number;
	binaries: number;
	binaryMB: number;
	nodeModules: number;
	nested: number;
}

export const fullScale: Scale = { packages: 22, modules: 25, files: 20, binaries: 18, binaryMB: 2, nodeModules: 200, nested: 400 };
const quickScale: Scale = { packages: 4, modules: 10, files: 10, binaries: 2, binaryMB: 1, nodeModules: 20, nested: 40 };

export async function benchCheckpoints(quick: boolean): Promise<BenchRow[]> {
	const scale = quick ? quickScale : fullScale;
	const root = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-bench-cp-'));
	const ws = path.join(root, 'ws');
	try {
		const generated = makeWorkspace(ws, scale);
		process.stderr.write(`  workspace: ${generated.files} files, ${generated.mb} MB (${generated.ms} ms to generate)\n`);
		const run: ShadowRun = {
			ws,
			scale,
			quick,
			baton: new ShadowRepo(ws, path.join(ws, '.baton')),
			raw: new ShadowRepo(ws, path.join(ws, '.baton', 'raw')),
			stamp: Date.parse('2026-03-01T09:00:00Z'),
			headBaton: '',
			headRaw: '',
			beforeHundred: '',
			beforeHundredRaw: '',
			edit: 0,
		};
		const rows: BenchRow[] = [];
		for (const step of [firstSnapshot, oneFileSnapshot, hundredSnapshot, hundredDiff, hundredRestore]) {
			rows.push(await step(run));
		}
		return [...rows, ...(await engineRows(ws, scale, quick))];
	} finally {
		fs.rmSync(root, { recursive: true, force: true });
	}
}

/** What the plumbing steps share: Baton's shadow and the raw one, the head each reached, and the one before the 100-file change. */
interface ShadowRun {
	ws: string;
	scale: Scale;
	quick: boolean;
	baton: ShadowRepo;
	raw: ShadowRepo;
	/** The last snapshot's date: each one a second later. */
	stamp: number;
	headBaton: string;
	headRaw: string;
	beforeHundred: string;
	beforeHundredRaw: string;
	/** Edits so far, so that each appended line differs. */
	edit: number;
}

/** Baton's snapshot of the workspace on top of parent. */
async function snapshotBaton(run: ShadowRun, parent: string | null): Promise<string> {
	run.stamp += 1000;
	const result = await takeSnapshot(run.baton, {
		excludes: defaultCheckpointExcludes,
		maxFileSize: 5 * 1024 * 1024,
		budgetMs: 600_000,
		message: 'bench',
		parentCommit: parent,
		refId: `bench-${run.stamp}`,
		dateMs: run.stamp,
	});
	return result.commit as string;
}

/** The same snapshot with raw plumbing: add -A, write-tree, commit-tree, update-ref. */
async function snapshotRaw(run: ShadowRun, parent: string | null): Promise<string> {
	await run.raw.git(['add', '-A']);
	const tree = await run.raw.gitText(['write-tree']);
	const commit = await run.raw.gitText(['commit-tree', tree, ...(parent ? ['-p', parent] : []), '-m', 'bench']);
	await run.raw.git(['update-ref', 'refs/heads/bench', commit]);
	return commit;
}

/** Both sides snapshot on top of their heads, in alternating order. */
function snapshotBoth(run: ShadowRun, swap: boolean): Promise<Pair> {
	return timed(
		swap,
		async () => (run.headBaton = await snapshotBaton(run, run.headBaton)),
		async () => (run.headRaw = await snapshotRaw(run, run.headRaw)),
	);
}

/** First snapshot: fresh shadows each round (git init and config are not timed, for either). */
async function firstSnapshot(run: ShadowRun): Promise<BenchRow> {
	const first = await pairs(run.quick ? 2 : 3, async (swap) => {
		for (const dir of [run.baton.gitDir, run.raw.gitDir]) fs.rmSync(dir, { recursive: true, force: true });
		run.baton = new ShadowRepo(run.ws, path.join(run.ws, '.baton'));
		run.raw = new ShadowRepo(run.ws, path.join(run.ws, '.baton', 'raw'));
		await run.baton.ensureInit(defaultCheckpointExcludes);
		await run.raw.ensureInit(defaultCheckpointExcludes);
		return timed(
			swap,
			async () => (run.headBaton = await snapshotBaton(run, null)),
			async () => (run.headRaw = await snapshotRaw(run, null)),
		);
	});
	return row('checkpoint: first snapshot (20k-file workspace)', first, 'git add -A + write-tree + commit-tree + update-ref');
}

/** A snapshot after one appended line. */
async function oneFileSnapshot(run: ShadowRun): Promise<BenchRow> {
	const { ws, scale } = run;
	const one = await pairs(run.quick ? 7 : 15, async (swap) => {
		fs.appendFileSync(path.join(ws, `src/pkg0/mod${run.edit % scale.modules}/file${run.edit % scale.files}.ts`), `// edit ${run.edit++}\n`);
		return snapshotBoth(run, swap);
	});
	return row('checkpoint: snapshot, 1 file changed', one, 'same plumbing, 1 file');
}

/** A snapshot after 100 changed, 10 new and 5 deleted files; keeps the heads before it for the diff and the restore. */
async function hundredSnapshot(run: ShadowRun): Promise<BenchRow> {
	run.beforeHundred = run.headBaton;
	run.beforeHundredRaw = run.headRaw;
	const hundred = await pairs(run.quick ? 5 : 9, async (swap) => {
		run.beforeHundred = run.headBaton;
		run.beforeHundredRaw = run.headRaw;
		changeHundred(run.ws, run.scale, run.edit++);
		return snapshotBoth(run, swap);
	});
	return row('checkpoint: snapshot, 100 changed + 10 new + 5 deleted', hundred, 'same plumbing, 115 paths');
}

/** The diff of the 100-file change, with line counts. */
async function hundredDiff(run: ShadowRun): Promise<BenchRow> {
	const diff = await pairs(run.quick ? 7 : 15, async (swap) =>
		timed(
			swap,
			() => diffTrees(run.baton, run.beforeHundred, run.headBaton),
			() => run.raw.git(['diff-tree', '-r', '-z', '--no-renames', '--numstat', run.beforeHundredRaw, run.headRaw]),
		),
	);
	return row('checkpoint: diff of the 115-path change (with line counts)', diff, 'git diff-tree -r --numstat');
}

/**
 * Restore: from the latest snapshot S back to the one before the 100-file change (T). Each side
 * starts from S with a fresh index and the workspace is put back to S after it (not timed).
 */
async function hundredRestore(run: ShadowRun): Promise<BenchRow> {
	const { ws, baton, raw, headBaton, headRaw, beforeHundred, beforeHundredRaw } = run;
	// Paths only T has: each tool removes the ones its own index knows, so clear them explicitly.
	const onlyInTarget = (await diffTrees(baton, headBaton, beforeHundred, { lines: false })).filter((c) => c.change === 'added').map((c) => c.path);
	const backToS = async () => {
		for (const rel of onlyInTarget) fs.rmSync(path.join(ws, rel), { force: true });
		await baton.git(['read-tree', '--reset', '-u', headBaton]);
		await raw.git(['read-tree', '--reset', '-u', headRaw]);
		await baton.git(['update-index', '-q', '--refresh'], { okCodes: [1] });
		await raw.git(['update-index', '-q', '--refresh'], { okCodes: [1] });
	};
	const restoreBaton = async () => {
		// The proof as a rollback runs it: the later snapshot (the 100-file one) against the target.
		const plan = await planRestore(
			baton,
			headBaton,
			beforeHundred,
			async () =>
				new Set(
					splitNul(
						(
							await baton.git(['diff-tree', '--stdin', '-r', '-z', '--no-renames', '--name-only', '--diff-filter=A', '--no-commit-id'], {
								input: `${headBaton} ${beforeHundred}\n`,
							})
						).stdout,
					),
				),
		);
		await new RestoreRun(baton, plan, path.join(ws, '.baton', 'rollbacks', 'bench')).apply();
	};
	const restoreRaw = async () => {
		await raw.git(['read-tree', '--reset', '-u', beforeHundredRaw]);
	};
	const restore = await pairs(run.quick ? 5 : 9, async (swap) => {
		const time = async (fn: () => Promise<void>) => {
			await backToS();
			const t = performance.now();
			await fn();
			return performance.now() - t;
		};
		const pair = swap ? { base: await time(restoreRaw), ours: await time(restoreBaton) } : { ours: await time(restoreBaton), base: await time(restoreRaw) };
		await backToS();
		return pair;
	});
	return row('checkpoint: restore 115 paths (Baton: verify, proof, preflight, guarded merge)', restore, 'git read-tree --reset -u');
}

/** The whole `checkpoint create` through the engine (snapshot, stats, environment capture, DB write), then rollbacks. */
async function engineRows(ws: string, scale: Scale, quick: boolean): Promise<BenchRow[]> {
	const engine = await Engine.open({ workspaceRoot: ws, log: silentLogger, create: true, git: { read: async () => null } });
	try {
		const rows = await createRows(engine, ws, scale, quick);
		rows.push(await rollbackRow(engine, quick));
		return rows;
	} finally {
		engine.close();
	}
}

/** `checkpoint create` after one changed file: until it returns, and until its environment is recorded. */
async function createRows(engine: Engine, ws: string, scale: Scale, quick: boolean): Promise<BenchRow[]> {
	const creates: number[] = [];
	const recorded: number[] = [];
	await engine.checkpoints.create({ actor: 'bench' });
	await engine.checkpoints.settled();
	for (let i = 0; i < (quick ? 3 : 7); i++) {
		fs.appendFileSync(path.join(ws, `src/pkg1/mod${i % scale.modules}/file0.ts`), `// create ${i}\n`);
		const t = performance.now();
		await engine.checkpoints.create({ actor: 'bench', trigger: 'periodic' });
		creates.push(performance.now() - t);
		// The environment follows the checkpoint's row: what a short process waits for before it exits.
		await engine.checkpoints.settled();
		recorded.push(performance.now() - t);
	}
	return [
		{
			name: 'checkpoint create, 1 file changed (engine: snapshot, stats, DB; environment after it)',
			ours: median(creates),
			oursP99: percentile(creates, 99),
			baseline: Number.NaN,
			baselineName: '—',
			ratio: Number.NaN,
			target: 'env capture ≤ 1 s',
		},
		{
			name: 'checkpoint create, 1 file changed, until its environment is recorded',
			ours: median(recorded),
			oursP99: percentile(recorded, 99),
			baseline: Number.NaN,
			baselineName: '—',
			ratio: Number.NaN,
			target: 'env capture ≤ 1 s',
		},
	];
}

/** Whole rollbacks back and forth between the first and the last of the checkpoints createRows made. */
async function rollbackRow(engine: Engine, quick: boolean): Promise<BenchRow> {
	const [last, , , , , , , firstCp] = await engine.checkpoints.list();
	const rollbacks: number[] = [];
	for (let i = 0; i < (quick ? 2 : 6); i++) {
		const target = i % 2 === 0 ? firstCp : last;
		if (!target) break;
		const t = performance.now();
		await engine.checkpoints.rollback(target.id, { actor: 'bench' });
		rollbacks.push(performance.now() - t);
	}
	return {
		name: 'checkpoint rollback via the engine (safety checkpoint, plan, restore, records)',
		ours: median(rollbacks),
		oursP99: percentile(rollbacks, 99),
		baseline: Number.NaN,
		baselineName: '—',
		ratio: Number.NaN,
		target: '—',
	};
}

interface Pair {
	ours: number;
	base: number;
}

async function pairs(count: number, run: (swap: boolean) => Promise<Pair>): Promise<Pair[]> {
	const out: Pair[] = [];
	for (let i = 0; i < count; i++) {
		out.push(await run(i % 2 === 1));
	}
	return out;
}

/** Runs both, in alternating order. */
async function timed(swap: boolean, ours: () => Promise<unknown>, base: () => Promise<unknown>): Promise<Pair> {
	const time = async (fn: () => Promise<unknown>) => {
		const t = performance.now();
		await fn();
		return performance.now() - t;
	};
	if (swap) {
		const b = await time(base);
		return { ours: await time(ours), base: b };
	}
	const o = await time(ours);
	return { ours: o, base: await time(base) };
}

function row(name: string, results: Pair[], baselineName: string): BenchRow {
	const ours = results.map((r) => r.ours);
	const base = results.map((r) => r.base);
	return {
		name,
		ours: median(ours),
		oursP99: percentile(ours, 99),
		baseline: median(base),
		baselineName,
		ratio: median(results.map((r) => r.ours / r.base)),
		target: '≤ 1.2×',
	};
}

function changeHundred(ws: string, scale: Scale, round: number): void {
	for (let i = 0; i < 100; i++) {
		fs.appendFileSync(
			path.join(ws, `src/pkg${i % scale.packages}/mod${(i * 7) % scale.modules}/file${(i * 3) % scale.files}.ts`),
			`// edit ${round}.${i}\n`,
		);
	}
	for (let i = 0; i < 10; i++) fs.writeFileSync(path.join(ws, `src/new-${round}-${i}.ts`), `export const x${i} = ${round};\n`);
	let deleted = 0;
	for (let f = 0; f < scale.files && deleted < 5; f++) {
		const file = path.join(ws, `src/pkg${scale.packages - 1}/mod${(round % scale.modules) as number}/file${f}.ts`);
		if (fs.existsSync(file)) {
			fs.rmSync(file);
			deleted++;
		}
	}
}

/**
 * A synthetic workspace with smaller binaries:
 * sources, binaries, CRLF files, executables, a symlink, an ignored node_modules and dist, a nested
 * repository with history, and the user's own repository with one commit.
 */
export function makeWorkspace(ws: string, scale: Scale): { files: number; mb: number; ms: number } {
	const started = performance.now();
	let seed = 12345;
	const rand = () => {
		seed = (seed + 0x6d2b79f5) | 0;
		let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
		t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
	const words =
		'const let function return import export from async await if else for while class interface type extends new this null undefined true false string number boolean Promise Array Map Set value result data item index count config options handler request response'.split(
			' ',
		);
	const text = (bytes: number) => {
		const lines: string[] = [];
		let n = 0;
		while (n < bytes) {
			let l = '  '.repeat(Math.floor(rand() * 4));
			const k = 3 + Math.floor(rand() * 10);
			for (let i = 0; i < k; i++) l += `${words[Math.floor(rand() * words.length)]}${rand() < 0.2 ? `(${Math.floor(rand() * 1000)});` : ' '}`;
			lines.push(l);
			n += l.length + 1;
		}
		return `${lines.join('\n')}\n`;
	};
	const logn = (med: number, spread: number) => Math.max(200, Math.round(med * Math.exp((rand() + rand() + rand() - 1.5) * spread)));
	let files = 0;
	let bytes = 0;
	const add = (rel: string, data: string | Buffer, mode?: number) => {
		const p = path.join(ws, rel);
		fs.mkdirSync(path.dirname(p), { recursive: true });
		fs.writeFileSync(p, data);
		if (mode) fs.chmodSync(p, mode);
		files++;
		bytes += data.length;
	};
	for (let p = 0; p < scale.packages; p++)
		for (let m = 0; m < scale.modules; m++) for (let f = 0; f < scale.files; f++) add(`src/pkg${p}/mod${m}/file${f}.ts`, text(logn(7000, 1.2)));
	for (let i = 0; i < scale.binaries; i++) add(`assets/video${i}.bin`, randomBytes(Math.max(1, Math.round(scale.binaryMB * (0.5 + rand()))) << 20));
	for (let i = 0; i < 200; i++) add(`assets/img/icon${i}.png`, randomBytes(logn(50000, 0.8)));
	for (let i = 0; i < 50; i++) add(`docs/win${i}.crlf.txt`, text(3000).replace(/\n/g, '\r\n'));
	for (let i = 0; i < 20; i++) add(`scripts/tool${i}.sh`, `#!/bin/sh\necho ${i}\n`, 0o755);
	add('.gitattributes', '*.crlf.txt text eol=crlf\n*.bin binary\n');
	add('.gitignore', 'node_modules/\ndist/\n*.log\n');
	fs.symlinkSync('../src/pkg0/mod0/file0.ts', path.join(ws, 'scripts/link-to-file0.ts'));
	for (let p = 0; p < scale.nodeModules; p++) for (let f = 0; f < 40; f++) add(`node_modules/dep${p}/lib/f${f}.js`, text(logn(7000, 1.0)));
	for (let f = 0; f < 100; f++) add(`dist/out${f}.js`, text(20000));
	add('debug.log', text(100000));
	for (let f = 0; f < scale.nested; f++) add(`vendor/nested-lib/src/n${f}.c`, text(logn(5000, 0.8)));
	const env = {
		...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('GIT_'))),
		GIT_CONFIG_GLOBAL: '/dev/null',
		GIT_AUTHOR_NAME: 'u',
		GIT_AUTHOR_EMAIL: 'u@x',
		GIT_COMMITTER_NAME: 'u',
		GIT_COMMITTER_EMAIL: 'u@x',
	};
	const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, stdio: 'pipe', env });
	const nested = path.join(ws, 'vendor/nested-lib');
	git(nested, 'init', '-q');
	git(nested, 'add', '-A');
	git(nested, 'commit', '-qm', 'nested initial');
	git(ws, 'init', '-q');
	git(ws, 'add', '-A');
	git(ws, 'commit', '-qm', 'user initial');
	return { files, mb: +(bytes / 1048576).toFixed(1), ms: Math.round(performance.now() - started) };
}
