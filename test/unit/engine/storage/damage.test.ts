import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { BatonError } from '../../../../src/engine/errors';
import { runDoctor } from '../../../../src/engine/storage/doctor';
import { encodeRecord, headerSize, scanRecords } from '../../../../src/engine/storage/journalFormat';
import { JournalStore } from '../../../../src/engine/storage/journalStore';
import { tasks } from '../../../../src/engine/storage/schema';
import { FakeClock, MemoryLogger, snapshotFiles, tempDir, taskRow } from '../../helpers';

/** sha256 of every file under the folder (lock owner files of a running store aside). */
function hashes(dir: string): Record<string, string> {
	const out: Record<string, string> = {};
	for (const [name, base64] of snapshotFiles(dir)) {
		if (!name.includes('.lock')) {
			out[name] = createHash('sha256').update(base64).digest('hex');
		}
	}
	return out;
}

const clock = new FakeClock();
const open = (dir: string) => JournalStore.open({ dir, clock, log: new MemoryLogger(), lockTimeoutMs: 3_000 });
const doctor = (dir: string, repair: boolean, acceptLoss = false) => runDoctor({ dir, repair, clock, log: new MemoryLogger(), acceptLoss: () => acceptLoss });

/** 45 acknowledged writes, compacted after the 34th: the last 11 live only in the journal. */
async function populate(dir: string, compactAt: number | undefined = 34): Promise<void> {
	const store = await open(dir);
	for (let i = 1; i <= 45; i++) {
		await store.write((db) =>
			db
				.insert(tasks)
				.values({ ...taskRow(i), description: 'x'.repeat(400) })
				.run(),
		);
		if (i === compactAt) {
			await store.compact();
		}
	}
	store.close();
}

async function count(dir: string): Promise<number> {
	const store = await open(dir);
	try {
		return await store.read((db) => db.select().from(tasks).all().length);
	} finally {
		store.close();
	}
}

/** Opening must stop with the damaged-file error naming `file` and leave every file as it was. */
async function assertRefused(dir: string, code: 'corruptDatabase' | 'corruptJournal', file: string, label: string): Promise<void> {
	const before = hashes(dir);
	await assert.rejects(count(dir), (e: unknown) => BatonError.is(e, code) && e.message.includes(file) && /damaged/.test(e.message), label);
	assert.deepEqual(hashes(dir), before, `${label}: no file changed`);
	const report = await doctor(dir, false);
	assert.equal(report.ok, false, `${label}: doctor must not say ok`);
	assert.ok(
		report.checks.some((c) => !c.ok && c.detail.includes(file)),
		`${label}: doctor names ${file}: ${JSON.stringify(report.checks)}`,
	);
	assert.deepEqual(hashes(dir), before, `${label}: doctor changed no file`);
}

const garbles: [string, (text: string) => string][] = [
	['not json', () => 'garbled!'],
	['truncated', (text) => text.slice(0, Math.floor(text.length / 2))],
	['empty', () => ''],
	['no entries', () => '{"entries":"none"}'],
	['entry without numbers', (text) => text.replace(/"crc32":\d+/, '"crc32":"x"')],
];

