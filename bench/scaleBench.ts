/**
 * A team's years of work (issue #28 items 1, 2 and 7): N sessions and 2N tasks brought in through the
 * public importer (`baton import cleo-db`, a CLEO `.cleo/tasks.db` written here: epics of 50 tasks, each
 * epic a chain of sessions with their handoffs, decisions and dependencies), then what a user runs on
 * it, as whole CLI processes through the workspace's daemon:
 * - the import itself (warm daemon), the daemon's RSS high-water after it and the store on disk;
 * - a cold daemon's first answer (`baton session list --limit 1`, no daemon running) ÷ `node -e 0`:
 *   target ≤ 2×; then the first briefing in that fresh daemon: target ≤ 1 s;
 * - `baton session list` (one page) and `baton blame` of a 2,000-line file ÷ `node -e 0` and
 *   `git blame --porcelain`; the daemon's RSS high-water after all of it: target ≤ 300 MB;
 * - the Session Chains tree's first page over the editor's RPC (`session/treeRoot` from a fresh
 *   backend, right after the window's first status): target ≤ 100 ms;
 * - the first `sync push` and a full `sync pull` into a fresh clone (syncCliBench's run, on this store).
 * RSS is the process's VmHWM from /proc/<pid>/status (Linux). Each row names the load average (1 min).
 *   node --import tsx bench/scaleBench.ts [--sessions 1000,10000,100000] [--rounds 3]
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { maxOf } from '../src/engine/arrays';
import { Engine } from '../src/engine/engine';
import { silentLogger } from '../src/engine/ports';
import { workspaceStatus } from '../src/protocol/rpc';
import { sessionTreeRoot } from '../src/protocol/treeRpc';
import { formatTable, median, percentile, sizesAndRounds, type BenchRow } from './stats';
import { daemonPid, highWater, importHighWaters } from './procStatus';
import { baton, batonWatched, benchRow, freshClone, oneRun, stopDaemon, type Run } from './syncCliBench';
import { git } from './syncBench';
import { withServer } from './treeBench';

const epicSize = 50;
const megabytes = 2 ** 20;
const rssLimit = 300 * megabytes;

const cleoTables = [
	`CREATE TABLE tasks (id TEXT PRIMARY KEY, title TEXT NOT NULL, description TEXT, status TEXT NOT NULL DEFAULT 'pending', priority TEXT NOT NULL DEFAULT 'medium', type TEXT, role TEXT NOT NULL DEFAULT 'work', parent_id TEXT, phase TEXT, created_at TEXT NOT NULL, updated_at TEXT, completed_at TEXT)`,
	`CREATE TABLE task_dependencies (task_id TEXT NOT NULL, depends_on TEXT NOT NULL, PRIMARY KEY (task_id, depends_on))`,
	`CREATE TABLE sessions (id TEXT PRIMARY KEY, name TEXT NOT NULL, status TEXT NOT NULL, scope_json TEXT NOT NULL, current_task TEXT, agent TEXT, handoff_json TEXT, started_at TEXT NOT NULL, ended_at TEXT, previous_session_id TEXT, next_session_id TEXT, agent_identifier TEXT, debrief_json TEXT, stats_json TEXT, resume_count INTEGER, last_activity TEXT)`,
];

const seedStart = Date.UTC(2022, 0, 1);
/** Sessions per epic: each epic's 50 tasks are worked through by one chain of 25 sessions. */
const chainLength = epicSize / 2;
/** Sessions per CLEO file: the importer reads files up to 64 MB (interop/sourceFiles.ts), so a larger history comes in parts, whole epics each. */
const sessionsPerFile = 50_000;

const cleoTime = (ms: number): string => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
const sessionIdOf = (i: number): string =>
	`ses_${new Date(seedStart + i * 600_000).toISOString().slice(0, 19).replace(/[-T:]/g, '')}_${(i % 0xffffff).toString(16).padStart(6, '0')}`;
const taskId = (k: number): string => `T${k}`;

type Db = InstanceType<typeof Database>;

/**
 * CLEO's task database holding sessions `first` to `first + count - 1` of a history and their epics'
 * tasks, two per session: an epic every 50 tasks (the first 29 of its tasks done, one active, the
 * rest pending, each pending one depending on the one before it, every tenth a bug), and each epic's
 * 25 sessions one chain, every session ended with its handoff and every tenth with a decision in its
 * debrief. `first` is a multiple of 25, so a part holds whole epics. With `sessions` false it holds the
 * tasks alone (a probe of the task graph, bench/briefingProbe.ts).
 */
