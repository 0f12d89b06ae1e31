/**
 * The durable workspace database: sql.js in memory, a snapshot file, and an append-only journal.
 *
 * - A write runs as one SQLite transaction; the statements drizzle executes are captured and appended
 *   to the journal as one checksummed record, fdatasync'd before the write is acknowledged.
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
import { randomBytes } from 'node:crypto';
import { drizzle, type SQLJsDatabase } from 'drizzle-orm/sql-js';
import type { Database, SqlJsStatic } from 'sql.js';
import { BatonError } from '../errors';
import type { Clock, Logger } from '../ports';
import { atomicWriteFile, fsyncDir, preserveCopy, readIfExists, stampName, writeAll } from './fsUtil';
import { damagedSumError, verifySnapshot, writeSnapshot } from './snapshotFile';
import { decodeHeader, encodeHeader, encodeRecord, headerSize, scanRecords, type JournalParam, type JournalRecord } from './journalFormat';
import { LockFile } from './lockFile';
import { migrationStatements, pendingMigrations } from './migrator';
import { migrations } from './migrations.generated';
import * as schema from './schema';
import { loadSqlJs } from './sqlJs';

export type BatonDb = SQLJsDatabase<typeof schema>;

export interface StoreOptions {
	/** The `.baton` folder. */
	dir: string;
	clock: Clock;
	log: Logger;
	wasmPath?: string;
	lockTimeoutMs?: number;
	/** Journal size past which `needsCompaction` turns true. */
	compactAfterBytes?: number;
}

