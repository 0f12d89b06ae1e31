/**
 * The journal's record forms (journalFormat.ts): version 2 writes each statement's text once per
 * record, a version 1 journal (an older Baton's) is appended to in its own form, and a record too
 * large to be read back is never appended.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { BatonError } from '../../../../src/engine/errors';
import { crc32, decodeHeader, encodeRecord, headerSize, scanRecords, type JournalRecord } from '../../../../src/engine/storage/journalFormat';
import { JournalStore } from '../../../../src/engine/storage/journalStore';
import { tasks } from '../../../../src/engine/storage/schema';
import { FakeClock, MemoryLogger, tempDir, taskRow } from '../../helpers';

const open = (dir: string, maxRecordBytes?: number) =>
	JournalStore.open({ dir, clock: new FakeClock(), log: new MemoryLogger(), lockTimeoutMs: 3_000, ...(maxRecordBytes ? { maxRecordBytes } : {}) });

async function addTasks(store: JournalStore, from: number, count: number): Promise<void> {
	await store.write((db) => {
		for (let n = from; n < from + count; n++) db.insert(tasks).values(taskRow(n)).run();
	});
}

const taskCount = (store: JournalStore) => store.read((db) => db.select({ id: tasks.id }).from(tasks).all().length);

/** The journal's header version and its records' payloads as written (JSON, not yet read back as records). */
function journalOf(dir: string): { version: number; payloads: Record<string, unknown>[]; records: JournalRecord[] } {
	const bytes = fs.readFileSync(path.join(dir, 'baton.db.journal'));
	const header = decodeHeader(bytes.subarray(0, headerSize));
	assert.ok('version' in header, 'a readable header');
	const payloads: Record<string, unknown>[] = [];
	for (let at = headerSize; at < bytes.length;) {
		const length = bytes.readUInt32LE(at + 4);
		payloads.push(JSON.parse(bytes.toString('utf8', at + 12, at + 12 + length)) as Record<string, unknown>);
		at += 12 + length;
	}
	const scan = scanRecords(bytes.subarray(headerSize), headerSize);
	assert.equal(scan.tail, 'clean');
	return { version: header.version, payloads, records: scan.records.map((r) => r.record) };
}

void describe('journal records', () => {
	void it('a new journal is version 2: each statement text once a record, read back as the statements written', async (t) => {
		const dir = tempDir(t);
		const store = await open(dir);
		await addTasks(store, 1, 500);
		store.close();
		const journal = journalOf(dir);
		assert.equal(journal.version, 2);
		const last = journal.payloads.at(-1) as { sql: string[]; stmts: [number, unknown[]][] };
		assert.equal(last.stmts.length, 500);
		assert.equal(last.sql.length, 1, 'five hundred INSERTs, their text once');
		const record = journal.records.at(-1) as JournalRecord;
		assert.ok(
			record.stmts.every(([text]) => text === last.sql[0]),
			'read back with its text',
		);
		assert.ok(encodeRecord(record, 2).length < encodeRecord(record, 1).length * 0.75, 'smaller than the same record in version 1');

		const again = await open(dir);
		t.after(() => again.close());
		assert.equal(await taskCount(again), 500, 'replayed');
	});

	void it('a version 1 journal (an older Baton’s) is appended to in its own form, and a compaction starts a version 2 one', async (t) => {
		const dir = tempDir(t);
		const created = await open(dir);
		await created.compact();
		created.close();
		const journalFile = path.join(dir, 'baton.db.journal');
		const bytes = fs.readFileSync(journalFile);
		assert.equal(bytes.length, headerSize, 'a header alone');
		bytes.writeUInt32LE(1, 8);
		fs.writeFileSync(journalFile, bytes);

		const store = await open(dir);
		t.after(() => store.close());
		await addTasks(store, 1, 20);
		const old = journalOf(dir);
		assert.equal(old.version, 1);
		const payload = old.payloads.at(-1) as { sql?: unknown; stmts: [unknown, unknown[]][] };
		assert.equal(payload.sql, undefined, 'no statement table');
		assert.equal(typeof payload.stmts[0]?.[0], 'string', 'each statement with its text, as an older Baton reads it');

		await store.compact();
		await addTasks(store, 21, 5);
		assert.equal(journalOf(dir).version, 2);
		const other = await open(dir);
		t.after(() => other.close());
		assert.equal(await taskCount(other), 25);
	});

	void it('a journal of a later version is refused by its header, not misread', async (t) => {
		const dir = tempDir(t);
		(await open(dir)).close();
		const journalFile = path.join(dir, 'baton.db.journal');
		const bytes = fs.readFileSync(journalFile);
		bytes.writeUInt32LE(3, 8);
		fs.writeFileSync(journalFile, bytes);
		assert.deepEqual(decodeHeader(bytes.subarray(0, headerSize)), { problem: 'unsupported journal format version 3' });
		await assert.rejects(open(dir), (e: unknown) => BatonError.is(e) && e.message.includes('unsupported journal format version 3'));
	});

	void it('a write whose record would be larger than a record may be is refused before anything is appended, and the store goes on', async (t) => {
		const dir = tempDir(t);
		const store = await open(dir, 20_000);
		t.after(() => store.close());
		const journalFile = path.join(dir, 'baton.db.journal');
		const before = fs.statSync(journalFile).size;
		await assert.rejects(
			addTasks(store, 1, 1_000),
			(e: unknown) =>
				BatonError.is(e, 'limitReached') &&
				/one write of 1000 statements is \d+ KB, more than the 20 KB one journal record holds; nothing was written/.test(e.message),
		);
		assert.equal(fs.statSync(journalFile).size, before, 'nothing appended');
		assert.equal(await taskCount(store), 0, 'nothing applied in memory either');
		await addTasks(store, 1, 10);
		const other = await open(dir);
		t.after(() => other.close());
		assert.equal(await taskCount(other), 10, 'the next write is durable as ever');
	});

	void it('a version 2 record naming a statement it does not hold is damage', () => {
		const good = encodeRecord({ seq: 1, at: 'x', stmts: [['DELETE FROM tasks', []]] }, 2);
		const json = good.toString('utf8', 12).replace('"stmts":[[0,', '"stmts":[[1,');
		const payload = Buffer.from(json);
		const bad = Buffer.alloc(12 + payload.length);
		bad.writeUInt32LE(good.readUInt32LE(0), 0);
		bad.writeUInt32LE(payload.length, 4);
		payload.copy(bad, 12);
		bad.writeUInt32LE(crc32(payload), 8);
		const scan = scanRecords(Buffer.concat([good, bad, good]), 0);
		assert.equal(scan.records.length, 1);
		assert.equal(scan.tail, 'corrupt');
		assert.match(scan.problem ?? '', /has no sequence number or statements/);
	});
});
