/**
 * Recovery: turning the snapshot and journal on disk back into a database. Opening a snapshot (checked
 * against its sum), replaying journal records, setting a torn last record aside, and telling a
 * legitimately absent journal from a lost one. Shared by the store and `baton doctor`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Database, SqlJsStatic } from 'sql.js';
import { BatonError } from '../errors';
import type { Clock, Logger } from '../ports';
import { mkdirPrivate, privateFileMode } from '../workspace';
import { atomicWriteFile, fsyncDir, preserveCopy, readIfExists, stampName } from './fsUtil';
import { damagedSumError, verifySnapshot, writeSnapshot } from './snapshotFile';
import { decodeHeader, encodeHeader, headerSize, scanRecords, type JournalRecord } from './journalFormat';
import { StatementCache } from './statementCache';
import { SnapshotPages } from './snapshotPages';
import { tableOf } from './tableVersions';

/** What recovery needs of the store's options: a clock for file names and a log for warnings. */
interface RecoveryOptions {
	clock: Clock;
	log: Logger;
}

export interface DiskState {
	sqlite: Database;
	seq: number;
	generation: string;
	offset: number;
	replayed: number;
	/** The sequence the snapshot holds, and each table the records replayed on it wrote, with the last that did (TableVersions.rebase). */
	base: number;
	touched: Map<string, number>;
	/** The snapshot file SQLite reads from (snapshotPages.ts): closed with the database. */
	pages?: SnapshotPages;
}

export function newGeneration(): string {
	return randomBytes(8).toString('hex');
}

/**
 * Per-connection settings (sql.js's export() reopens the connection, so they are applied again after
 * it). The rollback journal stays in memory: sql.js keeps the database in its in-memory file system,
 * where a journal file meant creating, writing and deleting an emulated file on every transaction
 * (the largest part of a write's own cost), and durability is Baton's journal, not SQLite's.
 */
export function applyPragmas(sqlite: Database): void {
	sqlite.exec('PRAGMA foreign_keys = ON; PRAGMA locking_mode = EXCLUSIVE; PRAGMA journal_mode = MEMORY; PRAGMA temp_store = MEMORY;');
}

function ensureMetaTable(sqlite: Database): void {
	sqlite.exec('CREATE TABLE IF NOT EXISTS _baton_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)');
}

export function writeMeta(sqlite: Database, seq: number, generation: string): void {
	sqlite.run("INSERT OR REPLACE INTO _baton_meta (key, value) VALUES ('seq', ?), ('generation', ?)", [String(seq), generation]);
}

function readMeta(sqlite: Database): { seq: number; generation: string | undefined } {
	const rows = sqlite.exec('SELECT key, value FROM _baton_meta');
	const map = new Map((rows[0]?.values ?? []).map((r) => [String(r[0]), String(r[1])]));
	return { seq: Number(map.get('seq') ?? 0), generation: map.get('generation') };
}

const sqliteMagic = Buffer.from('SQLite format 3\0', 'latin1');

/**
 * Opens a snapshot — its bytes, or its file read a page at a time — as a database, or throws
 * `corruptDatabase` naming the file. A sidecar that cannot be read is damage too; only `baton doctor
 * --repair` (which replaces the sidecar) may pass `damagedSum: 'integrityCheck'` to fall back on
 * SQLite's own check. The caller closes `source` when it is pages.
 */