void describe('damage the store must refuse', () => {
	void it('a garbled baton.db.sum is damage, not "no check": a damaged page is never served', async (t) => {
		for (const [label, garble] of garbles) {
			for (const pageDamaged of [false, true]) {
				const dir = tempDir(t);
				await populate(dir);
				const dbFile = path.join(dir, 'baton.db');
				const sumFile = `${dbFile}.sum`;
				fs.writeFileSync(sumFile, garble(fs.readFileSync(sumFile, 'utf8')));
				if (pageDamaged) {
					const bytes = fs.readFileSync(dbFile);
					bytes.fill(0x5a, 4096 * 2 + 100, 4096 * 2 + 300); // inside a page: only a checksum sees it
					fs.writeFileSync(dbFile, bytes);
				}
				await assertRefused(dir, 'corruptDatabase', sumFile, `${label}${pageDamaged ? ' + damaged page' : ''}`);
				if (!pageDamaged) {
					// The snapshot itself is fine: repair replaces the sidecar and loses nothing.
					const repaired = await doctor(dir, true);
					assert.ok(repaired.repair, label);
					assert.equal(await count(dir), 45, label);
					assert.equal((await doctor(dir, false)).ok, true, label);
				}
			}
		}
	});

	void it('a missing, empty or header-less journal after acknowledged writes is damage', async (t) => {
		const damages: [string, (file: string) => void][] = [
			['missing', (file) => fs.rmSync(file)],
			['empty', (file) => fs.writeFileSync(file, '')],
			['header stripped', (file) => fs.writeFileSync(file, fs.readFileSync(file).subarray(headerSize))],
			['cut inside the header', (file) => fs.writeFileSync(file, fs.readFileSync(file).subarray(0, 10))],
		];
		for (const compactAt of [34, undefined]) {
			for (const [label, damage] of damages) {
				const dir = tempDir(t);
				await populate(dir, compactAt);
				assert.equal(await count(dir), 45);
				const journal = path.join(dir, 'baton.db.journal');
				damage(journal);
				await assertRefused(dir, 'corruptJournal', journal, `${label}${compactAt ? ' after compaction' : ' without compaction'}`);
				if (compactAt && label === 'missing') {
					// Only an explicit repair accepts the loss: it rebuilds from the snapshot, keeping the rest aside.
					const before = hashes(dir);
					assert.match((await doctor(dir, true)).declined?.losses.join() ?? '', /missing or empty/);
					assert.deepEqual(hashes(dir), before, 'a declined repair changes nothing');
					assert.ok((await doctor(dir, true, true)).repair);
					assert.equal(await count(dir), compactAt);
				}
			}
		}
	});

	void it('a deleted snapshot is damage, never a fresh start on top of the journal', async (t) => {
		const dir = tempDir(t);
		await populate(dir);
		const dbFile = path.join(dir, 'baton.db');
		fs.rmSync(dbFile);
		await assertRefused(dir, 'corruptDatabase', dbFile, 'snapshot deleted after compaction');
		// Opening again refuses the same way: the first refusal wrote no empty snapshot in its place.
		await assertRefused(dir, 'corruptDatabase', dbFile, 'snapshot deleted, second open');
	});

	void it('a journal cut short on a record boundary is damage: acknowledged writes are missing, not torn', async (t) => {
		for (const compactAt of [undefined, 34]) {
			const dir = tempDir(t);
			await populate(dir, compactAt);
			const journal = path.join(dir, 'baton.db.journal');
			const bytes = fs.readFileSync(journal);
			const ends = scanRecords(bytes.subarray(headerSize), headerSize).records.map((r) => r.end);
			const boundary = ends.reduce((best, end) => (Math.abs(end - bytes.length / 2) < Math.abs(best - bytes.length / 2) ? end : best));
			fs.writeFileSync(journal, bytes.subarray(0, boundary));
			const label = `halved${compactAt ? ' after compaction' : ''}`;
			await assertRefused(dir, 'corruptJournal', journal, label);
			await assert.rejects(
				count(dir),
				(e: unknown) => BatonError.is(e, 'corruptJournal') && /cut short/.test(e.message) && /record\(s\) missing/.test(e.message),
				label,
			);
			// Cut inside the last acknowledged record: still missing writes, never "a torn tail" to drop.
			fs.writeFileSync(journal, bytes.subarray(0, bytes.length - 5));
			await assertRefused(dir, 'corruptJournal', journal, `${label}, last record cut`);
		}
	});

	void it('a torn record past the acknowledged end is still dropped with a warning', async (t) => {
		const dir = tempDir(t);
		await populate(dir);
		const journal = path.join(dir, 'baton.db.journal');
		const torn = encodeRecord({ seq: 46, at: '2026-01-01T00:00:00.000Z', stmts: [['SELECT 1', []]] });
		fs.appendFileSync(journal, torn.subarray(0, torn.length - 3));
		const log = new MemoryLogger();
		const store = await JournalStore.open({ dir, clock, log, lockTimeoutMs: 3_000 });
		t.after(() => store.close());
		assert.equal(await store.read((db) => db.select().from(tasks).all().length), 45);
		assert.ok(
			log.warnings().some((w) => w.includes('torn last record')),
			log.warnings().join('\n'),
		);
	});

	void it('a journal that vanishes under a running store is refused there too', async (t) => {
		const dir = tempDir(t);
		await populate(dir);
		const store = await open(dir);
		t.after(() => store.close());
		const journal = path.join(dir, 'baton.db.journal');
		fs.rmSync(journal);
		const before = hashes(dir);
		await assert.rejects(
			store.write((db) => db.insert(tasks).values(taskRow(99)).run()),
			(e: unknown) => BatonError.is(e, 'corruptJournal') && e.message.includes(journal),
		);
		assert.deepEqual(hashes(dir), before);
	});

	void it('still accepts the legitimate states: a fresh workspace and one right after compaction', async (t) => {
		const dir = tempDir(t);
		assert.equal(await count(dir), 0);
		assert.equal(await count(dir), 0, 'reopening a fresh workspace');
		const store = await open(dir);
		await store.write((db) => db.insert(tasks).values(taskRow(1)).run());
		await store.compact();
		store.close();
		assert.equal(fs.statSync(path.join(dir, 'baton.db.journal')).size, headerSize);
		assert.equal(await count(dir), 1);
		assert.equal((await doctor(dir, false)).ok, true);
	});
});
