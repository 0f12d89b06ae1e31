/**
 * Line provenance: `baton blame` on a 5,000-line file with 200 commits of agent-written history (the
 * engine's blame, cold — a new service, attributions already recorded — and warm), each as a ratio to
 * `git blame --porcelain` alone run alternately; a one-line blame (the hover's question) warm; and
 * attributing a 100-file commit. The steps are real `timeline.step` records over real shadow trees,
 * written by the tests' recordSteps: 200 steps through hook processes would take minutes to set up
 * and measure nothing more (the capture's own cost is bench/captureBench.ts's). Then `baton blame` of a
 * 100,000-line file beside `git blame --porcelain` of the same file (benchLargeBlame).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { userRepoEnv } from '../src/engine/git/gitEnv';
import { runGit } from '../src/engine/git/gitRunner';
import { Engine } from '../src/engine/engine';
import { silentLogger } from '../src/engine/ports';
import { blameFile } from '../src/engine/provenance/blameReader';
import { ProvenanceService } from '../src/engine/provenance/provenanceService';
import { StepRecorder } from '../test/unit/engine/provenance/recordSteps';
import { ScriptedRepo } from '../test/unit/engine/provenance/scriptedRepo';
import { median, percentile, type BenchRow } from './stats';

/**
 * CPU milliseconds so far: this process's own, and its finished child processes' (Linux's
 * /proc/self/stat, in clock ticks of 10 ms; NaN elsewhere).
 */
function cpuNow(): { own: number; children: number } {
	const usage = process.cpuUsage();
	let children = Number.NaN;
	try {
		const fields = fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
		children = (Number(fields[13]) + Number(fields[14])) * 10;
	} catch {
		// Not Linux: only the own figure is known.
	}
	return { own: (usage.user + usage.system) / 1000, children };
}

/**
 * A repository whose `file` holds `lines` (a person's first commit), with Baton open on it and one
 * agent session whose steps `recorder` captures: where blame's benches and probe start.
 */
export async function blameRepo(
	root: string,
	file: string,
	lines: readonly string[],
): Promise<{ repo: ScriptedRepo; engine: Engine; agent: { id: string; agent: string }; recorder: StepRecorder }> {
	const repo = new ScriptedRepo(root);
	repo.git(['init', '-q', '-b', 'main']);
	fs.writeFileSync(path.join(root, '.gitignore'), '.baton/\n');
	fs.writeFileSync(path.join(root, file), `${lines.join('\n')}\n`);
	repo.commit('init');
	const engine = await Engine.open({ workspaceRoot: root, log: silentLogger, create: true, git: { read: async () => null } });
	const session = (await engine.sessions.start({ name: 'bench', agent: 'claude-code', actor: 'bench' })).session;
	return { repo, engine, agent: { id: session.id, agent: 'claude-code' }, recorder: new StepRecorder(engine, root, () => repo.ms) };
}

/** `count` agent commits, each a captured Edit step changing 25 of `lines` (`index` picks which, `line` writes it) in `file`. */
export async function agentCommits(
	made: Awaited<ReturnType<typeof blameRepo>>,
	root: string,
	file: string,
	lines: string[],
	count: number,
	index: (c: number, k: number) => number,
	line: (i: number, c: number) => string,
): Promise<void> {
	const { repo, agent, recorder } = made;
	for (let c = 1; c <= count; c++) {
		repo.tick();
		await recorder.agentStep(agent, `t${c}`, `change ${c}`, 'Edit', () => {
			for (let k = 0; k < 25; k++) {
				const i = index(c, k);
				lines[i] = line(i, c);
			}
			fs.writeFileSync(path.join(root, file), `${lines.join('\n')}\n`);
		});
		repo.commit(`change ${c}`);
	}
}