export function writeCleoTasksDb(file: string, first: number, count: number, sessions = true): void {
	fs.mkdirSync(path.dirname(file), { recursive: true });
	fs.rmSync(file, { force: true });
	const db = new Database(file);
	try {
		for (const ddl of cleoTables) db.exec(ddl);
		db.transaction(() => {
			insertTasks(db, 2 * first + 1, 2 * (first + count));
			if (sessions) insertSessions(db, first, count);
		})();
	} finally {
		db.close();
	}
}

function insertTasks(db: Db, firstTask: number, lastTask: number): void {
	const insertTask = db.prepare(
		'INSERT INTO tasks (id, title, description, status, priority, type, parent_id, created_at, updated_at, completed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
	);
	const insertDep = db.prepare('INSERT INTO task_dependencies (task_id, depends_on) VALUES (?, ?)');
	for (let k = firstTask; k <= lastTask; k++) {
		const p = (k - 1) % epicSize;
		const epic = k - p;
		const at = cleoTime(seedStart + k * 60_000);
		if (p === 0) {
			insertTask.run(taskId(k), `Epic ${k}: part ${(k - 1) / epicSize} of the platform`, null, 'active', 'high', 'epic', null, at, at, null);
			continue;
		}
		const status = p < 30 ? 'done' : p === 30 ? 'active' : 'pending';
		const bug = p % 10 === 0;
		insertTask.run(
			taskId(k),
			`${bug ? 'Fix' : 'Build'} step ${p} of epic ${epic}`,
			`Touches src/part${p % 7}.ts and its tests.`,
			status,
			bug ? 'high' : 'medium',
			bug ? 'bug' : 'task',
			taskId(epic),
			at,
			at,
			status === 'done' ? at : null,
		);
		if (p > 30) insertDep.run(taskId(k), taskId(k - 1));
	}
}

function insertSessions(db: Db, first: number, count: number): void {
	const insertSession = db.prepare(
		'INSERT INTO sessions (id, name, status, scope_json, current_task, agent, handoff_json, started_at, ended_at, previous_session_id, next_session_id, agent_identifier, debrief_json, stats_json, resume_count, last_activity) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
	);
	for (let i = first; i < first + count; i++) {
		const e = Math.floor(i / chainLength);
		const j = i % chainLength;
		const epic = taskId(e * epicSize + 1);
		const ms = seedStart + i * 600_000;
		const task = taskId(e * epicSize + 2 + (j % (epicSize - 1)));
		const next = taskId(e * epicSize + 2 + ((j + 1) % (epicSize - 1)));
		const handoff = {
			lastTask: task,
			tasksCompleted: [task],
			tasksCreated: [],
			nextSuggested: [next],
			openBlockers: [],
			openBugs: [],
			note: `Session ${i} finished ${task}; the tests pass and the docs say what changed.`,
			nextAction: `Start ${next}`,
		};
		const debrief =
			i % 10 === 0
				? JSON.stringify({
						decisions: [
							{ id: `D${i}`, decision: `Keep step ${j} behind a flag until the epic lands`, rationale: 'rollback stays cheap', taskId: task },
						],
					})
				: null;
		const [started, ended] = [cleoTime(ms), cleoTime(ms + 300_000)];
		const previousId = j > 0 ? sessionIdOf(i - 1) : null;
		const nextId = j < chainLength - 1 && i + 1 < first + count ? sessionIdOf(i + 1) : null;
		insertSession.run(
			sessionIdOf(i),
			`Epic ${epic} session ${j + 1}`,
			'ended',
			JSON.stringify({ type: 'epic', rootTaskId: epic }),
			task,
			'claude-code',
			JSON.stringify(handoff),
			started,
			ended,
			previousId,
			nextId,
			`claude-${i}`,
			debrief,
			'{"tasksCompleted":1}',
			0,
			ended,
		);
	}
}

/** The store's files on disk (`.baton/` without Baton's object store, shadow.git), by name. */
function storeFiles(workspace: string): { total: number; parts: string } {
	const dir = path.join(workspace, '.baton');
	const sizes = fs
		.readdirSync(dir, { withFileTypes: true })
		.filter((e) => e.isFile())
		.map((e) => ({ name: e.name, size: fs.statSync(path.join(dir, e.name)).size }))
		.filter((f) => f.size >= megabytes)
		.sort((a, b) => b.size - a.size);
	let total = 0;
	for (const e of fs.readdirSync(dir, { withFileTypes: true })) if (e.isFile()) total += fs.statSync(path.join(dir, e.name)).size;
	return { total, parts: sizes.map((f) => `${f.name} ${(f.size / megabytes).toFixed(1)} MB`).join(', ') };
}

