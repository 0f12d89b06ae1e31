import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { describe, it } from 'node:test';
import { eq } from 'drizzle-orm';
import { BatonError } from '../../../../src/engine/errors';
import { compactAfterWritten } from '../../../../src/engine/storage/compactionRules';
import { JournalStore } from '../../../../src/engine/storage/journalStore';
import { SnapshotPages } from '../../../../src/engine/storage/snapshotPages';
import { tasks } from '../../../../src/engine/storage/schema';
import { FakeClock, MemoryLogger, tempDir, taskRow } from '../../helpers';
import { seedLargeStore } from './largeStore';

const open = (dir: string, log = new MemoryLogger(), compactAfterWrittenBytes?: number) =>
	JournalStore.open({ dir, clock: new FakeClock(), log, lockTimeoutMs: 3_000, ...(compactAfterWrittenBytes ? { compactAfterWrittenBytes } : {}) });
const compactions = (log: MemoryLogger) => log.lines.filter((l) => l.message.startsWith('compacted ')).map((l) => l.message);

v8.setFlagsFromString('--expose_gc');
const gc = vm.runInNewContext('gc') as () => void;

/** Bytes held in ArrayBuffers (where sql.js keeps a database it read whole) after a full collection. */
function heldBuffers(): number {
	gc();
	gc();
	return process.memoryUsage().arrayBuffers;
}

async function taskIds(store: JournalStore): Promise<string[]> {
	return store.read((db) =>
		db
			.select({ id: tasks.id })
			.from(tasks)
			.all()
			.map((r) => r.id),
	);
}

