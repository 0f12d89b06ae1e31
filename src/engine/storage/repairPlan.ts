/**
 * What `baton doctor --repair` can rebuild from the files it has, worked out in memory before any
 * file is touched: every good copy is a starting point (the snapshot, the previous snapshot, an empty
 * database), each continued by the journals that fit it (the previous journal, then the current one),
 * and the chain that reaches the highest sequence number wins. What the files show was acknowledged
 * beyond it is what the repair would lose.
 */
import type { Database, SqlJsStatic } from 'sql.js';
import { readIfExists } from './fsUtil';
import { decodeHeader, headerSize, scanRecords, type JournalRecord } from './journalFormat';
import { openSnapshot, replayRecord } from './journalRecovery';
import { pushAll } from '../arrays';

export interface JournalInfo {
	generation?: string;
	/** The header's acknowledged sequence number (0 when unknown). */
	acknowledged: number;
	records: JournalRecord[];
	tail: 'clean' | 'torn' | 'corrupt' | 'unreadable';
	problem?: string;
	/** No file, or an empty one. */
	absent?: boolean;
}

export interface RepairPlan {
	base: 'snapshot' | 'previous snapshot' | 'empty';
	recoveredSequence: number;
	/** The highest sequence number the files show was acknowledged. */
	acknowledgedSequence: number;
	/** Journal records present in the files that the rebuilt database does not hold. */
	droppedRecords: number;
	/** What the repair cannot recover; empty when it loses nothing. */
	losses: string[];
	notes: string[];
}

export function inspectJournal(file: string): JournalInfo {
	const bytes = readIfExists(file);
	if (!bytes || bytes.length === 0) {
		return { records: [], acknowledged: 0, tail: 'clean', absent: true };
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

/** Does the snapshot open, match its checksum (or SQLite's full check, when `damagedSum` allows) and pass the integrity check? */
export function inspectSnapshot(
	SQL: SqlJsStatic,
	dbFile: string,
	sumOf: string = dbFile,
	damagedSum: 'refuse' | 'integrityCheck' = 'refuse',
): { ok: boolean; detail: string; seq?: number } {
	const bytes = readIfExists(dbFile);
	if (!bytes) {
		return { ok: true, detail: 'no snapshot yet (everything is in the journal)', seq: 0 };
	}
	try {
		const snap = openSnapshot(SQL, bytes, dbFile, sumOf, damagedSum);
		try {
			const result = snap.sqlite.exec('PRAGMA integrity_check');
			const verdict = String(result[0]?.values[0]?.[0] ?? 'no answer');
			return verdict === 'ok'
				? { ok: true, detail: `${bytes.length} bytes, sequence ${snap.seq}`, seq: snap.seq }
				: { ok: false, detail: `${dbFile}: integrity check failed: ${verdict}` };
		} finally {
			snap.sqlite.close();
		}
	} catch (error) {
		return { ok: false, detail: (error as Error).message };
	}
}

interface Base {
	name: RepairPlan['base'];
	file: string;
	bytes: Buffer | undefined;
}

interface Chain {
	base: RepairPlan['base'];
	sqlite: Database;
	seq: number;
	notes: string[];
}

/** The best rebuild the files allow, in memory: the caller writes `sqlite` or closes it. */
export function planRepair(SQL: SqlJsStatic, dbFile: string, journalFile: string): RepairPlan & { sqlite: Database } {
	const notes: string[] = [];
	const journals: [JournalInfo, string][] = [
		[inspectJournal(`${journalFile}.prev`), `${journalFile}.prev`],
		[inspectJournal(journalFile), journalFile],
	];
	const bases: Base[] = [];
	let acknowledged = 0;
	for (const [name, file] of [
		['snapshot', dbFile],
		['previous snapshot', `${dbFile}.prev`],
	] as const) {
		const bytes = readIfExists(file);
		if (!bytes) {
			continue;
		}
		// A damaged sidecar is moved aside by the repair; the snapshots are then judged by SQLite's full check.
		const check = inspectSnapshot(SQL, file, dbFile, 'integrityCheck');
		if (!check.ok) {
			notes.push(`${file} is damaged (${check.detail})`);
			continue;
		}
		acknowledged = Math.max(acknowledged, check.seq ?? 0);
		bases.push({ name, file, bytes });
	}
	bases.push({ name: 'empty', file: dbFile, bytes: undefined });

	let best: Chain | undefined;
	for (const base of bases) {
		const chain = replayChain(SQL, base, journals);
		if (!best || chain.seq > best.seq) {
			best?.sqlite.close();
			best = chain;
		} else {
			chain.sqlite.close();
		}
	}
	const chosen = best as Chain;
	pushAll(notes, chosen.notes);

	const beyond = new Set<number>();
	const losses: string[] = [];
	for (const [info, file] of journals) {
		acknowledged = Math.max(acknowledged, info.acknowledged, info.records.at(-1)?.seq ?? 0);
		info.records.filter((r) => r.seq > chosen.seq).forEach((r) => beyond.add(r.seq));
		if (info.tail === 'corrupt' || info.tail === 'unreadable') {
			notes.push(`${file}: ${info.problem ?? 'damaged'}`);
		}
	}
	const [current, currentFile] = journals[1] as [JournalInfo, string];
	if (acknowledged > chosen.seq) {
		const lost = acknowledged - chosen.seq;
		losses.push(
			`record${lost === 1 ? ` ${acknowledged}` : `s ${chosen.seq + 1}–${acknowledged}`} (${lost} acknowledged write(s)${beyond.size > 0 ? `, ${beyond.size} of them in the journals but not replayable` : ''})`,
		);
	}
	if (current.acknowledged === 0 && (current.absent || current.tail === 'corrupt' || current.tail === 'unreadable')) {
		// A journal from before the header kept its acknowledged sequence, or none at all: how much is gone cannot be told.
		losses.push(
			`${currentFile} is ${current.absent ? 'missing or empty' : 'damaged'}: writes acknowledged after sequence ${chosen.seq} may be lost, how many cannot be told`,
		);
	}
	return {
		sqlite: chosen.sqlite,
		base: chosen.base,
		recoveredSequence: chosen.seq,
		acknowledgedSequence: Math.max(acknowledged, chosen.seq),
		droppedRecords: beyond.size,
		losses,
		notes,
	};
}

/**
 * `base`, then each journal that fits it, record by record, stopping at the first record that is
 * missing, damaged or does not replay. A journal fits when it continues the base's generation, or
 * when the journal before it was replayed to its end (compaction started the next one there).
 */
function replayChain(SQL: SqlJsStatic, base: Base, journals: [JournalInfo, string][]): Chain {
	const snap = openSnapshot(SQL, base.bytes, base.file, base.file.replace(/\.prev$/, ''), 'integrityCheck');
	const notes: string[] = [];
	let seq = snap.seq;
	let generation = snap.generation;
	let follows = base.name === 'empty';
	for (const [info, file] of journals) {
		if (info.absent) {
			continue;
		}
		const fits = info.generation !== undefined && (follows || info.generation === generation);
		follows = false;
		if (!fits) {
			continue;
		}
		let whole = info.tail === 'clean' || info.tail === 'torn';
		for (const record of info.records) {
			if (record.seq <= seq) {
				continue;
			}
			if (record.seq !== seq + 1) {
				whole = false;
				break;
			}
			try {
				replayRecord(snap.sqlite, record, file);
				seq = record.seq;
			} catch (error) {
				notes.push((error as Error).message);
				whole = false;
				break;
			}
		}
		follows = whole;
		generation = info.generation;
	}
	return { base: base.name, sqlite: snap.sqlite, seq, notes };
}