export function openSnapshot(
	SQL: SqlJsStatic,
	source: Buffer | SnapshotPages | undefined,
	file: string,
	sumOf: string = file,
	damagedSum: 'refuse' | 'integrityCheck' = 'refuse',
): { sqlite: Database; seq: number; generation: string | undefined } {
	if (source && (source.length < 100 || !Buffer.from(source.subarray(0, 16)).equals(sqliteMagic))) {
		throw new BatonError('corruptDatabase', `${file} is not a SQLite database; run \`baton doctor\``, { file });
	}
	let verdict = source ? verifySnapshot(sumOf, source) : 'verified';
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
		// MEMFS takes the pages as the file's contents (snapshotPages.ts); bytes it copies or keeps.
		sqlite = new SQL.Database(source as Buffer | undefined);
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

/**
 * The store's snapshot opened read a page at a time where the platform allows it (snapshotPages.ts),
 * else read whole. `pages` is set only when the database reads from them.
 */
function openStoreSnapshot(SQL: SqlJsStatic, dbFile: string): { snap: ReturnType<typeof openSnapshot>; exists: boolean; pages: SnapshotPages | undefined } {
	const pages = SnapshotPages.supported() ? SnapshotPages.open(dbFile) : undefined;
	const source = pages ?? readIfExists(dbFile);
	try {
		const snap = openSnapshot(SQL, source, dbFile);
		if (pages && !pages.adopted) {
			pages.close(); // this sql.js copied the file instead: the database holds it whole
			return { snap, exists: true, pages: undefined };
		}
		return { snap, exists: source !== undefined, pages };
	} catch (error) {
		pages?.close();
		throw error;
	}
}

/** Applies one journal record in a transaction of its own. */
export function replayRecord(sqlite: Database, record: JournalRecord, file: string, statements?: StatementCache): void {
	sqlite.exec('BEGIN');
	try {
		applyRecord(sqlite, record, file, statements);
		sqlite.exec('COMMIT');
	} catch (error) {
		sqlite.exec('ROLLBACK');
		throw error;
	}
}

/**
 * Runs a record's statements inside the caller's transaction. With `statements`, each statement text
 * is prepared once for the whole replay (a journal repeats a few INSERTs thousands of times: preparing
 * each anew was most of an open after a long journal); without, each is prepared for its run.
 */
function applyRecord(sqlite: Database, record: JournalRecord, file: string, statements?: StatementCache): void {
	try {
		for (const [statement, params] of record.stmts) {
			if (statements) {
				const stmt = statements.prepare(statement);
				try {
					stmt.run(params as never);
				} finally {
					stmt.free();
				}
			} else {
				sqlite.run(statement, params as never);
			}
		}
	} catch (error) {
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
export function loadFromDisk(SQL: SqlJsStatic, dbFile: string, options: RecoveryOptions, locked: boolean): DiskState {
	const journalFile = `${dbFile}.journal`;
	const { snap, exists: snapshotExists, pages } = openStoreSnapshot(SQL, dbFile);
	const sqlite = snap.sqlite;
	try {
		const journal = readIfExists(journalFile);
		const absence = journalAbsence(snapshotExists, journal, journalFile);
		if (absence) {
			throw absence;
		}
		if (!journal) {
			const created = createWorkspace(sqlite, snap.seq, dbFile, locked);
			return pages ? { ...created, pages } : fromCreatedSnapshot(SQL, dbFile, created);
		}
		const { header, scan } = readJournal(journal, journalFile);
		checkJournalComplete(dbFile, snapshotExists, header.acknowledged, snap.seq, scan);
		if (!snapshotExists && locked) {
			// A workspace from before the creation snapshot: record its start now (sequence 0 of this
			// journal's generation) so that losing the journal later is detected.
			writeMeta(sqlite, 0, header.generation);
			writeSnapshot(dbFile, sqlite.export(), false);
			applyPragmas(sqlite);
		}
		if (snapshotExists && header.generation !== snap.generation) {
			return { ...restartStaleJournal(snap, dbFile, journal, scan, options, locked), ...(pages ? { pages } : {}) };
		}
		const { seq, replayed, touched } = replayJournal(sqlite, scan.records, snap.seq, journalFile);
		if (scan.tail === 'torn' && locked) {
			setTornTailAside(journalFile, journal.subarray(scan.validEnd), scan.validEnd, options);
		}
		return { sqlite, seq, generation: header.generation, offset: scan.validEnd, replayed, base: snap.seq, touched, ...(pages ? { pages } : {}) };
	} catch (error) {
		sqlite.close();
		pages?.close();
		throw error;
	}
}

type JournalScan = ReturnType<typeof scanRecords>;

/**
 * A store just created goes on from its first snapshot read a page at a time, as every later open
 * does: what it writes is then held only until a compaction (snapshotPages.ts).
 */
function fromCreatedSnapshot(SQL: SqlJsStatic, dbFile: string, created: DiskState): DiskState {
	if (!SnapshotPages.supported() || !fs.existsSync(dbFile)) {
		return created;
	}
	const reopened = openStoreSnapshot(SQL, dbFile);
	if (!reopened.pages) {
		reopened.snap.sqlite.close();
		return created;
	}
	created.sqlite.close();
	return { ...created, sqlite: reopened.snap.sqlite, pages: reopened.pages };
}

/**
 * A fresh workspace. The empty snapshot marks it as created: from then on a journal that
 * vanishes is damage, not a new start that silently forgets every write. The journal goes
 * first: a crash in between leaves a journal without snapshot, which the next open completes.
 */
function createWorkspace(sqlite: Database, seq: number, dbFile: string, locked: boolean): DiskState {
	const generation = newGeneration();
	if (locked) {
		atomicWriteFile(`${dbFile}.journal`, encodeHeader(generation, 0));
		writeMeta(sqlite, 0, generation);
		writeSnapshot(dbFile, sqlite.export(), false);
		applyPragmas(sqlite);
	}
	return { sqlite, seq, generation, offset: headerSize, replayed: 0, base: seq, touched: new Map() };
}

/** The journal's header and records, or `corruptJournal` when the header or a record before the tail is damaged. */
function readJournal(journal: Buffer, journalFile: string): { header: { generation: string; acknowledged: number }; scan: JournalScan } {
	const header = decodeHeader(journal.subarray(0, headerSize));
	if (!('generation' in header)) {
		throw new BatonError('corruptJournal', `${journalFile}: ${header.problem} (damaged); run \`baton doctor\``, { file: journalFile });
	}
	const scan = scanRecords(journal.subarray(headerSize), headerSize);
	if (scan.tail === 'corrupt') {
		throw new BatonError('corruptJournal', `${journalFile}: ${scan.problem ?? 'damaged'}; run \`baton doctor\``, { file: journalFile });
	}
	return { header, scan };
}

/** Throws when acknowledged writes are missing: a snapshot gone that the journal cannot replace, or a journal shorter than it acknowledged. */
function checkJournalComplete(dbFile: string, snapshotExists: boolean, acknowledged: number, snapshotSeq: number, scan: JournalScan): void {
	const first = scan.records[0]?.record.seq;
	const last = scan.records.at(-1)?.record.seq;
	if (!snapshotExists) {
		const missing = snapshotAbsence(dbFile, first, last, acknowledged);
		if (missing) {
			throw missing;
		}
	}
	const short = journalShortfall(`${dbFile}.journal`, acknowledged, Math.max(snapshotSeq, last ?? 0));
	if (short) {
		throw short;
	}
}

/**
 * A crash between writing a new snapshot and starting its journal leaves the old journal:
 * everything in it must already be in the snapshot. Under the lock the old journal is kept as
 * `.prev` and a new one started for the snapshot's generation.
 */
function restartStaleJournal(
	snap: { sqlite: Database; seq: number; generation: string | undefined },
	dbFile: string,
	journal: Buffer,
	scan: JournalScan,
	options: RecoveryOptions,
	locked: boolean,
): DiskState {
	const journalFile = `${dbFile}.journal`;
	const newer = scan.records.find((r) => r.record.seq > snap.seq);
	if (newer) {
		throw new BatonError(
			'corruptJournal',
			`${journalFile} belongs to another snapshot and holds record ${newer.record.seq} that ${dbFile} (at ${snap.seq}) lacks; run \`baton doctor\``,
			{ file: journalFile },
		);
	}
	const generation = snap.generation ?? newGeneration();
	if (locked) {
		preserveCopy(journalFile, `${journalFile}.prev`);
		atomicWriteFile(journalFile, encodeHeader(generation, snap.seq));
		if (scan.tail === 'torn') {
			options.log.warn(
				`dropped a torn last record (${journal.length - scan.validEnd} bytes) from ${journalFile}, a journal the snapshot already contains; its bytes are kept in ${journalFile}.prev`,
			);
		}
	}
	return { sqlite: snap.sqlite, seq: snap.seq, generation, offset: headerSize, replayed: 0, base: snap.seq, touched: new Map() };
}

/** Applies the records past the snapshot's sequence, which must follow it without a gap; returns the sequence reached and how many were applied. */
function replayJournal(
	sqlite: Database,
	records: JournalScan['records'],
	fromSeq: number,
	journalFile: string,
): { seq: number; replayed: number; touched: Map<string, number> } {
	let seq = fromSeq;
	let replayed = 0;
	const touched = new Map<string, number>();
	// One transaction for the whole replay: a record that fails stops the open (nothing of this
	// in-memory database is kept), so per-record transactions only cost a commit each.
	const statements = new StatementCache(sqlite);
	sqlite.exec('BEGIN');
	try {
		for (const { record } of records) {
			if (record.seq <= seq) {
				continue;
			}
			if (record.seq !== seq + 1) {
				throw new BatonError('corruptJournal', `${journalFile}: record ${record.seq} follows ${seq}; run \`baton doctor\``, { file: journalFile });
			}
			applyRecord(sqlite, record, journalFile, statements);
			seq = record.seq;
			replayed++;
			for (const statement of record.stmts) touched.set(tableOf(statement[0]), seq);
		}
		sqlite.exec('COMMIT');
	} catch (error) {
		sqlite.exec('ROLLBACK');
		throw error;
	} finally {
		statements.clear();
	}
	return { seq, replayed, touched };
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

/**
 * A journal without a snapshot is legitimate only when the journal holds the whole history: a workspace
 * from before the creation snapshot, or a crash between creating the journal and the first snapshot.
 * Once a compaction kept a previous snapshot, or when the journal starts past record 1, the snapshot
 * held acknowledged writes: rebuilding from nothing would forget them (and overwrite the checksums that
 * let `baton doctor --repair` trust the previous one). Undefined when the absence is legitimate.
 */
export function snapshotAbsence(
	dbFile: string,
	firstRecordSeq: number | undefined,
	lastRecordSeq: number | undefined,
	acknowledged: number,
): BatonError | undefined {
	const previous = fs.existsSync(`${dbFile}.prev`);
	const from = firstRecordSeq === undefined ? acknowledged : firstRecordSeq - 1;
	if (!previous && from === 0 && acknowledged <= (lastRecordSeq ?? 0)) {
		return undefined;
	}
	const why = previous ? `${dbFile}.prev shows a snapshot existed` : `the journal continues from record ${from}`;
	return new BatonError('corruptDatabase', `${dbFile} is missing (damaged): ${why}, so acknowledged writes would be lost; run \`baton doctor\``, {
		file: dbFile,
	});
}

/**
 * The journal's header says which sequence number it was acknowledged up to; records that end before it
 * were cut off after they were acknowledged (a truncated or shortened file), which no crash does: a
 * crash leaves at most an unacknowledged torn record past it. Undefined when nothing is missing.
 */
export function journalShortfall(journalFile: string, acknowledged: number, reached: number): BatonError | undefined {
	if (acknowledged <= reached) {
		return undefined;
	}
	const missing = acknowledged - reached;
	return new BatonError(
		'corruptJournal',
		`${journalFile} is cut short (damaged): writes were acknowledged up to record ${acknowledged}, its readable records end at ${reached} (${missing} record(s) missing); run \`baton doctor\``,
		{
			file: journalFile,
			acknowledged,
			reached,
		},
	);
}

/** A crash mid-append leaves an unacknowledged partial record: keep its bytes aside, then cut it off. */
export function setTornTailAside(journalFile: string, tornBytes: Buffer, validEnd: number, options: RecoveryOptions): void {
	const dir = path.join(path.dirname(journalFile), 'recovered');
	mkdirPrivate(dir);
	const aside = path.join(dir, `journal-tail-${stampName(options.clock.now())}-${process.pid}.bin`);
	fs.writeFileSync(aside, tornBytes, { mode: privateFileMode });
	fs.truncateSync(journalFile, validEnd);
	fsyncDir(path.dirname(journalFile));
	options.log.warn(`dropped a torn last record (${tornBytes.length} bytes) from ${journalFile}; its bytes are kept in ${aside}`);
}

/** Bytes [from, to) of an open file. */
export function readRange(fd: number, from: number, to: number): Buffer {
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
