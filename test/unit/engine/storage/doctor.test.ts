import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { BatonError } from '../../../../src/engine/errors';
import { runDoctor, type RepairPlan } from '../../../../src/engine/storage/doctor';
import { JournalStore } from '../../../../src/engine/storage/journalStore';
import { migrations } from '../../../../src/engine/storage/migrations.generated';
import { tasks } from '../../../../src/engine/storage/schema';
import { FakeClock, MemoryLogger, damageSnapshot, snapshotFiles, tempDir, taskRow } from '../../helpers';

const clock = new FakeClock();
const open = (dir: string, keepPreviousUpTo?: number) =>
	JournalStore.open({ dir, clock, log: new MemoryLogger(), lockTimeoutMs: 3_000, ...(keepPreviousUpTo !== undefined ? { keepPreviousUpTo } : {}) });
const task = taskRow;
const doctor = (dir: string, repair: boolean, acceptLoss?: (plan: RepairPlan) => boolean) =>
	runDoctor({ dir, repair, clock, log: new MemoryLogger(), ...(acceptLoss ? { acceptLoss } : {}) });

async function populate(dir: string, plan: ('write' | 'compact')[], keepPreviousUpTo?: number): Promise<number> {
	const store = await open(dir, keepPreviousUpTo);
	let n = 0;
	for (const step of plan) {
		if (step === 'compact') {
			await store.compact();
		} else {
			n++;
			await store.write((db) => db.insert(tasks).values(task(n)).run());
		}
	}
	store.close();
	return n;
}

async function titles(dir: string): Promise<string[]> {
	const store = await open(dir);
	try {
		return await store.read((db) =>
			db
				.select({ id: tasks.id })
				.from(tasks)
				.all()
				.map((r) => r.id),
		);
	} finally {
		store.close();
	}
}

