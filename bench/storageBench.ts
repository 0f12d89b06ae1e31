/**
 * Storage benchmarks, each against a baseline run side by side in the same process:
 * - durable commit: Baton's journaled sql.js vs better-sqlite3 (WAL, synchronous=FULL), same
 *   transaction, alternating A B A B, at 1, 50 and 200 MB; and 50 writes arriving together (Baton's
 *   group commit) vs the same 50 transactions one after the other in better-sqlite3;
 * - open time per database size;
 * - session start with briefing at 10,000 sessions and 20,000 tasks.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fork } from 'node:child_process';
import Database from 'better-sqlite3';
import { Engine } from '../src/engine/engine';
import { silentLogger, systemClock } from '../src/engine/ports';
import { JournalStore } from '../src/engine/storage/journalStore';
import { migrations } from '../src/engine/storage/migrations.generated';
import { decisions } from '../src/engine/storage/schema';
import { seedSessionHistory } from './seedSessionHistory';
import { median, percentile, type BenchRow } from './stats';

const payload = 'x'.repeat(900);

function seedRows(run: (sql: string, params: unknown[]) => void, megabytes: number): void {
	const rows = Math.round((megabytes * 1024 * 1024) / 1100);
	for (let i = 0; i < rows; i++) {
		run('INSERT INTO audit_log (at, actor, operation, entity_type, entity_id, details_json) VALUES (?, ?, ?, ?, ?, ?)', [
			new Date(1_700_000_000_000 + i * 1000).toISOString(),
			'bench',
			'seed',
			'task',
			`T${i}`,
			JSON.stringify({ payload, i }),
		]);
	}
}

/** A workspace whose snapshot already holds `megabytes` of rows (seeded outside the journal, then compacted). */
async function seededStore(dir: string, megabytes: number): Promise<JournalStore> {
	const store = await JournalStore.open({ dir, clock: systemClock, log: silentLogger });
	store.sqlite.exec('BEGIN');
	seedRows((sql, params) => store.sqlite.run(sql, params as never), megabytes);
	store.sqlite.exec('COMMIT');
	await store.compact();
	return store;
}

function seededBetterSqlite(file: string, megabytes: number): Database.Database {
	const db = new Database(file);
	db.pragma('journal_mode = WAL');
	db.pragma('synchronous = FULL');
	db.pragma('foreign_keys = ON');
	for (const migration of migrations) {
		for (const statement of migration.statements) {
			db.exec(statement);
		}
	}
	db.exec('BEGIN');
	seedRows((sql, params) => db.prepare(sql).run(...params), megabytes);
	db.exec('COMMIT');
	db.pragma('wal_checkpoint(TRUNCATE)');
	return db;
}

export async function benchCommits(sizes: number[], commits: number): Promise<BenchRow[]> {
	const rows: BenchRow[] = [];
	for (const mb of sizes) {
		const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-bench-'));
		try {
			rows.push(...(await commitRows(dir, mb, commits, sizes)));
		} finally {
			fs.rmSync(dir, { recursive: true, force: true });
		}
	}
	// Flat: the per-commit median at every size within 1.5× of the smallest size's.
	const single = rows.filter((r) => r.name.startsWith('durable commit'));
	for (const r of single) {
		r.passed = r.ratio <= 1.5 && r.ours <= 1.5 * (single[0] as BenchRow).ours;
	}
	return rows;
}

/** Both sides seeded with `mb` of rows: the better-sqlite3 database and its decision insert. */
interface BsqSide {
	bsq: Database.Database;
	insertBsq: Database.Statement;
}

