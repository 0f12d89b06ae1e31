/**
 * The snapshot's checksum by pieces: a store read a page at a time checks each 128 KB piece the first
 * time it reads from it (snapshotFile.ts, snapshotPages.ts), not the whole file at open; an older
 * sidecar's 4 MB pieces are checked by their size.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import zlib from 'node:zlib';
import { BatonError } from '../../../../src/engine/errors';
import { crc32 } from '../../../../src/engine/storage/journalFormat';
import { JournalStore } from '../../../../src/engine/storage/journalStore';
import { checksumPieceBytes, descriptorChecksum, legacyPieceBytes, sumFileOf, writeSnapshot } from '../../../../src/engine/storage/snapshotFile';
import { SnapshotPages } from '../../../../src/engine/storage/snapshotPages';
import { tasks } from '../../../../src/engine/storage/schema';
import { FakeClock, MemoryLogger, tempDir } from '../../helpers';
import { seedLargeStore } from './largeStore';

const open = (dir: string) => JournalStore.open({ dir, clock: new FakeClock(), log: new MemoryLogger(), lockTimeoutMs: 3_000 });

interface Sum {
	entries: { size: number; crc32: number; pieces?: number[]; pieceBytes?: number }[];
}
const readSum = (dbFile: string) => JSON.parse(fs.readFileSync(sumFileOf(dbFile), 'utf8')) as Sum;

async function seed(dir: string, count: number, titleBytes: number): Promise<string> {
	await seedLargeStore(dir, count, titleBytes);
	return path.join(dir, 'baton.db');
}

/** Flips one byte of the file in place (what a bad disk or a stray writer does; Baton never writes a snapshot in place). */
function flipByte(file: string, at: number): void {
	const fd = fs.openSync(file, 'r+');
	try {
		const byte = Buffer.alloc(1);
		fs.readSync(fd, byte, 0, 1, at);
		byte[0] = (byte[0] as number) ^ 0xff;
		fs.writeSync(fd, byte, 0, 1, at);
	} finally {
		fs.closeSync(fd);
	}
}

/** Every task's title: a scan of the table's pages (the ids alone come from the primary key's index). */
async function readAllTasks(store: JournalStore): Promise<number> {
	return store.read((db) => db.select({ title: tasks.title }).from(tasks).all().length);
}

const damaged = (e: unknown) =>
	BatonError.is(e, 'corruptDatabase') && /does not match its recorded checksum \(damaged between bytes \d+ and \d+\)/.test(e.message);