export async function benchBlame(quick: boolean): Promise<BenchRow[]> {
	const lineCount = quick ? 1_000 : 5_000;
	const commits = quick ? 40 : 200;
	const repeats = quick ? 5 : 15;
	const root = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-bench-blame-'));
	let engine: Engine | undefined;
	try {
		const lines = Array.from({ length: lineCount }, (_, i) => `const v${i} = ${i};`);
		const made = await blameRepo(root, 'big.ts', lines);
		engine = made.engine;
		await agentCommits(
			made,
			root,
			'big.ts',
			lines,
			commits - 1,
			(c, k) => (c * 37 + k * 197) % lineCount,
			(i, c) => `const v${i} = ${i} + ${c};`,
		);
		await new ProvenanceService(engine.ctx).attributePending();
		const blames = await timeBlames(engine, root, lineCount, repeats);
		const attributions = await timeAttributions(made, root, quick);
		const size = `${lineCount.toLocaleString('en')}-line file, ${commits} commits`;
		engine.close();
		engine = undefined;
		const large = await benchLargeBlame(quick);
		return [...blameRows(size, blames, attributions), ...large];
	} finally {
		engine?.close();
		fs.rmSync(root, { recursive: true, force: true });
	}
}

/** Wall milliseconds fn takes. */
async function timed(fn: () => Promise<unknown>): Promise<number> {
	const started = performance.now();
	await fn();
	return performance.now() - started;
}

/** Times of big.ts's blame: Baton's cold (a new service) and warm, one line's warm (the hover), and git blame alone. */
interface BlameTimes {
	cold: number[];
	warm: number[];
	baseline: number[];
	hover: number[];
}

/** `repeats` rounds of git blame, then Baton's cold, warm and one-line blame of big.ts. */
async function timeBlames(engine: Engine, root: string, lineCount: number, repeats: number): Promise<BlameTimes> {
	const gitEnv = userRepoEnv(path.join(root, '.baton-bench-empty-gitconfig'));
	fs.writeFileSync(path.join(root, '.baton-bench-empty-gitconfig'), '');
	const gitBlame = () => timed(() => runGit(['blame', '--porcelain', '--', 'big.ts'], { cwd: root, env: gitEnv }));
	const times: BlameTimes = { cold: [], warm: [], baseline: [], hover: [] };
	const warmService = new ProvenanceService(engine.ctx);
	await blameFile(warmService, 'big.ts');
	for (let r = 0; r < repeats; r++) {
		times.baseline.push(await gitBlame());
		const fresh = new ProvenanceService(engine.ctx);
		times.cold.push(await timed(() => blameFile(fresh, 'big.ts')));
		times.warm.push(await timed(() => blameFile(warmService, 'big.ts')));
		times.hover.push(await timed(() => blameFile(warmService, 'big.ts', { line: 1 + ((r * 331) % lineCount) })));
	}
	return times;
}

/** Attributing a 100-file agent commit beside the commit itself: wall and CPU milliseconds of each. */
interface AttributionTimes {
	attribution: number[];
	commitTimes: number[];
	attributionCpu: number[];
	commitCpu: number[];
}

/** Rounds of an agent step touching 100 files, its commit, and the commit's attribution by the engine's kept service. */
async function timeAttributions(
	{ repo, engine, agent, recorder }: Awaited<ReturnType<typeof blameRepo>>,
	root: string,
	quick: boolean,
): Promise<AttributionTimes> {
	const times: AttributionTimes = { attribution: [], commitTimes: [], attributionCpu: [], commitCpu: [] };
	for (let r = 0; r < (quick ? 2 : 9); r++) {
		repo.tick();
		await recorder.agentStep(agent, `many${r}`, 'touch 100 files', 'Bash', () => {
			for (let f = 0; f < 100; f++) {
				const file = path.join(root, 'many', `f${f}.ts`);
				fs.mkdirSync(path.dirname(file), { recursive: true });
				fs.appendFileSync(file, `export const r${r}_${f} = ${r * f};\n`);
			}
		});
		const commitStart = cpuNow();
		times.commitTimes.push(await timed(async () => repo.commit(`many ${r}`)));
		times.commitCpu.push(cpuNow().children - commitStart.children);
		const head = repo.git(['rev-parse', 'HEAD']).trim();
		// The engine's kept service, as the daemon (the post-commit hook's `baton provenance commit`)
		// and the backend use it: new steps and attributions since its last read are all it parses.
		const service = engine.provenance;
		const start = cpuNow();
		times.attribution.push(await timed(() => service.attribute([head], { newOnly: true })));
		const end = cpuNow();
		times.attributionCpu.push(end.own - start.own + (end.children - start.children));
	}
	return times;
}

