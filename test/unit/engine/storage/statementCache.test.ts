import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { eq } from 'drizzle-orm';
import { JournalStore } from '../../../../src/engine/storage/journalStore';
import { loadSqlJs } from '../../../../src/engine/storage/sqlJs';
import { StatementCache } from '../../../../src/engine/storage/statementCache';
import { tasks } from '../../../../src/engine/storage/schema';
import { FakeClock, MemoryLogger, taskRow, tempDir } from '../../helpers';

const open = (dir: string) => JournalStore.open({ dir, clock: new FakeClock(), log: new MemoryLogger(), lockTimeoutMs: 3_000 });

void describe('statement cache', () => {
	void it('reuses a statement once its query freed it, and never lends one statement twice', async () => {
		const SQL = await loadSqlJs();
		const sqlite = new SQL.Database();
		const cache = new StatementCache(sqlite);
		sqlite.run('CREATE TABLE t (n INTEGER)');
		const insert = cache.prepare('INSERT INTO t (n) VALUES (?)');
		insert.run([1]);
		insert.free();
		const again = cache.prepare('INSERT INTO t (n) VALUES (?)');
		assert.equal(again, insert, 'the freed statement is lent again');
		const nested = cache.prepare('INSERT INTO t (n) VALUES (?)');
		assert.notEqual(nested, again, 'a statement still lent is not handed out a second time');
		again.run([2]);
		nested.run([3]);
		nested.free();
		again.free();
		assert.deepEqual(sqlite.exec('SELECT n FROM t ORDER BY n')[0]?.values, [[1], [2], [3]]);
		// A query that throws leaves its statement lent (drizzle frees only on success); settle() takes it back.
		const failing = cache.prepare('INSERT INTO t (n) VALUES (?)');
		assert.throws(() => failing.run([{} as never]));
		assert.notEqual(cache.prepare('SELECT 1'), failing);
		cache.settle();
		assert.equal(cache.prepare('INSERT INTO t (n) VALUES (?)'), failing);
		sqlite.close();
	});

	void it('frees the least recently used statement past its limit, and everything on clear()', async () => {
		const SQL = await loadSqlJs();
		const sqlite = new SQL.Database();
		const cache = new StatementCache(sqlite, 2);
		const a = cache.prepare('SELECT 1');
		a.free();
		const b = cache.prepare('SELECT 2');
		b.free();
		cache.prepare('SELECT 1').free(); // touch: SELECT 2 is now the oldest
		const c = cache.prepare('SELECT 3');
		c.free();
		assert.throws(() => b.step(), /Statement closed/);
		assert.equal(cache.prepare('SELECT 1'), a);
		a.free();
		cache.clear();
		assert.throws(() => a.step(), /Statement closed/);
		assert.throws(() => c.step(), /Statement closed/);
		// The connection still exports (which frees statements itself) and works afterwards.
		assert.ok(sqlite.export().length > 0);
		assert.deepEqual(sqlite.exec('SELECT 4')[0]?.values, [[4]]);
		sqlite.close();
	});

	void it('keeps a store correct across failing writes, compaction and reopening', async (t) => {
		const dir = tempDir(t);
		const store = await open(dir);
		await store.write((db) => db.insert(tasks).values(taskRow(1)).run());
		// The same INSERT fails on the primary key inside drizzle, then succeeds with the next row.
		await assert.rejects(store.write((db) => db.insert(tasks).values(taskRow(1)).run()));
		await store.write((db) => db.insert(tasks).values(taskRow(2)).run());
		assert.equal(String(store.sqlite.exec('PRAGMA journal_mode')[0]?.values[0]?.[0]), 'memory');
		await store.compact();
		assert.equal(String(store.sqlite.exec('PRAGMA journal_mode')[0]?.values[0]?.[0]), 'memory', 'set again after export() reopened the connection');
		await store.write((db) => db.insert(tasks).values(taskRow(3)).run());
		await store.write((db) => db.update(tasks).set({ title: 'renamed' }).where(eq(tasks.id, 'T3')).run());
		const read = (s: JournalStore) => s.read((db) => db.select({ id: tasks.id, title: tasks.title }).from(tasks).orderBy(tasks.id).all());
		const before = await read(store);
		assert.deepEqual(
			before.map((r) => r.id),
			['T1', 'T2', 'T3'],
		);
		store.close();
		const reopened = await open(dir);
		t.after(() => reopened.close());
		assert.deepEqual(await read(reopened), before);
		assert.equal(before[2]?.title, 'renamed');
	});
});
