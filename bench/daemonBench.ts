/**
 * Daemon benchmarks (issue #12, item 7): `baton hook` SessionStart and PostToolUse end to end at 40
 * and at 10,000 sessions, and `baton session start`, `baton briefing`, `baton checkpoint list` at
 * 10,000 sessions, each as a whole process through a warm daemon against `node -e 0`, run side by
 * side with the order alternating. Medians and p95; a row whose measurement failed prints FAILED.
 * Also the client's receive side alone: a 50 MB answer read through its framing in 64 KiB chunks
 * against one Buffer.concat + JSON.parse of the same bytes (it was quadratic: 74 s for 70 MB).
 *   npx tsx bench/daemonBench.ts [--quick] [--sessions N]
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ContentLengthFrames } from '../src/cli/contentLengthFrames';
import { Engine } from '../src/engine/engine';
import { silentLogger } from '../src/engine/ports';
import { median, percentile } from './stats';

export interface DaemonRow {
	name: string;
	ours?: { median: number; p95: number };
	base?: { median: number; p95: number };
	ratio?: number;
	target: string;
	failure?: string;
}

const cli = path.resolve(process.env['BATON_TEST_CLI'] ?? path.join(__dirname, '..', 'dist', 'cli.js'));

/** A workspace with `sessions` ended sessions (with handoffs) and twice as many tasks, seeded in one write. */
async function seeded(root: string, sessions: number): Promise<void> {
	spawnSync('git', ['init', '-q', root]);
	const engine = await Engine.open({
		workspaceRoot: root,
		log: silentLogger,
		create: true,
		git: { read: async () => null },
		config: { maxConcurrentSessions: 100 },
	});
	const store = engine.store;
	const now = new Date().toISOString();
	await store.write(() => {
		for (let i = 1; i <= sessions * 2; i++) {
			store.execCaptured('INSERT INTO tasks (id, seq, title, type, status, priority, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)', [
				`T${i}`,
				i,
				`Task ${i}`,
				'task',
				i % 7 === 0 ? 'done' : 'pending',
				'medium',
				now,
				now,
			]);
			if (i > 3 && i % 3 === 0) {
				store.execCaptured('INSERT INTO task_dependencies (task_id, depends_on_id) VALUES (?, ?)', [`T${i}`, `T${i - 3}`]);
			}
		}
		let previous: string | null = null;
		for (let i = 0; i < sessions; i++) {
			const id = `ses_${String(20200101000000 + i)}_${(i % 0xffffff).toString(16).padStart(6, '0')}`;
			const at = new Date(Date.now() - (sessions - i) * 60_000).toISOString();
			store.execCaptured(
				`INSERT INTO sessions (id, name, status, scope_json, scope_key, previous_session_id, stats_json, resume_count, started_at, last_activity, ended_at, updated_at) VALUES (?, ?, 'ended', '{"type":"global"}', 'global', ?, '{}', 0, ?, ?, ?, ?)`,
				[id, `Session ${i}`, previous, at, at, at, at],
			);
			store.execCaptured('INSERT INTO handoffs (session_id, handoff_json, created_at) VALUES (?, ?, ?)', [
				id,
				JSON.stringify({
					lastTask: null,
					tasksCompleted: [],
					tasksCreated: [],
					decisionsRecorded: 0,
					decisions: [],
					nextSuggested: [],
					openBlockers: [],
					openBugs: [],
					note: `note ${i}`,
					nextAction: null,
				}),
				at,
			]);
			previous = id;
		}
	});
	await store.compact();
	engine.close();
}

function timed(args: string[], cwd: string, input: string): number {
	const started = performance.now();
	const result = spawnSync(process.execPath, args, {
		cwd,
		input,
		encoding: 'utf8',
		env: { ...process.env, BATON_ACTOR: 'bench', BATON_DAEMON_BUDGET_MS: '20000' },
	});
	const ms = performance.now() - started;
	if (result.status !== 0) {
		throw new Error(`${args.join(' ')} exited ${result.status}: ${result.stderr.slice(0, 300)}`);
	}
	return ms;
}

/** `between` runs after each Baton run, untimed (e.g. ending the session a `session start` began). */
function row(name: string, target: string, runs: number, cwd: string, args: () => string[], input = '', between: () => void = () => undefined): DaemonRow {
	try {
		timed([cli, ...args()], cwd, input); // warm the daemon (and its engine) first
		between();
		const ours: number[] = [];
		const base: number[] = [];
		for (let i = 0; i < runs; i++) {
			// Alternate which runs first, so neither always inherits the other's warm caches.
			if (i % 2 === 0) {
				ours.push(timed([cli, ...args()], cwd, input));
				between();
				base.push(timed(['-e', '0'], cwd, ''));
			} else {
				base.push(timed(['-e', '0'], cwd, ''));
				ours.push(timed([cli, ...args()], cwd, input));
				between();
			}
		}
		return {
			name,
			target,
			ours: { median: median(ours), p95: percentile(ours, 95) },
			base: { median: median(base), p95: percentile(base, 95) },
			ratio: median(ours.map((v, i) => v / (base[i] as number))),
		};
	} catch (error) {
		return { name, target, failure: (error as Error).message };
	}
}

