/**
 * A write that writes most of the database is made durable by a fresh snapshot instead of its journal
 * record (compactionRules.ts `snapshotInstead`, groupCommit.ts): an import or a first pull wrote its rows
 * twice (a record as large as the data, then a compaction), held the record as one string, and left
 * every process that opened the store next to replay it.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { runDoctor, type RepairPlan } from '../../../../src/engine/storage/doctor';
import { headerSize, recordBytesReach, type JournalParam, type JournalRecord } from '../../../../src/engine/storage/journalFormat';
import { snapshotInstead } from '../../../../src/engine/storage/compactionRules';
import { JournalStore } from '../../../../src/engine/storage/journalStore';
import { tasks } from '../../../../src/engine/storage/schema';
import { FakeClock, MemoryLogger, damageSnapshot, snapshotFiles, taskRow, tempDir } from '../../helpers';

/** 64 KB: a few hundred tasks with long titles pass it. */
const floor = 64 * 1024;
const open = (dir: string, log = new MemoryLogger()) => JournalStore.open({ dir, clock: new FakeClock(), log, lockTimeoutMs: 3_000, compactAfterBytes: floor });
const journalBytes = (dir: string) => fs.statSync(path.join(dir, 'baton.db.journal')).size;
const count = (store: JournalStore) => store.read((db) => db.select().from(tasks).all().length);

/** Tasks `from`..`to` with titles long enough that a few hundred fill many pages. */
function insertTasks(store: JournalStore, from: number, to: number): Promise<void> {
	return store.write((db) => {
		for (let n = from; n <= to; n++)
			db.insert(tasks)
				.values({ ...taskRow(n), title: `Task ${n} ${'x'.repeat(400)}` })
				.run();
	});
}

void describe('a write durable by a snapshot', () => {
	void it('the rule: records of at least the floor and of a third of the database, counted no further than that', () => {
		const record = (chars: number, statements = 1): JournalRecord => ({
			seq: 1,
			at: '',
			stmts: Array.from(
				{ length: statements },
				() => ['INSERT INTO t VALUES (?, ?)', ['x'.repeat(chars / statements - 11), 1]] as [string, JournalParam[]],
			),
		});
		assert.equal(snapshotInstead([record(floor / 2)], 0, floor), false, 'under the floor');
		assert.equal(snapshotInstead([record(floor)], 3 * floor, floor), true, 'a third of the database');
		assert.equal(snapshotInstead([record(floor)], 3 * floor + 4096, floor), false, 'less than a third');
		assert.equal(snapshotInstead([record(floor, 4), record(floor, 4)], 6 * floor, floor), true, 'a batch counts all its records');
		assert.equal(snapshotInstead([record(floor, 4)], 3 * floor + 4096, floor), false);
		assert.equal(recordBytesReach([{ seq: 1, at: '', stmts: [['', [new Uint8Array(3 * 1024)]]] }], 4 * 1024), true, 'bytes count as their base64');
	});

	void it('writes no journal record: the snapshot holds the write, the sequence moves on, another process sees it', async (t) => {
		const dir = tempDir(t);
		const log = new MemoryLogger();
		const store = await open(dir, log);
		t.after(() => store.close());
		const other = await open(dir);
		t.after(() => other.close());
		await insertTasks(store, 1, 5);
		const journalBefore = journalBytes(dir);
		assert.ok(journalBefore > headerSize, 'a small write goes to the journal');
		const seq = store.sequence;

		await insertTasks(store, 6, 3000);
		assert.equal(journalBytes(dir), headerSize, 'the journal starts again: nothing for the next open to replay');
		assert.equal(store.sequence, seq + 1, 'the write counts as one, as its record would');
		assert.ok(
			log.lines.some((l) => l.message.startsWith('compacted ')),
			log.lines.map((l) => l.message).join('\n'),
		);
		assert.equal(await count(store), 3000);
		assert.equal(await count(other), 3000, 'a process that had the store open reloads it');
		assert.equal(other.sequence, seq + 1);
		assert.equal(other.contentMark(['tasks']), store.contentMark(['tasks']), 'both name the tasks alike (a key of data saved between processes)');

		// A small write after it is journaled as before.
		await insertTasks(store, 3001, 3001);
		assert.ok(journalBytes(dir) > headerSize);
		assert.equal(store.sequence, seq + 2);
		store.close();
		const reopened = await open(dir);
		t.after(() => reopened.close());
		assert.equal(await count(reopened), 3001);
		assert.equal(reopened.sequence, seq + 2);
		await other.refresh();
		assert.equal(reopened.contentMark(['tasks']), other.contentMark(['tasks']));
		assert.match(reopened.contentMark(['tasks']) ?? '', new RegExp(`:${seq + 2}$`), 'the small write moved the mark on');
	});

	void it('a snapshot that cannot be written fails the write and leaves the store as it was', async (t) => {
		const dir = tempDir(t);
		const store = await open(dir);
		t.after(() => store.close());
		await insertTasks(store, 1, 5);
		const seq = store.sequence;
		const journal = fs.readFileSync(path.join(dir, 'baton.db.journal'));
		// The snapshot's temporary file cannot be made: a folder holds its name.
		const blocker = path.join(dir, `baton.db.tmp-${process.pid}`);
		fs.mkdirSync(blocker);
		await assert.rejects(insertTasks(store, 6, 3000));
		assert.equal(await count(store), 5, 'memory is read back from the disk');
		assert.equal(store.sequence, seq);
		assert.deepEqual(fs.readFileSync(path.join(dir, 'baton.db.journal')), journal, 'the journal is untouched');

		fs.rmdirSync(blocker);
		await insertTasks(store, 6, 3000);
		assert.equal(await count(store), 3000);
		store.close();
		const reopened = await open(dir);
		t.after(() => reopened.close());
		assert.equal(await count(reopened), 3000);
	});
});

void describe('doctor after a write durable by a snapshot', () => {
	void it('a damaged snapshot: the repair from the previous one says the write is lost (no journal holds it) and asks first', async (t) => {
		const dir = tempDir(t);
		const store = await open(dir);
		await insertTasks(store, 1, 5);
		const before = store.sequence;
		await insertTasks(store, 6, 3000);
		await insertTasks(store, 3001, 3001);
		const after = store.sequence;
		store.close();
		damageSnapshot(dir);
		const files = snapshotFiles(dir);
		let asked: RepairPlan | undefined;
		const refused = await runDoctor({ dir, repair: true, clock: new FakeClock(), log: new MemoryLogger(), acceptLoss: (plan) => ((asked = plan), false) });
		assert.equal(refused.ok, false);
		assert.equal(asked?.base, 'previous snapshot');
		assert.equal(asked?.recoveredSequence, before, 'the previous snapshot and its journal reach the write before it');
		assert.equal(asked?.acknowledgedSequence, after);
		assert.ok(
			asked?.losses.some((loss) => loss.includes(`records ${before + 1}–${after}`)),
			JSON.stringify(asked?.losses),
		);
		assert.deepEqual(snapshotFiles(dir), files, 'nothing written without the loss accepted');
	});
});
