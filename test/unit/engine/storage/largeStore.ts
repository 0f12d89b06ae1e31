/** A store whose snapshot is tens of megabytes: `count` tasks with titles of `titleBytes`, compacted. */
import { JournalStore } from '../../../../src/engine/storage/journalStore';
import { tasks } from '../../../../src/engine/storage/schema';
import { FakeClock, MemoryLogger, taskRow } from '../../helpers';

export async function seedLargeStore(dir: string, count: number, titleBytes: number): Promise<void> {
	const store = await JournalStore.open({ dir, clock: new FakeClock(), log: new MemoryLogger(), lockTimeoutMs: 3_000 });
	for (let from = 1; from <= count; from += 2_000) {
		await store.write((db) => {
			for (let n = from; n < Math.min(count + 1, from + 2_000); n++) {
				db.insert(tasks)
					.values({ ...taskRow(n), title: `task ${n} ${'x'.repeat(titleBytes)}` })
					.run();
			}
		});
	}
	await store.compact();
	store.close();
}
