/**
 * What the journal store lends the code that writes through it (groupCommit.ts, oneWrite.ts): its
 * lock, its connection, its catch-up and its append. The store keeps the state; these only drive it.
 */
import type { Database } from 'sql.js';
import type { BatonDb } from './capturingDrizzle';
import type { JournalParam, JournalRecord } from './journalFormat';
import type { LockFile } from './lockFile';
import type { StatementCache } from './statementCache';

export type Statements = [string, JournalParam[]][];

export interface StoreHost {
	readonly lock: LockFile;
	statements(): StatementCache;
	db(): BatonDb;
	sqlite(): Database;
	/** The sequence number of the last record applied. */
	seq(): number;
	/** Now, as a record's time. */
	at(): string;
	/** Outside the lock: apply what other processes appended (takes the lock briefly). */
	refresh(): Promise<unknown>;
	/** Under the lock: apply what other processes appended. */
	catchUpLocked(): void;
	/** Where drizzle's statements go while a write runs (undefined: none runs). */
	setCapture(capture: Statements | undefined): void;
	bump(statements: Statements): void;
	/** `record` is durable (appended, or in a snapshot): its tables' content marks move to it (TableVersions.durable). */
	durable(record: JournalRecord): void;
	bumpAll(): void;
	/** Appends the records and fdatasyncs them (under the lock; `offEventLoop`: see TakenBatch.company). */
	appendLocked(records: JournalRecord[], offEventLoop: boolean): Promise<void>;
	/** Whether a batch's `records` are made durable by a snapshot rather than appended (compactionRules.ts `snapshotInstead`). */
	snapshotInstead(records: readonly JournalRecord[]): boolean;
	/** Under the lock, after COMMIT: `records` are made durable by a fresh snapshot of the database, not appended (the sequence moves past them). Throws when it cannot be written. */
	snapshotLocked(records: number): void;
	/** The records are durable and memory is not: rebuild memory from disk before the next use. */
	poison(): void;
	assertOpen(): void;
	warn(message: string): void;
}