/** One size's two rows: single durable commits, and 50 writes arriving together. */
async function commitRows(dir: string, mb: number, commits: number, sizes: number[]): Promise<BenchRow[]> {
	const store = await seededStore(path.join(dir, 'baton'), mb);
	const bsq = seededBetterSqlite(path.join(dir, 'bsq.db'), mb);
	const side: BsqSide = {
		bsq,
		insertBsq: bsq.prepare('INSERT INTO decisions (id, session_id, kind, text, rationale, task_id, created_at) VALUES (?, NULL, ?, ?, NULL, NULL, ?)'),
	};
	const { oursMs, baseMs } = await timeCommits(store, side, commits);
	const { burstOurs, burstBase } = await timeBursts(store, side, commits);
	const size = fs.statSync(store.dbFile).size;
	store.close();
	bsq.close();
	const ratio = median(oursMs.map((o, i) => o / (baseMs[i] as number)));
	return [
		{
			name: `durable commit @ ${(size / 1048576).toFixed(1)} MB`,
			ours: median(oursMs),
			oursP99: percentile(oursMs, 99),
			baseline: median(baseMs),
			baselineName: 'better-sqlite3 WAL FULL',
			ratio,
			target: `ratio ≤ 1.5, flat from ${sizes[0]} to ${sizes[sizes.length - 1]} MB`,
		},
		{
			name: `50 writes arriving together @ ${(size / 1048576).toFixed(1)} MB (group commit)`,
			ours: median(burstOurs),
			oursP99: percentile(burstOurs, 99),
			baseline: median(burstBase),
			baselineName: 'better-sqlite3 WAL FULL, 50 transactions',
			ratio: median(burstOurs.map((o, i) => o / (burstBase[i] as number))),
			target: '≤ 1.5×',
			passed: median(burstOurs.map((o, i) => o / (burstBase[i] as number))) <= 1.5,
		},
	];
}

/** `commits` single decision inserts on each side, alternating which goes first. */
async function timeCommits(store: JournalStore, { bsq, insertBsq }: BsqSide, commits: number): Promise<{ oursMs: number[]; baseMs: number[] }> {
	const oursMs: number[] = [];
	const baseMs: number[] = [];
	for (let i = 0; i < commits; i++) {
		const row = {
			id: `dec_${i}`,
			sessionId: null,
			kind: 'decision' as const,
			text: payload,
			rationale: null,
			taskId: null,
			createdAt: new Date().toISOString(),
		};
		const ours = async () => {
			const t = performance.now();
			await store.write((db) => db.insert(decisions).values(row).run());
			oursMs.push(performance.now() - t);
		};
		const base = () => {
			const t = performance.now();
			bsq.transaction(() => insertBsq.run(`b_${i}`, 'decision', payload, row.createdAt)).immediate();
			baseMs.push(performance.now() - t);
		};
		if (i % 2 === 0) {
			await ours();
			base();
		} else {
			base();
			await ours();
		}
	}
	return { oursMs, baseMs };
}

/** 50 writers at once (the backend serving several clients): one batch, one fdatasync; beside 50 transactions one after the other. */
async function timeBursts(store: JournalStore, { bsq, insertBsq }: BsqSide, commits: number): Promise<{ burstOurs: number[]; burstBase: number[] }> {
	const burstOurs: number[] = [];
	const burstBase: number[] = [];
	for (let round = 0; round < Math.max(3, Math.round(commits / 40)); round++) {
		let t = performance.now();
		await Promise.all(
			Array.from({ length: 50 }, (_, k) =>
				store.write((db) =>
					db
						.insert(decisions)
						.values({ id: `burst_${round}_${k}`, sessionId: null, kind: 'decision', text: payload, rationale: null, taskId: null, createdAt: 'x' })
						.run(),
				),
			),
		);
		burstOurs.push(performance.now() - t);
		t = performance.now();
		for (let k = 0; k < 50; k++) bsq.transaction(() => insertBsq.run(`bb_${round}_${k}`, 'decision', payload, 'x')).immediate();
		burstBase.push(performance.now() - t);
	}
	return { burstOurs, burstBase };
}

