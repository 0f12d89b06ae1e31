/**
 * Timeline benchmarks (docs/replay.md) on the generated ~20,000-file workspace of the checkpoint
 * benchmark: the time one hook call's capture takes (PreToolUse with nothing changed, PostToolUse
 * after a tool changed one file), each next to `git add -A && git write-tree` with a private index
 * on a second shadow store configured like Baton's, alternating A B A B; then the store a session of
 * `steps` steps adds, as a ratio to the gzip size of its diffs.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { defaultCheckpointExcludes } from '../src/engine/config';
import { ShadowRepo } from '../src/engine/shadow/shadowRepo';
import { Engine } from '../src/engine/engine';
import { silentLogger } from '../src/engine/ports';
import { sessionEvents } from '../src/engine/shared/sharedEvents';
import { TimelineRecorder } from '../src/engine/timeline/timelineRecorder';
import { maintainTimeline } from '../src/engine/timeline/timelineRetention';
import { releaseSessionPacks } from '../src/engine/timeline/timelinePacks';
import { timelineRef } from '../src/engine/timeline/treeCapture';
import { stepOf, type StepRecord } from '../src/engine/timeline/timelineQueries';
import type { TimelineService } from '../src/engine/timeline/timelineService';
import { toolEvent } from '../test/ui/replaySession';
import { fullScale, makeWorkspace, type Scale } from './checkpointBench';
import { median, percentile, type BenchRow } from './stats';

const quickScale: Scale = { packages: 4, modules: 10, files: 10, binaries: 2, binaryMB: 1, nodeModules: 20, nested: 40 };

export async function benchTimeline(quick: boolean): Promise<BenchRow[]> {
	const scale = quick ? quickScale : fullScale;
	const rounds = quick ? 10 : 40;
	const steps = quick ? 50 : 500;
	const base = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-bench-tl-'));
	const ws = path.join(base, 'ws');
	try {
		const generated = makeWorkspace(ws, scale);
		process.stderr.write(`  workspace: ${generated.files} files, ${generated.mb} MB\n`);
		const engine = await Engine.open({ workspaceRoot: ws, log: silentLogger, create: true });
		try {
			const { session } = await engine.sessions.start({ name: 'bench', agent: 'claude-code', actor: 'bench' });
			const recorder = new TimelineRecorder(engine.ctx, { budgetMs: 600_000 });
			let call = 0;
			const capture: Capture = (phase) =>
				recorder.onToolUse(
					phase,
					session.id,
					toolEvent(
						ws,
						phase === 'pre' ? 'preToolUse' : 'postToolUse',
						'Bash',
						{ command: 'edit' },
						`toolu_bench_${phase === 'pre' ? ++call : call}`,
					),
				);
			const rows = await captureRows(ws, scale, capture, rounds, generated.files);
			rows.push(...(await storageRows(engine, { ws, scale, sessionId: session.id, capture, steps, quick })));
			return rows;
		} finally {
			engine.close();
		}
	} finally {
		fs.rmSync(base, { recursive: true, force: true });
	}
}

/** One hook call's capture through the timeline recorder: a PreToolUse, or the PostToolUse of the last one. */
type Capture = (phase: 'pre' | 'post') => Promise<unknown>;

/** The capture rows: PreToolUse with nothing changed and PostToolUse after one changed file, each beside `add -A` + `write-tree` on a second shadow. */
async function captureRows(ws: string, scale: Scale, capture: Capture, rounds: number, files: number): Promise<BenchRow[]> {
	const raw = new ShadowRepo(ws, path.join(ws, '.baton', 'raw'));
	await raw.ensureInit(defaultCheckpointExcludes);
	const rawCapture = async () => {
		await raw.git(['add', '-A']);
		await raw.gitText(['write-tree']);
	};
	// The first capture of each store reads every file (not a per-call cost): not timed.
	await capture('pre');
	await capture('post');
	await rawCapture();
	const time = async (fn: () => Promise<unknown>) => {
		const t = performance.now();
		await fn();
		return performance.now() - t;
	};
	const unchanged: { ours: number; base: number }[] = [];
	const changed: { ours: number; base: number }[] = [];
	for (let r = 0; r < rounds; r++) {
		const swap = r % 2 === 1;
		const pair = async (ours: () => Promise<unknown>) =>
			swap ? { base: await time(rawCapture), ours: await time(ours) } : { ours: await time(ours), base: await time(rawCapture) };
		unchanged.push(await pair(() => capture('pre')));
		fs.appendFileSync(path.join(ws, `src/pkg${r % scale.packages}/mod${r % scale.modules}/file${r % scale.files}.ts`), `// bench edit ${r}\n`);
		changed.push(await pair(() => capture('post')));
	}
	return [
		captureRow(`timeline capture per hook, unchanged (${files} files)`, unchanged),
		captureRow(`timeline capture per hook, 1 changed file (${files} files)`, changed),
	];
}

