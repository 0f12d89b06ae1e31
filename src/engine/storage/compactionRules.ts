/**
 * When the store compacts, and what a compaction keeps (journalStore.ts applies them): the written
 * pages' bound, a batch made durable by a snapshot, the previous snapshot kept for repair.
 */
import { recordBytesReach, type JournalRecord } from './journalFormat';

/**
 * The pages written since the last snapshot are held in memory (snapshotPages.ts): a long run of
 * writes (an import, the first sync's record events) compacts once they pass this, so what a process
 * holds stays bounded whatever it writes — or an eighth of the snapshot, when that is more. A
 * compaction writes the whole snapshot, so a fixed bound made a long run of writes cost the square of
 * the store: a full pull of 100,000 sessions (550 MB of events into a snapshot growing to 800 MB)
 * compacted every 64 MB. With the bound a share of the snapshot, each compaction's write is paid for by
 * an eighth of its size in new pages, whatever the size.
 */
const compactAfterWrittenBytesDefault = 64 * 1024 * 1024;
/** The journal's size past which it is compacted when the process is idle (`needsCompaction`). */
export const defaultCompactAfterBytes = 4 * 1024 * 1024;
const compactAfterWrittenShare = 8;

/** The written pages past which a durable write compacts, for a snapshot of `size` bytes. */
export function compactAfterWritten(size: number, floor = compactAfterWrittenBytesDefault): number {
	return Math.max(floor, Math.floor(size / compactAfterWrittenShare));
}

/**
 * A batch whose records come to at least a third of the database it leaves (and to
 * `compactAfterBytes`, 4 MB by default) is made durable by a fresh snapshot rather than by its
 * records: an import or a first pull otherwise wrote its rows twice (a record as large as the data,
 * then the compaction every process opening the store waited for until it ran), and held the record
 * as one string while it was written. Measured on a fresh clone's pull of 10,000 sessions (three
 * writes, 30 MB of records): the records took 330 ms to encode and append (11 ms a MB) and 1.7 s to
 * replay in the next process to open the store; a snapshot of the whole 49 MB database takes 190 ms
 * (4 ms a MB), so past a third the snapshot costs less already as it is written. The records are
 * counted from their values (a little under what their JSON takes). An import of 50,000 sessions
 * peaked at 835-853 MB, not 1,205-1,220.
 */
export function snapshotInstead(records: readonly JournalRecord[], size: number, floor: number): boolean {
	return recordBytesReach(records, Math.max(floor, size / 3));
}

/**
 * A compaction keeps the snapshot it replaces (and the journal that continues it) for `baton doctor
 * --repair` while that costs little; past this size the store keeps no second full copy: the new
 * snapshot is written atomically with its checksum, as SQLite trusts its own file (docs/architecture.md).
 */
export const keepPreviousUpToDefault = 64 * 1024 * 1024;
