/**
 * The full-text index (docs/search.md): an in-memory sql.js database of this process, never the
 * journaled store. It holds one row per searchable record in an FTS4 table (title, body, files) and
 * beside it what a hit needs (its kind, session, time, where it opens) and the files each record
 * names (`--file`). It is derived data: `searchSources.ts` fills it from the store and the transcript
 * archive and keeps it current by high-water marks, so nothing here is ever written to the journal.
 */
import type { Database, SqlValue, Statement } from 'sql.js';
import { loadSqlJs } from '../storage/sqlJs';
import type { SearchKind } from './searchShapes';

export interface IndexedDoc {
	/** Unique per record: `<kind>:<id>`. */
	key: string;
	kind: SearchKind;
	ref: string;
	session: string | null;
	agent: string | null;
	at: string | null;
	title: string;
	body: string;
	files: readonly string[];
	step?: number;
	turn?: number;
	transcript?: string;
	excerpt?: number;
}

export interface DocRow {
	id: number;
	kind: SearchKind;
	ref: string;
	session: string | null;
	agent: string | null;
	at: string | null;
	step: number | null;
	turn: number | null;
	transcript: string | null;
	excerpt: number | null;
}

export interface Matches {
	rows: { id: number; info: Uint8Array }[];
	/** Every match, or when `estimated` (more than the count reads), an estimate from the sample. */
	total: number;
	/** Only the newest matches were read, with 'pcy'. */
	sampled: boolean;
	estimated: boolean;
}

export interface IndexFilter {
	since?: string;
	agents?: readonly string[];
	file?: string;
}

const schema = `
CREATE VIRTUAL TABLE fts USING fts4(title, body, files, order=desc, tokenize=unicode61);
CREATE TABLE docs(id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, kind TEXT NOT NULL, ref TEXT NOT NULL, session TEXT, agent TEXT, at TEXT, step INTEGER, turn INTEGER, transcript TEXT, excerpt INTEGER);
CREATE INDEX docs_session ON docs(session);
CREATE INDEX docs_transcript ON docs(transcript);
CREATE TABLE doc_files(doc INTEGER NOT NULL, session TEXT, path TEXT NOT NULL);
CREATE INDEX doc_files_path ON doc_files(path);
CREATE INDEX doc_files_doc ON doc_files(doc);
CREATE TABLE sessions(id TEXT PRIMARY KEY, agent TEXT);
CREATE TABLE meta(key TEXT PRIMARY KEY, value);
`;

/** Tokens of a text as the unicode61 tokenizer counts them (for BM25's length normalisation). */
function tokens(text: string): number {
	let n = 0;
	for (const _ of text.matchAll(/[\p{L}\p{N}]+/gu)) n++;
	return n;
}

export class SearchIndex {
	private readonly statements = new Map<string, Statement>();
	private nextId = 1;
	/** Tokens per column of each record, by id (three per record), and their sums over live records. */
	private lengths = new Uint32Array(3 * 1024);
	private readonly totals = [0, 0, 0];
	private rowCount = 0;
	/** Records put or taken out since the index was made or loaded (what a save would add). */
	changes = 0;

	private constructor(private readonly db: Database) {}

	static async create(): Promise<SearchIndex> {
		const SQL = await loadSqlJs();
		const db = new SQL.Database();
		db.exec(schema);
		return new SearchIndex(db);
	}

