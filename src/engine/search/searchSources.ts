/**
 * Keeps the search index (searchIndex.ts) current with what it is derived from, reading only what
 * changed since it last looked (docs/search.md):
 * - sessions, handoffs, decisions and memory, when the store's version of their table moved: their
 *   rows are read again (a few columns) and only records whose text changed are re-indexed;
 * - timeline prompts and steps, by a high-water mark on `shared_events`' rowid (events are never
 *   updated); a count that no longer adds up (a retraction deleted some, a reload) reads them all;
 * - transcripts, when `.baton/transcripts/index.json` changed: each archive from the byte it was
 *   read to, again from the start when it was cut back, purged or moved.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Database, SqlValue } from 'sql.js';
import type { JournalStore } from '../storage/journalStore';
import type { TranscriptArchive } from '../transcripts/transcriptArchive';
import type { Excerpt } from '../transcripts/transcriptExcerpts';
import type { IndexedDoc, SearchIndex } from './searchIndex';

type Row = SqlValue[];

const eventKinds = "('timeline.step', 'timeline.prompt')";

/** Strings of a JSON value, ids and states left out: a handoff's note, blockers, tasks' titles, decisions. */
function textsOf(value: unknown, out: string[] = []): string[] {
	if (typeof value === 'string') {
		out.push(value);
	} else if (Array.isArray(value)) {
		for (const item of value) textsOf(item, out);
	} else if (value && typeof value === 'object') {
		for (const [key, item] of Object.entries(value)) {
			if (key !== 'id' && key !== 'status' && key !== 'priority') textsOf(item, out);
		}
	}
	return out;
}

function parsed(text: SqlValue): unknown {
	try {
		return typeof text === 'string' ? JSON.parse(text) : null;
	} catch {
		return null;
	}
}

function each(db: Database, sqlText: string, params: SqlValue[], fn: (row: Row) => void): void {
	const statement = db.prepare(sqlText);
	try {
		statement.bind(params);
		while (statement.step()) fn(statement.get());
	} finally {
		statement.free();
	}
}

const str = (v: SqlValue | undefined): string | null => (typeof v === 'string' ? v : null);

/** One table's records as documents. */
interface TableSource {
	table: string;
	read(db: Database): IndexedDoc[];
}

const tableSources: TableSource[] = [
	{
		table: 'sessions',
		read(db) {
			const docs: IndexedDoc[] = [];
			each(db, 'SELECT id, name, agent, end_note, focus_json, started_at FROM sessions', [], (r) => {
				const id = r[0] as string;
				docs.push({
					key: `session:${id}`,
					kind: 'session',
					ref: id,
					session: id,
					agent: str(r[2]),
					at: str(r[5]),
					title: String(r[1] ?? ''),
					body: [str(r[3]), ...textsOf(parsed(r[4] ?? null))].filter(Boolean).join('\n'),
					files: [],
				});
			});
			return docs;
		},
	},
	{
		table: 'handoffs',
		read(db) {
			const docs: IndexedDoc[] = [];
			each(db, 'SELECT session_id, handoff_json, created_at FROM handoffs', [], (r) => {
				const id = r[0] as string;
				docs.push({ key: `handoff:${id}`, kind: 'handoff', ref: id, session: id, agent: null, at: str(r[2]), title: '', body: textsOf(parsed(r[1] ?? null)).join('\n'), files: [] });
			});
			return docs;
		},
	},
	{
		table: 'decisions',
		read(db) {
			const docs: IndexedDoc[] = [];
			each(db, 'SELECT id, session_id, text, rationale, created_at FROM decisions', [], (r) => {
				const id = r[0] as string;
				docs.push({ key: `decision:${id}`, kind: 'decision', ref: id, session: str(r[1]), agent: null, at: str(r[4]), title: String(r[2] ?? ''), body: str(r[3]) ?? '', files: [] });
			});
			return docs;
		},
	},
	{
		table: 'memory_entries',
		read(db) {
			const docs: IndexedDoc[] = [];
			each(db, 'SELECT id, text, source_session_id, files_json, last_confirmed_at FROM memory_entries', [], (r) => {
				const id = r[0] as string;
				const files = parsed(r[3] ?? null);
				docs.push({
					key: `memory:${id}`,
					kind: 'memory',
					ref: id,
					session: str(r[2]),
					agent: null,
					at: str(r[4]),
					title: '',
					body: String(r[1] ?? ''),
					files: Array.isArray(files) ? files.filter((f): f is string => typeof f === 'string') : [],
				});
			});
			return docs;
		},
	},
];

