/**
 * The durable workspace database: sql.js over a snapshot file it reads a page at a time (snapshotPages.ts),
 * and an append-only journal.
 *
 * - A write runs as one SQLite transaction; the statements drizzle executes are captured and appended
 *   to the journal as one checksummed record, fdatasync'd (with the others of its group commit) before
 *   the write is acknowledged. Recovery from the files on disk lives in journalRecovery.ts.
 * - `writeAsOne` makes the writes of one piece of work (a hook event) one record (oneWrite.ts).
 * - Compaction writes a new snapshot atomically and starts a new journal generation.
 * - Several processes share the files: writes (and catching up) happen under an O_EXCL lock file;
 *   before every write and read a process applies the records the others appended since it last looked.
 * - Damage is never papered over: a torn last record is set aside with a warning, anything else stops
 *   with an error naming the file, and no file is rewritten unless it was fully read.
 *
 * Replay needs deterministic writes: no SQL that reads the clock or randomness (see schema.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Database, SqlJsStatic } from 'sql.js';
import { BatonError } from '../errors';
import type { Clock, Logger } from '../ports';
import { mkdirPrivate } from '../workspace';
import { atomicWriteFile, identitiesOf, preserveCopy, type FileIdentity } from './fsUtil';
import { copySnapshotAhead, writeSnapshot, type SnapshotCopy } from './snapshotFile';
import { encodeHeader, encodeRecord, headerSize, scanRecords, type JournalParam, type JournalRecord } from './journalFormat';
import { applyPragmas, loadFromDisk, newGeneration, readRange, replayRecord, setTornTailAside, writeMeta, type DiskState } from './journalRecovery';
import type { SnapshotPages } from './snapshotPages';
import { LockFile } from './lockFile';
import { OpenJournal } from './openJournal';
import { StatementCache } from './statementCache';
import { compactAfterWritten, defaultCompactAfterBytes, keepPreviousUpToDefault, snapshotInstead } from './compactionRules';
import { TableVersions } from './tableVersions';
import { WriteBatcher, type TakenBatch } from './writeBatcher';
import { migrationStatements, pendingMigrations } from './migrator';
import { migrations } from './migrations.generated';
import { capturingDrizzle, type BatonDb } from './capturingDrizzle';
import { loadSqlJs } from './sqlJs';
import { OneWrite, OneWriteContext, type OneWriteOptions } from './oneWrite';
import { commitBatchLocked } from './groupCommit';
import type { StoreHost } from './storeHost';

export type { BatonDb } from './capturingDrizzle';

interface StoreOptions {
	/** The `.baton` folder. */
	dir: string;
	clock: Clock;
	log: Logger;
	wasmPath?: string;
	lockTimeoutMs?: number;
	/** Journal size past which `needsCompaction` turns true. */
	compactAfterBytes?: number;
	/** The largest snapshot whose predecessor a compaction keeps as `.prev` (tests make it small). */
	keepPreviousUpTo?: number;
	/** Memory held for pages written since the snapshot past which a write compacts once it is durable, or an eighth of the snapshot when more (tests make it small). */
	compactAfterWrittenBytes?: number;
	/** The largest journal record a write may make (journalFormat.ts; tests make it small). */
	maxRecordBytes?: number;
}

export const dbFileName = 'baton.db';

export class JournalStore {
	readonly dbFile: string;
	readonly journalFile: string;
	/** Its timeout is changed only by a hook bounding its wait by its budget (docs/daemon.md). */
	readonly lock: LockFile;
	private sqliteDb: Database;
	/** The snapshot file the database reads from, when it does (snapshotPages.ts). */
	private pages: SnapshotPages | undefined;
	private drizzleDb: BatonDb;
	private statements!: StatementCache;
	private seq: number;
	private generation: string;
	private offset: number;
	private capture: [string, JournalParam[]][] | undefined;
	private queue: Promise<unknown> = Promise.resolve();
	private readonly batcher = new WriteBatcher(
		(flush) => void this.serialize(flush),
		(take) => this.flushBatch(take),
	);
	private poisoned = false;
	/** A batch's rows are applied and not yet durable (they are while its append is awaited). */
	private committing = false;
	private closed = false;
	private readonly versions = new TableVersions();
	private readonly journal: OpenJournal;
	private readonly units = new OneWriteContext();
	private readonly host: StoreHost;

