/**
 * Sharing at history scale (issue #28 items 6 and 7), measured as users call it: `baton sync push`
 * and `baton sync pull` as whole CLI processes through the workspace's daemon (warm: started by a
 * `baton sync status` just before, as the editor's backend or an agent's hooks keep it running).
 * - first push of N sessions' history (each: start, handoff, end events; a decision and a task that
 *   become events at that sync) against `git push` of the same refs to a second, empty bare remote:
 *   target ≤ 10×;
 * - full pull of it into a fresh clone against `git fetch` of the same refs into an empty repository
 *   plus a native SQLite insert (better-sqlite3, one prepared statement in one transaction) of the
 *   same events, `git fetch` alone writing no database: target ≤ 1.5×.
 * The history is seeded once per size and copied for each run, so every run is a first push and a
 * first pull. Each row names the load average (1 min) over its runs; a ratio above its target
 * prints FAILED.
 *   node --import tsx bench/syncCliBench.ts [--sessions 1000,10000] [--rounds 3]
 */
import { spawn, spawnSync } from 'node:child_process';
import { daemonPid, highWater } from './procStatus';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { sql } from 'drizzle-orm';
import { Engine } from '../src/engine/engine';
import { silentLogger } from '../src/engine/ports';
import { machineIdentity } from '../src/engine/shared/machineIdentity';
import { appendSharedEvents, toWire, type WireEvent } from '../src/engine/shared/sharedEvents';
import { sharedEvents } from '../src/engine/storage/schema';
import { benchHandoff, git } from './syncBench';
import { formatTable, median, percentile, sizesAndRounds, type BenchRow } from './stats';

const cli = path.resolve(process.env['BATON_TEST_CLI'] ?? path.join(__dirname, '..', 'dist', 'cli.js'));

/** A repository with `origin` and a Baton workspace holding `count` sessions' history, sharing enabled. */
export async function seedHistory(dir: string, origin: string, count: number): Promise<void> {
	fs.mkdirSync(dir, { recursive: true });
	git(dir, ['init', '-q']);
	git(dir, ['remote', 'add', 'origin', `file://${origin}`]);
	const engine = await Engine.open({
		workspaceRoot: dir,
		log: silentLogger,
		create: true,
		git: { read: async () => null },
		config: { maxConcurrentSessions: 100 },
	});
	try {
		await engine.sync.enable('origin');
		const machine = machineIdentity(dir);
		const store = engine.store;
		let ms = Date.now() - count * 60_000;
		await store.write((db) => {
			const events: Parameters<typeof appendSharedEvents>[2][number][] = [];
			let previous: string | null = null;
			for (let i = 0; i < count; i++) {
				const id = `ses_${String(20200101000000 + i)}_${(i % 0xffffff).toString(16).padStart(6, '0')}`;
				const at = new Date(ms).toISOString();
				const scope = { type: 'task', id: `T${i + 1}` };
				const handoff = benchHandoff(i, { id: `T${i + 1}`, title: `Part ${i} of the migration` });
				store.execCaptured('INSERT INTO tasks (id, seq, title, type, status, priority, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)', [
					`T${i + 1}`,
					i + 1,
					`Part ${i} of the migration`,
					'task',
					'done',
					'medium',
					at,
					at,
				]);
				store.execCaptured(
					`INSERT INTO sessions (id, name, status, scope_json, scope_key, previous_session_id, agent, stats_json, resume_count, started_at, last_activity, ended_at, updated_at) VALUES (?, ?, 'ended', ?, ?, ?, 'claude-code', '{}', 0, ?, ?, ?, ?)`,
					[id, `Part ${i}`, JSON.stringify(scope), `task:T${i + 1}`, previous, at, at, at, at],
				);
				store.execCaptured('INSERT INTO handoffs (session_id, handoff_json, created_at) VALUES (?, ?, ?)', [id, JSON.stringify(handoff), at]);
				store.execCaptured('INSERT INTO decisions (id, session_id, kind, text, rationale, task_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)', [
					`dec_${i}`,
					id,
					'decision',
					handoff.decisions[0]?.text ?? '',
					null,
					`T${i + 1}`,
					at,
				]);
				// The events the session's lifecycle wrote with it (localEvents.ts); the decision and the task become events at the first sync.
				const base = { subject: id, sessionId: id, actor: 'agent:claude-code' };
				events.push({
					nowMs: ms++,
					event: {
						...base,
						kind: 'session.started',
						body: {
							name: `Part ${i}`,
							parentId: null,
							previousId: previous,
							scope,
							scopeKey: `task:T${i + 1}`,
							agent: 'claude-code',
							model: null,
							currentTask: `T${i + 1}`,
							startedAt: at,
						},
					},
				});
				events.push({ nowMs: ms++, event: { ...base, kind: 'handoff.written', body: handoff } });
				events.push({ nowMs: ms++, event: { ...base, kind: 'session.status', body: { status: 'ended', reason: null, at } } });
				previous = id;
			}
			appendSharedEvents(db, machine, events);
		});
		await store.compact();
	} finally {
		engine.close();
	}
}