function eventDoc(r: Row): IndexedDoc | null {
	const [, id, kind, session, at, bodyText] = r;
	const body = parsed(bodyText ?? null) as Record<string, unknown> | null;
	if (!body || typeof id !== 'string') {
		return null;
	}
	const turn = typeof body['turn'] === 'number' ? body['turn'] : undefined;
	const base = { key: `event:${id}`, ref: id, session: str(session), at: str(at), ...(turn !== undefined ? { turn } : {}) };
	if (kind === 'timeline.prompt') {
		return { ...base, kind: 'prompt', agent: null, title: '', body: String(body['text'] ?? ''), files: [] };
	}
	const files = Array.isArray(body['files']) ? (body['files'] as { path?: unknown }[]).map((f) => f.path).filter((p): p is string => typeof p === 'string') : [];
	const step = typeof body['step'] === 'number' ? body['step'] : undefined;
	return { ...base, kind: 'step', agent: str((body['agent'] as SqlValue) ?? null), title: String(body['summary'] ?? ''), body: String(body['tool'] ?? ''), files, ...(step !== undefined ? { step } : {}) };
}

function excerptDoc(transcript: string, n: number, e: Excerpt, session: string | null, agent: string): IndexedDoc | null {
	const base = { key: `transcript:${transcript}#${n}`, kind: 'transcript' as const, ref: `${transcript}#${n}`, session, agent, at: e.at, transcript, excerpt: n };
	switch (e.type) {
		case 'user':
		case 'assistant':
		case 'error':
		case 'summary':
			return { ...base, title: '', body: e.text, files: [] };
		case 'tool':
			return { ...base, title: e.name, body: e.detail ?? '', files: e.files };
		default:
			return null;
	}
}

interface TranscriptMark {
	archivePath: string;
	bytes: number;
	excerpts: number;
	session: string | null;
}