	private constructor(
		private readonly SQL: SqlJsStatic,
		private readonly options: StoreOptions,
		state: DiskState,
	) {
		this.dbFile = path.join(options.dir, dbFileName);
		this.journalFile = `${this.dbFile}.journal`;
		this.journal = new OpenJournal(this.journalFile);
		this.lock = new LockFile(`${this.dbFile}.lock`, options.lockTimeoutMs);
		this.sqliteDb = state.sqlite;
		this.pages = state.pages;
		this.seq = state.seq;
		this.generation = state.generation;
		this.offset = state.offset;
		this.drizzleDb = this.wrap(state.sqlite);
		this.host = this.hostOf();
		this.versions.rebase(state.generation, state.base, state.touched);
	}

	/** Opens (creating if needed) the database in `options.dir` and applies pending migrations. */
	static async open(options: StoreOptions): Promise<JournalStore> {
		const SQL = await loadSqlJs(options.wasmPath);
		mkdirPrivate(options.dir);
		const dbFile = path.join(options.dir, dbFileName);
		const lock = new LockFile(`${dbFile}.lock`, options.lockTimeoutMs);
		LockFile.removeDeadOwnerFiles(lock.file);
		await lock.acquire();
		try {
			const state = loadFromDisk(SQL, dbFile, options, true);
			const store = new JournalStore(SQL, options, state);
			if ((await store.applyMigrationsLocked()) === 'upgraded') {
				// An upgrade's migrations rebuild what they change (an index over 200,000 tasks: 1 s): left in
				// the journal, every process that opens the store after would run them again, until a compaction.
				store.compactAfterUpgradeLocked();
			}
			return store;
		} finally {
			lock.dispose();
		}
	}

	/** The drizzle database. Re-read it for every operation: a reload after another process compacted replaces it. */
	get db(): BatonDb {
		return this.drizzleDb;
	}

	get sqlite(): Database {
		return this.sqliteDb;
	}

	/**
	 * The damage a read of the snapshot met (a piece that fails its checksum, snapshotPages.ts): the
	 * read failed with it, and SQLite's connection is not trusted after it. Whoever keeps the store
	 * open between commands opens it again (a command that touches the damage then fails the same way).
	 */
	get damage(): BatonError | undefined {
		return this.pages?.damaged;
	}

	/**
	 * The snapshot and the journal as this store's last compaction left them (undefined before one):
	 * a host that reopens a store whose files were replaced behind its back (server/daemonBackend.ts)
	 * tells its own compactions — a background push's, the idle maintenance's — from another process's.
	 */
	compactedFiles: { snapshot: FileIdentity; journal: FileIdentity } | undefined;

	/** The journal sequence number of the last applied write. */
	get sequence(): number {
		return this.seq;
	}

	/** Bumps whenever data changes (own writes, others' writes, reloads): cache keys for derived data. */
	get dataVersion(): number {
		return this.versions.data;
	}

	/** Bumps whenever `table` changes; reloads bump every table. */
	tableVersion(table: string): number {
		return this.versions.of(table);
	}

	/**
	 * The content of `tables` as every process names it (TableVersions.mark): a key for data derived
	 * from them and kept on disk. Undefined while this process holds what is not durable — inside a
	 * write, a unit of writes, or after a failed one until it reads the store again.
	 */
	contentMark(tables: readonly string[]): string | undefined {
		if (this.closed || this.poisoned || this.committing || this.capture !== undefined || this.units.current()) return undefined;
		return this.versions.mark(tables);
	}

	get journalBytes(): number {
		return this.offset;
	}

	/** Has the journal grown past `factor` times the compaction threshold? */
	needsCompaction(factor = 1): boolean {
		return this.offset - headerSize > factor * (this.options.compactAfterBytes ?? defaultCompactAfterBytes);
	}

	/** Catch up with other processes, then run a synchronous read. */
	async read<T>(fn: (db: BatonDb) => T): Promise<T> {
		const unit = this.units.current();
		if (unit) {
			return unit.read(fn);
		}
		return this.serialize(async () => {
			await this.refreshUnserialized();
			this.statements.settle();
			return fn(this.drizzleDb);
		});
	}

