/**
 * An existing store that takes the migrations it lacks is compacted at once (journalStore.ts): left
 * in the journal, a migration that rebuilds an index over every task ran again in every process that
 * opened the store after it, until something compacted it.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { headerSize } from '../../../../src/engine/storage/journalFormat';
import { JournalStore } from '../../../../src/engine/storage/journalStore';
import { migrations } from '../../../../src/engine/storage/migrations.generated';
import { tasks } from '../../../../src/engine/storage/schema';
import { FakeClock, MemoryLogger, taskRow, tempDir } from '../../helpers';

const open = (dir: string, log = new MemoryLogger()) => JournalStore.open({ dir, clock: new FakeClock(), log, lockTimeoutMs: 3_000 });
const journalBytes = (dir: string) => fs.statSync(path.join(dir, 'baton.db.journal')).size;

void describe('migrations on an existing store', () => {
	void it('are compacted into the snapshot as they are applied, so no later open runs them again', async (t) => {
		const dir = tempDir(t);
		// A migration that can run again on a store that has it: it drops and creates an index over every task.
		const last = '0012_tasks_status_parent_index';
		assert.ok(migrations.some((m) => m.tag === last));
		const made = await open(dir);
		await made.write((db) => {
			for (let n = 1; n <= 50; n++) db.insert(tasks).values(taskRow(n)).run();
		});
		// The store as a Baton before that migration left it, as far as the bookkeeping says.
		await made.write(() => made.execCaptured('DELETE FROM __baton_migrations WHERE tag = ?', [last]));
		await made.compact();
		made.close();
		assert.equal(journalBytes(dir), headerSize);

		const log = new MemoryLogger();
		const upgraded = await open(dir, log);
		const messages = log.lines.map((l) => l.message);
		assert.ok(messages.includes(`applied migration ${last}`), messages.join('\n'));
		assert.ok(
			messages.some((m) => m.startsWith('compacted ')),
			`compacted after it: ${messages.join('\n')}`,
		);
		assert.equal(journalBytes(dir), headerSize, 'the journal holds nothing for the next open to replay');
		assert.equal(await upgraded.read((db) => db.select().from(tasks).all().length), 50);
		upgraded.close();

		const nextLog = new MemoryLogger();
		const next = await open(dir, nextLog);
		t.after(() => next.close());
		assert.deepEqual(
			nextLog.lines.map((l) => l.message),
			[],
			'the next open applies nothing and compacts nothing',
		);
		assert.equal(await next.read((db) => db.select().from(tasks).all().length), 50);
	});

	void it('a new store takes them all in its journal, as before (nothing to compact yet)', async (t) => {
		const dir = tempDir(t);
		const log = new MemoryLogger();
		const store = await open(dir, log);
		t.after(() => store.close());
		assert.equal(log.lines.filter((l) => l.message.startsWith('applied migration')).length, migrations.length);
		assert.ok(!log.lines.some((l) => l.message.startsWith('compacted ')));
		assert.ok(journalBytes(dir) > headerSize);
	});
});