/** The blame rows (cold, warm, hover) and the attribution rows (wall, CPU). */
function blameRows(
	size: string,
	{ cold, warm, baseline, hover }: BlameTimes,
	{ attribution, commitTimes, attributionCpu, commitCpu }: AttributionTimes,
): BenchRow[] {
	const ratio = (a: number[], b: number[]): number => median(a) / median(b);
	return [
		{
			name: `baton blame, cold (${size})`,
			ours: median(cold),
			oursP99: percentile(cold, 99),
			baseline: median(baseline),
			baselineName: 'git blame --porcelain alone',
			ratio: ratio(cold, baseline),
			target: '≤ 1.3×',
			passed: ratio(cold, baseline) <= 1.3,
		},
		{
			name: `baton blame, warm (${size})`,
			ours: median(warm),
			oursP99: percentile(warm, 99),
			baseline: median(baseline),
			baselineName: 'git blame --porcelain alone',
			ratio: ratio(warm, baseline),
			target: '≤ 1.3×',
			passed: ratio(warm, baseline) <= 1.3,
		},
		{
			name: `hover: one line's blame, warm (${size})`,
			ours: median(hover),
			oursP99: percentile(hover, 99),
			baseline: 0,
			baselineName: '',
			ratio: 0,
			target: '≤ 50 ms',
			passed: median(hover) <= 50,
		},
		{
			name: 'attribution of a 100-file agent commit',
			ours: median(attribution),
			oursP99: percentile(attribution, 99),
			baseline: median(commitTimes),
			baselineName: 'the git commit itself',
			ratio: ratio(attribution, commitTimes),
			target: '≤ 100 ms added',
			passed: median(attribution) <= 100,
		},
		{
			// CPU time is far less sensitive to the machine's load than wall time: this process's own
			// plus its git processes' (the commit's side: its git processes only).
			name: 'attribution of a 100-file agent commit, CPU time (the engine and its git processes)',
			ours: median(attributionCpu),
			oursP99: percentile(attributionCpu, 99),
			baseline: median(commitCpu),
			baselineName: 'the git commit itself (its git processes)',
			ratio: ratio(attributionCpu, commitCpu),
			target: '≤ 100 ms added',
			passed: median(attributionCpu) <= 100,
		},
	];
}

/**
 * `baton blame` of a 100,000-line file (a person's first version, then agent commits changing lines
 * spread over the whole file, attributions recorded): the engine's call on a new service, and the
 * built CLI in a process of its own (`--no-daemon`: opening the engine and printing the JSON
 * included), each beside `git blame --porcelain` of the same file, the two run in alternating order.
 * The ratio is the median of the pairs' ratios.
 */