/** A fresh clone's workspace: the same remote, sharing enabled, nothing pulled yet. */
export async function freshClone(dir: string, origin: string): Promise<void> {
	fs.mkdirSync(dir, { recursive: true });
	git(dir, ['init', '-q']);
	git(dir, ['remote', 'add', 'origin', `file://${origin}`]);
	const engine = await Engine.open({ workspaceRoot: dir, log: silentLogger, create: true, git: { read: async () => null } });
	try {
		await engine.sync.enable('origin');
	} finally {
		engine.close();
	}
}

const cliEnv = (): NodeJS.ProcessEnv => ({ ...process.env, BATON_ACTOR: 'bench', BATON_DAEMON_BUDGET_MS: '20000' });

/** One CLI process as a user runs it (through the daemon it starts); its wall time. */
export function baton(cwd: string, args: string[]): number {
	const started = performance.now();
	const result = spawnSync(process.execPath, [cli, ...args], { cwd, encoding: 'utf8', env: cliEnv(), maxBuffer: 64 * 1024 * 1024 });
	const ms = performance.now() - started;
	if (result.status !== 0) {
		throw new Error(`baton ${args.join(' ')} exited ${result.status}: ${result.stderr.slice(0, 500)}`);
	}
	return ms;
}

/** `baton(…)` while `watch()` runs every 200 ms (what /proc says of the processes it serves with, say); its wall time. */
export function batonWatched(cwd: string, args: string[], watch: () => void): Promise<number> {
	const started = performance.now();
	return new Promise((resolve, reject) => {
		const child = spawn(process.execPath, [cli, ...args], { cwd, env: cliEnv(), stdio: ['ignore', 'ignore', 'pipe'] });
		let stderr = '';
		child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-500)));
		const timer = setInterval(watch, 200);
		child.on('close', (code) => {
			clearInterval(timer);
			watch();
			if (code === 0) resolve(performance.now() - started);
			else reject(new Error(`baton ${args.join(' ')} exited ${code}: ${stderr}`));
		});
	});
}

export function stopDaemon(cwd: string): void {
	spawnSync(process.execPath, [cli, 'daemon', 'stop'], { cwd, encoding: 'utf8' });
}

function timed(fn: () => void): number {
	const started = performance.now();
	fn();
	return performance.now() - started;
}

/**
 * The pull's database baseline: the same events inserted natively into a table declared as Baton's
 * (`schema`: its CREATE TABLE and indexes, read from Baton's database), one prepared statement in one
 * transaction.
 */
function nativeInsert(file: string, schema: readonly string[], events: readonly WireEvent[]): number {
	const db = new Database(file);
	try {
		for (const statement of schema) {
			db.exec(statement);
		}
		const insert = db.prepare(
			'INSERT INTO shared_events (id, kind, subject, session_id, actor, machine, machine_name, author, at, body_json, source, received_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
		);
		const now = new Date().toISOString();
		return timed(() =>
			db.transaction(() => {
				for (const e of events) {
					insert.run(e.id, e.kind, e.subject, e.sessionId, e.actor, e.machine, e.machineName, e.author, e.at, JSON.stringify(e.body), 'origin', now);
				}
			})(),
		);
	} finally {
		db.close();
	}
}

export interface Run {
	/** A `baton sync status` through the warm daemon: what any CLI call costs before the pull's own work. */
	roundTrip: number;
	push: number;
	gitPush: number;
	pull: number;
	gitFetch: number;
	insert: number;
	load: number;
	events: number;
	/** RSS high-water of the pushing daemon after the push, and of the clone's after the pull. */
	pushHwm: number;
	pullHwm: number;
}

