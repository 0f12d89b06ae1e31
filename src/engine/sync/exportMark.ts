/**
 * The durable "exported up to" mark of this machine's events ref: `.baton/sync/exported.json` says
 * that, at ref tip `tip`, every local event whose SQLite rowid is at most `rowid` is in the ref (and
 * that the row at `rowid` is event `id`). `shared_events` is append-only and SQLite gives a new row
 * a rowid above every existing one, so the events still to export are the local rows above the mark:
 * an export reads only those instead of every local id and the set of every exported id.
 *
 * The mark is trusted only while it matches: the ref's tip must be the one it names (a crash after
 * `fast-import` but before the mark was written leaves an older tip) and the row at its rowid must
 * still be its event (a database rebuilt from elsewhere numbers rows afresh). Otherwise the
 * exported ids are read back from the ref once and compared with every local id, and the mark is
 * written again.
 */
import fs from 'node:fs';
import path from 'node:path';
import { sql, type SQL } from 'drizzle-orm';
import { atomicWriteFile } from '../storage/fsUtil';
import type { BatonDb } from '../storage/journalStore';
import { mkdirPrivate, privateFileMode } from '../workspace';
import { wireLineSql } from './eventRefs';

interface ExportMark {
	tip: string;
	rowid: number;
	id: string;
}

/**
 * Local events per page of an export: each page's wire lines leave SQLite as one string and go to the
 * ref in one `fast-import`, a batch file each (about 2.5 MB at the usual 500 bytes an event). One string
 * for a whole first push ran sql.js out of memory at 100,000 sessions (some 800,000 events). SQLite
 * builds that string in the WebAssembly heap, which never gives memory back: at 20,000 events a page
 * (10 MB) the first push took the heap from 21 to 76 MB and the pushing daemon to 289-295 MB at
 * 50,000 sessions; at 5,000 the heap stays at 36 MB and the daemon at 207-209 MB, and the clone that
 * pulls those smaller batches holds a smaller group at a time (at 10,000 sessions 257 → 179-189 MB).
 */
export const exportPageEvents = 5_000;

export interface FreshEvents {
	/** How many events to export. */
	count: number;
	/** Which rows each page holds (a condition on shared_events), in rowid order; `wirePage` reads one. */
	pages: SQL[];
	/** The mark once these are in the ref (null: no local event yet). */
	upTo: { rowid: number; id: string } | null;
}

/** One page's events as the ref takes them. */
interface WirePage {
	count: number;
	/** Their wire lines, sorted by id and joined by newlines ('' when there are none). */
	text: string;
	/** The greatest of their ids (the batch file's name). */
	lastId: string | null;
}

/** The saved mark when it names `tip`; null otherwise (no mark, an older tip, an older file format). */
export function readExportMark(file: string, tip: string): ExportMark | null {
	try {
		const saved = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<ExportMark>;
		if (saved.tip === tip && typeof saved.rowid === 'number' && Number.isSafeInteger(saved.rowid) && typeof saved.id === 'string') {
			return { tip, rowid: saved.rowid, id: saved.id };
		}
	} catch {
		// No mark yet, or a damaged file: the caller falls back to the ref.
	}
	return null;
}

/**
 * Replaces the mark (a temp file renamed over it) without fsync: the mark only saves work, so one
 * lost in a crash, or naming a tip the ref lost in the same crash, only sends the next export back
 * to the ref's ids. Two fsyncs per push were a measurable part of it. atomicWriteFile's temp file,
 * not one of its own: a crashed writer's is removed by the next write (its own never was).
 */
export function writeExportMark(file: string, mark: ExportMark): void {
	mkdirPrivate(path.dirname(file));
	atomicWriteFile(file, Buffer.from(`${JSON.stringify({ version: 2, ...mark })}\n`, 'utf8'), privateFileMode, false);
}

/**
 * The local events above a mark, or null when the mark does not hold in this database (its row is
 * gone or is another event): the caller then compares against the ref's ids (`freshByIds`).
 */
