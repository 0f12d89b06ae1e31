/**
 * Sync benchmarks (docs/sync.md), each beside plain git moving the same objects:
 * - push of 1,000 sessions with handoffs (3,000 events): `baton sync push` (export into this
 *   machine's ref with fast-import, then push) vs `git push` of the same refs to a second bare remote
 *   that receives exactly the same increments;
 * - pull of them: `baton sync pull` (fetch, read the new batches, merge, derive the tables) vs
 *   `git fetch` of the same refs into a plain repository;
 * - a checkpoint of the 20,000-file workspace after 100 files changed: push, as above;
 * - derived-state rebuild after a pull of 10,000 events (merge + projection in one write), against
 *   its absolute target of 200 ms.
 * Pulls alternate which side runs first (they fetch from two remotes holding the same objects). A
 * push's baseline always runs second: it pushes the objects Baton's export has just written. Each row
 * also prints both sides' p95 (stderr), since one slow run on a loaded machine moves a median little.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Engine } from '../src/engine/engine';
import { silentLogger } from '../src/engine/ports';
import { useGitSpawner } from '../src/engine/git/gitSpawner';
import { machineIdentity } from '../src/engine/shared/machineIdentity';
import { appendSharedEvent, toWire, type WireEvent } from '../src/engine/shared/sharedEvents';
import { mergeWireEvents } from '../src/engine/sync/mergeWire';
import { projectEvents } from '../src/engine/sync/projection';
import { sharedEvents } from '../src/engine/storage/schema';
import { fullScale, makeWorkspace, type Scale } from './checkpointBench';
import { median, percentile, type BenchRow } from './stats';

interface Pair {
	ours: number;
	base: number;
}

/** The handoff of the bench's i-th session: one decision, a note and the next step, as a migration in parts would write them. */
export function benchHandoff(
	i: number,
	task: { id: string; title: string } | null,
): Record<string, unknown> & { decisions: { id: string; text: string; rationale: null }[] } {
	return {
		lastTask: task,
		tasksCompleted: task ? [task] : [],
		tasksCreated: [],
		decisionsRecorded: 1,
		decisions: [{ id: `dec_${i}`, text: `chose option ${i} over the others because it keeps the parser simple`, rationale: null }],
		nextSuggested: [],
		openBlockers: [],
		openBugs: [],
		note: `finished part ${i} of the migration; the next step is part ${i + 1}`,
		nextAction: `start part ${i + 1}`,
	};
}

export const git = (cwd: string, args: string[], env: NodeJS.ProcessEnv = {}): string =>
	execFileSync('git', args, {
		cwd,
		encoding: 'utf8',
		stdio: ['ignore', 'pipe', 'pipe'],
		env: {
			PATH: process.env['PATH'],
			HOME: cwd,
			GIT_CONFIG_NOSYSTEM: '1',
			GIT_AUTHOR_NAME: 'b',
			GIT_AUTHOR_EMAIL: 'b@b',
			GIT_COMMITTER_NAME: 'b',
			GIT_COMMITTER_EMAIL: 'b@b',
			...env,
		},
		maxBuffer: 256 * 1024 * 1024,
	}).trim();

async function time(fn: () => Promise<unknown> | unknown): Promise<number> {
	const t = performance.now();
	await fn();
	return performance.now() - t;
}

function row(name: string, pairs: Pair[], baselineName: string, target = '≤ 1.3×', limit = 1.3): BenchRow {
	const ratio = median(pairs.map((p) => p.ours / p.base));
	const p95 = (values: number[]): string => percentile(values, 95).toFixed(1);
	process.stderr.write(
		`  ${name}: Baton median ${median(pairs.map((p) => p.ours)).toFixed(1)} ms, p95 ${p95(pairs.map((p) => p.ours))} ms; ${baselineName} median ${median(pairs.map((p) => p.base)).toFixed(1)} ms, p95 ${p95(pairs.map((p) => p.base))} ms; per-pair ratios ${pairs.map((p) => (p.ours / p.base).toFixed(2)).join(' ')}\n`,
	);
	return {
		name,
		ours: median(pairs.map((p) => p.ours)),
		oursP99: percentile(
			pairs.map((p) => p.ours),
			99,
		),
		baseline: median(pairs.map((p) => p.base)),
		baselineName,
		ratio,
		target,
		passed: ratio <= limit,
	};
}