export async function benchOpen(sizes: number[], repeats: number): Promise<BenchRow[]> {
	const rows: BenchRow[] = [];
	for (const mb of sizes) {
		const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-bench-'));
		try {
			const seeded = await seededStore(path.join(dir, 'baton'), mb);
			// A journal tail to replay, as after a session of work since the last compaction.
			for (let i = 0; i < 200; i++) {
				await seeded.write((db) =>
					db
						.insert(decisions)
						.values({ id: `d${i}`, sessionId: null, kind: 'decision', text: 'tail', rationale: null, taskId: null, createdAt: 'x' })
						.run(),
				);
			}
			const size = fs.statSync(seeded.dbFile).size;
			seeded.close();
			const bsqFile = path.join(dir, 'bsq.db');
			seededBetterSqlite(bsqFile, mb).close();
			const oursMs: number[] = [];
			const baseMs: number[] = [];
			for (let i = 0; i < repeats; i++) {
				let t = performance.now();
				const store = await JournalStore.open({ dir: path.join(dir, 'baton'), clock: systemClock, log: silentLogger });
				store.sqlite.exec('SELECT count(*) FROM decisions');
				oursMs.push(performance.now() - t);
				store.close();
				t = performance.now();
				const db = new Database(bsqFile, { readonly: true });
				db.prepare('SELECT count(*) FROM decisions').get();
				baseMs.push(performance.now() - t);
				db.close();
			}
			rows.push({
				name: `open @ ${(size / 1048576).toFixed(1)} MB (+200 journal records)`,
				ours: median(oursMs),
				oursP99: percentile(oursMs, 99),
				baseline: median(baseMs),
				baselineName: 'better-sqlite3 open + query',
				ratio: median(oursMs) / median(baseMs),
				target: mb >= 50 ? 'ours ≤ 150 ms' : '',
			});
		} finally {
			fs.rmSync(dir, { recursive: true, force: true });
		}
	}
	return rows;
}

/** 10,000 sessions in 500 scope chains, 20,000 tasks (epics, dependencies, bugs), then timed starts. */
export async function benchSessionStart(sessionCount: number, taskCount: number, starts: number): Promise<BenchRow[]> {
	const root = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-bench-'));
	try {
		const engine = await Engine.open({
			workspaceRoot: root,
			log: silentLogger,
			create: true,
			git: { read: async () => null },
			config: { maxConcurrentSessions: 100 },
		});
		const scopes = await seedSessionHistory(engine.store, sessionCount, taskCount);
		await engine.store.compact();
		const times = await timeStarts(engine, root, scopes, starts);
		engine.close();
		const ranking = await firstRankings(root, starts >= 100 ? 7 : 3);
		return startRows(sessionCount, taskCount, times, ranking);
	} finally {
		fs.rmSync(root, { recursive: true, force: true });
	}
}

/** Timed session starts (each ended again) beside one durable better-sqlite3 row: wall and CPU milliseconds, and the first start's. */
interface StartTimes {
	startMs: number[];
	baseMs: number[];
	startCpuMs: number[];
	baseCpuMs: number[];
	firstMs: number;
}

/** `starts` session starts with briefing, after an untimed first, alternating with the baseline row. */
async function timeStarts(engine: Engine, root: string, scopes: string[], starts: number): Promise<StartTimes> {
	// Baseline: the floor under any durable start, one row committed to better-sqlite3 (WAL, FULL).
	const bsq = seededBetterSqlite(path.join(root, 'bsq.db'), 0);
	const insertBsq = bsq.prepare('INSERT INTO decisions (id, session_id, kind, text, rationale, task_id, created_at) VALUES (?, NULL, ?, ?, NULL, NULL, ?)');
	const startMs: number[] = [];
	const baseMs: number[] = [];
	// CPU time of the process (all its threads) per start and per baseline row: far less sensitive
	// to a loaded machine than wall time.
	const startCpuMs: number[] = [];
	const baseCpuMs: number[] = [];
	const cpuMs = (since: NodeJS.CpuUsage) => {
		const used = process.cpuUsage(since);
		return (used.user + used.system) / 1000;
	};
	const actor = 'bench';
	let firstMs = Number.NaN;
	for (let i = 0; i <= starts; i++) {
		const scope = scopes[i % scopes.length] as string;
		const ours = async () => {
			const cpu = process.cpuUsage();
			const t = performance.now();
			const result = await engine.sessions.start({ name: `bench ${i}`, scope, actor });
			const ms = performance.now() - t;
			startCpuMs.push(cpuMs(cpu));
			if (!result.handoff || result.briefing.nextTasks.length === 0) {
				throw new Error('benchmark start did not produce a handoff and next tasks');
			}
			await engine.sessions.end({ id: result.session.id, actor });
			return ms;
		};
		const base = () => {
			const cpu = process.cpuUsage();
			const t = performance.now();
			bsq.transaction(() => insertBsq.run(`b_${i}`, 'decision', 'start', new Date().toISOString())).immediate();
			const ms = performance.now() - t;
			baseCpuMs.push(cpuMs(cpu));
			return ms;
		};
		if (i === 0) {
			firstMs = await ours(); // builds the task graph: reported by the fresh-process row below
			startCpuMs.length = 0;
			continue;
		}
		// Alternate which side runs first, so neither always meets a warmer cache.
		if (i % 2 === 0) {
			startMs.push(await ours());
			baseMs.push(base());
		} else {
			baseMs.push(base());
			startMs.push(await ours());
		}
	}
	bsq.close();
	return { startMs, baseMs, startCpuMs, baseCpuMs, firstMs };
}