export function freshAboveMark(
	db: BatonDb,
	mark: { rowid: number; id: string } | null,
	retracted: ReadonlySet<string> = new Set(),
	pageEvents = exportPageEvents,
): FreshEvents | null {
	if (mark) {
		const at = db.all<{ id: string }>(sql`SELECT id FROM shared_events WHERE rowid = ${mark.rowid}`)[0];
		if (at?.id !== mark.id) {
			return null;
		}
	}
	const from = mark?.rowid ?? 0;
	const top = db.all<{ rowid: number; id: string }>(
		sql`SELECT rowid AS rowid, id FROM shared_events WHERE rowid > ${from} AND source = 'local' ORDER BY rowid DESC LIMIT 1`,
	)[0];
	if (!top) {
		return { count: 0, pages: [], upTo: mark };
	}
	// Events this machine took back (retraction.ts) are never sent again.
	const kept = retracted.size > 0 ? sql` AND id NOT IN (SELECT value FROM json_each(${JSON.stringify([...retracted])}))` : sql``;
	const pages: SQL[] = [];
	// Each page ends `pageEvents` local rows on (a walk of the rowid), or at the top.
	for (let start = from; start < top.rowid;) {
		const end =
			db.all<{ rowid: number }>(
				sql`SELECT rowid AS rowid FROM shared_events WHERE rowid > ${start} AND rowid <= ${top.rowid} AND source = 'local' ORDER BY rowid LIMIT 1 OFFSET ${pageEvents - 1}`,
			)[0]?.rowid ?? top.rowid;
		pages.push(sql`rowid > ${start} AND rowid <= ${end} AND source = 'local'${kept}`);
		start = end;
	}
	const count =
		db.all<{ n: number }>(sql`SELECT count(*) AS n FROM shared_events WHERE rowid > ${from} AND rowid <= ${top.rowid} AND source = 'local'${kept}`)[0]?.n ??
		0;
	return { count, pages, upTo: { rowid: top.rowid, id: top.id } };
}

/** The local events whose ids are not in `exported` (the ids the ref holds), a page of `pageEvents` ids at a time. */
export function freshByIds(db: BatonDb, exported: ReadonlySet<string>, retracted: ReadonlySet<string> = new Set(), pageEvents = exportPageEvents): FreshEvents {
	const local = db.all<{ rowid: number; id: string }>(sql`SELECT rowid AS rowid, id FROM shared_events WHERE source = 'local'`);
	const ids = local.filter((r) => !exported.has(r.id) && !retracted.has(r.id)).map((r) => r.id);
	const pages: SQL[] = [];
	for (let at = 0; at < ids.length; at += pageEvents) {
		pages.push(sql`id IN (SELECT value FROM json_each(${JSON.stringify(ids.slice(at, at + pageEvents))}))`);
	}
	return { count: ids.length, pages, upTo: highest(local) };
}

/**
 * The wire lines of the events `where` selects (a page of `FreshEvents`), joined inside SQLite: one
 * string crosses out of the WASM module instead of a row per event (about a quarter of the export's
 * read at 3,000 events).
 */
export function wirePage(db: BatonDb, where: SQL): WirePage {
	const row = db.all<{ text: string | null; n: number; last: string | null }>(
		sql`SELECT group_concat(${wireLineSql}, char(10) ORDER BY id) AS text, count(*) AS n, max(id) AS last FROM shared_events WHERE ${where}`,
	)[0];
	return { count: row?.n ?? 0, text: row?.text ?? '', lastId: row?.last ?? null };
}

/** How many local events are above a mark (null when the mark does not hold, as above). */
export function countAboveMark(db: BatonDb, mark: { rowid: number; id: string } | null): number | null {
	if (mark) {
		const at = db.all<{ id: string }>(sql`SELECT id FROM shared_events WHERE rowid = ${mark.rowid}`)[0];
		if (at?.id !== mark.id) {
			return null;
		}
	}
	return db.all<{ n: number }>(sql`SELECT count(*) AS n FROM shared_events WHERE rowid > ${mark?.rowid ?? 0} AND source = 'local'`)[0]?.n ?? 0;
}

/**
 * The commits of this machine's recorded checkpoints (each once), found through the kind index: the
 * unary `+` keeps SQLite from the source index, which it would otherwise pick (no statistics) and so
 * read every local event's body — every session, handoff and timeline step — on every export.
 */
export const localCheckpointCommitsSql = sql`SELECT DISTINCT json_extract(body_json, '$.commitOid') AS "commit" FROM shared_events WHERE kind = 'checkpoint.recorded' AND +source = 'local'`;

export function localCheckpointCommits(db: BatonDb): string[] {
	return db
		.all<{ commit: unknown }>(localCheckpointCommitsSql)
		.map((r) => r.commit)
		.filter((c): c is string => typeof c === 'string' && /^[0-9a-f]{40,64}$/.test(c));
}

function highest(rows: readonly { rowid: number; id: string }[]): { rowid: number; id: string } | null {
	let top: { rowid: number; id: string } | null = null;
	for (const r of rows) {
		if (!top || r.rowid > top.rowid) {
			top = { rowid: r.rowid, id: r.id };
		}
	}
	return top;
}