/** A user repository with an `origin` and a Baton workspace in it. */
export async function workspace(dir: string, origin: string, existing = false): Promise<Engine> {
	if (!existing) {
		fs.mkdirSync(dir, { recursive: true });
		git(dir, ['init', '-q']);
	}
	git(dir, ['remote', 'add', 'origin', `file://${origin}`]);
	const engine = await Engine.open({ workspaceRoot: dir, log: silentLogger, create: true });
	await engine.sync.enable('origin');
	return engine;
}

/** 1,000 sessions with their handoffs as this machine's events: start, handoff, end. */
export async function writeSessions(engine: Engine, count: number, round: number): Promise<void> {
	const machine = machineIdentity(engine.ctx.workspaceRoot);
	let ms = Date.parse('2026-03-01T09:00:00Z') + round * 10_000_000;
	await engine.store.write((db) => {
		for (let i = 0; i < count; i++) {
			const id = `ses_bench_${round}_${i}`;
			const at = new Date(ms).toISOString();
			appendSharedEvent(db, machine, ms++, {
				kind: 'session.started',
				subject: id,
				sessionId: id,
				actor: 'bench',
				body: {
					name: `session ${i}`,
					parentId: null,
					previousId: null,
					scope: { type: 'global' },
					scopeKey: `custom:b${round}-${i}`,
					agent: 'bench',
					model: null,
					startedAt: at,
				},
			});
			appendSharedEvent(db, machine, ms++, {
				kind: 'handoff.written',
				subject: id,
				sessionId: id,
				actor: 'bench',
				body: benchHandoff(i, null),
			});
			appendSharedEvent(db, machine, ms++, {
				kind: 'session.status',
				subject: id,
				sessionId: id,
				actor: 'bench',
				body: { status: 'ended', reason: null, at },
			});
		}
	});
}

export async function sessionsRows(root: string, rounds: number, count: number): Promise<BenchRow[]> {
	const bareOurs = path.join(root, 'ours.git');
	const bareBase = path.join(root, 'base.git');
	const fetchBase = path.join(root, 'fetch-base.git');
	for (const b of [bareOurs, bareBase, fetchBase]) git(root, ['init', '-q', '--bare', b]);
	const a = await workspace(path.join(root, 'a'), bareOurs);
	const b = await workspace(path.join(root, 'b'), bareOurs);
	const shadowA = path.join(root, 'a', '.baton', 'shadow.git');
	const push: Pair[] = [];
	const pushAhead: Pair[] = [];
	const pull: Pair[] = [];
	try {
		for (let round = 0; round < rounds; round++) {
			await writeSessions(a, count, round);
			const ours = await time(() => a.sync.push());
			const refs = git(shadowA, ['for-each-ref', '--format=%(refname)', 'refs/baton/'], { GIT_DIR: shadowA }).split('\n');
			const base = await time(() => git(shadowA, ['push', '-q', bareBase, ...refs.map((r) => `${r}:${r}`)], { GIT_DIR: shadowA }));
			push.push({ ours, base });
			const plainFetch = (): Promise<number> =>
				time(() => git(fetchBase, ['fetch', '-q', bareBase, '+refs/baton/*:refs/baton-remotes/origin/*'], { GIT_DIR: fetchBase }));
			if (round % 2 === 0) {
				const ours = await time(() => b.sync.pull());
				pull.push({ ours, base: await plainFetch() });
			} else {
				const base = await plainFetch();
				pull.push({ ours: await time(() => b.sync.pull()), base });
			}
			// The same again with the export done ahead, as the backend does when idle (exportAhead).
			await writeSessions(a, count, rounds + round);
			await a.sync.exportAhead();
			const oursAhead = await time(() => a.sync.push());
			pushAhead.push({
				ours: oursAhead,
				base: await time(() => git(shadowA, ['push', '-q', bareBase, ...refs.map((r) => `${r}:${r}`)], { GIT_DIR: shadowA })),
			});
			// Pulled untimed, so each timed pull brings one push's 1,000 sessions.
			await b.sync.pull();
			await plainFetch();
		}
	} finally {
		a.close();
		b.close();
	}
	return [
		row(`sync push: ${count} sessions with handoffs (${count * 3} events)`, push, 'git push of the same refs'),
		row(`sync push of the same, exported ahead by the idle backend`, pushAhead, 'git push of the same refs'),
		row(`sync pull: ${count} sessions with handoffs, merged and derived`, pull, 'git fetch of the same refs'),
	];
}