void describe('baton doctor', () => {
	void it('reports a healthy database and changes nothing', async (t) => {
		const dir = tempDir(t);
		await populate(dir, ['write', 'compact', 'write']);
		const before = snapshotFiles(dir);
		const report = await doctor(dir, false);
		assert.equal(report.ok, true, JSON.stringify(report.checks));
		assert.deepEqual(snapshotFiles(dir), before);
		const repaired = await doctor(dir, true);
		assert.equal(repaired.repair, undefined, 'nothing to repair');
	});

	void it('finds mid-journal damage without touching files, and repairs to the valid prefix keeping the damaged files', async (t) => {
		const dir = tempDir(t);
		await populate(dir, ['write', 'write', 'compact', 'write', 'write', 'write']);
		const journal = path.join(dir, 'baton.db.journal');
		const bytes = fs.readFileSync(journal);
		const second = bytes.indexOf(Buffer.from('BATN', 'latin1'), bytes.indexOf(Buffer.from('BATN', 'latin1')) + 4);
		bytes[second - 3] = (bytes[second - 3] as number) ^ 0x01; // damage record 3 (T3), records 4-5 follow
		fs.writeFileSync(journal, bytes);
		const before = snapshotFiles(dir);
		await assert.rejects(open(dir), (e: unknown) => BatonError.is(e, 'corruptJournal'));
		const report = await doctor(dir, false);
		assert.equal(report.ok, false);
		assert.match(report.checks.find((c) => c.name === 'journal')?.detail ?? '', /checksum/);
		assert.deepEqual(snapshotFiles(dir), before, 'checking changes nothing');

		// Records 3-5 are lost: the repair says so and writes nothing unless the loss is accepted.
		const asked: RepairPlan[] = [];
		for (const answer of [undefined, false]) {
			const declined = await doctor(dir, true, answer === undefined ? undefined : (plan) => (asked.push(plan), answer));
			assert.equal(declined.repair, undefined);
			assert.deepEqual(declined.declined?.losses, [`records ${migrations.length + 3}–${migrations.length + 5} (3 acknowledged write(s))`]);
			assert.deepEqual(snapshotFiles(dir), before, 'a declined repair changes nothing');
		}
		assert.equal(asked.length, 1);
		assert.equal(asked[0]?.recoveredSequence, migrations.length + 2);
		const repaired = await doctor(dir, true, () => true);
		assert.equal(repaired.repair?.base, 'snapshot');
		assert.equal(repaired.repair?.recoveredSequence, migrations.length + 2, 'the migrations, T1 and T2');
		assert.deepEqual(await titles(dir), ['T1', 'T2']);
		const aside = repaired.repair?.movedAside ?? [];
		assert.ok(aside.some((f) => f.endsWith('baton.db.journal')));
		assert.deepEqual(fs.readFileSync(aside.find((f) => f.endsWith('baton.db.journal')) as string), bytes, 'the damaged journal is kept as it was');
		assert.equal((await doctor(dir, false)).ok, true);
	});

	void it('rebuilds a damaged snapshot from the previous snapshot and both journals, losing nothing', async (t) => {
		const dir = tempDir(t);
		const n = await populate(dir, ['write', 'compact', 'write', 'write', 'compact', 'write']);
		const dbFile = damageSnapshot(dir);
		await assert.rejects(open(dir), (e: unknown) => BatonError.is(e, 'corruptDatabase') && e.message.includes(dbFile));
		const repaired = await doctor(dir, true);
		assert.equal(repaired.repair?.base, 'previous snapshot');
		assert.equal(repaired.repair?.droppedRecords, 0);
		assert.deepEqual(
			await titles(dir),
			Array.from({ length: n }, (_, i) => `T${i + 1}`),
		);
	});

	void it('rebuilds a deleted snapshot from the previous snapshot and both journals: 45 of 45, nothing asked', async (t) => {
		const plan: ('write' | 'compact')[] = [];
		for (let i = 1; i <= 45; i++) {
			plan.push('write', ...(i === 20 || i === 35 ? (['compact'] as const) : []));
		}
		const dir = tempDir(t);
		const n = await populate(dir, plan);
		fs.rmSync(path.join(dir, 'baton.db'));
		await assert.rejects(open(dir), (e: unknown) => BatonError.is(e, 'corruptDatabase'));
		const repaired = await doctor(dir, true, () => assert.fail('nothing is lost: nothing to ask'));
		assert.equal(repaired.repair?.base, 'previous snapshot');
		assert.deepEqual(repaired.repair?.losses, []);
		assert.equal(repaired.repair?.recoveredSequence, migrations.length + n);
		assert.equal((await titles(dir)).length, 45);
		assert.ok(
			repaired.repair?.movedAside.some((f) => f.endsWith('baton.db.prev')),
			'the copies it used are kept aside too',
		);
		assert.equal((await doctor(dir, false)).ok, true);
	});

	void it('says what a damaged snapshot costs when the store is past the size that keeps a previous one, and asks first', async (t) => {
		const dir = tempDir(t);
		const n = await populate(dir, ['write', 'write', 'compact', 'write'], 1);
		assert.ok(!fs.existsSync(path.join(dir, 'baton.db.prev')));
		damageSnapshot(dir);
		const before = snapshotFiles(dir);
		let asked: RepairPlan | undefined;
		const refused = await doctor(dir, true, (plan) => ((asked = plan), false));
		assert.equal(asked?.base, 'empty', 'no copy to start from but nothing');
		assert.ok((asked?.losses.length ?? 0) > 0 && asked?.recoveredSequence === 0, JSON.stringify(asked));
		assert.equal(refused.ok, false);
		assert.deepEqual(snapshotFiles(dir), before, 'nothing written without the loss accepted');
		assert.equal(n, 3);
	});

	void it('drops only a torn tail, which open() would also drop', async (t) => {
		const dir = tempDir(t);
		await populate(dir, ['write', 'write']);
		fs.appendFileSync(path.join(dir, 'baton.db.journal'), Buffer.from([0x42, 0x41, 0x54, 0x4e, 9, 9]));
		const report = await doctor(dir, false);
		assert.equal(report.ok, true);
		assert.match(report.checks.find((c) => c.name === 'journal')?.detail ?? '', /torn/);
	});
});
