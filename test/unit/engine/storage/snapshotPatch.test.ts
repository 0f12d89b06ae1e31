/**
 * A compaction over a snapshot whose sidecar lists its pieces copies the old file in the kernel and
 * writes only the pieces that changed (snapshotFile.ts `writeSnapshot`, snapshotPages.ts
 * `changedPieces`): the sums it records are the new file's, whole and piece by piece; damage the old
 * file took where nothing was rewritten keeps its old sum, so it is still found; a sidecar without
 * pieces is written whole, as before.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { BatonError } from '../../../../src/engine/errors';
import { crc32 } from '../../../../src/engine/storage/journalFormat';
import { JournalStore } from '../../../../src/engine/storage/journalStore';
import { checksumPieceBytes, copySnapshotAhead, writeSnapshot } from '../../../../src/engine/storage/snapshotFile';
import { removeStaleTemps } from '../../../../src/engine/storage/fsUtil';
import { SnapshotPages } from '../../../../src/engine/storage/snapshotPages';
import { tasks } from '../../../../src/engine/storage/schema';
import { FakeClock, MemoryLogger, taskRow, tempDir } from '../../helpers';
import { seedLargeStore } from './largeStore';

interface Entry {
	size: number;
	crc32: number;
	pieces?: number[];
	pieceBytes?: number;
}

const open = (dir: string, log = new MemoryLogger()) => JournalStore.open({ dir, clock: new FakeClock(), log, lockTimeoutMs: 3_000 });
const sidecar = (dir: string): Entry[] => (JSON.parse(fs.readFileSync(path.join(dir, 'baton.db.sum'), 'utf8')) as { entries: Entry[] }).entries;
const compactions = (log: MemoryLogger): string =>
	log.lines
		.filter((l) => l.message.startsWith('compacted '))
		.map((l) => l.message)
		.join('\n');

/** The sums of a file's bytes: whole, and each 128 KB piece. */
function sumsOf(file: string): { size: number; crc32: number; pieces: number[] } {
	const bytes = fs.readFileSync(file);
	const pieces: number[] = [];
	for (let at = 0; at < bytes.length; at += checksumPieceBytes) pieces.push(crc32(bytes.subarray(at, at + checksumPieceBytes)));
	return { size: bytes.length, crc32: crc32(bytes), pieces };
}

async function addTasks(store: JournalStore, from: number, count: number): Promise<void> {
	await store.write((db) => {
		for (let n = from; n < from + count; n++)
			db.insert(tasks)
				.values({ ...taskRow(n), title: `added ${n} ${'y'.repeat(2_000)}` })
				.run();
	});
}