export async function oneRun(root: string, template: string, round: number): Promise<Run> {
	const dir = path.join(root, `run-${round}`);
	const ours = path.join(dir, 'ours.git');
	const base = path.join(dir, 'base.git');
	const fetched = path.join(dir, 'fetched.git');
	fs.mkdirSync(dir);
	for (const b of [ours, base, fetched]) git(dir, ['init', '-q', '--bare', b]);
	// Every run's workspace is the same history, never pushed: a first push.
	const a = path.join(dir, 'a');
	fs.cpSync(template, a, { recursive: true });
	git(a, ['remote', 'set-url', 'origin', `file://${ours}`]);
	const clone = path.join(dir, 'b');
	await freshClone(clone, ours);
	const load = os.loadavg()[0] ?? 0;
	try {
		// The daemon is warm, as the editor's or an agent's hooks keep it: started by a call that writes nothing.
		baton(a, ['sync', 'status']);
		baton(clone, ['sync', 'status']);
		const roundTrip = baton(clone, ['sync', 'status']);
		const push = baton(a, ['sync', 'push']);
		const pushHwm = highWater(daemonPid(a));
		const shadow = path.join(a, '.baton', 'shadow.git');
		const refs = git(shadow, ['for-each-ref', '--format=%(refname)', 'refs/baton/'], { GIT_DIR: shadow }).split('\n');
		const gitPush = timed(() => git(shadow, ['push', '-q', base, ...refs.map((r) => `${r}:${r}`)], { GIT_DIR: shadow }));
		const engine = await Engine.open({ workspaceRoot: a, log: silentLogger, readOnly: true });
		const events = await engine.store.read((db) =>
			db
				.select()
				.from(sharedEvents)
				.where(sql`source = 'local'`)
				.all()
				.map(toWire),
		);
		const schema = await engine.store.read((db) =>
			db
				.all<{ sql: string }>(sql`SELECT sql FROM sqlite_master WHERE tbl_name = 'shared_events' AND sql IS NOT NULL ORDER BY type DESC`)
				.map((r) => r.sql),
		);
		engine.close();
		// Pulls alternate which side runs first.
		let pull = 0;
		let gitFetch = 0;
		const plainFetch = (): number => timed(() => git(fetched, ['fetch', '-q', base, '+refs/baton/*:refs/baton-remotes/origin/*'], { GIT_DIR: fetched }));
		if (round % 2 === 0) {
			pull = baton(clone, ['sync', 'pull']);
			gitFetch = plainFetch();
		} else {
			gitFetch = plainFetch();
			pull = baton(clone, ['sync', 'pull']);
		}
		const pullHwm = highWater(daemonPid(clone));
		const insert = nativeInsert(path.join(dir, 'native.db'), schema, events);
		return { roundTrip, push, gitPush, pull, gitFetch, insert, load: (load + (os.loadavg()[0] ?? 0)) / 2, events: events.length, pushHwm, pullHwm };
	} finally {
		stopDaemon(a);
		stopDaemon(clone);
		fs.rmSync(dir, { recursive: true, force: true });
	}
}

export function benchRow(name: string, ours: number[], base: number[], baselineName: string, limit: number): BenchRow {
	const ratios = ours.map((o, i) => o / (base[i] as number));
	const ratio = median(ratios);
	process.stderr.write(
		`  ${name}: Baton ${ours.map((v) => v.toFixed(0)).join(' ')} ms; ${baselineName} ${base.map((v) => v.toFixed(0)).join(' ')} ms; ratios ${ratios.map((r) => r.toFixed(2)).join(' ')}\n`,
	);
	return {
		name,
		ours: median(ours),
		oursP99: percentile(ours, 99),
		baseline: median(base),
		baselineName,
		ratio,
		target: `≤ ${limit}×`,
		passed: ratio <= limit,
	};
}

export async function benchSyncCli(sizes: readonly number[], rounds: number): Promise<BenchRow[]> {
	const rows: BenchRow[] = [];
	for (const count of sizes) {
		const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'baton-bench-synccli-')));
		try {
			const template = path.join(root, 'template');
			const seedStart = performance.now();
			// Each run's copy points its `origin` at the run's own remote.
			await seedHistory(template, path.join(root, 'unused.git'), count);
			process.stderr.write(`  seeded ${count} sessions in ${((performance.now() - seedStart) / 1000).toFixed(1)} s\n`);
			const runs: Run[] = [];
			for (let round = 0; round < rounds; round++) {
				const run = await oneRun(root, template, round);
				process.stderr.write(
					`  ${count} sessions, run ${round}: push ${run.push.toFixed(0)} ms (git push ${run.gitPush.toFixed(0)}), pull ${run.pull.toFixed(0)} ms (git fetch ${run.gitFetch.toFixed(0)} + insert ${run.insert.toFixed(0)}; a CLI round trip alone ${run.roundTrip.toFixed(0)}, the pull less it ${(run.pull - run.roundTrip).toFixed(0)} = ${((run.pull - run.roundTrip) / (run.gitFetch + run.insert)).toFixed(2)}× the baseline), ${run.events} events, load ${run.load.toFixed(1)}\n`,
				);
				runs.push(run);
			}
			const load = median(runs.map((r) => r.load)).toFixed(1);
			const events = runs[0]?.events ?? 0;
			rows.push(
				benchRow(
					`baton sync push (CLI, daemon), first push of ${count.toLocaleString('en-US')} sessions' history (${events.toLocaleString('en-US')} events), load ${load}`,
					runs.map((r) => r.push),
					runs.map((r) => r.gitPush),
					'git push of the same refs',
					10,
				),
			);
			rows.push(
				benchRow(
					`baton sync pull (CLI, daemon), full pull of it into a fresh clone, load ${load}`,
					runs.map((r) => r.pull),
					runs.map((r) => r.gitFetch + r.insert),
					'git fetch + native SQLite insert of the events',
					1.5,
				),
			);
		} finally {
			fs.rmSync(root, { recursive: true, force: true });
		}
	}
	return rows;
}

if (require.main === module) {
	const { sizes, rounds } = sizesAndRounds();
	void benchSyncCli(sizes, rounds).then((rows) => process.stdout.write(`${formatTable(rows)}\n`));
}
