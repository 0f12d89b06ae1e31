import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { headerSize, scanRecords } from '../../../../src/engine/storage/journalFormat';
import { JournalStore } from '../../../../src/engine/storage/journalStore';
import { WriteBatcher, type TakenBatch } from '../../../../src/engine/storage/writeBatcher';
import { tasks } from '../../../../src/engine/storage/schema';
import { FakeClock, MemoryLogger, tempDir, taskRow } from '../../helpers';

const open = (dir: string, log = new MemoryLogger()) => JournalStore.open({ dir, clock: new FakeClock(), log, lockTimeoutMs: 3_000 });

const ids = (store: JournalStore) =>
	store.read((db) =>
		db
			.select({ id: tasks.id })
			.from(tasks)
			.all()
			.map((r) => r.id),
	);

/**
 * Counts the real fdatasync calls on the journal, in the thread pool or on the spot (the call still
 * goes to the file system), and how many of them were in the thread pool.
 */
function countSyncs(t: { after: (fn: () => void) => void }): { count: number; offEventLoop: number } {
	const counter = { count: 0, offEventLoop: 0 };
	const real = fs.fdatasync;
	const realSync = fs.fdatasyncSync;
	const patched = fs as { fdatasync: typeof fs.fdatasync; fdatasyncSync: typeof fs.fdatasyncSync };
	patched.fdatasync = ((fd: number, cb: fs.NoParamCallback) => {
		counter.count++;
		counter.offEventLoop++;
		real(fd, cb);
	}) as typeof fs.fdatasync;
	patched.fdatasyncSync = (fd: number) => {
		counter.count++;
		realSync(fd);
	};
	t.after(() => {
		patched.fdatasync = real;
		patched.fdatasyncSync = realSync;
	});
	return counter;
}

const journalRecords = (dir: string) => {
	const bytes = fs.readFileSync(path.join(dir, 'baton.db.journal'));
	return scanRecords(bytes.subarray(headerSize), headerSize);
};

void describe('group commit', () => {
	void it('commits writes that arrive together under one fdatasync, one record each, in order', async (t) => {
		const dir = tempDir(t);
		const store = await open(dir);
		const syncs = countSyncs(t);
		const before = store.sequence;
		const results = await Promise.all(
			Array.from({ length: 50 }, (_, i) =>
				store.write(
					(db) => (
						db
							.insert(tasks)
							.values(taskRow(i + 1))
							.run(),
						i
					),
				),
			),
		);
		assert.deepEqual(
			results,
			Array.from({ length: 50 }, (_, i) => i),
		);
		assert.equal(syncs.count, 1, 'one fdatasync for the whole batch');
		assert.equal(store.sequence, before + 50);
		const scan = journalRecords(dir);
		assert.equal(scan.tail, 'clean');
		assert.deepEqual(
			scan.records.slice(-50).map((r) => r.record.seq),
			Array.from({ length: 50 }, (_, i) => before + i + 1),
		);
		store.close();
		const again = await open(dir);
		assert.equal((await ids(again)).length, 50);
		again.close();
	});

	void it('a throwing write is undone alone: the rest of its batch is durable', async (t) => {
		const dir = tempDir(t);
		const store = await open(dir);
		const outcomes = await Promise.allSettled([
			store.write((db) => db.insert(tasks).values(taskRow(1)).run()),
			store.write((db) => {
				db.insert(tasks).values(taskRow(2)).run();
				throw new Error('abort');
			}),
			// A primary key violation in the middle of the statements: SQLite's own failure, same rule.
			store.write((db) => {
				db.insert(tasks).values(taskRow(3)).run();
				db.insert(tasks).values(taskRow(1)).run();
			}),
			store.write((db) => db.insert(tasks).values(taskRow(4)).run()),
		]);
		assert.deepEqual(
			outcomes.map((o) => o.status),
			['fulfilled', 'rejected', 'rejected', 'fulfilled'],
		);
		assert.deepEqual((await ids(store)).sort(), ['T1', 'T4']);
		store.close();
		const again = await open(dir);
		assert.deepEqual((await ids(again)).sort(), ['T1', 'T4']);
		again.close();
	});

	void it('writes arriving while a batch is being synced form the next batch', async (t) => {
		const dir = tempDir(t);
		const store = await open(dir);
		const syncs = countSyncs(t);
		// Two writes together: their batch waits for its sync in the thread pool.
		const first = [1, 2].map((n) => store.write((db) => db.insert(tasks).values(taskRow(n)).run()));
		// Queued after the first batch started: they wait for it, then share one sync.
		await new Promise((r) => setImmediate(r));
		const rest = Array.from({ length: 10 }, (_, i) =>
			store.write((db) =>
				db
					.insert(tasks)
					.values(taskRow(i + 3))
					.run(),
			),
		);
		await Promise.all([...first, ...rest]);
		assert.equal(syncs.count, 2);
		assert.equal(syncs.offEventLoop, 2, 'batches with company sync off the event loop');
		assert.equal((await ids(store)).length, 12);
		store.close();
	});

	void it('a torn batch (crash mid-append) keeps its whole records, sets the torn one aside, and goes on', async (t) => {
		const dir = tempDir(t);
		const store = await open(dir);
		await store.write((db) => db.insert(tasks).values(taskRow(1)).run());
		const journal = path.join(dir, 'baton.db.journal');
		const beforeBatch = fs.statSync(journal).size;
		const headerBefore = fs.readFileSync(journal).subarray(0, headerSize);
		await Promise.all([2, 3, 4].map((n) => store.write((db) => db.insert(tasks).values(taskRow(n)).run())));
		store.close();
		// The batch went out as one append: cut it inside its last record, as a crash mid-write would.
		// Such a crash comes before the header's acknowledged sequence moves on to the batch (that
		// happens once the batch is durable), so the header is put back as it was before the batch.
		const scan = journalRecords(dir);
		const batch = scan.records.filter((r) => r.end > beforeBatch);
		assert.equal(batch.length, 3);
		const lastStart = (batch[1] as { end: number }).end;
		fs.truncateSync(journal, lastStart + 17);
		const fd = fs.openSync(journal, 'r+');
		fs.writeSync(fd, headerBefore, 0, headerSize, 0);
		fs.closeSync(fd);
		const log = new MemoryLogger();
		const reopened = await open(dir, log);
		assert.deepEqual((await ids(reopened)).sort(), ['T1', 'T2', 'T3']);
		assert.match(log.warnings().join('\n'), /torn last record/);
		assert.equal(fs.readdirSync(path.join(dir, 'recovered')).length, 1);
		// The next batch continues the sequence after the valid prefix and replays.
		await Promise.all([5, 6].map((n) => reopened.write((db) => db.insert(tasks).values(taskRow(n)).run())));
		reopened.close();
		const last = await open(dir);
		assert.deepEqual((await ids(last)).sort(), ['T1', 'T2', 'T3', 'T5', 'T6']);
		assert.equal(journalRecords(dir).tail, 'clean');
		last.close();
	});
});