	/**
	 * Catch up with other processes and run `fn` as one durable transaction. `fn` must be synchronous
	 * and must not open its own transaction; when it throws, nothing is written. Group commit: writes
	 * arriving while the previous batch is written (or in the same tick) share one lock, one append and
	 * one fdatasync, each as its own record; every caller resolves once its batch is durable.
	 */
	async write<T>(fn: (db: BatonDb) => T): Promise<T> {
		return this.units.current()?.write(fn) ?? this.batcher.add(() => fn(this.drizzleDb));
	}

	/** Runs `fn` so that all its writes are one journal record, durable together or not at all (oneWrite.ts). */
	async writeAsOne<T>(fn: () => Promise<T>, options: OneWriteOptions = {}): Promise<T> {
		if (this.units.current()) {
			throw new Error('writeAsOne inside writeAsOne');
		}
		const unit = new OneWrite(this.host, options);
		const result = await this.serialize(async () => {
			const value = await this.units.run(unit, fn).catch(async (error: unknown) => {
				await unit.finish(true);
				throw error;
			});
			await unit.finish(false);
			return value;
		});
		await unit.runLater();
		return result;
	}

	/** Inside `writeAsOne`: runs `task` once its record is durable (and not if it fails); elsewhere: now. */
	afterOneWrite(task: () => Promise<void>): Promise<void> {
		const unit = this.units.current();
		return unit ? Promise.resolve(unit.later(task)) : task();
	}

	/** Apply other processes' writes now. Returns true when anything changed. */
	async refresh(): Promise<boolean> {
		if (this.units.current()) {
			return false; // its reads catch up; once it wrote, the lock is its own
		}
		return this.serialize(() => this.refreshUnserialized());
	}

	/** Write a fresh snapshot and start a new journal generation. */
	async compact(): Promise<void> {
		const ahead = this.pages && !this.closed ? await copySnapshotAhead(this.dbFile) : undefined; // off the event loop, before the lock
		// Discarded when unused, whatever failed: a closed store or the lock's timeout would leave hundreds of MB behind.
		return this.serialize(async () => {
			this.assertOpen();
			await this.lock.acquire();
			try {
				this.catchUpLocked();
				this.compactLocked(ahead);
			} finally {
				this.lock.release();
			}
		}).finally(() => ahead?.discard());
	}

	close(): void {
		if (!this.closed) {
			this.closed = true;
			this.journal.close();
			this.lock.dispose();
			this.sqliteDb.close();
			this.pages?.close();
		}
	}

	/** Record a statement run on `sqlite` in `write()` (drizzle's are captured automatically); cached, as bulk inserts repeat one; runs with `bound` (same rows, cheaper to bind), journals `params`. */
	execCaptured(sqlText: string, params: JournalParam[] = [], bound: JournalParam[] = params): void {
		if (!this.capture) {
			throw new Error('execCaptured outside write()');
		}
		const stmt = this.statements.prepare(sqlText); // a throw leaves it to the batch's settle()
		stmt.run(bound as never);
		stmt.free();
		this.capture.push([sqlText, params]);
	}

	private serialize<T>(task: () => Promise<T> | T): Promise<T> {
		const run = this.queue.then(task, task);
		this.queue = run.catch(() => undefined);
		return run;
	}

	/** One group commit: every write pending now, each in a savepoint of one transaction, one fdatasync. */
	private async flushBatch(take: () => TakenBatch): Promise<void> {
		try {
			this.assertOpen();
			await this.lock.acquire();
		} catch (error) {
			take().writes.forEach((w) => w.reject(error));
			return;
		}
		const { writes: batch, company } = take();
		this.committing = true;
		try {
			this.catchUpLocked();
			await commitBatchLocked(this.host, batch, company);
			if (this.pages && this.pages.writtenBytes > compactAfterWritten(this.pages.size, this.options.compactAfterWrittenBytes)) {
				this.compactHeldPagesLocked();
			}
		} catch (error) {
			// Nothing of the batch is durable (or in memory): every caller still waiting hears why.
			batch.forEach((w) => w.reject(error));
		} finally {
			this.committing = false;
			this.lock.release();
		}
	}

	/** The batch is durable and answered: a failed compaction here costs only memory, so it is said, not thrown. */
	private compactHeldPagesLocked(): void {
		try {
			this.compactLocked();
		} catch (error) {
			this.options.log.warn(`could not compact ${this.dbFile} to free the pages written since its snapshot: ${(error as Error).message}`);
		}
	}