	/**
	 * The index a `snapshot` saved, with the feed's marks saved beside it. Throws when the bytes are
	 * not that (the caller builds a new index): the row lengths must cover every record.
	 */
	static async load(bytes: Uint8Array): Promise<{ index: SearchIndex; marks: string }> {
		const SQL = await loadSqlJs();
		const db = new SQL.Database(bytes);
		const index = new SearchIndex(db);
		try {
			const lengths = index.one("SELECT value FROM meta WHERE key = 'lengths'", []);
			const marks = index.one("SELECT value FROM meta WHERE key = 'marks'", []);
			if (!(lengths instanceof Uint8Array) || lengths.byteLength % 12 !== 0 || typeof marks !== 'string') throw new Error('its meta table is incomplete');
			const high = Number(index.one('SELECT max(id) FROM docs', []) ?? 0);
			index.rowCount = Number(index.one('SELECT count(*) FROM docs', []));
			if (3 * high + 3 > lengths.byteLength / 4) throw new Error('its row lengths do not cover every record');
			index.lengths = new Uint32Array(lengths.slice().buffer);
			index.nextId = high + 1;
			const sums = [0, 0, 0];
			for (let i = 0; i < index.lengths.length; i++) sums[i % 3] = (sums[i % 3] ?? 0) + (index.lengths[i] ?? 0);
			for (let c = 0; c < 3; c++) index.totals[c] = sums[c] ?? 0;
			return { index, marks };
		} catch (error) {
			index.close();
			throw error;
		}
	}

	/** The whole index as SQLite bytes, the row lengths and the feed's `marks` with it (for `load`). */
	snapshot(marks: string): Uint8Array {
		const lengths = new Uint8Array(this.lengths.buffer, 0, 12 * this.nextId);
		this.run("INSERT OR REPLACE INTO meta(key, value) VALUES ('lengths', ?)", [lengths]);
		this.run("INSERT OR REPLACE INTO meta(key, value) VALUES ('marks', ?)", [marks]);
		// sql.js's export closes and reopens the database, freeing every prepared statement.
		for (const statement of this.statements.values()) statement.free();
		this.statements.clear();
		return this.db.export();
	}

	/** Runs `fn` as one transaction: thousands of inserts cost one commit. */
	batch<T>(fn: () => T): T {
		this.db.exec('BEGIN');
		try {
			const value = fn();
			this.db.exec('COMMIT');
			return value;
		} catch (error) {
			this.db.exec('ROLLBACK');
			throw error;
		}
	}

	/** Adds a record, replacing the one of the same key unless the caller knows it is `fresh` (never indexed). */
	put(doc: IndexedDoc, fresh = false): void {
		if (!fresh) this.remove(doc.key);
		const id = this.nextId++;
		this.run('INSERT INTO docs(id, key, kind, ref, session, agent, at, step, turn, transcript, excerpt) VALUES (?,?,?,?,?,?,?,?,?,?,?)', [
			id,
			doc.key,
			doc.kind,
			doc.ref,
			doc.session,
			doc.agent,
			doc.at,
			doc.step ?? null,
			doc.turn ?? null,
			doc.transcript ?? null,
			doc.excerpt ?? null,
		]);
		const files = doc.files.join('\n');
		this.run('INSERT INTO fts(docid, title, body, files) VALUES (?,?,?,?)', [id, doc.title, doc.body, files]);
		this.setLengths(id, [tokens(doc.title), tokens(doc.body), tokens(files)]);
		this.rowCount++;
		this.changes++;
		for (const file of doc.files) {
			this.run('INSERT INTO doc_files(doc, session, path) VALUES (?,?,?)', [id, doc.session, file]);
		}
	}

	remove(key: string): void {
		const id = this.one('SELECT id FROM docs WHERE key = ?', [key]);
		if (typeof id === 'number') {
			this.removeIds([id]);
		}
	}

	removeKeysStartingWith(prefix: string): void {
		this.removeIds(this.column('SELECT id FROM docs WHERE substr(key, 1, ?) = ?', [prefix.length, prefix]) as number[]);
	}

	/** Removes every record of a transcript (purged, cut back, gone). */
	removeTranscript(transcript: string): void {
		this.removeIds(this.column('SELECT id FROM docs WHERE transcript = ?', [transcript]) as number[]);
	}