/** A capture row: the median of the pairs' ratios, against 60 ms and 1.2×. */
function captureRow(name: string, pairs: { ours: number; base: number }[]): BenchRow {
	const ratio = median(pairs.map((p) => p.ours / p.base));
	const ours = median(pairs.map((p) => p.ours));
	return {
		name,
		ours,
		oursP99: percentile(
			pairs.map((p) => p.ours),
			99,
		),
		baseline: median(pairs.map((p) => p.base)),
		baselineName: 'git add -A + write-tree (private index)',
		ratio,
		target: '≤ 60 ms, ≤ 1.2×',
		passed: ours <= 60 && ratio <= 1.2,
	};
}

/** What the storage rows work on: the workspace, the session and its capture, and how many steps to record. */
interface StorageRun {
	ws: string;
	scale: Scale;
	sessionId: string;
	capture: Capture;
	steps: number;
	quick: boolean;
}

type StepEvents = Awaited<ReturnType<typeof sessionEvents>>;

/**
 * Storage: what a session of `steps` steps adds to the store, against its diffs gzipped. Measured
 * as it lands (each capture writes loose objects, a file each on disk) and after the timeline's
 * maintenance packs it (`repack -a -d`: deltas against everything in the store).
 */
async function storageRows(engine: Engine, run: StorageRun): Promise<BenchRow[]> {
	const shadow = engine.checkpoints.shadow;
	const timeline = engine.timeline;
	const onDisk = diskUsage(shadow);
	const recorded = await recordSession(engine, run, onDisk);
	const { events, before } = recorded;
	const rows = await rebuildRows(
		shadow,
		timeline,
		events.map((e) => ({ ...stepOf(e), id: e.id, sessionId: run.sessionId, at: e.at })),
		run.quick ? 3 : 7,
	);
	const { diffBytes, eachGzipped } = await gzippedDiffs(timeline, events, run.sessionId);
	const { recordBytes, blobFieldBytes } = recordSizes(events);
	// The target is the timeline's own storage: what it keeps beyond the session's start and end
	// states, which the session's checkpoints (its start, its `complete` one at the end) and the
	// shadow's index keep with or without a timeline, in git's own compact form. The store's whole
	// growth is printed beside it, without a target: it cannot fall below the end state's own cost.
	const storageRow = (name: string, bytes: number, checked: boolean): BenchRow => ({
		name: `${name}, ${run.steps}-step session (its diffs gzipped one by one: ${eachGzipped} bytes, ${(bytes / eachGzipped).toFixed(2)}×)`,
		ours: bytes,
		oursP99: bytes,
		baseline: diffBytes,
		baselineName: 'its diffs, gzipped together',
		ratio: bytes / Math.max(diffBytes, 1),
		target: checked ? '≤ 1.5×' : '— (the store as a whole)',
		unit: 'bytes',
		...(checked ? { passed: bytes / Math.max(diffBytes, 1) <= 1.5 } : {}),
	});
	const control = await controlBytes(shadow, run.sessionId, events, recorded.refBefore, onDisk, before);
	if (control !== undefined) {
		rows.push(
			storageRow(
				"timeline storage: what the timeline keeps beyond the session's start and end states (git objects, after maintenance and the hour-old prune)",
				recorded.settled - control,
				true,
			),
			storageRow("the session's start and end states alone, no timeline (what its checkpoints keep in any case)", control, false),
		);
	}
	rows.push(
		storageRow('the store as a whole as captured (loose objects, until maintenance)', recorded.loose, false),
		storageRow('the store as a whole after maintenance (packed; the hour-old prune not yet due)', recorded.packed, false),
		storageRow('the store as a whole after maintenance and the prune an hour later (git objects: the end state and the timeline)', recorded.settled, false),
		storageRow(
			`the session's timeline.step records (JSON in shared_events; ${blobFieldBytes} bytes of them per-file blob ids and modes)`,
			recordBytes,
			false,
		),
	);
	return rows;
}

/** The store's bytes: packs by their exact bytes (pack, index, reverse index, and the .keep lists of the sessions' own packs), loose objects by their disk usage. */
function diskUsage(shadow: ShadowRepo): () => Promise<number> {
	const packDir = path.join(shadow.gitDir, 'objects', 'pack');
	return async () => {
		const sizes = await shadow.gitText(['count-objects', '-v']);
		const packs = fs.readdirSync(packDir).reduce((sum, f) => sum + (/\.(pack|idx|rev|keep)$/.test(f) ? fs.statSync(path.join(packDir, f)).size : 0), 0);
		return packs + Number(/^size: (\d+)/m.exec(sizes)?.[1] ?? 0) * 1024;
	};
}