export const dbFileName = 'baton.db';
const writeStatement = /^\s*(insert|update|delete|replace|create|alter|drop)\b/i;
const tableOfStatement = /^\s*(?:insert\s+(?:or\s+\w+\s+)?into|update(?:\s+or\s+\w+)?|delete\s+from|replace\s+into)\s+["`]?(\w+)/i;

interface DiskState {
	sqlite: Database;
	seq: number;
	generation: string;
	offset: number;
	replayed: number;
}

export class JournalStore {
	readonly dbFile: string;
	readonly journalFile: string;
	private readonly lock: LockFile;
	private sqliteDb: Database;
	private drizzleDb: BatonDb;
	private seq: number;
	private generation: string;
	private offset: number;
	private capture: [string, JournalParam[]][] | undefined;
	private queue: Promise<unknown> = Promise.resolve();
	private poisoned = false;
	private closed = false;
	private readonly versions = new Map<string, number>();
	private version = 0;
	/** The journal, kept open; reopened when its inode changes (compaction replaces the file). */
	private journal: { fd: number; ino: number; dev: number; header: ReturnType<typeof decodeHeader> } | undefined;

	private constructor(
		private readonly SQL: SqlJsStatic,
		private readonly options: StoreOptions,
		state: DiskState,
	) {
		this.dbFile = path.join(options.dir, dbFileName);
		this.journalFile = `${this.dbFile}.journal`;
		this.lock = new LockFile(`${this.dbFile}.lock`, options.lockTimeoutMs);
		this.sqliteDb = state.sqlite;
		this.seq = state.seq;
		this.generation = state.generation;
		this.offset = state.offset;
		this.drizzleDb = this.wrap(state.sqlite);
	}

	/** Opens (creating if needed) the database in `options.dir` and applies pending migrations. */
	static async open(options: StoreOptions): Promise<JournalStore> {
		const SQL = await loadSqlJs(options.wasmPath);
		fs.mkdirSync(options.dir, { recursive: true });
		const dbFile = path.join(options.dir, dbFileName);
		const lock = new LockFile(`${dbFile}.lock`, options.lockTimeoutMs);
		LockFile.removeDeadOwnerFiles(lock.file);
		await lock.acquire();
		try {
			const state = loadFromDisk(SQL, dbFile, options, true);
			const store = new JournalStore(SQL, options, state);
			store.applyMigrationsLocked();
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

	/** The journal sequence number of the last applied write. */
	get sequence(): number {
		return this.seq;
	}

	/** Bumps whenever data changes (own writes, others' writes, reloads): cache keys for derived data. */
	get dataVersion(): number {
		return this.version;
	}

	/** Bumps whenever `table` changes; reloads bump every table. */
	tableVersion(table: string): number {
		return (this.versions.get(table) ?? 0) + (this.versions.get('*') ?? 0);
	}

	get journalBytes(): number {
		return this.offset;
	}

	get needsCompaction(): boolean {
		return this.offset - headerSize > (this.options.compactAfterBytes ?? 4 * 1024 * 1024);
	}

	/** Catch up with other processes, then run a synchronous read. */
	async read<T>(fn: (db: BatonDb) => T): Promise<T> {
		return this.serialize(async () => {
			await this.refreshUnserialized();
			return fn(this.drizzleDb);
		});
	}

	/**
	 * Catch up with other processes and run `fn` as one durable transaction. `fn` must be synchronous
	 * and must not open its own transaction; when it throws, nothing is written.
	 */
	async write<T>(fn: (db: BatonDb) => T): Promise<T> {
		return this.serialize(async () => {
			this.assertOpen();
			await this.lock.acquire();
			try {
				this.catchUpLocked();
				return this.commitLocked(() => fn(this.drizzleDb));
			} finally {
				this.lock.release();
			}
		});
	}

	/** Apply other processes' writes now. Returns true when anything changed. */
	async refresh(): Promise<boolean> {
		return this.serialize(() => this.refreshUnserialized());
	}

	/** Write a fresh snapshot and start a new journal generation. */
	async compact(): Promise<void> {
		return this.serialize(async () => {
			this.assertOpen();
			await this.lock.acquire();
			try {
				this.catchUpLocked();
				this.compactLocked();
			} finally {
				this.lock.release();
			}
		});
	}

	close(): void {
		if (!this.closed) {
			this.closed = true;
			this.closeJournal();
			this.lock.dispose();
			this.sqliteDb.close();
		}
	}

	/** Record a statement run directly on `sqlite` inside `write()` (drizzle's are captured automatically). */
	execCaptured(sqlText: string, params: JournalParam[] = []): void {
		if (!this.capture) {
			throw new Error('execCaptured outside write()');
		}
		this.sqliteDb.run(sqlText, params as never);
		this.capture.push([sqlText, params]);
	}

	private serialize<T>(task: () => Promise<T> | T): Promise<T> {
		const run = this.queue.then(task, task);
		this.queue = run.catch(() => undefined);
		return run;
	}

	private assertOpen(): void {
		if (this.closed) {
			throw new BatonError('storageFailure', 'the database is closed');
		}
	}

	private async refreshUnserialized(): Promise<boolean> {
		this.assertOpen();
		if (!this.poisoned && !this.journalChanged()) {
			return false;
		}
		await this.lock.acquire();
		try {
			return this.catchUpLocked();
		} finally {
			this.lock.release();
		}
	}

	/** Cheap unlocked check (one stat): was the journal replaced or did it grow since we applied it? */
	private journalChanged(): boolean {
		try {
			const st = fs.statSync(this.journalFile);
			return !this.journal || st.ino !== this.journal.ino || st.dev !== this.journal.dev || st.size !== this.offset;
		} catch {
			return true;
		}
	}

	/** Under the lock: the open journal and its current size, reopening it if the file was replaced. */
	private journalHandle(): { fd: number; size: number; header: ReturnType<typeof decodeHeader> } | undefined {
		let st: fs.Stats;
		try {
			st = fs.statSync(this.journalFile);
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
				return undefined;
			}
			throw error;
		}
		if (!this.journal || st.ino !== this.journal.ino || st.dev !== this.journal.dev) {
			this.closeJournal();
			const fd = fs.openSync(this.journalFile, 'r+');
			const head = Buffer.alloc(headerSize);
			const read = fs.readSync(fd, head, 0, headerSize, 0);
			const fst = fs.fstatSync(fd);
			this.journal = { fd, ino: fst.ino, dev: fst.dev, header: decodeHeader(head.subarray(0, read)) };
			return { fd, size: fst.size, header: this.journal.header };
		}
		return { fd: this.journal.fd, size: st.size, header: this.journal.header };
	}

	private closeJournal(): void {
		if (this.journal) {
			fs.closeSync(this.journal.fd);
			this.journal = undefined;
		}
	}

	/** Under the lock: apply records appended by others, or reload after a compaction. */
	private catchUpLocked(): boolean {
		if (this.poisoned) {
			return this.reloadLocked();
		}
		const handle = this.journalHandle();
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
			replayRecord(this.sqliteDb, record, this.journalFile);
			this.seq = record.seq;
			this.offset = end;
			this.bumpVersions(record.stmts.map((s) => s[0]));
		}
		if (scan.tail === 'torn') {
			setTornTailAside(this.journalFile, tail.bytes.subarray(scan.validEnd - this.offset), scan.validEnd, this.options);
		}
		return scan.records.length > 0;
	}

	private reloadLocked(): boolean {
		this.closeJournal();
		const state = loadFromDisk(this.SQL, this.dbFile, this.options, true);
		this.sqliteDb.close();
		this.sqliteDb = state.sqlite;
		this.drizzleDb = this.wrap(state.sqlite);
		this.seq = state.seq;
		this.generation = state.generation;
		this.offset = state.offset;
		this.poisoned = false;
		this.versions.set('*', (this.versions.get('*') ?? 0) + 1);
		this.version++;
		return true;
	}

	private commitLocked<T>(fn: () => T): T {
		this.sqliteDb.run('BEGIN IMMEDIATE');
		this.capture = [];
		let appended = false;
		try {
			const result = fn();
			if (result instanceof Promise) {
				throw new Error('write() callbacks must be synchronous');
			}
			const stmts = this.capture;
			if (stmts.length > 0) {
				const record: JournalRecord = { seq: this.seq + 1, at: new Date(this.options.clock.now()).toISOString(), stmts };
				const buf = encodeRecord(record);
				this.appendDurably(buf);
				appended = true;
				this.seq = record.seq;
				this.offset += buf.length;
				this.bumpVersions(stmts.map((s) => s[0]));
			}
			this.sqliteDb.run('COMMIT');
			return result;
		} catch (error) {
			try {
				this.sqliteDb.exec('ROLLBACK');
			} catch {
				// The transaction may already be gone; the reload below restores a known state.
			}
			if (appended) {
				// The record is durable but memory is not: rebuild memory from disk before the next use.
				this.poisoned = true;
			}
			throw error;
		} finally {
			this.capture = undefined;
		}
	}

	/** Append + fdatasync; on failure cut the journal back so a failed write never surfaces later. */
	private appendDurably(buf: Buffer): void {
		// catchUpLocked ran just before under the same lock: the open journal is current and ends at
		// offset (it said so, or it replaced the file and reset both).
		const fd = this.journal?.fd ?? this.journalHandle()?.fd;
		if (fd === undefined) {
			throw new BatonError('storageFailure', `${this.journalFile} disappeared underneath the write lock`);
		}
		try {
			writeAll(fd, buf, this.offset);
			fs.fdatasyncSync(fd);
		} catch (error) {
			fs.ftruncateSync(fd, this.offset);
			throw new BatonError('storageFailure', `cannot write ${this.journalFile}: ${(error as Error).message}`);
		}
	}

	private compactLocked(): void {
		const generation = newGeneration();
		writeMeta(this.sqliteDb, this.seq, generation);
		const bytes = this.sqliteDb.export();
		applyPragmas(this.sqliteDb);
		// Keep the previous snapshot and the journal that continues it: `baton doctor --repair` can
		// rebuild from them if the new snapshot is ever damaged.
		if (fs.existsSync(this.journalFile)) {
			preserveCopy(this.journalFile, `${this.journalFile}.prev`);
		}
		writeSnapshot(this.dbFile, bytes, true);
		this.closeJournal();
		atomicWriteFile(this.journalFile, encodeHeader(generation));
		this.generation = generation;
		this.offset = headerSize;
		this.options.log.info(`compacted ${this.dbFile} at sequence ${this.seq} (${bytes.length} bytes)`);
	}

	private applyMigrationsLocked(): void {
		for (const migration of pendingMigrations(this.sqliteDb, migrations)) {
			this.commitLocked(() => {
				for (const [statement, params] of migrationStatements(migration)) {
					this.execCaptured(statement, params);
				}
			});
			this.options.log.info(`applied migration ${migration.tag}`);
		}
	}

	private wrap(sqlite: Database): BatonDb {
		return drizzle(sqlite, {
			schema,
			logger: {
				logQuery: (query: string, params: unknown[]) => {
					if (this.capture && writeStatement.test(query)) {
						this.capture.push([query, params as JournalParam[]]);
					}
				},
			},
		});
	}

	private bumpVersions(statements: string[]): void {
		this.version++;
		for (const statement of statements) {
			const table = tableOfStatement.exec(statement)?.[1] ?? '*';
			this.versions.set(table, (this.versions.get(table) ?? 0) + 1);
		}
	}
}

function newGeneration(): string {
	return randomBytes(8).toString('hex');
}

function applyPragmas(sqlite: Database): void {
	sqlite.exec('PRAGMA foreign_keys = ON;');
}

function ensureMetaTable(sqlite: Database): void {
	sqlite.exec('CREATE TABLE IF NOT EXISTS _baton_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)');
}

function writeMeta(sqlite: Database, seq: number, generation: string): void {
	sqlite.run("INSERT OR REPLACE INTO _baton_meta (key, value) VALUES ('seq', ?), ('generation', ?)", [String(seq), generation]);
}

function readMeta(sqlite: Database): { seq: number; generation: string | undefined } {
	const rows = sqlite.exec('SELECT key, value FROM _baton_meta');
	const map = new Map((rows[0]?.values ?? []).map((r) => [String(r[0]), String(r[1])]));
	return { seq: Number(map.get('seq') ?? 0), generation: map.get('generation') };
}

const sqliteMagic = Buffer.from('SQLite format 3\0', 'latin1');

/**
 * Opens snapshot bytes as a database, or throws `corruptDatabase` naming the file. A sidecar that
 * cannot be read is damage too; only `baton doctor --repair` (which replaces the sidecar) may pass
 * `damagedSum: 'integrityCheck'` to fall back on SQLite's own check.
 */
export function openSnapshot(SQL: SqlJsStatic, bytes: Buffer | undefined, file: string, sumOf: string = file, damagedSum: 'refuse' | 'integrityCheck' = 'refuse'): { sqlite: Database; seq: number; generation: string | undefined } {
	if (bytes && (bytes.length < 100 || !bytes.subarray(0, 16).equals(sqliteMagic))) {
		throw new BatonError('corruptDatabase', `${file} is not a SQLite database; run \`baton doctor\``, { file });
	}
	let verdict = bytes ? verifySnapshot(sumOf, bytes) : 'verified';
	if (verdict === 'sumDamaged') {
		if (damagedSum === 'refuse') {
			throw damagedSumError(sumOf);
		}
		verdict = 'unlisted';
	}
	if (verdict === 'mismatch') {
		throw new BatonError('corruptDatabase', `${file} does not match its recorded checksum (damaged); run \`baton doctor\``, { file });
	}
	let sqlite: Database | undefined;
	try {
		sqlite = new SQL.Database(bytes);
		if (verdict === 'unlisted') {
			// No checksum to trust (a snapshot from elsewhere): let SQLite read every page once.
			const check = String(sqlite.exec('PRAGMA quick_check')[0]?.values[0]?.[0] ?? '');
			if (check !== 'ok') {
				throw new Error(`integrity check: ${check}`);
			}
		}
		applyPragmas(sqlite);
		ensureMetaTable(sqlite);
		const meta = readMeta(sqlite);
		return { sqlite, ...meta };
	} catch (error) {
		sqlite?.close();
		if (BatonError.is(error)) {
			throw error;
		}
		throw new BatonError('corruptDatabase', `${file} cannot be read (${(error as Error).message}); run \`baton doctor\``, { file });
	}
}

export function replayRecord(sqlite: Database, record: JournalRecord, file: string): void {
	sqlite.exec('BEGIN');
	try {
		for (const [statement, params] of record.stmts) {
			sqlite.run(statement, params as never);
		}
		sqlite.exec('COMMIT');
	} catch (error) {
		sqlite.exec('ROLLBACK');
		throw new BatonError('replayFailed', `${file}: record ${record.seq} cannot be replayed (${(error as Error).message}); run \`baton doctor\``, {
			file,
			seq: record.seq,
		});
	}
}

/**
 * Snapshot + journal → database, under the lock. Never rewrites a file it could not fully read;
 * the only repair it makes on its own is setting a torn last record aside.
 */
function loadFromDisk(SQL: SqlJsStatic, dbFile: string, options: StoreOptions, locked: boolean): DiskState {
	const journalFile = `${dbFile}.journal`;
	const snapshotBytes = readIfExists(dbFile);
	const snap = openSnapshot(SQL, snapshotBytes, dbFile);
	const sqlite = snap.sqlite;
	try {
		let seq = snap.seq;
		let replayed = 0;
		const journal = readIfExists(journalFile);
		const absence = journalAbsence(snapshotBytes !== undefined, journal, journalFile);
		if (absence) {
			throw absence;
		}
		if (!journal) {
			// A fresh workspace. The empty snapshot marks it as created: from then on a journal that
			// vanishes is damage, not a new start that silently forgets every write. The journal goes
			// first: a crash in between leaves a journal without snapshot, which the next open completes.
			const generation = newGeneration();
			if (locked) {
				atomicWriteFile(journalFile, encodeHeader(generation));
				writeMeta(sqlite, 0, generation);
				writeSnapshot(dbFile, sqlite.export(), false);
				applyPragmas(sqlite);
			}
			return { sqlite, seq, generation, offset: headerSize, replayed };
		}
		const header = decodeHeader(journal.subarray(0, headerSize));
		if (!('generation' in header)) {
			throw new BatonError('corruptJournal', `${journalFile}: ${header.problem} (damaged); run \`baton doctor\``, { file: journalFile });
		}
		const scan = scanRecords(journal.subarray(headerSize), headerSize);
		if (scan.tail === 'corrupt') {
			throw new BatonError('corruptJournal', `${journalFile}: ${scan.problem ?? 'damaged'}; run \`baton doctor\``, { file: journalFile });
		}
		if (!snapshotBytes && locked) {
			// A workspace from before the creation snapshot: record its start now (sequence 0 of this
			// journal's generation) so that losing the journal later is detected.
			writeMeta(sqlite, 0, header.generation);
			writeSnapshot(dbFile, sqlite.export(), false);
			applyPragmas(sqlite);
		}
		const continues = !snapshotBytes || header.generation === snap.generation;
		if (!continues) {
			// A crash between writing a new snapshot and starting its journal leaves the old journal:
			// everything in it must already be in the snapshot.
			const newer = scan.records.find((r) => r.record.seq > snap.seq);
			if (newer) {
				throw new BatonError('corruptJournal', `${journalFile} belongs to another snapshot and holds record ${newer.record.seq} that ${dbFile} (at ${snap.seq}) lacks; run \`baton doctor\``, { file: journalFile });
			}
			const generation = snap.generation ?? newGeneration();
			if (locked) {
				preserveCopy(journalFile, `${journalFile}.prev`);
				atomicWriteFile(journalFile, encodeHeader(generation));
				if (scan.tail === 'torn') {
					options.log.warn(`dropped a torn last record (${journal.length - scan.validEnd} bytes) from ${journalFile}, a journal the snapshot already contains; its bytes are kept in ${journalFile}.prev`);
				}
			}
			return { sqlite, seq, generation, offset: headerSize, replayed };
		}
		for (const { record } of scan.records) {
			if (record.seq <= seq) {
				continue;
			}
			if (record.seq !== seq + 1) {
				throw new BatonError('corruptJournal', `${journalFile}: record ${record.seq} follows ${seq}; run \`baton doctor\``, { file: journalFile });
			}
			replayRecord(sqlite, record, journalFile);
			seq = record.seq;
			replayed++;
		}
		if (scan.tail === 'torn' && locked) {
			setTornTailAside(journalFile, journal.subarray(scan.validEnd), scan.validEnd, options);
		}
		return { sqlite, seq, generation: header.generation, offset: scan.validEnd, replayed };
	} catch (error) {
		sqlite.close();
		throw error;
	}
}

/**
 * Compaction and repair replace the journal by rename, never delete or empty it, and the creation
 * snapshot is written before the first journal: once a snapshot exists, a missing or empty journal
 * means acknowledged writes may be gone. Undefined when the journal's presence is legitimate.
 */
export function journalAbsence(snapshotExists: boolean, journal: Buffer | undefined, journalFile: string): BatonError | undefined {
	if (!snapshotExists || (journal && journal.length > 0)) {
		return undefined;
	}
	const what = journal ? 'is empty' : 'is missing';
	return new BatonError('corruptJournal', `${journalFile} ${what} (damaged): writes acknowledged after the snapshot may be lost; run \`baton doctor\``, {
		file: journalFile,
	});
}

/** A crash mid-append leaves an unacknowledged partial record: keep its bytes aside, then cut it off. */
function setTornTailAside(journalFile: string, tornBytes: Buffer, validEnd: number, options: StoreOptions): void {
	const dir = path.join(path.dirname(journalFile), 'recovered');
	fs.mkdirSync(dir, { recursive: true });
	const aside = path.join(dir, `journal-tail-${stampName(options.clock.now())}-${process.pid}.bin`);
	fs.writeFileSync(aside, tornBytes);
	fs.truncateSync(journalFile, validEnd);
	fsyncDir(path.dirname(journalFile));
	options.log.warn(`dropped a torn last record (${tornBytes.length} bytes) from ${journalFile}; its bytes are kept in ${aside}`);
}

/** Bytes [from, to) of an open file. */
function readRange(fd: number, from: number, to: number): Buffer {
	const bytes = Buffer.alloc(to - from);
	let read = 0;
	while (read < bytes.length) {
		const n = fs.readSync(fd, bytes, read, bytes.length - read, from + read);
		if (n === 0) {
			break;
		}
		read += n;
	}
	return bytes.subarray(0, read);
}
