/**
 * One group commit of the journal store (journalStore.ts): the writes pending when the lock was
 * taken, each its own record, one transaction and one fdatasync.
 */
import type { JournalRecord } from './journalFormat';
import type { StoreHost, Statements } from './storeHost';
import type { PendingWrite } from './writeBatcher';

/**
 * Runs each write in its own savepoint (a throwing one is undone alone and rejected; a write alone
 * needs none, its transaction is undone instead), appends one record per write that changed
 * something, fdatasyncs once (`offEventLoop`: see TakenBatch.company), then commits memory and resolves.
 * A batch whose records would come to a third of the database or more (an import, a first pull) is
 * committed and then made durable by a fresh snapshot instead (compactionRules.ts `snapshotInstead`).
 */
export async function commitBatchLocked(host: StoreHost, batch: PendingWrite[], offEventLoop: boolean): Promise<void> {
	const statements = host.statements();
	const alone = batch.length === 1;
	statements.settle();
	statements.run('BEGIN IMMEDIATE');
	const done: { write: PendingWrite; result: unknown }[] = [];
	const records: JournalRecord[] = [];
	let appended = false;
	try {
		const at = host.at();
		for (const write of batch) {
			if (!alone) statements.run('SAVEPOINT baton_write');
			const capture: Statements = [];
			host.setCapture(capture);
			try {
				const result = write.fn();
				if (result instanceof Promise) {
					throw new Error('write() callbacks must be synchronous');
				}
				if (!alone) statements.run('RELEASE baton_write');
				if (capture.length > 0) {
					records.push({ seq: host.seq() + records.length + 1, at, stmts: capture });
				}
				done.push({ write, result });
			} catch (error) {
				write.reject(error);
				statements.settle();
				if (alone) {
					statements.run('ROLLBACK'); // the transaction held this write only
					return;
				}
				statements.run('ROLLBACK TO baton_write');
				statements.run('RELEASE baton_write');
			} finally {
				host.setCapture(undefined);
			}
		}
		if (records.length > 0 && host.snapshotInstead(records)) {
			// The snapshot is written from the committed database; until it is in place nothing else runs here.
			statements.run('COMMIT');
			appended = true;
			host.snapshotLocked(records.length);
			records.forEach((r) => {
				host.bump(r.stmts);
				host.durable(r);
			});
		} else {
			if (records.length > 0) {
				await host.appendLocked(records, offEventLoop);
				appended = true;
				records.forEach((r) => {
					host.bump(r.stmts);
					host.durable(r);
				});
			}
			statements.run('COMMIT');
		}
	} catch (error) {
		try {
			host.sqlite().exec('ROLLBACK');
		} catch {
			// The transaction may already be gone; poisoning below restores a known state.
		}
		// Appended, or committed for a snapshot that failed: memory no longer matches the disk.
		if (appended) {
			host.poison();
		}
		done.forEach((d) => d.write.reject(error));
		return;
	}
	done.forEach((d) => d.write.resolve(d.result));
}
