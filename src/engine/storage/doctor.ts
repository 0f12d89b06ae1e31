/**
 * `baton doctor`: checks the snapshot, the journal and the lock without changing anything, and on
 * request rebuilds the database from the last good snapshot plus the valid journal prefix. Damaged
 * files are moved aside into `.baton/damaged-<time>/`, never deleted.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Database, SqlJsStatic } from 'sql.js';
import { BatonError } from '../errors';
import type { Clock, Logger } from '../ports';
import { atomicWriteFile, readIfExists, stampName } from './fsUtil';
import { sumFileOf, writeSnapshot } from './snapshotFile';
import { decodeHeader, encodeHeader, headerSize, scanRecords, type JournalRecord } from './journalFormat';
import { dbFileName } from './journalStore';
import { journalAbsence, journalShortfall, openSnapshot, replayRecord, snapshotAbsence } from './journalRecovery';
import { LockFile } from './lockFile';
import { pendingMigrations } from './migrator';
import { migrations } from './migrations.generated';
import { loadSqlJs } from './sqlJs';

export interface DoctorCheck {
	name: string;
	ok: boolean;
	detail: string;
}

export interface DoctorReport {
	ok: boolean;
	checks: DoctorCheck[];
	repair?: RepairResult;
}

export interface RepairResult {
	/** Where the damaged files went. */
	movedAside: string[];
	base: 'snapshot' | 'previous snapshot' | 'empty';
	recoveredSequence: number;
	/** Journal records that could not be recovered (after damage). */
	droppedRecords: number;
	notes: string[];
}

interface JournalInfo {
	generation?: string;
	/** The header's acknowledged sequence number (0 when unknown). */
	acknowledged: number;
	records: JournalRecord[];
	tail: 'clean' | 'torn' | 'corrupt' | 'unreadable';
	problem?: string;
}

export async function runDoctor(options: { dir: string; repair: boolean; clock: Clock; log: Logger; wasmPath?: string }): Promise<DoctorReport> {
	const SQL = await loadSqlJs(options.wasmPath);
	const dbFile = path.join(options.dir, dbFileName);
	const journalFile = `${dbFile}.journal`;
	const checks: DoctorCheck[] = [];
	const lockFile = `${dbFile}.lock`;

	const lock = new LockFile(lockFile, 2_000);
	let lockHeld = false;
	try {
		await lock.acquire();
		lockHeld = true;
		checks.push({ name: 'lock', ok: true, detail: 'no other process holds the write lock' });
	} catch (error) {
		checks.push({ name: 'lock', ok: false, detail: (error as Error).message });
	}
	try {
		const absence = journalAbsence(readIfExists(dbFile) !== undefined, readIfExists(journalFile), journalFile);
		const journal: JournalInfo = absence ? { records: [], acknowledged: 0, tail: 'unreadable', problem: absence.message } : inspectJournal(journalFile);
		const missing = fs.existsSync(dbFile) ? undefined : snapshotAbsence(dbFile, journal.records[0]?.seq, journal.records.at(-1)?.seq, journal.acknowledged);
		const snap = missing ? { ok: false, detail: missing.message } : inspectSnapshot(SQL, dbFile);
		checks.push({ name: 'snapshot', ok: snap.ok, detail: snap.detail });
		const short = snap.seq === undefined ? undefined : journalShortfall(journalFile, journal.acknowledged, Math.max(snap.seq, journal.records.at(-1)?.seq ?? 0));
		const readable = (journal.tail === 'clean' || journal.tail === 'torn') && !short;
		checks.push({
			name: 'journal',
			ok: readable,
			detail:
				journal.tail === 'unreadable' || journal.tail === 'corrupt'
					? absence
						? absence.message
						: `${journalFile}: ${journal.problem ?? 'damaged'}`
					: short
						? short.message
						: `${journal.records.length} record(s)${journal.tail === 'torn' ? `; torn last record (${journal.problem}) will be dropped` : ''}`,
		});
		if (snap.ok && readable) {
			try {
				const state = replayAll(SQL, readIfExists(dbFile), dbFile, journal, journalFile);
				const pending = pendingMigrations(state.sqlite, migrations).length;
				state.sqlite.close();
				checks.push({ name: 'replay', ok: true, detail: `database opens at sequence ${state.seq}` });
				checks.push({ name: 'migrations', ok: true, detail: pending === 0 ? 'up to date' : `${pending} pending (applied on next open)` });
			} catch (error) {
				checks.push({ name: 'replay', ok: false, detail: (error as Error).message });
			}
		}
		const ok = checks.every((c) => c.ok);
		if (!options.repair || ok) {
			return { ok, checks };
		}
		if (!lockHeld) {
			throw new BatonError('locked', `cannot repair while another process holds ${lockFile}`);
		}
		const repair = repairFiles(SQL, options.dir, dbFile, journalFile, options.clock);
		options.log.warn(`repaired ${dbFile}: ${repair.notes.join('; ')}`);
		return { ok: false, checks, repair };
	} finally {
		if (lockHeld) {
			lock.dispose();
		}
	}
}

