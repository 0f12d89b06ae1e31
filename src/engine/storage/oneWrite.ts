/**
 * One journal record for a piece of work that writes several times (a hook event: docs/daemon.md,
 * "The hook spool"). `JournalStore.writeAsOne(fn)` runs `fn`; every `write()` made on its behalf (its
 * async context) runs at once inside one SQLite transaction, each in a savepoint (a throwing one is
 * undone alone and its caller hears why), and reads on its behalf see those rows. When `fn` is done,
 * the transaction's statements are appended as one checksummed record, fdatasynced, and only then
 * committed in memory. A process that dies before that append leaves nothing of the work on disk;
 * one that dies after it leaves all of it. When `fn` throws, nothing is written.
 *
 * The journal lock is taken at the first write (after catching up with other processes) and held
 * until the record is durable, so nothing another process appends can come between the work's rows.
 * Other writes and reads of this process (the daemon's editor requests, timers) wait in the store's
 * queue meanwhile. Work that must not hold the lock that long (a checkpoint's git snapshot, which
 * takes the shadow store's lock and writes under it) asks for `later()`: it runs after the record is
 * durable, in its own writes.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { pushAll } from '../arrays';
import type { BatonDb } from './capturingDrizzle';
import type { StoreHost, Statements } from './storeHost';

export interface OneWriteOptions {
	/** Runs inside the unit's writes, under the lock, before each until one succeeds (a claim: it may throw to refuse the work; its rows join the record). */
	first?: () => void;
}

export class OneWrite {
	private locked = false;
	private closed = false;
	private readonly statements: Statements = [];
	private readonly after: (() => Promise<void>)[] = [];
	/** A write succeeded after the `first` hook. */
	private claimed = false;

	constructor(
		private readonly host: StoreHost,
		private readonly options: OneWriteOptions,
	) {}

	get open(): boolean {
		return !this.closed;
	}

	/** A read on the unit's behalf: before its first write it catches up as any read does; after it, the lock is the unit's. */
	async read<T>(fn: (db: BatonDb) => T): Promise<T> {
		if (!this.locked) {
			await this.host.refresh();
		}
		this.host.statements().settle();
		return fn(this.host.db());
	}

	/** A write on the unit's behalf: applied now, in a savepoint of the unit's transaction. */
	async write<T>(fn: (db: BatonDb) => T): Promise<T> {
		const host = this.host;
		if (!this.locked) {
			host.assertOpen();
			await host.lock.acquire();
			this.locked = true;
			host.catchUpLocked();
			host.statements().settle();
			host.statements().run('BEGIN IMMEDIATE');
		}
		const statements = host.statements();
		statements.run('SAVEPOINT baton_one');
		const capture: Statements = [];
		host.setCapture(capture);
		try {
			if (!this.claimed && this.options.first) {
				this.options.first();
			}
			const result = fn(host.db());
			if (result instanceof Promise) {
				throw new Error('write() callbacks must be synchronous');
			}
			statements.run('RELEASE baton_one');
			this.claimed = true;
			pushAll(this.statements, capture);
			host.bump(capture);
			return result;
		} catch (error) {
			statements.settle();
			statements.run('ROLLBACK TO baton_one');
			statements.run('RELEASE baton_one');
			throw error;
		} finally {
			host.setCapture(undefined);
		}
	}

	/** Runs `task` once the unit's record is durable (not at all if the unit fails). */
	later(task: () => Promise<void>): void {
		this.after.push(task);
	}

	/** Appends the unit's record and commits; with `failed`, undoes it instead. Releases the lock. */
	async finish(failed: boolean): Promise<void> {
		this.closed = true;
		if (!this.locked) {
			return;
		}
		const host = this.host;
		let appended = false;
		try {
			if (failed) {
				this.undo();
				return;
			}
			const record = this.statements.length > 0 ? { seq: host.seq() + 1, at: host.at(), stmts: this.statements } : undefined;
			if (record) {
				await host.appendLocked([record], false);
				appended = true;
			}
			host.statements().run('COMMIT');
			if (record) host.durable(record);
		} catch (error) {
			this.undo();
			if (appended) {
				host.poison();
			}
			throw error;
		} finally {
			host.lock.release();
		}
	}

	private undo(): void {
		const statements = this.host.statements();
		statements.settle();
		try {
			statements.run('ROLLBACK');
		} catch {
			// The transaction may already be gone.
		}
		// Reads during the unit may have cached what is now undone.
		this.host.bumpAll();
	}

	/** The tasks `later()` queued, in order, each on its own; a failing one is logged and the rest run. */
	async runLater(): Promise<void> {
		for (const task of this.after.splice(0)) {
			await task().catch((error: Error) => this.host.warn(`after the write: ${error.message}`));
		}
	}
}

/** The unit this async context runs on behalf of, if any (JournalStore's). */
export class OneWriteContext {
	private readonly storage = new AsyncLocalStorage<OneWrite>();

	current(): OneWrite | undefined {
		const unit = this.storage.getStore();
		return unit?.open ? unit : undefined;
	}

	run<T>(unit: OneWrite, fn: () => Promise<T>): Promise<T> {
		return this.storage.run(unit, fn);
	}
}