	/** A transcript linked to its session after it was indexed. */
	relinkTranscript(transcript: string, session: string | null): void {
		this.changes++;
		this.run('UPDATE docs SET session = ? WHERE transcript = ?', [session, transcript]);
		this.run('UPDATE doc_files SET session = ? WHERE doc IN (SELECT id FROM docs WHERE transcript = ?)', [session, transcript]);
	}

	setSessionAgent(session: string, agent: string | null): void {
		this.run('INSERT OR REPLACE INTO sessions(id, agent) VALUES (?, ?)', [session, agent]);
	}

	removeSession(session: string): void {
		this.run('DELETE FROM sessions WHERE id = ?', [session]);
	}

	/** BM25's figures: the number of records, the average tokens per column, each record's (three per id, from 3 × id). */
	lengthFigures(): { rows: number; average: number[]; lengths: Uint32Array } {
		const rows = Math.max(1, this.rowCount);
		return { rows, average: this.totals.map((t) => t / rows), lengths: this.lengths };
	}

	/**
	 * The matches to rank, filtered, newest first. Up to `exactUpTo` matches, every one with its
	 * matchinfo ('pcx': the exact figures BM25 needs). Past that (words in most records), FTS4 would
	 * decode the whole doclist and matchinfo would run per row: only the newest `sample` are read,
	 * with 'pcy' (this row's hits, no pass over the doclist), and the caller estimates the rest; the
	 * matches are still counted (in SQLite, no row reaching JS) up to `countUpTo`, estimated past it.
	 */
	matches(match: string, filter: IndexFilter, cut: { exactUpTo: number; sample: number; countUpTo: number }): Matches {
		const where = ['fts MATCH ?'];
		const params: SqlValue[] = [match];
		if (filter.since) {
			where.push('d.at >= ?');
			params.push(filter.since);
		}
		if (filter.agents) {
			const marks = filter.agents.map(() => '?').join(',');
			where.push(`(d.agent IN (${marks}) OR d.session IN (SELECT id FROM sessions WHERE agent IN (${marks})))`);
			for (let i = 0; i < 2; i++) for (const agent of filter.agents) params.push(agent);
		}
		if (filter.file !== undefined) {
			where.push('(d.session IN (SELECT session FROM doc_files WHERE path = ?) OR d.id IN (SELECT doc FROM doc_files WHERE path = ?))');
			params.push(filter.file, filter.file);
		}
		// The index keeps its doclists newest first (order=desc), so FTS4 reads them a piece at a time and a LIMIT stops it early.
		const from = where.length === 1 ? `FROM fts WHERE fts MATCH ?` : `FROM fts JOIN docs d ON d.id = fts.docid WHERE ${where.join(' AND ')}`;
		const many = Number(
			this.one(`SELECT count(*) FROM (SELECT 1 ${from} ORDER BY fts.docid DESC LIMIT ${Math.max(cut.exactUpTo, cut.countUpTo) + 1})`, params),
		);
		const sampled = many > cut.exactUpTo;
		const statement = this.prepared(
			`SELECT fts.docid, matchinfo(fts, '${sampled ? 'pcy' : 'pcx'}') ${from} ORDER BY fts.docid DESC${sampled ? ` LIMIT ${cut.sample}` : ''}`,
		);
		const rows: { id: number; info: Uint8Array }[] = [];
		try {
			statement.bind(params);
			while (statement.step()) {
				const row = statement.get();
				rows.push({ id: row[0] as number, info: row[1] as Uint8Array });
			}
		} finally {
			statement.reset();
		}
		if (!sampled) return { rows, total: rows.length, sampled, estimated: false };
		if (many <= cut.countUpTo) return { rows, total: many, sampled, estimated: false };
		// Past the count too: the sample is the newest matches, as dense below it as within it (ids grow with time).
		const lowest = rows.at(-1)?.id ?? 1;
		const total = Math.max(many, Math.round(rows.length * ((this.nextId - 1) / Math.max(1, this.nextId - lowest))));
		return { rows, total, sampled, estimated: true };
	}

