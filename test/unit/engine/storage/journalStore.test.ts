import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { getTableConfig } from 'drizzle-orm/sqlite-core';
import { BatonError } from '../../../../src/engine/errors';
import { encodeRecord, headerSize } from '../../../../src/engine/storage/journalFormat';
import { JournalStore } from '../../../../src/engine/storage/journalStore';
import * as schema from '../../../../src/engine/storage/schema';
import { tasks } from '../../../../src/engine/storage/schema';
import { FakeClock, MemoryLogger, snapshotFiles, tempDir, taskRow } from '../../helpers';

const open = (dir: string, log = new MemoryLogger(), extra: { compactAfterBytes?: number; keepPreviousUpTo?: number } = {}) =>
	JournalStore.open({ dir, clock: new FakeClock(), log, lockTimeoutMs: 3_000, ...extra });

const task = taskRow;

const ids = (store: JournalStore) =>
	store.read((db) =>
		db
			.select({ id: tasks.id })
			.from(tasks)
			.all()
			.map((r) => r.id),
	);

void describe('journal store', () => {
	void it('makes writes durable and replays them on open; a throwing write leaves no trace', async (t) => {
		const dir = tempDir(t);
		const a = await open(dir);
		await a.write((db) => db.insert(tasks).values(task(1)).run());
		await assert.rejects(
			a.write((db) => {
				db.insert(tasks).values(task(2)).run();
				throw new Error('abort');
			}),
			/abort/,
		);
		assert.deepEqual(await ids(a), ['T1']);
		const seq = a.sequence;
		a.close();
		const b = await open(dir);
		assert.deepEqual(await ids(b), ['T1']);
		assert.equal(b.sequence, seq);
		b.close();
	});

	void it('rolls back a transaction for real (drizzle’s sql.js suite skips this case)', async (t) => {
		const store = await open(tempDir(t));
		t.after(() => store.close());
		await store.write((db) => db.insert(tasks).values(task(1)).run());
		await assert.rejects(
			store.write((db) => {
				db.update(tasks).set({ title: 'changed' }).run();
				db.insert(tasks).values(task(1)).run(); // primary key violation
			}),
		);
		assert.equal((await store.read((db) => db.select().from(tasks).get()))?.title, 'task 1');
	});

	void it('keeps no second full copy past its size: the older one goes once the new snapshot is in place', async (t) => {
		const dir = tempDir(t);
		const dbFile = path.join(dir, 'baton.db');
		const small = await open(dir);
		await small.write((db) => db.insert(tasks).values(task(1)).run());
		await small.compact();
		assert.ok(fs.existsSync(`${dbFile}.prev`) && fs.existsSync(`${dbFile}.journal.prev`), 'a small store keeps its previous pair');
		small.close();

		const log = new MemoryLogger();
		const large = await open(dir, log, { keepPreviousUpTo: 1 });
		await large.write((db) => db.insert(tasks).values(task(2)).run());
		await large.compact();
		assert.ok(!fs.existsSync(`${dbFile}.prev`) && !fs.existsSync(`${dbFile}.journal.prev`), 'neither the previous snapshot nor its journal');
		assert.ok(
			log.lines.some((l) => l.message.includes('no previous snapshot kept')),
			JSON.stringify(log.lines),
		);
		await large.write((db) => db.insert(tasks).values(task(3)).run());
		large.close();

		const again = await open(dir);
		assert.deepEqual(await ids(again), ['T1', 'T2', 'T3'], 'the new snapshot verifies against its checksum and the journal continues it');
		again.close();
		// The journal's header still tells a deleted snapshot from a new store.
		fs.rmSync(dbFile);
		await assert.rejects(open(dir), (e: unknown) => BatonError.is(e, 'corruptDatabase') && e.message.includes('continues from record'));
	});

	void it('shares one database between instances, across compactions', async (t) => {
		const dir = tempDir(t);
		const a = await open(dir);
		const b = await open(dir);
		t.after(() => (a.close(), b.close()));
		await a.write((db) => db.insert(tasks).values(task(1)).run());
		assert.deepEqual(await ids(b), ['T1']);
		await b.write((db) => db.insert(tasks).values(task(2)).run());
		await b.compact();
		await a.write((db) => db.insert(tasks).values(task(3)).run());
		assert.deepEqual(await ids(b), ['T1', 'T2', 'T3']);
		await a.compact();
		await a.compact();
		assert.deepEqual(await ids(b), ['T1', 'T2', 'T3']);
		assert.ok(fs.existsSync(path.join(dir, 'baton.db.prev')), 'previous snapshot kept for repair');
		// Foreign keys survive export(): deleting a task cascades to its dependencies.
		await a.write((db) => db.insert(schema.taskDependencies).values({ taskId: 'T2', dependsOnId: 'T1' }).run());
		await a.write((db) => db.delete(tasks).where(schemaEq('T1')).run());
		assert.equal((await b.read((db) => db.select().from(schema.taskDependencies).all())).length, 0);
	});

	void it('tracks table versions so caches rebuild only when their tables change', async (t) => {
		const dir = tempDir(t);
		const a = await open(dir);
		const b = await open(dir);
		t.after(() => (a.close(), b.close()));
		const before = b.tableVersion('tasks');
		await a.write((db) => db.insert(schema.settings).values({ key: 'k', value: 1, updatedAt: 'x' }).run());
		await b.refresh();
		assert.equal(b.tableVersion('tasks'), before);
		await a.write((db) => db.insert(tasks).values(task(1)).run());
		await b.refresh();
		assert.notEqual(b.tableVersion('tasks'), before);
	});

	void it('drops a torn last record with a warning and keeps its bytes aside', async (t) => {
		const dir = tempDir(t);
		const a = await open(dir);
		await a.write((db) => db.insert(tasks).values(task(1)).run());
		a.close();
		const journal = path.join(dir, 'baton.db.journal');
		const torn = encodeRecord({ seq: 99, at: 'x', stmts: [['DELETE FROM tasks', []]] }).subarray(0, 20);
		fs.appendFileSync(journal, torn);
		const log = new MemoryLogger();
		const b = await open(dir, log);
		t.after(() => b.close());
		assert.deepEqual(await ids(b), ['T1']);
		assert.match(log.warnings()[0] ?? '', /torn last record/);
		const kept = fs.readdirSync(path.join(dir, 'recovered'));
		assert.equal(kept.length, 1);
		assert.deepEqual(fs.readFileSync(path.join(dir, 'recovered', kept[0] as string)), torn);
		// Later writes land after the valid prefix and replay fine.
		await b.write((db) => db.insert(tasks).values(task(2)).run());
		const c = await open(dir);
		assert.deepEqual(await ids(c), ['T1', 'T2']);
		c.close();
	});

	void it('warns about a torn record on a journal left behind by a crash mid-compaction, keeping its bytes', async (t) => {
		const dir = tempDir(t);
		const a = await open(dir);
		await a.write((db) => db.insert(tasks).values(task(1)).run());
		a.close();
		const journal = path.join(dir, 'baton.db.journal');
		const staleJournal = fs.readFileSync(journal);
		const b = await open(dir);
		await b.compact();
		b.close();
		// The crash: the new snapshot is in place, the old journal is still there, and a writer had
		// begun appending to it.
		const torn = encodeRecord({ seq: 99, at: 'x', stmts: [['DELETE FROM tasks', []]] }).subarray(0, 25);
		fs.writeFileSync(journal, Buffer.concat([staleJournal, torn]));
		const log = new MemoryLogger();
		const c = await open(dir, log);
		t.after(() => c.close());
		assert.deepEqual(await ids(c), ['T1']);
		assert.match(log.warnings().join('\n'), /torn last record/);
		assert.deepEqual(fs.readFileSync(`${journal}.prev`), Buffer.concat([staleJournal, torn]));
	});

	void it('stops with an error naming the journal when a record before the end is damaged, changing no file', async (t) => {
		const dir = tempDir(t);
		const a = await open(dir);
		await a.write((db) => db.insert(tasks).values(task(1)).run());
		await a.write((db) => db.insert(tasks).values(task(2)).run());
		a.close();
		const journal = path.join(dir, 'baton.db.journal');
		const bytes = fs.readFileSync(journal);
		const lastRecordStart = bytes.lastIndexOf(Buffer.from('BATN', 'latin1'));
		bytes[lastRecordStart - 5] = (bytes[lastRecordStart - 5] as number) ^ 0xff; // inside the previous record's payload
		fs.writeFileSync(journal, bytes);
		const before = snapshotFiles(dir);
		await assert.rejects(open(dir), (e: unknown) => BatonError.is(e, 'corruptJournal') && e.message.includes(journal) && /checksum/.test(e.message));
		assert.deepEqual(snapshotFiles(dir), before);
	});

	void it('stops with an error naming the database file when it is damaged, changing no file', async (t) => {
		for (const damage of ['garbage', 'truncated', 'bad-page'] as const) {
			const dir = tempDir(t);
			const a = await open(dir);
			for (let i = 1; i <= 50; i++) {
				await a.write((db) =>
					db
						.insert(tasks)
						.values({ ...task(i), description: 'x'.repeat(500) })
						.run(),
				);
			}
			await a.compact();
			a.close();
			const dbFile = path.join(dir, 'baton.db');
			const bytes = fs.readFileSync(dbFile);
			if (damage === 'garbage') {
				fs.writeFileSync(dbFile, Buffer.from('this is not a database at all'.repeat(10)));
			} else if (damage === 'truncated') {
				fs.writeFileSync(dbFile, bytes.subarray(0, Math.floor(bytes.length / 3)));
			} else {
				bytes.fill(0x5a, 4096 * 2, 4096 * 4); // scribble over pages in the middle
				fs.writeFileSync(dbFile, bytes);
			}
			const before = snapshotFiles(dir);
			await assert.rejects(
				async () => {
					const s = await open(dir);
					try {
						await s.read((db) => db.select().from(tasks).all());
					} finally {
						s.close();
					}
				},
				(e: unknown) => BatonError.is(e, 'corruptDatabase') && e.message.includes(dbFile),
				damage,
			);
			assert.deepEqual(snapshotFiles(dir), before, damage);
		}
	});

	void it('refuses a journal that is not a Baton journal', async (t) => {
		const dir = tempDir(t);
		(await open(dir)).close();
		const journal = path.join(dir, 'baton.db.journal');
		fs.writeFileSync(journal, Buffer.concat([Buffer.from('{"json":"instead"}'), Buffer.alloc(headerSize)]));
		const before = snapshotFiles(dir);
		await assert.rejects(open(dir), (e: unknown) => BatonError.is(e, 'corruptJournal') && e.message.includes(journal));
		assert.deepEqual(snapshotFiles(dir), before);
	});

	void it('takes over the lock of a process that died, and waits for a live one', async (t) => {
		const dir = tempDir(t);
		const store = await open(dir);
		t.after(() => store.close());
		const lock = path.join(dir, 'baton.db.lock');
		fs.writeFileSync(lock, JSON.stringify({ pid: 2 ** 22 + 12345, host: require('node:os').hostname(), token: 'dead', at: Date.now() }));
		await store.write((db) => db.insert(tasks).values(task(1)).run());
		assert.equal(fs.existsSync(lock), false);
		fs.writeFileSync(lock, JSON.stringify({ pid: process.ppid, host: require('node:os').hostname(), token: 'alive', at: Date.now() }));
		const slow = await JournalStore.open({ dir, clock: new FakeClock(), log: new MemoryLogger(), lockTimeoutMs: 300 }).catch((e: unknown) => e);
		assert.ok(BatonError.is(slow, 'locked'), 'a live lock holder is waited for, then reported');
		fs.rmSync(lock);
	});

	void it('leaves no lock or owner file behind, and clears owner files of dead processes', async (t) => {
		const dir = tempDir(t);
		fs.mkdirSync(dir, { recursive: true });
		fs.writeFileSync(path.join(dir, 'baton.db.lock.4194999-deadbeef1'), '{}');
		const store = await open(dir);
		await store.write((db) => db.insert(tasks).values(task(1)).run());
		assert.deepEqual(fs.readdirSync(dir).filter((f) => f.includes('.lock')).length, 1, 'only this instance’s owner file while open');
		store.close();
		assert.deepEqual(
			fs.readdirSync(dir).filter((f) => f.includes('.lock')),
			[],
		);
	});

	void it('creates exactly the tables and columns the drizzle schema declares', async (t) => {
		const store = await open(tempDir(t));
		t.after(() => store.close());
		for (const table of [
			schema.sessions,
			schema.sessionAliases,
			schema.handoffs,
			schema.decisions,
			schema.tasks,
			schema.taskDependencies,
			schema.auditLog,
			schema.settings,
		]) {
			const config = getTableConfig(table);
			const columns = store.sqlite.exec(`PRAGMA table_info(${config.name})`)[0]?.values.map((r) => String(r[1])) ?? [];
			assert.deepEqual(columns.sort(), config.columns.map((c) => c.name).sort(), config.name);
		}
	});
});

function schemaEq(id: string) {
	// eslint-style helper kept local: drizzle's eq on the tasks id.
	return require('drizzle-orm').eq(tasks.id, id);
}