/** The session start row and the first ranking's row. */
function startRows(
	sessionCount: number,
	taskCount: number,
	{ startMs, baseMs, startCpuMs, baseCpuMs, firstMs }: StartTimes,
	ranking: Awaited<ReturnType<typeof firstRankings>>,
): BenchRow[] {
	const p95 = (values: number[]) => percentile(values, 95);
	const startMedian = median(startMs);
	const rankMedian = median(ranking.ours);
	return [
		{
			name: `session start + briefing @ ${sessionCount} sessions, ${taskCount} tasks (p95 ${p95(startMs).toFixed(1)} ms vs ${p95(baseMs).toFixed(1)} ms; CPU median ${median(startCpuMs).toFixed(2)} ms vs ${median(baseCpuMs).toFixed(2)} ms; first start ${firstMs.toFixed(0)} ms)`,
			ours: startMedian,
			oursP99: percentile(startMs, 99),
			baseline: median(baseMs),
			baselineName: 'one durable row, better-sqlite3 WAL FULL',
			ratio: median(startMs.map((o, i) => o / (baseMs[i] as number))),
			target: 'median ≤ 5 ms',
			passed: startMedian <= 5,
		},
		{
			name: `first ranking in a fresh process @ ${taskCount} tasks (p95 ${p95(ranking.ours).toFixed(1)} ms vs ${p95(ranking.reference).toFixed(1)} ms)`,
			ours: rankMedian,
			oursP99: percentile(ranking.ours, 99),
			baseline: median(ranking.reference),
			baselineName: 'per-task dependents search (the previous ranking)',
			ratio: median(ranking.ours.map((o, i) => o / (ranking.reference[i] as number))),
			target: `median ≤ 100 ms, same order (${ranking.sameOrder ? 'same' : 'DIFFERENT'})`,
			passed: rankMedian <= 100 && ranking.sameOrder,
		},
	];
}

/** Each run is a new process per side, alternating which goes first; both must rank alike. */
async function firstRankings(root: string, runs: number): Promise<{ ours: number[]; reference: number[]; sameOrder: boolean }> {
	const probe = path.join(__dirname, 'rankingProbe.ts');
	const once = (mode: 'ours' | 'reference') =>
		new Promise<{ ms: number; count: number; head: string[] }>((resolve, reject) => {
			const child = fork(probe, [root, mode], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
			let answer: { ms: number; count: number; head: string[] } | undefined;
			child.on('message', (message) => (answer = message as typeof answer));
			child.on('exit', (code) => (answer ? resolve(answer) : reject(new Error(`ranking probe (${mode}) exited with ${code}`))));
		});
	const ours: number[] = [];
	const reference: number[] = [];
	let sameOrder = true;
	for (let i = 0; i < runs; i++) {
		const [a, b] = i % 2 === 0 ? [await once('ours'), await once('reference')] : [undefined, await once('reference')];
		const o = a ?? (await once('ours'));
		ours.push(o.ms);
		reference.push(b.ms);
		sameOrder &&= o.count === b.count && o.head.join() === b.head.join();
	}
	return { ours, reference, sameOrder };
}