/** Records indexed per turn of the event loop: a first build of 280,000 records leaves the process answering others between chunks. */
const chunk = 2_000;
/** Event rows read per store read: each read holds the store's queue only that long. */
const eventRows = 5_000;

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export class SearchFeed {
	private readonly versions = new Map<string, number>();
	private readonly fingerprints = new Map<string, string>();
	private eventsHigh = 0;
	private eventsCount = 0;
	private transcriptsStat = '';
	private readonly transcripts = new Map<string, TranscriptMark>();

	/**
	 * Brings the store's records into the index. Rows are read inside the store's reads (caught up
	 * with other processes, briefly); the indexing runs outside them, in chunks, so a first build
	 * holds neither the store nor the event loop for its whole length.
	 */
	async fromStore(index: SearchIndex, store: JournalStore): Promise<void> {
		for (const source of tableSources) {
			const read = await store.read(() => {
				const version = store.tableVersion(source.table);
				return this.versions.get(source.table) === version ? null : { version, docs: source.read(store.sqlite) };
			});
			if (!read) continue;
			await this.replaceTable(index, source, read.docs);
			this.versions.set(source.table, read.version);
		}
		await this.readEvents(index, store);
	}

	/** Brings archived transcript text into the index. */
	async fromArchive(index: SearchIndex, archive: TranscriptArchive): Promise<void> {
		const indexFile = path.join(archive.dir, 'index.json');
		let stamp = 'none';
		try {
			const stat = fs.statSync(indexFile);
			stamp = `${stat.ino}:${stat.size}:${stat.mtimeMs}`;
		} catch {
			// No transcripts archived yet.
		}
		if (stamp === this.transcriptsStat) return;
		const seen = new Set<string>();
		let pending: IndexedDoc[] = [];
		for (const info of stamp === 'none' ? [] : archive.list()) {
			seen.add(info.id);
			index.batch(() => this.readTranscript(index, archive.dir, info, pending));
			if (pending.length >= chunk) {
				await this.putAll(index, pending, true);
				pending = [];
			}
		}
		await this.putAll(index, pending, true);
		index.batch(() => {
			for (const id of [...this.transcripts.keys()].filter((k) => !seen.has(k))) {
				index.removeTranscript(id);
				this.transcripts.delete(id);
			}
		});
		this.transcriptsStat = stamp;
	}

	/** Puts `docs` a chunk per turn of the event loop, each chunk one transaction. */
	private async putAll(index: SearchIndex, docs: readonly IndexedDoc[], fresh: boolean | ((doc: IndexedDoc) => boolean)): Promise<void> {
		for (let at = 0; at < docs.length; at += chunk) {
			index.batch(() => {
				for (const doc of docs.slice(at, at + chunk)) index.put(doc, typeof fresh === 'boolean' ? fresh : fresh(doc));
			});
			if (at + chunk < docs.length) await nextTurn();
		}
	}

	private async replaceTable(index: SearchIndex, source: TableSource, docs: readonly IndexedDoc[]): Promise<void> {
		const prefix = `${source.table}:`;
		const live = new Set<string>();
		const changed: IndexedDoc[] = [];
		const fresh = new Set<string>();
		for (const doc of docs) {
			const mark = prefix + doc.key;
			live.add(mark);
			const print = JSON.stringify([doc.title, doc.body, doc.files, doc.at, doc.session, doc.agent]);
			const known = this.fingerprints.get(mark);
			if (known === print) continue;
			this.fingerprints.set(mark, print);
			if (known === undefined) fresh.add(doc.key);
			changed.push(doc);
		}
		if (source.table === 'sessions') {
			index.batch(() => {
				for (const doc of changed) index.setSessionAgent(doc.ref, doc.agent);
			});
		}
		await this.putAll(index, changed, (doc) => fresh.has(doc.key));
		index.batch(() => {
			for (const mark of [...this.fingerprints.keys()]) {
				if (mark.startsWith(prefix) && !live.has(mark)) {
					this.fingerprints.delete(mark);
					const key = mark.slice(prefix.length);
					index.remove(key);
					if (source.table === 'sessions') index.removeSession(key.slice('session:'.length));
				}
			}
		});
	}

	/** Timeline events past the high-water mark, a batch of rows per store read, up to the newest row the first read saw. */
	private async readEvents(index: SearchIndex, store: JournalStore): Promise<void> {
		const head = await store.read(() => {
			const version = store.tableVersion('shared_events');
			if (this.versions.get('shared_events') === version) return null;
			let total = 0;
			let high = 0;
			each(store.sqlite, `SELECT count(*), max(rowid) FROM shared_events WHERE kind IN ${eventKinds}`, [], (r) => {
				total = Number(r[0] ?? 0);
				high = Number(r[1] ?? 0);
			});
			return { version, total, high };
		});
		if (!head) return;
		let from = this.eventsHigh;
		let count = this.eventsCount;
		const readFrom = async (): Promise<void> => {
			for (;;) {
				const rows = await store.read(() => {
					const out: Row[] = [];
					each(store.sqlite, `SELECT rowid, id, kind, session_id, at, body_json FROM shared_events WHERE kind IN ${eventKinds} AND rowid > ? AND rowid <= ? ORDER BY rowid LIMIT ${eventRows}`, [from, head.high], (r) =>
						out.push(r),
					);
					return out;
				});
				const docs: IndexedDoc[] = [];
				for (const r of rows) {
					const doc = eventDoc(r);
					if (doc) docs.push(doc);
				}
				// Past the high-water mark (or after every event record was taken out): never indexed.
				await this.putAll(index, docs, true);
				count += rows.length;
				from = Number(rows.at(-1)?.[0] ?? from);
				if (rows.length < eventRows) return;
				await nextTurn();
			}
		};
		await readFrom();
		if (count !== head.total) {
			// Some were deleted or renumbered (a retraction, a repair): read them all again.
			index.batch(() => index.removeKeysStartingWith('event:'));
			from = 0;
			count = 0;
			await readFrom();
		}
		this.eventsHigh = head.high;
		this.eventsCount = count;
		this.versions.set('shared_events', head.version);
	}

	private readTranscript(index: SearchIndex, dir: string, info: { id: string; archivePath: string | null; archiveBytes: number; sessionId: string | null; agent: string }, out: IndexedDoc[]): void {
		let mark = this.transcripts.get(info.id);
		if (mark && (mark.archivePath !== info.archivePath || info.archiveBytes < mark.bytes)) {
			index.removeTranscript(info.id);
			mark = undefined;
		}
		if (!info.archivePath) {
			this.transcripts.delete(info.id);
			return;
		}
		mark ??= { archivePath: info.archivePath, bytes: 0, excerpts: 0, session: info.sessionId };
		this.transcripts.set(info.id, mark);
		if (mark.session !== info.sessionId) {
			index.relinkTranscript(info.id, info.sessionId);
			mark.session = info.sessionId;
		}
		if (info.archiveBytes === mark.bytes) return;
		let text: Buffer;
		try {
			const fd = fs.openSync(path.join(dir, info.archivePath), 'r');
			try {
				text = Buffer.alloc(info.archiveBytes - mark.bytes);
				const got = fs.readSync(fd, text, 0, text.length, mark.bytes);
				text = text.subarray(0, got);
			} finally {
				fs.closeSync(fd);
			}
		} catch {
			// Purged by hand: nothing of it to search.
			return;
		}
		// Archive lines are whole up to archiveBytes; keep a partial last line for the next read.
		const end = text.lastIndexOf(0x0a) + 1;
		for (const line of text.subarray(0, end).toString('utf8').split('\n')) {
			if (!line) continue;
			let excerpt: Excerpt;
			try {
				excerpt = JSON.parse(line) as Excerpt;
			} catch {
				// A damaged line of the archive, skipped as the archive's own reader skips it (so places agree).
				continue;
			}
			const doc = excerptDoc(info.id, mark.excerpts, excerpt, info.sessionId, info.agent);
			if (doc) out.push(doc);
			mark.excerpts++;
		}
		mark.bytes += end;
	}
}