void describe('a write alone', () => {
	void it('is synced on the spot, durable when acknowledged', async (t) => {
		const dir = tempDir(t);
		const store = await open(dir);
		const syncs = countSyncs(t);
		for (let n = 1; n <= 3; n++) {
			await store.write((db) => db.insert(tasks).values(taskRow(n)).run());
		}
		assert.equal(syncs.count, 3, 'one fdatasync per acknowledged write');
		assert.equal(syncs.offEventLoop, 0);
		// Another process (a second store on the same files) sees every acknowledged write.
		const other = await open(dir);
		assert.deepEqual((await ids(other)).sort(), ['T1', 'T2', 'T3']);
		other.close();
		store.close();
	});

	void it('that throws, or that SQLite refuses midway, is undone whole without a savepoint, and the store goes on', async (t) => {
		const dir = tempDir(t);
		const store = await open(dir);
		await store.write((db) => db.insert(tasks).values(taskRow(1)).run());
		const before = store.sequence;
		await assert.rejects(
			store.write((db) => {
				db.insert(tasks).values(taskRow(2)).run();
				throw new Error('abort');
			}),
			/abort/,
		);
		await assert.rejects(
			store.write((db) => {
				db.insert(tasks).values(taskRow(3)).run();
				db.insert(tasks).values(taskRow(1)).run(); // primary key taken
			}),
		);
		assert.equal(store.sequence, before, 'nothing journaled for the undone writes');
		assert.deepEqual(await ids(store), ['T1']);
		await store.write((db) => db.insert(tasks).values(taskRow(4)).run());
		store.close();
		const again = await open(dir);
		assert.deepEqual((await ids(again)).sort(), ['T1', 'T4']);
		again.close();
	});
});

void describe('WriteBatcher', () => {
	/** A flush the test finishes by hand, recording what each take() returned. */
	const controlled = () => {
		const taken: TakenBatch[] = [];
		const finish: (() => void)[] = [];
		const batcher = new WriteBatcher(
			(flush) => void Promise.resolve().then(flush),
			async (take) => {
				const batch = take();
				taken.push(batch);
				await new Promise<void>((resolve) => finish.push(resolve));
				batch.writes.forEach((w) => w.resolve(w.fn()));
			},
		);
		return { batcher, taken, finish };
	};
	const tick = () => new Promise((r) => setImmediate(r));

	void it('says a write is alone only when nothing else waited or arrived while the previous batch was written', async () => {
		const { batcher, taken, finish } = controlled();
		const a = batcher.add(() => 'a');
		await tick();
		assert.deepEqual(
			taken.map((b) => [b.writes.length, b.company]),
			[[1, false]],
		);
		// Arrives while the first batch is being written: forms the next batch, which has company.
		const b = batcher.add(() => 'b');
		finish.shift()?.();
		assert.equal(await a, 'a');
		await tick();
		assert.deepEqual(
			taken.map((x) => [x.writes.length, x.company]),
			[
				[1, false],
				[1, true],
			],
		);
		finish.shift()?.();
		assert.equal(await b, 'b');
		// Nothing arrived during that one: the next write alone is alone again.
		const c = batcher.add(() => 'c');
		await tick();
		finish.shift()?.();
		assert.equal(await c, 'c');
		assert.deepEqual(taken[2] && [taken[2].writes.length, taken[2].company], [1, false]);
		// Two together have company.
		const both = [batcher.add(() => 'd'), batcher.add(() => 'e')];
		await tick();
		finish.shift()?.();
		assert.deepEqual(await Promise.all(both), ['d', 'e']);
		assert.deepEqual(taken[3] && [taken[3].writes.length, taken[3].company], [2, true]);
	});
});
