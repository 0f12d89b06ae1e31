/**
 * `baton doctor`: checks the snapshot, the journal and the lock without changing anything, and on
 * request rebuilds the database from the best chain of good copies it has (repairPlan.ts). A rebuild
 * that would lose acknowledged writes is written only once the caller accepted the loss. Damaged
 * files are moved aside into `.baton/damaged-<time>/`, never deleted.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Database, SqlJsStatic } from 'sql.js';
import { BatonError } from '../errors';
import type { Clock, Logger } from '../ports';
import { mkdirPrivate } from '../workspace';
import { atomicWriteFile, readIfExists, stampName } from './fsUtil';
import { sumFileOf, writeSnapshot } from './snapshotFile';
import { encodeHeader } from './journalFormat';
import { dbFileName } from './journalStore';
import { journalAbsence, journalShortfall, openSnapshot, replayRecord, snapshotAbsence } from './journalRecovery';
import { inspectJournal, inspectSnapshot, planRepair, type JournalInfo, type RepairPlan } from './repairPlan';
import { LockFile } from './lockFile';
import { pendingMigrations } from './migrator';
import { migrations } from './migrations.generated';
import { loadSqlJs } from './sqlJs';

interface DoctorCheck {
	name: string;
	ok: boolean;
	detail: string;
}

export type { RepairPlan } from './repairPlan';

interface DoctorReport {
	ok: boolean;
	checks: DoctorCheck[];
	repair?: RepairResult;
	/** A repair that would lose acknowledged writes and was not accepted: nothing was written. */
	declined?: RepairPlan;
}

interface RepairResult extends RepairPlan {
	/** Where the damaged files went. */
	movedAside: string[];
}

interface DoctorOptions {
	dir: string;
	repair: boolean;
	clock: Clock;
	log: Logger;
	wasmPath?: string;
	/**
	 * Asked (under the lock, before any file changes) when the repair cannot recover everything the
	 * files show was acknowledged; without it, or when it answers false, such a repair writes nothing.
	 */
	acceptLoss?: (plan: RepairPlan) => boolean | Promise<boolean>;
}

export async function runDoctor(options: DoctorOptions): Promise<DoctorReport> {
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
		const short =
			snap.seq === undefined ? undefined : journalShortfall(journalFile, journal.acknowledged, Math.max(snap.seq, journal.records.at(-1)?.seq ?? 0));
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
		const { sqlite, ...plan } = planRepair(SQL, dbFile, journalFile);
		try {
			if (plan.losses.length > 0 && !(await options.acceptLoss?.(plan))) {
				return { ok: false, checks, declined: plan };
			}
			const repair = { ...plan, movedAside: replaceFiles(sqlite, options.dir, dbFile, journalFile, plan.recoveredSequence, options.clock) };
			options.log.warn(
				`repaired ${dbFile}: rebuilt from the ${plan.base} up to sequence ${plan.recoveredSequence}${plan.losses.length > 0 ? `; lost ${plan.losses.join('; ')}` : ''}`,
			);
			return { ok: false, checks, repair };
		} finally {
			sqlite.close();
		}
	} finally {
		if (lockHeld) {
			lock.dispose();
		}
	}
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

/** Moves every file of the store aside (never deletes one), then writes `sqlite` as the snapshot of a new journal generation. */
function replaceFiles(sqlite: Database, dir: string, dbFile: string, journalFile: string, seq: number, clock: Clock): string[] {
	const asideDir = path.join(dir, `damaged-${stampName(clock.now())}`);
	mkdirPrivate(asideDir);
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
	return movedAside;
}