/** The session's steps recorded, and the store's growth (over `before`) as captured, packed, and after the later prune. */
interface RecordedSession {
	events: StepEvents;
	before: number;
	refBefore: string;
	loose: number;
	packed: number;
	settled: number;
}

/** `steps` Pre/Post pairs, each changing one file, on a settled store; what they added. */
async function recordSession(engine: Engine, { ws, scale, sessionId, capture, steps }: StorageRun, onDisk: () => Promise<number>): Promise<RecordedSession> {
	const shadow = engine.checkpoints.shadow;
	await maintainTimeline(engine.ctx, shadow, { forcePack: true });
	// The timing rounds above left transient trees loose: settle them first, so only the session counts.
	await shadow.git(['prune', '--expire=now']);
	const before = await onDisk();
	// The session's timeline ref as it was before the 500 steps (the control below keeps what it held then).
	const refBefore = (await shadow.git(['rev-parse', '-q', '--verify', timelineRef(sessionId)], { okCodes: [0, 1] })).stdout.toString('utf8').trim();
	const objectsBefore = new Set((await shadow.gitText(['cat-file', '--batch-all-objects', '--batch-check=%(objectname)'])).split('\n'));
	const stepStarted = (await engine.store.read((db) => sessionEvents(db, sessionId, ['timeline.step']))).length;
	for (let i = 0; i < steps; i++) {
		await capture('pre');
		fs.appendFileSync(
			path.join(ws, `src/pkg${i % scale.packages}/mod${(i * 3) % scale.modules}/file${(i * 7) % scale.files}.ts`),
			`export const step${i} = ${i}; // a line an agent wrote\n`,
		);
		await capture('post');
	}
	const loose = (await onDisk()) - before;
	await maintainTimeline(engine.ctx, shadow, { forcePack: true });
	const packed = (await onDisk()) - before;
	// Maintenance prunes unreachable loose objects older than an hour: the trees of ordinary steps
	// (written by every capture, kept only at keyframes) go at the first maintenance an hour later.
	// That later prune, run now:
	await shadow.git(['prune', '--expire=now']);
	const settled = (await onDisk()) - before;
	await reportAddedObjects(shadow, objectsBefore);
	const events = (await engine.store.read((db) => sessionEvents(db, sessionId, ['timeline.step']))).slice(stepStarted);
	return { events, before, refBefore, loose, packed, settled };
}

/** Where the bytes go: the session's new objects by type, their bytes in the pack (index entries apart), on stderr. */
async function reportAddedObjects(shadow: ShadowRepo, objectsBefore: Set<string>): Promise<void> {
	const objectSizes = async () =>
		new Map(
			(await shadow.gitText(['cat-file', '--batch-all-objects', '--batch-check=%(objectname) %(objecttype) %(objectsize:disk)']))
				.split('\n')
				.map((l) => [l.slice(0, l.indexOf(' ')), l.slice(l.indexOf(' ') + 1)] as const),
		);
	const added = new Map<string, { count: number; bytes: number }>();
	for (const [sha, info] of await objectSizes()) {
		if (!objectsBefore.has(sha)) {
			const [type, bytes] = info.split(' ');
			const entry = added.get(type as string) ?? { count: 0, bytes: 0 };
			entry.count += 1;
			entry.bytes += Number(bytes);
			added.set(type as string, entry);
		}
	}
	process.stderr.write(`  the session's objects: ${[...added].map(([type, e]) => `${e.count} ${type}s ${e.bytes} bytes`).join(', ')} (plus index entries)\n`);
}

/** The steps' diffs gzipped together (the baseline) and one by one. */
async function gzippedDiffs(timeline: TimelineService, events: StepEvents, sessionId: string): Promise<{ diffBytes: number; eachGzipped: number }> {
	let patches = '';
	let eachGzipped = 0;
	for (const event of events) {
		const step = stepOf(event);
		if (step.treeBefore && step.treeAfter && step.treeBefore !== step.treeAfter) {
			// Through the timeline's own reader: a step's trees are rebuilt from its keyframe when not kept.
			const patch = await timeline.diff({ ...step, id: event.id, sessionId, at: event.at });
			patches += patch;
			eachGzipped += gzipSync(patch).length;
		}
	}
	return { diffBytes: gzipSync(patches).length, eachGzipped };
}