function nodeBaseline(): number {
	const started = performance.now();
	spawnSync(process.execPath, ['-e', '0']);
	return performance.now() - started;
}

function timedGit(cwd: string, args: string[]): number {
	const started = performance.now();
	git(cwd, args);
	return performance.now() - started;
}

const load = (): number => os.loadavg()[0] ?? 0;
const sizeName = (n: number): string => n.toLocaleString('en-US');

function row(name: string, ours: number[], base: number[], baselineName: string, limit?: { ratio?: number; ms?: number }): BenchRow {
	const ratio = base.length ? median(ours.map((o, i) => o / (base[i] as number))) : Number.NaN;
	const passed = limit?.ratio !== undefined ? ratio <= limit.ratio : limit?.ms !== undefined ? median(ours) <= limit.ms : undefined;
	const target = limit?.ratio !== undefined ? `≤ ${limit.ratio}×` : limit?.ms !== undefined ? `≤ ${sizeName(limit.ms)} ms` : '—';
	process.stderr.write(
		`  ${name}: ${ours.map((v) => v.toFixed(0)).join(' ')} ms${base.length ? ` against ${base.map((v) => v.toFixed(0)).join(' ')} ms` : ''}\n`,
	);
	return {
		name,
		ours: median(ours),
		oursP99: percentile(ours, 99),
		baseline: base.length ? median(base) : Number.NaN,
		baselineName,
		ratio,
		target,
		...(passed !== undefined ? { passed } : {}),
	};
}

function bytesRow(name: string, bytes: number, limit?: number): BenchRow {
	process.stderr.write(`  ${name}: ${(bytes / megabytes).toFixed(1)} MB\n`);
	return {
		name,
		ours: bytes,
		oursP99: Number.NaN,
		baseline: Number.NaN,
		baselineName: '—',
		ratio: Number.NaN,
		target: limit ? `≤ ${limit / megabytes} MB` : '—',
		unit: 'bytes',
		...(limit ? { passed: bytes <= limit } : {}),
	};
}

/** The workspace: a git repository with a committed 2,000-line file (for blame), sharing enabled, and the import. */
async function seedWorkspace(root: string, count: number): Promise<{ workspace: string; rows: BenchRow[] }> {
	const workspace = path.join(root, 'team');
	await freshClone(workspace, path.join(root, 'unused.git'));
	fs.mkdirSync(path.join(workspace, 'src'));
	fs.writeFileSync(path.join(workspace, 'src', 'app.ts'), Array.from({ length: 2_000 }, (_, i) => `export const line${i} = ${i};\n`).join(''));
	git(workspace, ['add', 'src/app.ts']);
	git(workspace, ['-c', 'user.name=Bench', '-c', 'user.email=bench@example.com', 'commit', '-q', '-m', 'app']);
	const seeded = performance.now();
	const parts: string[] = [];
	for (let first = 0; first < count; first += sessionsPerFile) {
		const file = path.join(root, `cleo-${parts.length + 1}`, '.cleo', 'tasks.db');
		writeCleoTasksDb(file, first, Math.min(sessionsPerFile, count - first));
		parts.push(file);
	}
	const megabytesWritten = parts.reduce((sum, file) => sum + fs.statSync(file).size, 0) / megabytes;
	process.stderr.write(
		`  wrote CLEO's tasks.db (${sizeName(count)} sessions, ${sizeName(2 * count)} tasks, ${parts.length} file(s), ${megabytesWritten.toFixed(1)} MB) in ${((performance.now() - seeded) / 1000).toFixed(1)} s\n`,
	);
	baton(workspace, ['sync', 'status']);
	const daemon = daemonPid(workspace);
	const before = load();
	let importMs = 0;
	// A large import runs in a process of the daemon's own (server/importProcess.ts): its high-water too.
	const helpers = importHighWaters(daemon);
	for (const file of parts) importMs += await batonWatched(workspace, ['import', 'cleo-db', file], helpers.watch);
	const importHwm = highWater(daemon);
	const helperHwm = helpers.peaks.size > 0 ? maxOf([...helpers.peaks.values()], 0) : Number.NaN;
	// A daemon silent past the client's bound is ended and the command runs again in the CLI's own process (daemonClient.ts).
	const answered = daemon !== undefined && daemonPid(workspace) === daemon && Number.isFinite(importHwm);
	const at = `load ${((before + load()) / 2).toFixed(1)}`;
	stopDaemon(workspace);
	// What the rows after this one measure: the store as an idle daemon leaves it after the import
	// (engineHost.ts): compacted, and the open tasks saved for the next process.
	const engine = await Engine.open({ workspaceRoot: workspace, log: silentLogger });
	try {
		if (engine.store.needsCompaction()) await engine.store.compact();
		await engine.saveDerived();
	} finally {
		engine.close();
	}
	fs.rmSync(path.join(workspace, '.baton', 'daemon.sock'), { force: true });
	const store = storeFiles(workspace);
	return {
		workspace,
		rows: [
			{
				...row(
					`baton import cleo-db of ${sizeName(count)} sessions and ${sizeName(2 * count)} tasks (CLI, warm daemon; ${parts.length} file(s), the sum), ${at}`,
					[importMs],
					[],
					'—',
				),
				target: answered ? 'answered by the daemon' : 'answered by the daemon (it was ended as silent; the CLI ran the import itself)',
				passed: answered,
			},
			bytesRow(
				`daemon RSS high-water after that import (${sizeName(count)} sessions; sharing is on: with any background push it set off)`,
				importHwm,
				rssLimit,
			),
			bytesRow(
				`RSS high-water of the process the daemon imported in (${sizeName(count)} sessions, ${helpers.peaks.size} process(es); given back when it ends)`,
				helperHwm,
			),
			bytesRow(`store on disk after the import (${sizeName(count)} sessions: ${store.parts})`, store.total),
		],
	};
}