void describe('a compaction over a copy of the previous snapshot', { skip: !SnapshotPages.supported() && 'Windows reads the snapshot whole' }, () => {
	void it('writes only the changed pieces over a copy, records the new file’s sums whole and by piece, and another instance reads it', async (t) => {
		const dir = tempDir(t);
		await seedLargeStore(dir, 3_000, 3_500);
		const file = path.join(dir, 'baton.db');
		const before = sumsOf(file);
		const log = new MemoryLogger();
		const store = await open(dir, log);
		t.after(() => store.close());
		await addTasks(store, 5_000, 300); // the database grows past its old end
		await store.write((db) => db.update(tasks).set({ title: 'renamed' }).run());
		await store.compact();
		assert.match(compactions(log), /written from its pages over a copy of the previous one made before the lock/);

		const after = sumsOf(file);
		assert.ok(after.size > before.size, `grew from ${before.size} to ${after.size} bytes`);
		assert.ok(after.size % checksumPieceBytes !== 0 || before.size % checksumPieceBytes !== 0, 'a last piece shorter than the others is combined too');
		const [written, previous] = sidecar(dir);
		assert.deepEqual(
			written,
			{ ...after, pieceBytes: checksumPieceBytes },
			'the sums recorded are the new file’s, its whole CRC-32 combined from the pieces',
		);
		assert.deepEqual([previous?.size, previous?.crc32], [before.size, before.crc32], 'the previous snapshot’s entry is kept');
		assert.equal(fs.statSync(file).mode & 0o777, 0o600, 'the copy is private');
		assert.deepEqual(
			fs.readdirSync(dir).filter((name) => name.includes('.tmp-')),
			[],
			'no temp file left',
		);

		const other = await open(dir);
		t.after(() => other.close());
		const rows = await other.read((db) => db.select({ id: tasks.id, title: tasks.title }).from(tasks).all());
		assert.equal(rows.length, 3_300);
		assert.ok(rows.every((r) => r.title === 'renamed'));
	});

	void it('keeps the old sum of a piece nothing rewrote, so damage the old file took there is found, not laundered', async (t) => {
		const dir = tempDir(t);
		await seedLargeStore(dir, 3_000, 3_500);
		const file = path.join(dir, 'baton.db');
		const old = sidecar(dir)[0] as Required<Entry>;
		const log = new MemoryLogger();
		const store = await open(dir, log);
		t.after(() => store.close());
		await addTasks(store, 5_000, 1);
		// A byte of a piece in the middle of the task rows flipped on disk, after the store opened it.
		const piece = Math.floor(old.pieces.length / 2);
		const fd = fs.openSync(file, 'r+');
		const byte = Buffer.alloc(1);
		fs.readSync(fd, byte, 0, 1, piece * checksumPieceBytes + 100);
		fs.writeSync(fd, Buffer.from([byte[0] === 0x41 ? 0x42 : 0x41]), 0, 1, piece * checksumPieceBytes + 100);
		fs.closeSync(fd);
		await store.compact();
		assert.match(compactions(log), /over a copy of the previous one/);
		const [written] = sidecar(dir);
		assert.equal(written?.pieces?.[piece], old.pieces[piece], 'the piece keeps the sum it was written with');
		assert.notEqual(sumsOf(file).pieces[piece], old.pieces[piece]);
		const other = await open(dir);
		t.after(() => other.close());
		await assert.rejects(
			other.read((db) => db.select({ title: tasks.title }).from(tasks).all()),
			(e: unknown) => BatonError.is(e, 'corruptDatabase'),
		);
	});

	void it('refuses a patch that leaves a piece of the grown file without its sum, and keeps the old snapshot', (t) => {
		const dir = tempDir(t);
		const file = path.join(dir, 'baton.db');
		const old = Buffer.alloc(3 * checksumPieceBytes + 4096, 7);
		writeSnapshot(file, old, false);
		const size = old.length + 2 * checksumPieceBytes;
		const patch = { size, sameFile: () => true, changedPieces: () => [3, 5].map((index) => ({ index, bytes: Buffer.alloc(checksumPieceBytes, 9) })) };
		assert.throws(() => writeSnapshot(file, [Buffer.alloc(size)], false, patch), /sums incomplete \(piece 4\)/);
		assert.deepEqual(fs.readFileSync(file), old, 'the snapshot is the old one');
		assert.deepEqual(sidecar(dir)[0], { ...sumsOf(file), pieceBytes: checksumPieceBytes });
		assert.deepEqual(
			fs.readdirSync(dir).filter((name) => name.includes('.tmp-')),
			[],
		);
	});

	void it('copies the snapshot ahead of the lock, and a copy of a snapshot replaced since is not written over', async (t) => {
		const dir = tempDir(t);
		await seedLargeStore(dir, 1_000, 3_500);
		const file = path.join(dir, 'baton.db');
		const ahead = await copySnapshotAhead(file);
		assert.ok(ahead, 'a snapshot whose sums list its pieces is copied');
		assert.deepEqual(fs.readFileSync(ahead.path), fs.readFileSync(file), 'the copy is the snapshot');
		assert.equal(ahead.of(file), true);
		// Another process's compaction puts a new file in its place: not what was copied.
		const log = new MemoryLogger();
		const other = await open(dir, log);
		await addTasks(other, 5_000, 5);
		await other.compact();
		other.close();
		assert.equal(ahead.of(file), false, 'the snapshot was replaced since the copy');
		const store = await open(dir);
		t.after(() => store.close());
		await addTasks(store, 6_000, 5);
		const pages = (store as unknown as { pages: SnapshotPages }).pages;
		assert.equal(writeSnapshot(file, [], false, pages, ahead), 'patched', 'copied again under the lock, not the stale copy');
		assert.equal(fs.existsSync(ahead.path), true, 'the stale copy is left to its owner');
		ahead.discard();
		assert.equal(fs.existsSync(ahead.path), false);
		assert.deepEqual(sidecar(dir)[0], { ...sumsOf(file), pieceBytes: checksumPieceBytes });
	});

	void it('discards the copy made ahead when the compaction cannot run (the store closed while it was copied)', async (t) => {
		const dir = tempDir(t);
		await seedLargeStore(dir, 1_000, 3_500);
		const store = await open(dir);
		await addTasks(store, 5_000, 5);
		const compacting = store.compact();
		store.close();
		await assert.rejects(compacting);
		assert.deepEqual(
			fs.readdirSync(dir).filter((name) => name.includes('.tmp-')),
			[],
			'no copy left behind',
		);
	});

	void it('removes a copy made ahead by a process that died before its compaction', (t) => {
		const dir = tempDir(t);
		const file = path.join(dir, 'baton.db');
		fs.writeFileSync(file, 'snapshot');
		const dead = path.join(dir, 'baton.db.tmp-999999999-ahead-0a1b2c3d');
		const mine = path.join(dir, `baton.db.tmp-${process.pid}-ahead-4e5f6a7b`);
		fs.writeFileSync(dead, 'a copy of 390 MB');
		fs.writeFileSync(mine, 'in progress');
		removeStaleTemps(file);
		assert.equal(fs.existsSync(dead), false);
		assert.equal(fs.existsSync(mine), true, 'a live process’s copy is its compaction in progress');
	});

	void it('writes the whole snapshot when the sidecar lists no pieces (an older Baton’s)', async (t) => {
		const dir = tempDir(t);
		await seedLargeStore(dir, 1_000, 3_500);
		const sumFile = path.join(dir, 'baton.db.sum');
		fs.writeFileSync(sumFile, JSON.stringify({ entries: sidecar(dir).map(({ size, crc32: sum }) => ({ size, crc32: sum })) }));
		const log = new MemoryLogger();
		const store = await open(dir, log);
		t.after(() => store.close());
		await addTasks(store, 5_000, 10);
		await store.compact();
		assert.match(compactions(log), /written from its pages\)/);
		assert.deepEqual(sidecar(dir)[0], { ...sumsOf(path.join(dir, 'baton.db')), pieceBytes: checksumPieceBytes });
	});
});
