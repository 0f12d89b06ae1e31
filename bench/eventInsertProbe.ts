/**
 * The floor under the pull's merge: 10,000 events like syncBench's inserted into a bare sql.js
 * database with `shared_events`' columns and indexes, one transaction per round, in the ways the
 * merge could do it. Prints this process's CPU time and the wall time of each.
 * Usage: node --import tsx bench/eventInsertProbe.ts [events] [rounds]
 *
 * - values: `INSERT … SELECT … FROM (VALUES …)` with bound parameters, bodies as UTF-8 bytes (the merge's way)
 * - jsonEach: one statement over `json_each` of all events as one JSON text
 * - packed: the nine short columns of a row as one bound JSON array
 * - noIndexes: values, without the three secondary indexes
 * - pregrown: values, into a database file grown beforehand (free pages, so the file does not grow)
 */
import type { Database } from 'sql.js';
import { loadSqlJs } from '../src/engine/storage/sqlJs';

type Row = [string, string, string, string, string, string, string, string, string, Record<string, unknown>];

const table =
	'CREATE TABLE shared_events (id text PRIMARY KEY, kind text NOT NULL, subject text NOT NULL, session_id text, actor text NOT NULL, machine text NOT NULL, machine_name text, author text, at text NOT NULL, body_json text NOT NULL, source text NOT NULL, received_at text NOT NULL);';
const indexes =
	'CREATE INDEX a ON shared_events (kind, subject); CREATE INDEX b ON shared_events (session_id, kind); CREATE INDEX c ON shared_events (source);';
const pragmas = 'PRAGMA foreign_keys = ON; PRAGMA locking_mode = EXCLUSIVE; PRAGMA journal_mode = MEMORY; PRAGMA temp_store = MEMORY;';

function rows(count: number): Row[] {
	return Array.from({ length: count }, (_, i) => {
		const session = `ses_bench_0_${Math.floor(i / 3)}`;
		const body = {
			lastTask: null,
			decisions: [{ id: `dec_${i}`, text: `chose option ${i} over the others because it keeps the parser simple`, rationale: null }],
			note: `finished part ${i} of the migration; the next step is part ${i + 1}`,
			nextAction: `start part ${i + 1}`,
		};
		return [
			`evt_01JABCDEFGHJKMNPQRS${String(i).padStart(7, '0')}_deadbeef`,
			['session.started', 'handoff.written', 'session.status'][i % 3] as string,
			session,
			session,
			'bench',
			'deadbeef',
			'box',
			'me',
			new Date(1.7e12 + i).toISOString(),
			body,
		];
	});
}

function run(db: Database, sqlText: string, params: (string | Uint8Array)[]): void {
	const statement = db.prepare(sqlText);
	statement.run(params);
	statement.free();
}

const ways: Record<string, (db: Database, all: Row[]) => void> = {
	values: (db, all) => {
		for (let i = 0; i < all.length; i += 800) {
			const chunk = all.slice(i, i + 800);
			const columns = Array.from({ length: 10 }, (_, k) => `CAST(column${k + 1} AS TEXT)`).join(', ');
			const params: (string | Uint8Array)[] = ['origin', 'now'];
			for (const r of chunk) {
				params.push(...r.slice(0, 9).map(String), Buffer.from(JSON.stringify(r[9])));
			}
			run(db, `INSERT INTO shared_events SELECT ${columns}, ?, ? FROM (VALUES ${chunk.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')})`, params);
		}
	},
	jsonEach: (db, all) => {
		const text = JSON.stringify(all.map((r) => [...r.slice(0, 9), JSON.stringify(r[9])]));
		const columns = Array.from({ length: 10 }, (_, k) => `value->>${k}`).join(', ');
		run(db, `INSERT INTO shared_events SELECT ${columns}, ?, ? FROM json_each(CAST(? AS TEXT))`, ['origin', 'now', Buffer.from(text)]);
	},
	packed: (db, all) => {
		for (let i = 0; i < all.length; i += 4000) {
			const chunk = all.slice(i, i + 4000);
			const columns = Array.from({ length: 9 }, (_, k) => `column1->>${k}`).join(', ');
			const params: (string | Uint8Array)[] = ['origin', 'now'];
			for (const r of chunk) {
				params.push(JSON.stringify(r.slice(0, 9)), Buffer.from(JSON.stringify(r[9])));
			}
			run(db, `INSERT INTO shared_events SELECT ${columns}, CAST(column2 AS TEXT), ?, ? FROM (VALUES ${chunk.map(() => '(?, ?)').join(', ')})`, params);
		}
	},
};

async function main(): Promise<void> {
	const count = Number(process.argv[2] ?? 10_000);
	const rounds = Number(process.argv[3] ?? 5);
	const SQL = await loadSqlJs();
	const all = rows(count);
	const variants: [string, (db: Database) => void, string][] = [
		['values', (db) => ways['values']?.(db, all), table + indexes],
		['jsonEach', (db) => ways['jsonEach']?.(db, all), table + indexes],
		['packed', (db) => ways['packed']?.(db, all), table + indexes],
		['noIndexes', (db) => ways['values']?.(db, all), table],
		['pregrown', (db) => ways['values']?.(db, all), table + indexes + 'CREATE TABLE pad (b); INSERT INTO pad VALUES (zeroblob(40000000)); DROP TABLE pad;'],
	];
	for (let round = 0; round < rounds; round++) {
		for (const [name, insert, schema] of variants) {
			const db = new SQL.Database();
			db.exec(pragmas + schema);
			const cpu = process.cpuUsage();
			const t = performance.now();
			db.exec('BEGIN');
			insert(db);
			db.exec('COMMIT');
			const wall = performance.now() - t;
			const used = process.cpuUsage(cpu);
			const held = db.exec('SELECT count(*) FROM shared_events')[0]?.values[0]?.[0];
			process.stdout.write(`${name}: ${held} events, wall ${wall.toFixed(0)} ms, cpu ${((used.user + used.system) / 1000).toFixed(0)} ms\n`);
			db.close();
		}
	}
}

void main();
