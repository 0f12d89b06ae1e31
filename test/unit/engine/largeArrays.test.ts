/**
 * No crash at any size: spreading an array into a call (`Math.max(0, ...xs)`, `out.push(...xs)`) puts
 * every element on the stack and throws `RangeError: Maximum call stack size exceeded` past about
 * 120,000 elements. Both paths seen crashing at 100k sessions run here on a real sql.js database,
 * sized past that limit; eslint.config.mjs keeps spread arguments out of src/.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { maxOf, minOf, Places, pushAll } from '../../../src/engine/arrays';
import type { ImportIssue } from '../../../src/engine/interop/importTypes';
import { planTasks } from '../../../src/engine/interop/taskPlanner';
import { capturingDrizzle } from '../../../src/engine/storage/capturingDrizzle';
import { migrations } from '../../../src/engine/storage/migrations.generated';
import { migrationStatements } from '../../../src/engine/storage/migrator';
import { loadSqlJs } from '../../../src/engine/storage/sqlJs';
import { StatementCache } from '../../../src/engine/storage/statementCache';
import { recordEventStream } from '../../../src/engine/sync/recordEvents';

/** Past the stack's limit on spread arguments (about 120,000 on this runtime's default stack). */
const many = 200_000;

async function bareDb() {
	const sqlite = new (await loadSqlJs()).Database();
	for (const migration of migrations) {
		for (const [statement, params] of migrationStatements(migration)) sqlite.run(statement, params);
	}
	const rows = (count: number, select: string, into: string) =>
		sqlite.run(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${count}) INSERT INTO ${into} SELECT ${select} FROM n`);
	return { sqlite, db: capturingDrizzle(new StatementCache(sqlite), () => undefined), rows };
}

void describe('arrays of any size', () => {
	void it('the helpers take half a million items', () => {
		const items = Array.from({ length: 500_000 }, (_, i) => i);
		assert.equal(pushAll([-1], items).length, 500_001);
		assert.equal(maxOf(items, -1), 499_999);
		assert.equal(minOf(items, 1), 0);
		assert.equal(maxOf([], 7), 7);
		assert.ok(Number.isNaN(maxOf([1, NaN, 3], 0)), 'NaN wins, as with Math.max');
		assert.ok(Number.isNaN(minOf([1, NaN, 3], 5)), 'NaN wins, as with Math.min');
	});

	void it('numbers each distinct value by the order it was first seen', () => {
		const places = new Places<string>();
		const ids = Array.from({ length: 500_000 }, (_, i) => `T${i % 200_000}`);
		const numbers = ids.map((id) => places.of(id));
		assert.equal(places.values.length, 200_000);
		assert.deepEqual(numbers.slice(0, 3), [0, 1, 2]);
		assert.equal(numbers[200_001], 1, 'a value seen before keeps its place');
		assert.equal(places.values[199_999], 'T199999');
	});

	void it('plans an import into a workspace with 200,000 tasks', async () => {
		const { sqlite, db, rows } = await bareDb();
		try {
			rows(
				many,
				`'T' || i, i, 'task ' || i, 'task', 'pending', 'medium', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z'`,
				'tasks (id, seq, title, type, status, priority, created_at, updated_at)',
			);
			const errors: ImportIssue[] = [];
			const warnings: ImportIssue[] = [];
			const task = {
				record: 'tasks[0]',
				externalId: 'X1',
				contentHash: 'h',
				preferredId: 'T5',
				title: 'from elsewhere',
				description: null,
				type: 'task',
				status: 'pending',
				priority: 'medium',
				phase: null,
				parent: null,
				dependsOn: [],
				createdAt: '2026-01-01T00:00:00.000Z',
				updatedAt: '2026-01-01T00:00:00.000Z',
				completedAt: null,
			} as const;
			const plan = planTasks(
				db,
				{ source: 'cleo-db', path: 'tasks.db', tasks: [{ ...task, dependsOn: [] }], sessions: [], settings: [], taskRefSource: null, errors: [] },
				new Map(),
				errors,
				warnings,
			);
			assert.deepEqual(errors, []);
			assert.equal(plan.idOf.get('X1'), `T${many + 1}`, 'T5 is taken: the next number after the highest');
		} finally {
			sqlite.close();
		}
	});

	void it('exports 200,000 imported sessions as shared events', async () => {
		const { sqlite, db, rows } = await bareDb();
		try {
			rows(
				many,
				`'ses_' || i, 'imported ' || i, 'ended', '{"type":"global"}', 'global', '{}', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', '2026-01-02T00:00:00.000Z', '2026-01-02T00:00:00.000Z'`,
				'sessions (id, name, status, scope_json, scope_key, stats_json, started_at, last_activity, ended_at, updated_at)',
			);
			rows(
				many,
				`'cleo-sessions', 'session', 'S' || i, 'ses_' || i, 'h', '2026-01-03T00:00:00.000Z'`,
				'import_records (source, entity_type, external_id, entity_id, content_hash, imported_at)',
			);
			// Tasks are read a chunk of 5,000 rows at a time, as import records are: no row lost or read twice at a chunk's edge.
			rows(
				12_001,
				`'T' || i, i, 'task ' || i, 'task', 'pending', 'medium', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z'`,
				'tasks (id, seq, title, type, status, priority, created_at, updated_at)',
			);
			const events = Array.from(recordEventStream(db));
			assert.equal(events.filter((e) => e.kind === 'session.started').length, many);
			assert.equal(events.filter((e) => e.kind === 'session.status').length, many);
			assert.equal(events.filter((e) => e.kind === 'import.recorded').length, many);
			assert.equal(new Set(events.filter((e) => e.kind === 'import.recorded').map((e) => e.subject)).size, many);
			const changed = events.filter((e) => e.kind === 'task.changed').map((e) => e.subject);
			assert.deepEqual([changed.length, new Set(changed).size, changed[0], changed.at(-1)], [12_001, 12_001, 'T1', 'T12001']);
		} finally {
			sqlite.close();
		}
	});
});