	private async appendLocked(records: JournalRecord[], offEventLoop: boolean): Promise<void> {
		// Records in the form of the journal they join (journalFormat.ts): an older Baton's journal stays readable to it.
		const version = this.journal.version();
		const encode = (r: JournalRecord) => encodeRecord(r, version, this.options.maxRecordBytes);
		const buf = records.length === 1 ? encode(records[0] as JournalRecord) : Buffer.concat(records.map(encode));
		await this.journal.appendDurably(buf, this.offset, offEventLoop, this.seq + records.length);
		this.seq += records.length;
		this.offset += buf.length;
	}

	private hostOf(): StoreHost {
		return {
			lock: this.lock,
			statements: () => this.statements,
			db: () => this.drizzleDb,
			sqlite: () => this.sqliteDb,
			seq: () => this.seq,
			at: () => new Date(this.options.clock.now()).toISOString(),
			refresh: () => this.refreshUnserialized(),
			catchUpLocked: () => this.catchUpLocked(),
			setCapture: (capture) => (this.capture = capture),
			bump: (statements) => this.versions.bump(statements.map((st) => st[0])),
			durable: (record) => this.versions.durable(record),
			bumpAll: () => this.versions.bumpAll(),
			appendLocked: (records, offEventLoop) => this.appendLocked(records, offEventLoop),
			// A database held whole in memory (no snapshot pages) keeps journaling: its size is not at hand.
			snapshotInstead: (records) =>
				this.pages !== undefined && snapshotInstead(records, this.pages.size, this.options.compactAfterBytes ?? defaultCompactAfterBytes),
			snapshotLocked: (records) => {
				this.seq += records;
				this.compactLocked();
			},
			poison: () => (this.poisoned = true),
			assertOpen: () => this.assertOpen(),
			warn: (message) => this.options.log.warn(message),
		};
	}

	private assertOpen(): void {
		if (this.closed) {
			throw new BatonError('storageFailure', 'the database is closed');
		}
	}

	private async refreshUnserialized(): Promise<boolean> {
		this.assertOpen();
		if (!this.poisoned && !this.journal.changedSince(this.offset)) {
			return false;
		}
		await this.lock.acquire();
		try {
			return this.catchUpLocked();
		} finally {
			this.lock.release();
		}
	}

	/** Under the lock: apply records appended by others, or reload after a compaction. */
	private catchUpLocked(): boolean {
		if (this.poisoned) {
			return this.reloadLocked();
		}
		const handle = this.journal.handle();
		if (!handle) {
			return this.reloadLocked();
		}
		if (!('generation' in handle.header)) {
			throw new BatonError('corruptJournal', `${this.journalFile}: ${handle.header.problem} (damaged); run \`baton doctor\``, { file: this.journalFile });
		}
		if (handle.header.generation !== this.generation || handle.size < this.offset) {
			return this.reloadLocked();
		}
		if (handle.size === this.offset) {
			return false;
		}
		const tail = { bytes: readRange(handle.fd, this.offset, handle.size) };
		const scan = scanRecords(tail.bytes, this.offset);
		if (scan.tail === 'corrupt') {
			throw new BatonError('corruptJournal', `${this.journalFile}: ${scan.problem ?? 'damaged'}; run \`baton doctor\``, {
				file: this.journalFile,
			});
		}
		for (const { record, end } of scan.records) {
			if (record.seq !== this.seq + 1) {
				throw new BatonError('corruptJournal', `${this.journalFile}: record ${record.seq} follows ${this.seq}; run \`baton doctor\``, {
					file: this.journalFile,
				});
			}
			replayRecord(this.sqliteDb, record, this.journalFile, this.statements);
			this.seq = record.seq;
			this.offset = end;
			this.versions.bump(record.stmts.map((s) => s[0]));
			this.versions.durable(record);
		}
		if (scan.tail === 'torn') {
			setTornTailAside(this.journalFile, tail.bytes.subarray(scan.validEnd - this.offset), scan.validEnd, this.options);
		}
		return scan.records.length > 0;
	}