interface ColdRun {
	node: number;
	cold: number;
	briefing: number;
	briefingHwm: number;
	list: number;
	blame: number;
	gitBlame: number;
	hwm: number;
	load: number;
}

/** One fresh daemon: its first answer, its first briefing, a page of the list and a blame, with its RSS. */
function coldRun(workspace: string, scope: string, round: number): ColdRun {
	const before = load();
	stopDaemon(workspace);
	const node = round % 2 === 0 ? nodeBaseline() : Number.NaN;
	const cold = baton(workspace, ['session', 'list', '--limit', '1', '--json']);
	const nodeAfter = Number.isNaN(node) ? nodeBaseline() : node;
	const briefing = baton(workspace, ['briefing', '--scope', scope, '--json']);
	const briefingHwm = highWater(daemonPid(workspace));
	const list = baton(workspace, ['session', 'list', '--json']);
	const gitFirst = round % 2 === 1;
	const gitBlame = gitFirst ? timedGit(workspace, ['blame', '--porcelain', '--', 'src/app.ts']) : Number.NaN;
	const blame = baton(workspace, ['blame', 'src/app.ts', '--json']);
	const gitAfter = gitFirst ? gitBlame : timedGit(workspace, ['blame', '--porcelain', '--', 'src/app.ts']);
	const hwm = highWater(daemonPid(workspace));
	stopDaemon(workspace);
	return { node: nodeAfter, cold, briefing, briefingHwm, list, blame, gitBlame: gitAfter, hwm, load: (before + load()) / 2 };
}

/** The tree's first page from a fresh editor backend (no daemon running), right after the window's first status. */
async function treeFirstPage(workspace: string): Promise<{ ms: number; bytes: number; hwm: number }> {
	const server = path.resolve(__dirname, '../dist/backend.js');
	return withServer(server, workspace, async (connection, pid) => {
		await connection.sendRequest(workspaceStatus, undefined);
		const started = performance.now();
		const answer = await connection.sendRequest(sessionTreeRoot, undefined);
		return { ms: performance.now() - started, bytes: JSON.stringify(answer).length, hwm: highWater(pid) };
	});
}

