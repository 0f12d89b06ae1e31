import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { headerSize, scanRecords } from '../../../../src/engine/storage/journalFormat';
import { JournalStore } from '../../../../src/engine/storage/journalStore';
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

/** Counts the real fdatasync calls on the journal (the call still goes to the file system). */
function countSyncs(t: { after: (fn: () => void) => void }): { count: number } {
	const counter = { count: 0 };
	const real = fs.fdatasync;
	(fs as { fdatasync: typeof fs.fdatasync }).fdatasync = ((fd: number, cb: fs.NoParamCallback) => {
		counter.count++;
		real(fd, cb);
	}) as typeof fs.fdatasync;
	t.after(() => {
		(fs as { fdatasync: typeof fs.fdatasync }).fdatasync = real;
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
		const first = store.write((db) => db.insert(tasks).values(taskRow(1)).run());
		// Queued after the first batch started: they wait for it, then share one sync.
		await new Promise((r) => setImmediate(r));
		const rest = Array.from({ length: 10 }, (_, i) =>
			store.write((db) =>
				db
					.insert(tasks)
					.values(taskRow(i + 2))
					.run(),
			),
		);
		await Promise.all([first, ...rest]);
		assert.equal(syncs.count, 2);
		assert.equal((await ids(store)).length, 11);
		store.close();
	});

	void it('a torn batch (crash mid-append) keeps its whole records, sets the torn one aside, and goes on', async (t) => {
		const dir = tempDir(t);
		const store = await open(dir);
		await store.write((db) => db.insert(tasks).values(taskRow(1)).run());
		const journal = path.join(dir, 'baton.db.journal');
		const beforeBatch = fs.statSync(journal).size;
		await Promise.all([2, 3, 4].map((n) => store.write((db) => db.insert(tasks).values(taskRow(n)).run())));
		store.close();
		// The batch went out as one append: cut it inside its last record, as a crash mid-write would.
		const scan = journalRecords(dir);
		const batch = scan.records.filter((r) => r.end > beforeBatch);
		assert.equal(batch.length, 3);
		const lastStart = (batch[1] as { end: number }).end;
		fs.truncateSync(journal, lastStart + 17);
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
