/**
 * One durable write, Baton vs better-sqlite3 (WAL, synchronous=FULL), alternating, for --cpu-prof
 * and strace: `node --import tsx bench/commitProbe.ts [MB] [commits] [ours|base|both]`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { silentLogger, systemClock } from '../src/engine/ports';
import { JournalStore } from '../src/engine/storage/journalStore';
import { migrations } from '../src/engine/storage/migrations.generated';
import { decisions } from '../src/engine/storage/schema';
import { median, percentile } from './stats';

const payload = 'x'.repeat(900);

async function main(): Promise<void> {
	if (process.env.PROBE_NO_SYNC) {
		// CPU of everything but the disk: the journal's fdatasync made a no-op (measurement only).
		(fs as { fdatasyncSync: (fd: number) => void }).fdatasyncSync = () => undefined;
	}
	const mb = Number(process.argv[2] ?? 1);
	const commits = Number(process.argv[3] ?? 2000);
	const mode = process.argv[4] ?? 'both';
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-probe-'));
	try {
		const store = await JournalStore.open({ dir: path.join(dir, 'baton'), clock: systemClock, log: silentLogger });
		store.sqlite.exec('BEGIN');
		const rows = Math.round((mb * 1024 * 1024) / 1100);
		for (let i = 0; i < rows; i++) {
			store.sqlite.run('INSERT INTO audit_log (at, actor, operation, entity_type, entity_id, details_json) VALUES (?, ?, ?, ?, ?, ?)', [
				'2024',
				'bench',
				'seed',
				'task',
				`T${i}`,
				JSON.stringify({ payload, i }),
			]);
		}
		store.sqlite.exec('COMMIT');
		await store.compact();
		const bsq = new Database(path.join(dir, 'bsq.db'));
		bsq.pragma('journal_mode = WAL');
		bsq.pragma('synchronous = FULL');
		for (const m of migrations) for (const s of m.statements) bsq.exec(s);
		const ins = bsq.prepare('INSERT INTO decisions (id, session_id, kind, text, rationale, task_id, created_at) VALUES (?, NULL, ?, ?, NULL, NULL, ?)');
		const ours: number[] = [];
		const base: number[] = [];
		let oursCpu = 0;
		let baseCpu = 0;
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
			const a = async () => {
				const c = process.cpuUsage();
				const t = performance.now();
				await store.write((db) => db.insert(decisions).values(row).run());
				ours.push(performance.now() - t);
				const d = process.cpuUsage(c);
				oursCpu += d.user + d.system;
			};
			const b = () => {
				const c = process.cpuUsage();
				const t = performance.now();
				bsq.transaction(() => ins.run(`b_${i}`, 'decision', payload, row.createdAt)).immediate();
				base.push(performance.now() - t);
				const d = process.cpuUsage(c);
				baseCpu += d.user + d.system;
			};
			if (mode === 'ours') await a();
			else if (mode === 'base') b();
			else if (i % 2 === 0) {
				await a();
				b();
			} else {
				b();
				await a();
			}
		}
		const n = (x: number[]) => `median ${median(x).toFixed(3)} p95 ${percentile(x, 95).toFixed(3)}`;
		process.stdout.write(
			`@${mb}MB ours ${n(ours)} cpu/op ${(oursCpu / commits).toFixed(0)}µs | base ${n(base)} cpu/op ${(baseCpu / commits).toFixed(0)}µs | ratio ${mode === 'both' ? median(ours.map((o, i) => o / (base[i] as number))).toFixed(2) : '-'}\n`,
		);
		store.close();
		bsq.close();
	} finally {
		fs.rmSync(dir, { recursive: true, force: true });
	}
}
void main();