	private reloadLocked(): boolean {
		this.journal.close();
		const state = loadFromDisk(this.SQL, this.dbFile, this.options, true);
		this.sqliteDb.close();
		this.pages?.close();
		this.sqliteDb = state.sqlite;
		this.pages = state.pages;
		this.drizzleDb = this.wrap(state.sqlite);
		this.seq = state.seq;
		this.generation = state.generation;
		this.offset = state.offset;
		this.poisoned = false;
		this.versions.bumpAll();
		this.versions.rebase(state.generation, state.base, state.touched);
		return true;
	}

	private compactLocked(ahead?: SnapshotCopy): void {
		const generation = newGeneration();
		const writesBefore = this.pages?.writes ?? 0;
		writeMeta(this.sqliteDb, this.seq, generation);
		this.statements.clear(); // export() frees every statement
		// Pages that saw the meta's write are what SQLite writes to (never replaced by a copy in
		// memory, snapshotPages.ts): the snapshot is written from them a piece at a time. Otherwise
		// sql.js exports the whole database into one buffer.
		const pages = this.pages && this.pages.writes > writesBefore ? this.pages : undefined;
		const bytes = pages ? pages.contents() : this.sqliteDb.export();
		const size = pages ? pages.size : (bytes as Uint8Array).length;
		if (!pages) {
			applyPragmas(this.sqliteDb);
		}
		// Keep the previous snapshot and the journal that continues it while they are small: `baton
		// doctor --repair` can rebuild from them if the new snapshot is ever damaged.
		const keepPrevious = size <= (this.options.keepPreviousUpTo ?? keepPreviousUpToDefault);
		if (keepPrevious && fs.existsSync(this.journalFile)) {
			preserveCopy(this.journalFile, `${this.journalFile}.prev`);
		}
		const how = writeSnapshot(this.dbFile, bytes, keepPrevious, pages, ahead);
		this.journal.close();
		atomicWriteFile(this.journalFile, encodeHeader(generation, this.seq));
		this.generation = generation;
		this.offset = headerSize;
		this.versions.rebase(generation, this.seq);
		// Gone already (a restore): undefined, and a host reopens the store as for any replaced file.
		this.compactedFiles = identitiesOf({ snapshot: this.dbFile, journal: this.journalFile });
		if (!keepPrevious) {
			// Only once the new snapshot and its journal are in place: until then the old pair is the store.
			for (const file of [`${this.dbFile}.prev`, `${this.journalFile}.prev`]) {
				fs.rmSync(file, { force: true });
			}
		}
		this.options.log.info(
			`compacted ${this.dbFile} at sequence ${this.seq} (${size} bytes${keepPrevious ? '' : '; no previous snapshot kept at this size'}${pages ? ', written from its pages' : ''}${how === 'written' ? '' : ' over a copy of the previous one'}${how === 'copied ahead' ? ' made before the lock' : ''})`,
		);
		// The database goes on from the new snapshot: the pages it was written from are let go.
		try {
			pages?.rebase(this.dbFile);
		} catch (error) {
			this.options.log.warn(`kept the pages written since the last snapshot in memory: ${(error as Error).message}`);
		}
	}

	/** `upgraded`: an existing store took the migrations it lacked; `created`: a new one took them all. */
	private async applyMigrationsLocked(): Promise<'none' | 'created' | 'upgraded'> {
		const pending = pendingMigrations(this.sqliteDb, migrations);
		for (const migration of pending) {
			// A batch of its own: the lock is already held.
			await new Promise((resolve, reject) => {
				const fn = () => migrationStatements(migration).forEach(([statement, params]) => this.execCaptured(statement, params));
				commitBatchLocked(this.host, [{ fn, resolve, reject }], false).catch(reject);
			});
			this.options.log.info(`applied migration ${migration.tag}`);
		}
		return pending.length === 0 ? 'none' : pending.length === migrations.length ? 'created' : 'upgraded';
	}

	/** The compaction after an upgrade: one that fails (a full disk) leaves the migrations in the journal, where they are replayed as before. */
	private compactAfterUpgradeLocked(): void {
		try {
			this.compactLocked();
		} catch (error) {
			this.options.log.warn(`could not compact after the migrations (each open replays them until a compaction): ${(error as Error).message}`);
		}
	}

	private wrap(sqlite: Database): BatonDb {
		this.statements = new StatementCache(sqlite);
		return capturingDrizzle(this.statements, () => this.capture);
	}
}