void describe('the snapshot checked a piece at a time', { skip: !SnapshotPages.supported() && 'Windows reads the snapshot whole' }, () => {
	void it('records every piece, opens without reading the whole file, and fails the read that reaches a damaged piece', async (t) => {
		const dir = tempDir(t);
		const dbFile = await seed(dir, 6_000, 3_500);
		const size = fs.statSync(dbFile).size;
		const [entry] = readSum(dbFile).entries;
		assert.equal(entry?.pieceBytes, checksumPieceBytes, 'the sidecar says the size of its pieces');
		assert.equal(entry?.pieces?.length, Math.ceil(size / checksumPieceBytes), 'one checksum per piece');
		assert.ok((entry?.pieces?.length ?? 0) >= 5, `a ${size}-byte snapshot has several pieces`);

		flipByte(dbFile, size - 2_000);
		const store = await open(dir);
		t.after(() => store.close());
		await assert.rejects(readAllTasks(store), damaged, 'the scan that reaches the last piece fails with the damage, not with wrong rows');
		await assert.rejects(readAllTasks(store), damaged, 'and so does every read of the file after it');
	});

	void it('a sidecar without pieces (an older Baton’s) is checked whole at open, as before', async (t) => {
		const dir = tempDir(t);
		const dbFile = await seed(dir, 3_000, 3_500);
		const sum = readSum(dbFile);
		fs.writeFileSync(sumFileOf(dbFile), JSON.stringify({ entries: sum.entries.map(({ size, crc32 }) => ({ size, crc32 })) }));
		const undamaged = await open(dir);
		assert.equal(await readAllTasks(undamaged), 3_000);
		undamaged.close();

		flipByte(dbFile, fs.statSync(dbFile).size - 2_000);
		await assert.rejects(open(dir), (e: unknown) => BatonError.is(e, 'corruptDatabase') && e.message.includes('does not match its recorded checksum'));
		// Pieces that do not cover the file are not trusted either: the whole file is checked.
		const [first] = sum.entries;
		fs.writeFileSync(sumFileOf(dbFile), JSON.stringify({ entries: [{ ...first, pieces: first?.pieces?.slice(1) }] }));
		await assert.rejects(open(dir), (e: unknown) => BatonError.is(e, 'corruptDatabase'));
	});

	void it('with two recorded snapshots of one size, every piece read must be the same one’s', (t) => {
		const dir = tempDir(t);
		const file = path.join(dir, 'snap');
		const bytes = Buffer.alloc(3 * checksumPieceBytes + 1_000);
		for (let i = 0; i < bytes.length; i += 997) bytes[i] = i % 251;
		fs.writeFileSync(file, bytes);
		const real = descriptorChecksum(fs.openSync(file, 'r')).pieces as number[];
		assert.equal(real.length, 4);
		const other = real.map((p) => (p + 1) >>> 0);
		const read = (pages: SnapshotPages, piece: number) => pages.subarray(piece * checksumPieceBytes + 10, piece * checksumPieceBytes + 4_106);

		const either = SnapshotPages.open(file) as SnapshotPages;
		t.after(() => either.close());
		either.verifyPieces([other, real], checksumPieceBytes);
		for (const piece of [3, 0, 2, 1]) assert.equal(read(either, piece).length, 4_096, `piece ${piece} matches the second list`);

		// Piece 0 only matches the first list, piece 1 only the second: a file made of two snapshots is damage.
		const mixed = SnapshotPages.open(file) as SnapshotPages;
		t.after(() => mixed.close());
		mixed.verifyPieces(
			[
				[real[0] as number, ...other.slice(1)],
				[other[0] as number, ...real.slice(1)],
			],
			checksumPieceBytes,
		);
		read(mixed, 0);
		assert.throws(() => read(mixed, 1), damaged);
		assert.throws(() => read(mixed, 0), damaged, 'a piece checked before is refused too once the file is known damaged');
	});

	void it('pieces written from chunks of any size are those a fresh read of the file computes', (t) => {
		const dir = tempDir(t);
		const dbFile = path.join(dir, 'baton.db');
		const total = 2 * checksumPieceBytes + 12_345;
		const whole = Buffer.alloc(total);
		for (let i = 0; i < total; i += 131) whole[i] = (i * 7) % 256;
		const cuts = [0, Math.floor(checksumPieceBytes / 3) + 7, checksumPieceBytes + 1_001, total];
		const chunks = cuts.slice(1).map((end, i) => whole.subarray(cuts[i], end));
		writeSnapshot(dbFile, chunks, false);
		const fd = fs.openSync(dbFile, 'r');
		t.after(() => fs.closeSync(fd));
		assert.deepEqual(readSum(dbFile).entries[0], descriptorChecksum(fd));
		writeSnapshot(dbFile, whole, false);
		const [written, previous] = readSum(dbFile).entries;
		assert.deepEqual(written, descriptorChecksum(fd), 'written whole: the same sums');
		assert.deepEqual(previous?.pieces, written?.pieces, 'the previous snapshot (the same bytes) is listed with its pieces too');
	});

	void it('an older sidecar’s 4 MB pieces are checked by their size, and damage in one is found', async (t) => {
		const dir = tempDir(t);
		const dbFile = await seed(dir, 3_000, 3_500);
		const size = fs.statSync(dbFile).size;
		assert.ok(size > 2 * legacyPieceBytes, `${size} bytes: more than two 4 MB pieces`);
		const bytes = fs.readFileSync(dbFile);
		const pieces: number[] = [];
		for (let at = 0; at < size; at += legacyPieceBytes) pieces.push(zlib.crc32(bytes.subarray(at, at + legacyPieceBytes)));
		fs.writeFileSync(sumFileOf(dbFile), JSON.stringify({ entries: [{ size, crc32: zlib.crc32(bytes), pieces }] }));
		const undamaged = await open(dir);
		assert.equal(await readAllTasks(undamaged), 3_000);
		undamaged.close();

		flipByte(dbFile, size - 2_000);
		const store = await open(dir);
		t.after(() => store.close());
		const last = Math.floor((size - 2_000) / legacyPieceBytes) * legacyPieceBytes;
		await assert.rejects(
			readAllTasks(store),
			(e: unknown) => damaged(e) && (e as Error).message.includes(`between bytes ${last} and ${size}`),
			'the damage is placed in the 4 MB piece the old sidecar listed',
		);
	});

	void it('a page read checks one piece, and the check’s read of it serves the reads in it that follow', (t) => {
		const dir = tempDir(t);
		const file = path.join(dir, 'snap');
		const bytes = Buffer.alloc(20 * checksumPieceBytes);
		for (let i = 0; i < bytes.length; i += 409) bytes[i] = (i >> 3) % 256;
		fs.writeFileSync(file, bytes);
		const pages = SnapshotPages.open(file) as SnapshotPages;
		t.after(() => pages.close());
		pages.verifyPieces([descriptorChecksum(fs.openSync(file, 'r')).pieces as number[]], checksumPieceBytes);
		const reads: number[] = [];
		const readSync = fs.readSync;
		t.after(() => (fs.readSync = readSync));
		fs.readSync = ((fd: number, buffer: Buffer, offset: number, length: number, position: number) => {
			reads.push(length);
			return readSync(fd, buffer, offset, length, position);
		}) as typeof fs.readSync;
		// Pages of piece 13 out of order, as an index's scattered pages are read.
		const piece = 13 * checksumPieceBytes;
		for (const page of [5, 1, 30, 0, 17, 31, 2]) {
			const at = piece + page * 4_096;
			assert.deepEqual(pages.subarray(at, at + 4_096), bytes.subarray(at, at + 4_096), `page ${page} as written`);
		}
		assert.deepEqual(reads, [checksumPieceBytes], 'one read of the piece: its check, which served every page read from it');
	});

	void it('a compaction takes the old snapshot’s sum from the sidecar when one entry has its size, and reads it otherwise', (t) => {
		const dir = tempDir(t);
		const file = path.join(dir, 'baton.db');
		const readSync = fs.readSync;
		t.after(() => (fs.readSync = readSync));
		/** The lengths `fs.readSync` was asked for while `write` ran. */
		const readsDuring = (write: () => void): number[] => {
			const reads: number[] = [];
			fs.readSync = ((fd: number, buffer: Buffer, offset: number, length: number, position: number) => {
				reads.push(length);
				return readSync(fd, buffer, offset, length, position);
			}) as typeof fs.readSync;
			try {
				write();
			} finally {
				fs.readSync = readSync;
			}
			return reads;
		};
		const first = Buffer.alloc(3 * checksumPieceBytes + 100, 7);
		writeSnapshot(file, first, false);
		const firstSum = readSum(file).entries[0];
		// Damage since it was written: the old snapshot keeps the sum it was written with, not one taken from the damage.
		flipByte(file, 10);
		const second = Buffer.alloc(2 * checksumPieceBytes, 9);
		const sum = (reads: number[]): number => reads.reduce((a, b) => a + b, 0);
		assert.ok(sum(readsDuring(() => writeSnapshot(file, second, false))) < 4_096, 'the old snapshot was not read (the sidecar was)');
		assert.deepEqual(readSum(file).entries[1], firstSum, 'its recorded sum, damage or not');
		// Two entries of the snapshot's size (its sum and the one before, of the same size): the file itself is read.
		const third = Buffer.alloc(2 * checksumPieceBytes, 11);
		writeSnapshot(file, third, false);
		assert.deepEqual(
			readSum(file).entries.map((e) => e.size),
			[third.length, second.length],
		);
		const fourth = Buffer.alloc(checksumPieceBytes, 13);
		assert.ok(sum(readsDuring(() => writeSnapshot(file, fourth, false))) >= third.length, 'two entries of its size: the old snapshot was read for its sum');
		assert.deepEqual([readSum(file).entries[1]?.size, readSum(file).entries[1]?.crc32], [third.length, crc32(third)]);
	});
});
