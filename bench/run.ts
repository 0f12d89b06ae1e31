/**
 * `npm run bench`: Baton's measured figures, each next to a named baseline run in the same process.
 * Not a test: it asserts nothing about time. `--only commit,open,start` picks sections; `--quick`
 * shrinks the sizes for a smoke run. Results also go to bench/results/latest.json.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { benchCheckpoints } from './checkpointBench';
import { benchRealTree } from './realTreeBench';
import { benchCommits, benchOpen, benchSessionStart } from './storageBench';
import { median } from './stats';
import { formatTable, type BenchRow } from './stats';
import { benchTree } from './treeBench';
import { benchHooks } from './hookBench';
import { benchRealAgents } from './realAgentBench';
import { benchTimeline } from './timelineBench';
import { benchBlame } from './blameBench';
import { benchSync } from './syncBench';
import { benchSyncCli } from './syncCliBench';
import { benchDaemon, formatDaemonRows } from './daemonBench';
import { benchCapture } from './captureBench';
import { benchDaemonCapture } from './daemonCaptureBench';
import { benchFaults, formatFaults } from './faultBench';
import { benchLanes } from './lanesBench';
import { benchSearch } from './searchBench';
import { benchImport } from './importBench';
import { benchBoard } from './boardBench';
import { benchScale } from './scaleBench';

/** Every section, in the order they run; `--only` picks some of them. */
const allSections = [
	'commit',
	'open',
	'start',
	'tree',
	'checkpoint',
	'realtree',
	'hooks',
	'timeline',
	'capture',
	'blame',
	'sync',
	'synccli',
	'daemon',
	'lanes',
	'agents',
	'faults',
	'editor',
	'search',
	'import',
	'board',
	'scale',
];

/** A row's baseline figures. */
type RowBaseline = Pick<BenchRow, 'baseline' | 'baselineName' | 'ratio'>;

/** No baseline: the row stands alone. */
const noBaseline: RowBaseline = { baseline: Number.NaN, baselineName: '—', ratio: Number.NaN };

async function main(): Promise<void> {
	const args = process.argv.slice(2);
	const quick = args.includes('--quick');
	const onlyArg = args.includes('--only') ? (args[args.indexOf('--only') + 1] ?? '') : '';
	const only = new Set(onlyArg ? onlyArg.split(',') : allSections);
	const rows: BenchRow[] = [];
	const section = async (name: string, run: () => Promise<BenchRow[]>) => {
		if (only.has(name)) {
			process.stderr.write(`running ${name}…\n`);
			const result = await run();
			rows.push(...result);
			process.stdout.write(`${formatTable(result)}\n\n`);
		}
	};
	await runTableSections(section, quick);
	if (only.has('daemon')) {
		rows.push(...(await daemonSection(quick)));
	}
	if (only.has('faults')) {
		rows.push(...(await faultSection(quick)));
	}
	await section('editor', async () => editorMeasures());
	writeResults(rows);
}

void main();

/** The sections printed as a plain table of their rows, in order (each runs only if picked). */
async function runTableSections(section: (name: string, run: () => Promise<BenchRow[]>) => Promise<void>, quick: boolean): Promise<void> {
	await section('commit', () => benchCommits(quick ? [1] : [1, 50, 200], quick ? 50 : 400));
	await section('open', () => benchOpen(quick ? [1] : [1, 10, 50], quick ? 3 : 7));
	await section('start', () => benchSessionStart(quick ? 1_000 : 10_000, quick ? 2_000 : 20_000, quick ? 30 : 200));
	await section('tree', () => benchTree(quick ? 1_000 : 5_000, quick ? 5 : 15));
	await section('checkpoint', () => benchCheckpoints(quick));
	await section('realtree', () => benchRealTree(quick));
	await section('hooks', () => benchHooks(quick));
	await section('timeline', () => benchTimeline(quick));
	await section('capture', async () => [...(await benchCapture(quick)), ...(await benchDaemonCapture(quick))]);
	await section('blame', () => benchBlame(quick));
	await section('sync', () => benchSync(quick));
	// Through the CLI and the daemon at history scale (1k and 10k sessions; `npx tsx bench/syncCliBench.ts --sessions 100000` for more).
	await section('synccli', () => benchSyncCli(quick ? [200] : [1_000, 10_000], quick ? 1 : 3));
	await section('agents', () => benchRealAgents(quick));
	// Full-text search over 10,000 sessions with their transcripts (docs/search.md).
	await section('search', () => benchSearch(quick));
	// Every agent's own history read in: 1,000 sessions per format against reading the same files (issue 26).
	await section('import', () => benchImport(quick));
	// The Agents board's refresh after a hook, next to reading every session (issue 26, item 4).
	await section('board', () => benchBoard(quick));
	// A team's years of work brought in through `baton import cleo-db` (N sessions, 2N tasks), then used as people do (issue 28);
	// 100,000 sessions by hand: `node --import tsx bench/scaleBench.ts --sessions 100000 --rounds 1`.
	await section('scale', () => benchScale(quick ? [1_000] : [1_000, 10_000], quick ? 1 : 3));
	// Hooks beside a long checkpoint in the daemon, and thirty writers at once (docs/daemon.md, "Lanes").
	await section('lanes', () => benchLanes(quick));
}