void describe('the snapshot read a page at a time', { skip: !SnapshotPages.supported() && 'Windows reads the snapshot whole' }, () => {
	void it('opens a 20 MB store without holding it, writes, and compacts from its pages into a snapshot another instance reads', async (t) => {
		const dir = tempDir(t);
		await seedLargeStore(dir, 6_000, 3_500);
		const size = fs.statSync(path.join(dir, 'baton.db')).size;
		assert.ok(size > 20_000_000, `a snapshot of ${size} bytes`);

		const before = heldBuffers();
		const log = new MemoryLogger();
		const store = await open(dir, log);
		t.after(() => store.close());
		assert.equal((await taskIds(store)).length, 6_000, 'every row readable');
		const held = heldBuffers() - before;
		assert.ok(held < size / 4, `the open store holds ${held} bytes of buffers for a ${size}-byte snapshot`);

		await store.write((db) => db.insert(tasks).values(taskRow(6_001)).run());
		await store.write((db) => db.delete(tasks).where(eq(tasks.id, 'T7')).run());
		await store.compact();
		assert.match(compactions(log).join('\n'), /written from its pages/, 'the new snapshot is written from the pages, not exported whole');
		const afterCompaction = heldBuffers() - before;
		assert.ok(afterCompaction < size / 4, `after compacting it holds ${afterCompaction} bytes`);
		const ids = await taskIds(store);
		assert.equal(ids.length, 6_000);
		assert.ok(ids.includes('T6001') && !ids.includes('T7'));

		const other = await open(dir);
		t.after(() => other.close());
		assert.deepEqual((await taskIds(other)).sort(), [...ids].sort(), 'another instance reads the same store');
	});

	void it('compacts on its own once the pages written since the snapshot pass their bound, losing nothing', async (t) => {
		const dir = tempDir(t);
		await seedLargeStore(dir, 10, 10);
		const log = new MemoryLogger();
		const store = await open(dir, log, 256 * 1024);
		t.after(() => store.close());
		// Work that holds the connection across its own writes (a sync's long pass) keeps a live one.
		const held = store.sqlite;
		for (let batch = 0; batch < 8; batch++) {
			await store.write((db) => {
				for (let n = 100 + batch * 100; n < 200 + batch * 100; n++) {
					db.insert(tasks)
						.values({ ...taskRow(n), title: 'z'.repeat(1_000) })
						.run();
				}
			});
		}
		const made = compactions(log);
		assert.ok(made.length >= 2 && made.every((m) => m.includes('written from its pages')), made.join('\n'));
		assert.equal((await taskIds(store)).length, 810);
		assert.equal(held.exec('SELECT count(*) FROM tasks')[0]?.values[0]?.[0], 810, 'the connection held before the compactions still answers');
		const other = await open(dir);
		t.after(() => other.close());
		assert.equal((await taskIds(other)).length, 810, 'what each compaction wrote, and the journal after it, make the whole store');
	});

	void it('holds written pages up to an eighth of a large snapshot before compacting (a compaction writes all of it)', async (t) => {
		assert.equal(compactAfterWritten(800 * 1024 * 1024), 100 * 1024 * 1024, 'at 800 MB: 100 MB');
		assert.equal(compactAfterWritten(100 * 1024 * 1024), 64 * 1024 * 1024, 'below 512 MB the fixed bound');
		const dir = tempDir(t);
		await seedLargeStore(dir, 2_000, 3_500);
		const size = fs.statSync(path.join(dir, 'baton.db')).size;
		const log = new MemoryLogger();
		const store = await open(dir, log, 256 * 1024);
		t.after(() => store.close());
		const write = (from: number, count: number) =>
			store.write((db) => {
				for (let n = from; n < from + count; n++) {
					db.insert(tasks)
						.values({ ...taskRow(n), title: 'z'.repeat(1_000) })
						.run();
				}
			});
		await write(10_000, 400);
		assert.deepEqual(compactions(log), [], `~0.5 MB written: past the 256 KB floor, within an eighth of ${size} bytes`);
		await write(20_000, 1_000);
		assert.equal(compactions(log).length, 1, 'past an eighth: compacted');
		assert.equal((await taskIds(store)).length, 3_400);
	});

	void it('keeps the pages it writes in a scratch file of its own, not in its memory, and leaves no file behind', async (t) => {
		const dir = tempDir(t);
		await seedLargeStore(dir, 500, 100);
		const log = new MemoryLogger();
		// No compaction on its own: every page written stays in the scratch file until compact().
		const store = await open(dir, log, 1024 * 1024 * 1024);
		t.after(() => store.close());
		const before = heldBuffers();
		for (let batch = 0; batch < 10; batch++) {
			await store.write((db) => {
				for (let n = 10_000 + batch * 1_000; n < 11_000 + batch * 1_000; n++) {
					db.insert(tasks)
						.values({ ...taskRow(n), title: 'z'.repeat(2_000) })
						.run();
				}
			});
		}
		assert.deepEqual(compactions(log), []);
		const held = heldBuffers() - before;
		assert.ok(held < 8 * 1024 * 1024, `20 MB of rows written: ${held} bytes of buffers held`);
		assert.deepEqual(
			fs.readdirSync(dir).filter((f) => f.includes('.pages-')),
			[],
			'the scratch file is unlinked once open',
		);
		const ids = await taskIds(store);
		assert.equal(ids.length, 10_500, 'every written page reads back');
		const other = await open(dir);
		assert.equal((await taskIds(other)).length, 10_500, 'another process reads the journal, not the scratch file');
		other.close();
		await store.compact();
		assert.match(compactions(log).join('\n'), /written from its pages/);
		await store.write((db) => db.update(tasks).set({ title: 'after' }).where(eq(tasks.id, 'T10000')).run());
		assert.equal(
			(await store.read((db) => db.select({ title: tasks.title }).from(tasks).where(eq(tasks.id, 'T10000')).get()))?.title,
			'after',
			'written again after the compaction emptied it',
		);
		assert.equal((await taskIds(store)).length, 10_500);
	});

	void it('stays right when a transaction that spilled to the file rolls back (SQLite truncates the file)', async (t) => {
		const dir = tempDir(t);
		await seedLargeStore(dir, 500, 100);
		const log = new MemoryLogger();
		const store = await open(dir, log);
		t.after(() => store.close());
		// Far more than SQLite's 2 MB page cache: its pages spill to the file, and the rollback cuts the file back.
		await assert.rejects(
			store.write((db) => {
				for (let n = 1_000; n < 9_000; n++) {
					db.insert(tasks)
						.values({ ...taskRow(n), title: 'y'.repeat(1_000) })
						.run();
				}
				throw new Error('changed my mind');
			}),
			/changed my mind/,
		);
		assert.equal((await taskIds(store)).length, 500);
		await store.write((db) => db.insert(tasks).values(taskRow(501)).run());
		await store.compact();
		// sql.js copied the file into memory to cut it: the pages are no longer what SQLite writes to.
		assert.doesNotMatch(compactions(log).join('\n'), /written from its pages/);
		store.close();
		const again = await open(dir);
		t.after(() => again.close());
		assert.equal((await taskIds(again)).length, 501);
	});

	void it('refuses a FIFO in the snapshot’s place rather than wait on it', async (t) => {
		const dir = tempDir(t);
		await seedLargeStore(dir, 1, 1);
		const dbFile = path.join(dir, 'baton.db');
		fs.rmSync(dbFile);
		execFileSync('mkfifo', [dbFile]);
		await assert.rejects(open(dir), (e: unknown) => BatonError.is(e, 'corruptDatabase') && e.message.includes('not a regular file'));
	});

	void it('reads what was written over the file, across pages, and past its end', (t) => {
		const dir = tempDir(t);
		const file = path.join(dir, 'f');
		const original = Buffer.alloc(3 * 4096 + 100);
		for (let i = 0; i < original.length; i++) original[i] = i % 251;
		fs.writeFileSync(file, original);
		const pages = SnapshotPages.open(file) as SnapshotPages;
		t.after(() => pages.close());
		assert.equal(pages.length, original.length);
		assert.equal(pages.slice(0, original.length), pages);
		assert.ok(pages.adopted && pages.length > original.length, 'room to grow once adopted');

		const expected = Buffer.concat([original, Buffer.alloc(2 * 4096)]);
		const write = (bytes: Buffer, at: number) => {
			pages.set(bytes, at);
			bytes.copy(expected, at);
		};
		write(Buffer.alloc(4096, 7), 4096); // a whole page
		write(Buffer.from('across a page boundary'), 2 * 4096 - 5); // part of two pages
		write(Buffer.alloc(300, 9), 3 * 4096 + 50); // the last, short page, growing the file
		write(Buffer.alloc(10, 3), 4 * 4096 + 20); // past the end: the gap reads as zeros
		const length = 4 * 4096 + 30;
		assert.deepEqual(Buffer.from(pages.subarray(0, length)), expected.subarray(0, length));
		for (const [from, to] of [
			[4090, 4100],
			[2 * 4096 - 10, 2 * 4096 + 40],
			[3 * 4096, 4 * 4096 + 25],
			[100, 101],
		] as const) {
			assert.deepEqual(Buffer.from(pages.subarray(from, to)), expected.subarray(from, to), `bytes ${from}–${to}`);
		}
		assert.deepEqual(pages.checksum().size, original.length, 'the checksum is the file’s');
	});

	void it('reads ahead through a scan and answers random reads alike, over the file and the pages written', (t) => {
		const dir = tempDir(t);
		const file = path.join(dir, 'f');
		const expected = Buffer.alloc(200 * 4096 + 1_000);
		for (let i = 0; i < expected.length; i++) expected[i] = (i * 7) % 253;
		fs.writeFileSync(file, expected);
		const pages = SnapshotPages.open(file) as SnapshotPages;
		t.after(() => pages.close());
		pages.slice(0, expected.length);
		for (const at of [5 * 4096, 40 * 4096 + 17, 41 * 4096, 120 * 4096 - 3, 199 * 4096 + 500]) {
			const bytes = Buffer.alloc(600, at % 250);
			pages.set(bytes, at);
			bytes.copy(expected, at);
		}
		// Page by page forward (read ahead 32 pages at a time), then at random: the same bytes.
		for (let at = 0; at < expected.length; at += 4096) {
			const to = Math.min(expected.length, at + 4096);
			assert.deepEqual(Buffer.from(pages.subarray(at, to)), expected.subarray(at, to), `page at ${at}`);
		}
		let seed = 7;
		const next = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
		for (let i = 0; i < 500; i++) {
			const from = next(expected.length);
			const to = Math.min(expected.length, from + 1 + next(3 * 4096));
			assert.deepEqual(Buffer.from(pages.subarray(from, to)), expected.subarray(from, to), `bytes ${from}–${to}`);
		}
	});
});