async function benchLargeBlame(quick: boolean): Promise<BenchRow[]> {
	const lineCount = quick ? 20_000 : 100_000;
	const commits = quick ? 3 : 10;
	const pairs = quick ? 3 : 7;
	const root = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-bench-large-blame-'));
	let engine: Engine | undefined;
	try {
		const lines = Array.from({ length: lineCount }, (_, i) => `export const v${i} = ${i};`);
		const made = await blameRepo(root, 'large.ts', lines);
		engine = made.engine;
		await agentCommits(
			made,
			root,
			'large.ts',
			lines,
			commits,
			(c, k) => Math.floor((k * lineCount) / 25) + c * 7,
			(i, c) => `export const v${i} = ${i} + ${c};`,
		);
		await new ProvenanceService(engine.ctx).attributePending();
		fs.writeFileSync(path.join(root, '.baton-bench-empty-gitconfig'), '');
		const gitEnv = userRepoEnv(path.join(root, '.baton-bench-empty-gitconfig'));
		const gitBlame = () => timed(() => runGit(['blame', '--porcelain', '--', 'large.ts'], { cwd: root, env: gitEnv }));
		const ctx = engine.ctx;
		const engineBlame = () =>
			timed(async () => {
				const result = await blameFile(new ProvenanceService(ctx), 'large.ts');
				if (result.lines.length !== lineCount || !result.lines.some((l) => l.origin === 'agent')) {
					throw new Error('the large blame did not place the agent lines');
				}
			});
		const cliBlame = cliLargeBlame(root);
		const size = `${lineCount.toLocaleString('en')}-line file, ${commits} agent commits`;
		const rows = [largeRow(`baton blame, the engine's call, cold (${size})`, await alternate(pairs, engineBlame, gitBlame))];
		rows.push(
			cliBlame
				? largeRow(`baton blame --json --no-daemon, the built CLI's process (${size})`, await alternate(pairs, cliBlame, gitBlame))
				: {
						name: `baton blame, the built CLI (${size})`,
						ours: Number.NaN,
						oursP99: Number.NaN,
						baseline: Number.NaN,
						baselineName: '',
						ratio: Number.NaN,
						target: '≤ 3× (dist/cli.js missing: run node esbuild.mjs)',
						passed: false,
					},
		);
		return rows;
	} finally {
		engine?.close();
		fs.rmSync(root, { recursive: true, force: true });
	}
}

/** The built CLI's `baton blame large.ts --json --no-daemon` in a process of its own, timed; undefined without dist/cli.js. */
function cliLargeBlame(root: string): (() => Promise<number>) | undefined {
	const cli = path.join(__dirname, '..', 'dist', 'cli.js');
	if (!fs.existsSync(cli)) {
		return undefined;
	}
	return () =>
		timed(
			() =>
				new Promise<void>((resolve, reject) => {
					execFile(process.execPath, [cli, 'blame', 'large.ts', '--json', '--no-daemon'], { cwd: root, maxBuffer: 1 << 30 }, (error, stdout) => {
						if (error || !stdout.includes('"origin":"agent"')) {
							reject(error ?? new Error('baton blame printed no agent line'));
						} else {
							resolve();
						}
					});
				}),
		);
}

/** Ours and git blame, `pairs` times each: their times and the pairs' ratios. */
interface Alternated {
	ours: number[];
	base: number[];
	ratios: number[];
}

/** `pairs` rounds of ours beside gitBlame. */
async function alternate(pairs: number, ours: () => Promise<number>, gitBlame: () => Promise<number>): Promise<Alternated> {
	const out: Alternated = { ours: [], base: [], ratios: [] };
	for (let r = 0; r < pairs; r++) {
		// Which runs first alternates: neither side always meets a machine the other just warmed or loaded.
		const o = r % 2 === 0 ? await ours() : undefined;
		const b = await gitBlame();
		const mine = o ?? (await ours());
		out.ours.push(mine);
		out.base.push(b);
		out.ratios.push(mine / b);
	}
	return out;
}

/** A large-file row: the median of the pairs' ratios, against 3×. */
function largeRow(name: string, m: Alternated): BenchRow {
	return {
		name,
		ours: median(m.ours),
		oursP99: percentile(m.ours, 99),
		baseline: median(m.base),
		baselineName: 'git blame --porcelain of the same file',
		ratio: median(m.ratios),
		target: '≤ 3×',
		passed: median(m.ratios) <= 3,
	};
}