/** The daemon section: whole processes through the warm daemon, printed with their p95, and the rows they make. */
async function daemonSection(quick: boolean): Promise<BenchRow[]> {
	// Whole processes through the warm workspace daemon vs `node -e 0`: medians and p95 of both sides.
	process.stderr.write('running daemon…\n');
	const daemonRows = await benchDaemon(quick ? [40, 1_000] : [40, 10_000], quick ? 7 : 21);
	process.stdout.write(`${formatDaemonRows(daemonRows)}\n\n`);
	return daemonRows.map((r) => {
		const limit = Number(/([\d.]+)×/.exec(r.target)?.[1] ?? Number.NaN);
		return {
			name: `${r.name} (p95 ${r.ours ? r.ours.p95.toFixed(1) : '—'} ms)`,
			ours: r.ours?.median ?? Number.NaN,
			oursP99: Number.NaN,
			baseline: r.base?.median ?? Number.NaN,
			baselineName: 'node -e 0',
			ratio: r.ratio ?? Number.NaN,
			target: r.failure ? `${r.target} (${r.failure.split('\n')[0]})` : r.target,
			passed: r.ratio !== undefined && r.ratio <= limit,
		};
	});
}

/** The faults section: hooks under a daemon killed at random, printed as figures, and the rows they make. */
async function faultSection(quick: boolean): Promise<BenchRow[]> {
	// Hooks under a daemon killed at random: what became of every event (docs/daemon.md, "The hook spool").
	process.stderr.write('running faults…\n');
	const { figures, rows: faultRows } = await benchFaults(quick);
	process.stdout.write(`${formatFaults(figures)}\n\n`);
	return faultRows;
}

/** The table of every row under the machine it ran on, and bench/results/latest.json. */
function writeResults(rows: BenchRow[]): void {
	const machine = `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
	process.stdout.write(`## All results (${machine})\n\n${formatTable(rows)}\n`);
	const out = path.join(__dirname, 'results');
	fs.mkdirSync(out, { recursive: true });
	fs.writeFileSync(path.join(out, 'latest.json'), JSON.stringify({ machine, at: new Date().toISOString(), rows }, null, 2));
}

/** Figures the editor tests measured inside a real VS Code extension host (scripts/runEditorTests.mjs). */
function editorMeasures(): BenchRow[] {
	const file = path.join(__dirname, 'results', 'editor.json');
	if (!fs.existsSync(file)) {
		process.stderr.write('no editor measurements yet: run `npm run test:editor` first\n');
		return [];
	}
	const measures = JSON.parse(fs.readFileSync(file, 'utf8')) as { at: string; values: Record<string, number[]> };
	const values = (key: string) => measures.values[key] ?? [];
	const rows: BenchRow[] = [];
	/** A row for figures the run has; a limit (ms) makes its target checkable. */
	const add = (samples: number[], name: string, target: string, limit?: number, baseline: RowBaseline = noBaseline) => {
		if (samples.length) {
			rows.push(editorRow(samples, name, target, limit, baseline));
		}
	};
	add(values('activationMs'), `extension activation (real extension host, ${measures.at.slice(0, 10)})`, '≤ 50 ms', 50);
	add(values('treeFirstMs'), 'Session Chains at 5,000 sessions: first root request (real extension host)', '≤ 100 ms', 100);
	add(values('treeVisibleMs'), 'Session Chains at 5,000 sessions: the rows shown without a click built (real extension host)', '—');
	add(values('treeExpandMs'), 'Session Chains at 5,000 sessions: expanding one collapsed group (real extension host)', '—');
	add(values('treeRowsMs'), 'Session Chains at 5,000 sessions: all 250 groups expanded one by one, 5,000 rows (real extension host)', '—');
	// The Replay's first paint beside its baseline: an empty webview panel opened and timed the same way
	// (VS Code's own part, which nothing the extension sends can shorten); cold = the workbench's first webview.
	const replay = values('replayPaintMs');
	const reopen = values('replayReopenPaintMs');
	add(
		replay,
		'Replay of a 505-step session: Baton: Replay Session → first rows painted (real workbench, its first webview)',
		'≤ 300 ms',
		300,
		beside(replay, values('webviewBaselinePaintMs'), 'an empty webview panel, the first of a fresh workbench'),
	);
	add(
		reopen,
		'Replay of a 505-step session opened again (webview host warm): command → first rows painted',
		'≤ 300 ms',
		300,
		beside(reopen, values('webviewBaselineReopenMs'), 'an empty webview panel opened again'),
	);
	add(values('cliToViewMs'), 'CLI write → view notified (incl. the CLI process)', '≤ 1,000 ms', 1_000);
	return rows;
}

/** A baseline measured beside ours, when the run has one. */
function beside(ours: number[], baseline: number[], name: string): RowBaseline {
	return baseline.length ? { baseline: median(baseline), baselineName: name, ratio: median(ours) / median(baseline) } : noBaseline;
}

/** One editor row: the median and the slowest of its figures; `passed` only when it has a limit. */
function editorRow(samples: number[], name: string, target: string, limit: number | undefined, baseline: RowBaseline): BenchRow {
	return {
		name,
		ours: median(samples),
		oursP99: Math.max(...samples),
		...baseline,
		target,
		...(limit === undefined ? {} : { passed: median(samples) <= limit }),
	};
}