/** The daemon client reading a 50 MB answer in 64 KiB chunks (ContentLengthFrames + JSON.parse) ÷ one concat and parse of it. */
export function decodeRow(runs: number): DaemonRow {
	const name = 'daemon client reads a 50 MB answer (64 KiB chunks)';
	try {
		const body = Buffer.from(
			JSON.stringify({
				jsonrpc: '2.0',
				id: 1,
				result: { rows: Array.from({ length: 500_000 }, (_, i) => ({ id: `ses_${i}`, name: `session ${i} `.padEnd(60, '.') })) },
			}),
		);
		const stream = Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`), body]);
		const chunks: Buffer[] = [];
		for (let at = 0; at < stream.length; at += 65_536) chunks.push(stream.subarray(at, at + 65_536));
		const ours = (): number => {
			const started = performance.now();
			const frames = new ContentLengthFrames();
			let read = 0;
			for (const chunk of chunks) for (const b of frames.push(chunk)) read += (JSON.parse(b.toString('utf8')) as { id: number }).id;
			if (read !== 1) throw new Error('the answer was not read');
			return performance.now() - started;
		};
		const base = (): number => {
			const started = performance.now();
			const all = Buffer.concat(chunks);
			JSON.parse(all.subarray(all.indexOf('\r\n\r\n') + 4).toString('utf8'));
			return performance.now() - started;
		};
		const mine: number[] = [];
		const theirs: number[] = [];
		for (let i = 0; i < runs; i++) {
			if (i % 2 === 0) {
				mine.push(ours());
				theirs.push(base());
			} else {
				theirs.push(base());
				mine.push(ours());
			}
		}
		return {
			name,
			target: '≤ 1.5×',
			ours: { median: median(mine), p95: percentile(mine, 95) },
			base: { median: median(theirs), p95: percentile(theirs, 95) },
			ratio: median(mine.map((v, i) => v / (theirs[i] as number))),
		};
	} catch (error) {
		return { name, target: '≤ 1.5×', failure: (error as Error).message };
	}
}

export function formatDaemonRows(rows: DaemonRow[]): string {
	const ms = (v: number): string => `${v.toFixed(1)} ms`;
	const lines = [
		'| benchmark | Baton median | Baton p95 | node -e 0 median | node -e 0 p95 | ratio | target |',
		'| --- | --- | --- | --- | --- | --- | --- |',
	];
	for (const r of rows) {
		lines.push(
			r.ours && r.base && r.ratio !== undefined
				? `| ${r.name} | ${ms(r.ours.median)} | ${ms(r.ours.p95)} | ${ms(r.base.median)} | ${ms(r.base.p95)} | ${r.ratio.toFixed(2)}× | ${r.target} |`
				: `| ${r.name} | FAILED | | | | | ${r.target} (${r.failure ?? 'no result'}) |`,
		);
	}
	return lines.join('\n');
}

export async function benchDaemon(sizes: number[], runs: number): Promise<DaemonRow[]> {
	const rows: DaemonRow[] = [decodeRow(runs)];
	for (const sessions of sizes) {
		const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'baton-bench-daemon-')));
		try {
			await seeded(root, sessions);
			const agentId = '6f1c2a9e-3b7d-4c21-9e8a-5d4f0b7a1c33';
			const payload = (event: string, extra: Record<string, unknown>): string =>
				JSON.stringify({ session_id: agentId, cwd: root, hook_event_name: event, transcript_path: path.join(root, 'none.jsonl'), ...extra });
			if (sessions >= 1000) {
				let n = 0;
				// Each start is ended again (untimed), so the workspace stays under its concurrent-session limit.
				const endActive = (): void => void timed([cli, 'session', 'end', '--note', 'bench'], root, '');
				rows.push(
					row(
						`baton session start, ${sessions} sessions`,
						'≤ 2×',
						runs,
						root,
						() => ['session', 'start', '--name', `bench ${n++}`, '--scope', `task:T${n}`],
						'',
						endActive,
					),
				);
				const last = `ses_${String(20200101000000 + sessions - 1)}_${((sessions - 1) % 0xffffff).toString(16).padStart(6, '0')}`;
				rows.push(row(`baton briefing, ${sessions} sessions`, '≤ 2×', runs, root, () => ['briefing', '--session', last]));
				rows.push(row(`baton checkpoint list, ${sessions} sessions`, '≤ 2×', runs, root, () => ['checkpoint', 'list']));
			}
			// After the commands: the hooks' agent session stays active, and `session end` without an id would have to ask which.
			rows.push(
				row(
					`baton hook SessionStart, ${sessions} sessions`,
					'≤ 1.5×',
					runs,
					root,
					() => ['hook', 'session-start'],
					payload('SessionStart', { source: 'startup' }),
				),
			);
			const edit = payload('PostToolUse', {
				tool_name: 'Edit',
				tool_input: { file_path: path.join(root, 'a.ts'), old_string: 'a', new_string: 'b' },
				tool_response: { success: true },
			});
			rows.push(row(`baton hook PostToolUse (Edit), ${sessions} sessions`, '≤ 1.5×', runs, root, () => ['hook', 'post-tool-use'], edit));
		} finally {
			spawnSync(process.execPath, [cli, 'daemon', 'stop'], { cwd: root });
			fs.rmSync(root, { recursive: true, force: true });
		}
	}
	return rows;
}

if (require.main === module) {
	const quick = process.argv.includes('--quick');
	const at = process.argv.indexOf('--sessions');
	const large = at > 0 ? Number(process.argv[at + 1]) : 10_000;
	void benchDaemon([40, large], quick ? 7 : 21).then((rows) => process.stdout.write(`${formatDaemonRows(rows)}\n`));
}