/** The first push and a full pull into a fresh clone (syncCliBench's run); a command that failed is a FAILED row saying how. */
async function syncRows(root: string, workspace: string, count: number): Promise<BenchRow[]> {
	// The run copies the workspace: a daemon's socket left behind cannot be copied.
	fs.rmSync(path.join(workspace, '.baton', 'daemon.sock'), { force: true });
	let sync: Run;
	try {
		sync = await oneRun(root, workspace, 0);
	} catch (error) {
		// A push or pull that fails is a FAILED row that says why (at 100,000 sessions, before exports and merges were paged: sql.js out of memory).
		const said = (error as Error).message
			.split('\n')
			.filter((line) => line.startsWith('baton'))
			.join(' / ');
		process.stderr.write(`  ${sizeName(count)} sessions: ${said}\n`);
		return [
			{
				name: `baton sync push, then pull into a fresh clone (CLI, daemon), ${sizeName(count)} sessions, load ${load().toFixed(1)}`,
				ours: Number.NaN,
				oursP99: Number.NaN,
				baseline: Number.NaN,
				baselineName: '—',
				ratio: Number.NaN,
				target: `both answer (${said.slice(0, 300)})`,
				passed: false,
			},
		];
	}
	process.stderr.write(
		`  ${sizeName(count)} sessions: push ${sync.push.toFixed(0)} ms (git push ${sync.gitPush.toFixed(0)}), pull ${sync.pull.toFixed(0)} ms (git fetch ${sync.gitFetch.toFixed(0)} + insert ${sync.insert.toFixed(0)}), ${sync.events} events\n`,
	);
	return [
		bytesRow(`daemon RSS high-water after that first push (${sizeName(count)} sessions)`, sync.pushHwm, rssLimit),
		bytesRow(`the fresh clone's daemon RSS high-water after its full pull (${sizeName(count)} sessions)`, sync.pullHwm, rssLimit),
		benchRow(
			`baton sync push (CLI, daemon), first push of the imported ${sizeName(count)} sessions (${sizeName(sync.events)} events), load ${sync.load.toFixed(1)}`,
			[sync.push],
			[sync.gitPush],
			'git push of the same refs',
			10,
		),
		benchRow(
			`baton sync pull (CLI, daemon) of it into a fresh clone, load ${sync.load.toFixed(1)}`,
			[sync.pull],
			[sync.gitFetch + sync.insert],
			'git fetch + native SQLite insert of the events',
			1.5,
		),
	];
}

export async function benchScale(sizes: readonly number[], rounds: number): Promise<BenchRow[]> {
	const rows: BenchRow[] = [];
	for (const count of sizes) {
		const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'baton-bench-scale-')));
		try {
			const seeded = await seedWorkspace(root, count);
			rows.push(...seeded.rows);
			const { workspace } = seeded;
			// The first epic's scope: its chain's tail hands over, its tasks are ranked.
			const scope = `epic:${taskId(1)}`;
			const runs: ColdRun[] = [];
			for (let round = 0; round < rounds; round++) runs.push(coldRun(workspace, scope, round));
			const at = `${sizeName(count)} sessions, load ${median(runs.map((r) => r.load)).toFixed(1)}`;
			const node = runs.map((r) => r.node);
			rows.push(
				row(
					`a cold daemon's first answer (baton session list --limit 1, no daemon running), ${at}`,
					runs.map((r) => r.cold),
					node,
					'node -e 0',
					{ ratio: 2 },
				),
				row(
					`first briefing in that fresh daemon (baton briefing --scope ${scope}), ${at}`,
					runs.map((r) => r.briefing),
					node,
					'node -e 0',
					{ ms: 1_000 },
				),
				row(
					`baton session list, one page (CLI, warm daemon), ${at}`,
					runs.map((r) => r.list),
					node,
					'node -e 0',
				),
				row(
					`baton blame of a 2,000-line file (CLI, warm daemon), ${at}`,
					runs.map((r) => r.blame),
					runs.map((r) => r.gitBlame),
					'git blame --porcelain',
				),
				bytesRow(`daemon RSS high-water after its first briefing (${sizeName(count)} sessions)`, median(runs.map((r) => r.briefingHwm)), rssLimit),
				bytesRow(`daemon RSS high-water after briefing, list and blame (${sizeName(count)} sessions)`, median(runs.map((r) => r.hwm)), rssLimit),
			);
			const tree = [];
			for (let round = 0; round < rounds; round++) tree.push(await treeFirstPage(workspace));
			rows.push(
				row(
					`Session Chains' first page over RPC (session/treeRoot, ${(median(tree.map((t) => t.bytes)) / 1024).toFixed(1)} KB) from a fresh backend, ${sizeName(count)} sessions, load ${load().toFixed(1)}`,
					tree.map((t) => t.ms),
					[],
					'—',
					{ ms: 100 },
				),
				bytesRow(`editor backend RSS high-water after the tree's first page (${sizeName(count)} sessions)`, median(tree.map((t) => t.hwm)), rssLimit),
			);
			rows.push(...(await syncRows(root, workspace, count)));
		} finally {
			fs.rmSync(root, { recursive: true, force: true });
		}
	}
	return rows;
}

if (require.main === module) {
	const { sizes, rounds } = sizesAndRounds();
	void benchScale(sizes, rounds).then((rows) => process.stdout.write(`${formatTable(rows)}\n`));
}