function inspectSnapshot(SQL: SqlJsStatic, dbFile: string, sumOf: string = dbFile, damagedSum: 'refuse' | 'integrityCheck' = 'refuse'): { ok: boolean; detail: string; seq?: number } {
	const bytes = readIfExists(dbFile);
	if (!bytes) {
		return { ok: true, detail: 'no snapshot yet (everything is in the journal)', seq: 0 };
	}
	try {
		const snap = openSnapshot(SQL, bytes, dbFile, sumOf, damagedSum);
		try {
			const result = snap.sqlite.exec('PRAGMA integrity_check');
			const verdict = String(result[0]?.values[0]?.[0] ?? 'no answer');
			return verdict === 'ok' ? { ok: true, detail: `${bytes.length} bytes, sequence ${snap.seq}`, seq: snap.seq } : { ok: false, detail: `${dbFile}: integrity check failed: ${verdict}` };
		} finally {
			snap.sqlite.close();
		}
	} catch (error) {
		return { ok: false, detail: (error as Error).message };
	}
}

function inspectJournal(file: string): JournalInfo {
	const bytes = readIfExists(file);
	if (!bytes || bytes.length === 0) {
		return { records: [], acknowledged: 0, tail: 'clean' };
	}
	const header = decodeHeader(bytes.subarray(0, headerSize));
	if (!('generation' in header)) {
		return { records: [], acknowledged: 0, tail: 'unreadable', problem: header.problem };
	}
	const scan = scanRecords(bytes.subarray(headerSize), headerSize);
	return {
		generation: header.generation,
		acknowledged: header.acknowledged,
		records: scan.records.map((r) => r.record),
		tail: scan.tail,
		...(scan.problem ? { problem: scan.problem } : {}),
	};
}

/** Snapshot + every record that continues it, in memory only. Throws what open() would throw. */
function replayAll(SQL: SqlJsStatic, bytes: Buffer | undefined, dbFile: string, journal: JournalInfo, journalFile: string): { sqlite: Database; seq: number } {
	const snap = openSnapshot(SQL, bytes, dbFile);
	let seq = snap.seq;
	try {
		const continues = !bytes || journal.generation === undefined || journal.generation === snap.generation;
		for (const record of journal.records) {
			if (record.seq <= seq) {
				continue;
			}
			if (!continues) {
				throw new BatonError('corruptJournal', `${journalFile} belongs to another snapshot and holds record ${record.seq} beyond it`);
			}
			if (record.seq !== seq + 1) {
				throw new BatonError('corruptJournal', `${journalFile}: record ${record.seq} follows ${seq}`);
			}
			replayRecord(snap.sqlite, record, journalFile);
			seq = record.seq;
		}
		return { sqlite: snap.sqlite, seq };
	} catch (error) {
		snap.sqlite.close();
		throw error;
	}
}

function repairFiles(SQL: SqlJsStatic, dir: string, dbFile: string, journalFile: string, clock: Clock): RepairResult {
	const notes: string[] = [];
	const current = readIfExists(dbFile);
	const previous = readIfExists(`${dbFile}.prev`);
	const journal = inspectJournal(journalFile);
	const previousJournal = inspectJournal(`${journalFile}.prev`);

	// Pick the newest snapshot that opens and passes the integrity check.
	let base: RepairResult['base'] = 'empty';
	let sqlite: Database | undefined;
	let seq = 0;
	for (const [name, bytes, file] of [
		['snapshot', current, dbFile],
		['previous snapshot', previous, `${dbFile}.prev`],
	] as const) {
		if (!bytes || sqlite) {
			continue;
		}
		// A damaged sidecar is moved aside below; the snapshots are then judged by SQLite's full check.
		if (!inspectSnapshot(SQL, file, dbFile, 'integrityCheck').ok) {
			notes.push(`${file} is damaged`);
			continue;
		}
		const snap = openSnapshot(SQL, bytes, file, dbFile, 'integrityCheck');
		sqlite = snap.sqlite;
		seq = snap.seq;
		base = name;
	}
	sqlite ??= openSnapshot(SQL, undefined, dbFile).sqlite;

	// Then every record that continues it, from the previous journal and the current one, stopping
	// at the first record that is missing, damaged or does not replay.
	let dropped = 0;
	let stopped = false;
	for (const [info, file] of [
		[previousJournal, `${journalFile}.prev`],
		[journal, journalFile],
	] as const) {
		for (const record of info.records) {
			if (record.seq <= seq) {
				continue;
			}
			if (stopped || record.seq !== seq + 1) {
				stopped = true;
				dropped++;
				continue;
			}
			try {
				replayRecord(sqlite, record, file);
				seq = record.seq;
			} catch (error) {
				notes.push((error as Error).message);
				stopped = true;
				dropped++;
			}
		}
		if (info.tail === 'corrupt' || info.tail === 'unreadable') {
			notes.push(`${file}: ${info.problem ?? 'damaged'}; records after the damage are lost`);
		}
	}
	notes.push(`rebuilt from the ${base} up to sequence ${seq}`);

	const asideDir = path.join(dir, `damaged-${stampName(clock.now())}`);
	fs.mkdirSync(asideDir, { recursive: true });
	const movedAside: string[] = [];
	for (const file of [dbFile, journalFile, `${dbFile}.prev`, `${journalFile}.prev`, sumFileOf(dbFile)]) {
		if (fs.existsSync(file)) {
			const target = path.join(asideDir, path.basename(file));
			fs.renameSync(file, target);
			movedAside.push(target);
		}
	}
	const generation = randomBytes(8).toString('hex');
	sqlite.run("INSERT OR REPLACE INTO _baton_meta (key, value) VALUES ('seq', ?), ('generation', ?)", [String(seq), generation]);
	writeSnapshot(dbFile, sqlite.export(), false);
	atomicWriteFile(journalFile, encodeHeader(generation, seq));
	sqlite.close();
	return { movedAside, base, recoveredSequence: seq, droppedRecords: dropped, notes };
}