	/** The record behind each id with its best passage, marked with `open` and `close`: one evaluation of the query for all of them. */
	rows(ids: readonly number[], match: string, open: string, close: string): Map<number, DocRow & { snippet: string }> {
		const out = new Map<number, DocRow & { snippet: string }>();
		if (ids.length === 0) {
			return out;
		}
		const statement = this.db.prepare(
			`SELECT d.id, d.kind, d.ref, d.session, d.agent, d.at, d.step, d.turn, d.transcript, d.excerpt, snippet(fts, ?, ?, '…', -1, 40) FROM fts JOIN docs d ON d.id = fts.docid WHERE fts MATCH ? AND fts.docid BETWEEN ? AND ? AND fts.docid IN (${ids.map(() => '?').join(',')})`,
		);
		try {
			// The range lets FTS4 read only that stretch of a long doclist (an IN list alone made it read all of it per id).
			let low = Infinity;
			let high = -Infinity;
			for (const id of ids) {
				low = Math.min(low, id);
				high = Math.max(high, id);
			}
			const params: SqlValue[] = [open, close, match, low, high];
			for (const id of ids) params.push(id);
			statement.bind(params);
			while (statement.step()) {
				const r = statement.get();
				const id = r[0] as number;
				out.set(id, {
					id,
					kind: r[1] as SearchKind,
					ref: r[2] as string,
					session: r[3] as string | null,
					agent: r[4] as string | null,
					at: r[5] as string | null,
					step: r[6] as number | null,
					turn: r[7] as number | null,
					transcript: r[8] as string | null,
					excerpt: r[9] as number | null,
					snippet: r[10] as string,
				});
			}
		} finally {
			statement.free();
		}
		return out;
	}

	get size(): number {
		return Number(this.one('SELECT count(*) FROM docs', []));
	}

	close(): void {
		for (const statement of this.statements.values()) statement.free();
		this.statements.clear();
		this.db.close();
	}

	private setLengths(id: number, values: readonly number[]): void {
		if (3 * id + 3 > this.lengths.length) {
			const grown = new Uint32Array(Math.max(this.lengths.length * 2, 3 * id + 3));
			grown.set(this.lengths);
			this.lengths = grown;
		}
		for (let c = 0; c < 3; c++) {
			const before = this.lengths[3 * id + c] ?? 0;
			const after = values[c] ?? 0;
			this.totals[c] = (this.totals[c] ?? 0) - before + after;
			this.lengths[3 * id + c] = after;
		}
	}

	private removeIds(ids: readonly number[]): void {
		for (const id of ids) {
			this.setLengths(id, [0, 0, 0]);
			this.rowCount--;
			this.changes++;
			this.run('DELETE FROM fts WHERE docid = ?', [id]);
			this.run('DELETE FROM doc_files WHERE doc = ?', [id]);
			this.run('DELETE FROM docs WHERE id = ?', [id]);
		}
	}

	private prepared(sqlText: string): Statement {
		let statement = this.statements.get(sqlText);
		if (!statement) {
			statement = this.db.prepare(sqlText);
			this.statements.set(sqlText, statement);
		}
		return statement;
	}

	private run(sqlText: string, params: SqlValue[]): void {
		const statement = this.prepared(sqlText);
		try {
			statement.run(params);
		} finally {
			statement.reset();
		}
	}

	private one(sqlText: string, params: SqlValue[]): SqlValue | undefined {
		return this.column(sqlText, params)[0];
	}

	private column(sqlText: string, params: SqlValue[]): SqlValue[] {
		const statement = this.prepared(sqlText);
		const out: SqlValue[] = [];
		try {
			statement.bind(params);
			while (statement.step()) out.push(statement.get()[0] as SqlValue);
		} finally {
			statement.reset();
		}
		return out;
	}
}
