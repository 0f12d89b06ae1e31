import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { Engine } from '../../../../src/engine/engine';
import { migrations } from '../../../../src/engine/storage/migrations.generated';
import { MemoryLogger, noGit, openTestEngine } from '../../helpers';
import { compareKept, random, randomWrites, tableWrites, type KeptTable } from '../keptTables';

/** What `session_scopes` must say: the aggregate over every session, computed here from scratch. */
const aggregate = `SELECT scope_key, count(*) AS session_count, sum(status = 'active') AS active_count, max(last_activity) AS last_activity,
	min(started_at || ' ' || id) AS first_session FROM sessions GROUP BY scope_key ORDER BY scope_key`;
const kept = 'SELECT scope_key, session_count, active_count, last_activity, first_session FROM session_scopes ORDER BY scope_key';
/** And what `session_status_counts` must say. */
const statusAggregate = 'SELECT status, count(*) AS session_count FROM sessions GROUP BY status ORDER BY status';
const statusKept = 'SELECT status, session_count FROM session_status_counts ORDER BY status';

const tables: KeptTable[] = [
	{ name: 'session_scopes', kept, aggregate },
	{ name: 'session_status_counts', kept: statusKept, aggregate: statusAggregate },
];

void describe('session_scopes and session_status_counts, kept by SQLite triggers', () => {
	void it('equals the aggregate over every session after each insert, update, move and delete, taken in any order', async (t) => {
		const { engine } = await openTestEngine(t);
		const next = random(7);
		const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)] as T;
		const scopes = ['global', 'epic:T1', 'task:T2', 'custom:a', 'custom:b'];
		const statuses = ['active', 'ended', 'suspended', 'orphaned'];
		const time = (): string => new Date(Date.UTC(2026, 0, 1) + Math.floor(next() * 1_000) * 60_000).toISOString();
		let made = 0;
		const { ids, update, removeWhere } = tableWrites(engine, 'sessions');
		const steps: [string, () => Promise<void>][] = [
			[
				'an insert',
				() =>
					engine.store.write(() => {
						made += 1;
						const at = time();
						engine.store.execCaptured(
							`INSERT INTO sessions (id, name, status, scope_json, scope_key, stats_json, resume_count, started_at, last_activity, updated_at)
							 VALUES (?, ?, ?, '{"type":"global"}', ?, '{}', 0, ?, ?, ?)`,
							[`ses_${String(made).padStart(4, '0')}`, `s${made}`, pick(statuses), pick(scopes), at, at, at],
						);
					}),
			],
			['a status change', async () => update(pick(await ids()), 'status = ?', [pick(statuses)])],
			['newer activity', async () => update(pick(await ids()), 'last_activity = ?', ['2027-01-01T00:00:00.000Z'])],
			['older activity', async () => update(pick(await ids()), 'last_activity = ?', ['2025-01-01T00:00:00.000Z'])],
			['a move to another scope', async () => update(pick(await ids()), 'scope_key = ?', [pick(scopes)])],
			['a new start time', async () => update(pick(await ids()), 'started_at = ?', [time()])],
			['a name only', async () => update(pick(await ids()), 'name = ?', ['renamed'])],
			['a delete', async () => removeWhere('id', pick(await ids()) ?? null)],
			['a scope emptied at once', async () => removeWhere('scope_key', pick(scopes))],
		];
		await randomWrites(next, steps, (step) => engine.store.read((db) => compareKept(db, tables, step)));
		assert.ok((await ids()).length > 10, 'sessions are left at the end');
	});

	void it('is the same in a process that replays the journal, and is filled for a store made before it existed', async (t) => {
		const { engine, root } = await openTestEngine(t);
		const first = await engine.sessions.start({ name: 'one', scope: 'global', actor: 'test' });
		await engine.sessions.end({ id: first.session.id, actor: 'test' });
		await engine.sessions.start({ name: 'two', scope: 'global', actor: 'test' });
		await engine.tasks.add({ title: 'a task', actor: 'test' });
		await engine.sessions.start({ name: 'three', scope: 'task:T1', actor: 'test' });
		// Another process reads what this one wrote through the journal (its triggers ran on replay).
		const other = await Engine.open({ workspaceRoot: root, log: new MemoryLogger(), git: noGit });
		t.after(() => other.close());
		const expected = await engine.store.read((db) => db.all(sql.raw(aggregate)));
		const expectedStatus = await engine.store.read((db) => db.all(sql.raw(statusAggregate)));
		assert.equal(expected.length, 2);
		assert.equal(expectedStatus.length, 2, 'active and ended');
		assert.deepEqual(await other.store.read((db) => db.all(sql.raw(kept))), expected);
		assert.deepEqual(await other.store.read((db) => db.all(sql.raw(statusKept))), expectedStatus);
		assert.deepEqual(await other.briefings.counts(), { ...(await engine.briefings.counts()), active: 2, ended: 1 }, 'the status the window reads');
		// The migration's own fill: the table emptied and filled again by its INSERT … SELECT.
		const fill = migrations.find((m) => m.tag === '0013_session_scopes')?.statements.find((s) => s.startsWith('INSERT INTO `session_scopes`'));
		assert.ok(fill, 'the migration fills the table from the sessions it finds');
		await engine.store.write(() => {
			engine.store.execCaptured('DELETE FROM session_scopes', []);
			engine.store.execCaptured(fill, []);
		});
		assert.deepEqual(await engine.store.read((db) => db.all(sql.raw(kept))), expected);
		const statusFill = migrations
			.find((m) => m.tag === '0014_session_status_counts')
			?.statements.find((s) => s.startsWith('INSERT INTO `session_status_counts`'));
		assert.ok(statusFill, 'the status migration fills its table from the sessions it finds');
		await engine.store.write(() => {
			engine.store.execCaptured('DELETE FROM session_status_counts', []);
			engine.store.execCaptured(statusFill, []);
		});
		assert.deepEqual(await engine.store.read((db) => db.all(sql.raw(statusKept))), expectedStatus);
	});
});