/**
 * The records themselves, as the shared_events rows hold them (the journal holds the same JSON
 * inside its SQL), and the part of them the per-file blob ids and modes take.
 */
function recordSizes(events: StepEvents): { recordBytes: number; blobFieldBytes: number } {
	const recordBytes = events.reduce((sum, e) => sum + Buffer.byteLength(JSON.stringify(e.body)) + e.id.length + e.kind.length + (e.subject?.length ?? 0), 0);
	const blobFieldBytes = events.reduce(
		(sum, e) =>
			sum +
			Buffer.byteLength(JSON.stringify(stepOf(e).files)) -
			Buffer.byteLength(JSON.stringify(stepOf(e).files.map(({ path: p, change, additions, deletions }) => ({ path: p, change, additions, deletions })))),
		0,
	);
	return { recordBytes, blobFieldBytes };
}

/**
 * The control: the same store holding the session's start (the workspace as it was, which `before`
 * held) and its end (the workspace now, which the shadow's index keeps for the next capture or
 * checkpoint, timeline or not) without the timeline's objects: its ref and packs dropped, packed
 * again. What the timeline itself keeps is the difference. Undefined when the session had no start tree or ref.
 */
async function controlBytes(
	shadow: ShadowRepo,
	sessionId: string,
	events: StepEvents,
	refBefore: string,
	onDisk: () => Promise<number>,
	before: number,
): Promise<number | undefined> {
	const startTree = events[0]?.body['treeBefore'];
	if (typeof startTree !== 'string' || !refBefore) {
		return undefined;
	}
	const start = await shadow.gitText(['commit-tree', startTree, '-m', 'bench: the session start']);
	await shadow.git(['update-ref', 'refs/bench/start', start]);
	await shadow.git(['update-ref', 'refs/bench/before', refBefore]);
	await shadow.git(['update-ref', '-d', timelineRef(sessionId)]);
	releaseSessionPacks(shadow, sessionId);
	await shadow.git(['repack', '-a', '-d', '-q']);
	await shadow.git(['prune', '--expire=now']);
	const control = (await onDisk()) - before;
	process.stderr.write(`  the control (the session's start and end states, no timeline): ${control} bytes over the store before\n`);
	return control;
}

/** CPU milliseconds of this process and of the git processes it waited for (`/proc/self/stat`'s cutime and cstime, in 10 ms ticks). */
function cpuMs(): number {
	const own = process.cpuUsage();
	const fields = fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1]?.split(' ') ?? [];
	const children = (Number(fields[13] ?? 0) + Number(fields[14] ?? 0)) * 10;
	return (own.user + own.system) / 1000 + children;
}

/**
 * Reading a step whose trees the store dropped: its diff (`baton timeline show --diff`'s reader), the
 * trees rebuilt from the nearest keyframe, cold (everything unreachable pruned first, rebuilt trees
 * included), beside the same diff right after, its trees then in the store. For the session's first,
 * middle and last step, `rounds` times each, cold and warm alternating. Wall time and CPU time (git's
 * included) as medians.
 */
async function rebuildRows(shadow: ShadowRepo, timeline: TimelineService, steps: StepRecord[], rounds: number): Promise<BenchRow[]> {
	const rows: BenchRow[] = [];
	for (const at of [1, Math.ceil(steps.length / 2), steps.length]) {
		const step = steps[at - 1];
		if (!step) {
			continue;
		}
		const cold: { wall: number; cpu: number }[] = [];
		const warm: { wall: number; cpu: number }[] = [];
		const timed = async (into: { wall: number; cpu: number }[]) => {
			const cpu = cpuMs();
			const t = performance.now();
			await timeline.diff(step);
			into.push({ wall: performance.now() - t, cpu: cpuMs() - cpu });
		};
		for (let r = 0; r < rounds; r++) {
			await shadow.git(['prune', '--expire=now']);
			await timed(cold);
			await timed(warm);
		}
		const wall = (list: { wall: number }[]) => median(list.map((x) => x.wall));
		const cpu = (list: { cpu: number }[]) => median(list.map((x) => x.cpu));
		rows.push({
			name: `diff of step ${at} of ${steps.length}, its trees rebuilt (cold; CPU ${cpu(cold).toFixed(0)} ms, warm ${cpu(warm).toFixed(0)} ms)`,
			ours: wall(cold),
			oursP99: percentile(
				cold.map((x) => x.wall),
				99,
			),
			baseline: wall(warm),
			baselineName: 'the same diff, its trees in the store',
			ratio: wall(cold) / Math.max(wall(warm), 0.001),
			target: '—',
		});
	}
	return rows;
}