async function checkpointRow(root: string, scale: Scale, rounds: number): Promise<BenchRow[]> {
	const ws = path.join(root, 'ws');
	const generated = makeWorkspace(ws, scale);
	process.stderr.write(`  workspace: ${generated.files} files, ${generated.mb} MB\n`);
	const bareOurs = path.join(root, 'cp-ours.git');
	const bareBase = path.join(root, 'cp-base.git');
	for (const b of [bareOurs, bareBase]) git(root, ['init', '-q', '--bare', b]);
	const engine = await workspace(ws, bareOurs, true);
	const shadow = path.join(ws, '.baton', 'shadow.git');
	const pushBase = () => {
		const refs = git(shadow, ['for-each-ref', '--format=%(refname)', 'refs/baton/'], { GIT_DIR: shadow }).split('\n');
		git(shadow, ['push', '-q', bareBase, ...refs.map((r) => `${r}:${r}`)], { GIT_DIR: shadow });
	};
	const pairs: Pair[] = [];
	const ahead: Pair[] = [];
	try {
		await engine.checkpoints.create({ actor: 'bench', message: 'first' });
		await engine.sync.push();
		pushBase();
		const edit = (round: number): void => {
			for (let i = 0; i < 100; i++) {
				fs.appendFileSync(
					path.join(ws, `src/pkg${i % scale.packages}/mod${(i * 7) % scale.modules}/file${(i * 3) % scale.files}.ts`),
					`// edit ${round}.${i}\n`,
				);
			}
		};
		for (let round = 0; round < rounds; round++) {
			edit(round);
			await engine.checkpoints.create({ actor: 'bench', message: `round ${round}` });
			const ours = await time(() => engine.sync.push());
			const base = await time(pushBase);
			pairs.push({ ours, base });
		}
		// As the backend does it: the checkpoint's shared tree (its changed files scanned) is written while idle, the push is git's.
		for (let round = rounds; round < 2 * rounds; round++) {
			edit(round);
			await engine.checkpoints.create({ actor: 'bench', message: `round ${round}` });
			await engine.sync.exportAhead();
			const ours = await time(() => engine.sync.push());
			const base = await time(pushBase);
			ahead.push({ ours, base });
		}
	} finally {
		engine.close();
	}
	return [
		row('sync push: checkpoint of the 20k-file workspace after 100 files changed', pairs, 'git push of the same refs'),
		row('sync push of the same, its shared tree exported ahead by the idle backend', ahead, 'git push of the same refs'),
	];
}

async function rebuildRow(root: string, events: number, rounds: number): Promise<BenchRow> {
	const source = await workspace(path.join(root, 'src'), path.join(root, 'none.git'));
	await writeSessions(source, Math.floor(events / 3), 0);
	const wire: WireEvent[] = (await source.store.read((db) => db.select().from(sharedEvents).all())).map(toWire);
	source.close();
	const times: number[] = [];
	for (let round = 0; round < rounds; round++) {
		const dir = path.join(root, `rebuild-${round}`);
		const engine = await workspace(dir, path.join(root, 'none.git'));
		// This machine's id is known before a pull's write (the sync service reads it once), not in it.
		const own = machineIdentity(dir).id;
		try {
			times.push(
				await time(() =>
					engine.store.write((db) => {
						const merged = mergeWireEvents(db, wire, 'origin', Date.now());
						projectEvents(db, merged.events, own, engine.store, { mergedAfter: merged.before });
					}),
				),
			);
		} finally {
			engine.close();
		}
	}
	const ours = median(times);
	return {
		name: `derived-state rebuild after a pull of ${wire.length} events (merge + projection)`,
		ours,
		oursP99: percentile(times, 99),
		baseline: 200,
		baselineName: 'target (absolute)',
		ratio: ours / 200,
		target: '≤ 200 ms',
		passed: ours <= 200,
	};
}

export async function benchSync(quick: boolean): Promise<BenchRow[]> {
	// Sync runs in the backend (the daemon, the editor's), which starts git through its spawner: so does this.
	useGitSpawner();
	const root = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-bench-sync-'));
	try {
		fs.mkdirSync(path.join(root, 's'));
		const rows = await sessionsRows(path.join(root, 's'), quick ? 2 : 5, quick ? 200 : 1_000);
		fs.mkdirSync(path.join(root, 'r'));
		rows.push(await rebuildRow(path.join(root, 'r'), quick ? 1_500 : 10_000, quick ? 2 : 5));
		fs.mkdirSync(path.join(root, 'c'));
		rows.push(
			...(await checkpointRow(
				path.join(root, 'c'),
				quick ? { ...fullScale, packages: 4, modules: 10, files: 10, binaries: 2, binaryMB: 1, nodeModules: 20, nested: 40 } : fullScale,
				quick ? 2 : 5,
			)),
		);
		return rows;
	} finally {
		fs.rmSync(root, { recursive: true, force: true });
	}
}
