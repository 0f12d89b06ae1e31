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
import { createHash } from 'node:crypto';
import { nextTurn } from '../ports';
import type { JournalStore } from '../storage/journalStore';
import { isWholeDocument } from '../transcripts/archiveSource';
import type { TranscriptArchive, TranscriptInfo } from '../transcripts/transcriptArchive';
import type { Excerpt } from '../transcripts/transcriptExcerpts';
import type { IndexedDoc, SearchIndex } from './searchIndex';
import { each, eventDoc, eventKinds, excerptDoc, tableSources, type Row, type TableSource } from './searchRecords';

interface TranscriptMark {
	archivePath: string;
	bytes: number;
	excerpts: number;
	session: string | null;
	/** When the archive last read its source (a whole-document transcript's archive is written again then). */
	syncedAt?: string | null;
}

/** Records indexed per turn of the event loop: a first build of 280,000 records leaves the process answering others between chunks. */
const chunk = 2_000;
/** Event rows read per store read: each read holds the store's queue only that long. */
const eventRows = 5_000;

/** What a saved index covers (searchCache.ts): the feed's marks, as `SearchFeed.marks` writes them. */
interface FeedMarks {
	prints: [string, string][];
	eventsHigh: number;
	eventsCount: number;
	eventsHighId: string | null;
	transcriptsStat: string;
	transcripts: [string, TranscriptMark][];
}

/** A record's text and links, hashed: what tells a changed record from an unchanged one. */
function fingerprint(doc: IndexedDoc): string {
	return createHash('sha1')
		.update(JSON.stringify([doc.title, doc.body, doc.files, doc.at, doc.session, doc.agent]))
		.digest('base64');
}

export class SearchFeed {
	private readonly versions = new Map<string, number>();
	private readonly fingerprints = new Map<string, string>();
	private eventsHigh = 0;
	private eventsCount = 0;
	/** The event at the high-water mark: a store whose rowid there holds another (a rebuilt store) is read again. */
	private eventsHighId: string | null = null;
	private transcriptsStat = '';
	private readonly transcripts = new Map<string, TranscriptMark>();
	/** The archive folder the last catch-up read, where a hit's excerpts are looked for (`dropVanished`). */
	private archiveDir: string | null = null;

	/**
	 * The marks of what the index holds, to save beside it. The store's table versions are this
	 * process's counters and are left out: a feed made from saved marks reads the tables once and
	 * re-indexes only the records whose fingerprint changed.
	 */
	marks(): string {
		const marks: FeedMarks = {
			prints: [...this.fingerprints],
			eventsHigh: this.eventsHigh,
			eventsCount: this.eventsCount,
			eventsHighId: this.eventsHighId,
			transcriptsStat: this.transcriptsStat,
			transcripts: [...this.transcripts],
		};
		return JSON.stringify(marks);
	}

	/** A feed that goes on from saved marks (throws on marks it cannot read). */
	static from(text: string): SearchFeed {
		const marks = JSON.parse(text) as FeedMarks;
		const feed = new SearchFeed();
		if (!Array.isArray(marks.prints) || !Array.isArray(marks.transcripts) || typeof marks.eventsHigh !== 'number' || typeof marks.eventsCount !== 'number')
			throw new Error('its marks are incomplete');
		for (const [mark, print] of marks.prints) feed.fingerprints.set(mark, print);
		for (const [id, mark] of marks.transcripts) feed.transcripts.set(id, mark);
		feed.eventsHigh = marks.eventsHigh;
		feed.eventsCount = marks.eventsCount;
		feed.eventsHighId = marks.eventsHighId;
		feed.transcriptsStat = String(marks.transcriptsStat);
		return feed;
	}

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
		this.archiveDir = archive.dir;
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

	/**
	 * Takes out of the index the excerpts of those of `transcripts` whose archive file is gone, and says
	 * whether there were any. A person who deletes an archive file by hand leaves index.json as it was,
	 * so no catch-up notices; looking for every archive at each one would cost a file check per transcript
	 * per search, so it is looked for when its excerpts are about to be answered. Their mark goes with
	 * them: an archive that comes back (`baton doctor --reindex`) is read again from its start. The
	 * agent's own transcript file vanishing is no matter here: the archive is what is searched.
	 */
	dropVanished(index: SearchIndex, transcripts: Iterable<string>): boolean {
		const dir = this.archiveDir;
		if (dir === null) return false;
		const gone = [...new Set(transcripts)].filter((id) => {
			const mark = this.transcripts.get(id);
			return mark !== undefined && !fs.existsSync(path.join(dir, mark.archivePath));
		});
		index.batch(() => {
			for (const id of gone) {
				index.removeTranscript(id);
				this.transcripts.delete(id);
			}
		});
		return gone.length > 0;
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
			const print = fingerprint(doc);
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
			const idAt = (rowid: number): string | null => {
				let id: string | null = null;
				each(store.sqlite, 'SELECT id FROM shared_events WHERE rowid = ?', [rowid], (r) => (id = String(r[0])));
				return id;
			};
			return { version, total, high, highId: idAt(high), markId: this.eventsHigh > 0 ? idAt(this.eventsHigh) : null };
		});
		if (!head) return;
		let from = this.eventsHigh;
		let count = this.eventsCount;
		if (head.markId !== this.eventsHighId) {
			// The event the mark was taken at is gone or another: nothing below the mark can be trusted.
			index.batch(() => index.removeKeysStartingWith('event:'));
			from = 0;
			count = 0;
		}
		const readFrom = async (): Promise<void> => {
			for (;;) {
				const rows = await store.read(() => {
					const out: Row[] = [];
					each(
						store.sqlite,
						`SELECT rowid, id, kind, session_id, at, body_json FROM shared_events WHERE kind IN ${eventKinds} AND rowid > ? AND rowid <= ? ORDER BY rowid LIMIT ${eventRows}`,
						[from, head.high],
						(r) => out.push(r),
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
		this.eventsHighId = head.highId;
		this.eventsCount = count;
		this.versions.set('shared_events', head.version);
	}

	private readTranscript(
		index: SearchIndex,
		dir: string,
		info: Pick<TranscriptInfo, 'id' | 'archivePath' | 'archiveBytes' | 'sessionId' | 'agent' | 'sourcePath' | 'syncedAt'>,
		out: IndexedDoc[],
	): void {
		let mark = this.transcripts.get(info.id);
		// A whole-document transcript's archive is written again from its first byte on each change, at the
		// same path (archiveSource.ts resetEntry): what was read of it before may be gone or changed.
		// An edit of the same length leaves its size as it was: the time it was read again tells.
		const rewritten =
			mark !== undefined && (info.archiveBytes !== mark.bytes || info.syncedAt !== mark.syncedAt) && isWholeDocument(info.agent, info.sourcePath);
		if (mark && (mark.archivePath !== info.archivePath || info.archiveBytes < mark.bytes || rewritten)) {
			index.removeTranscript(info.id);
			mark = undefined;
		}
		if (!info.archivePath) {
			this.transcripts.delete(info.id);
			return;
		}
		mark ??= { archivePath: info.archivePath, bytes: 0, excerpts: 0, session: info.sessionId };
		mark.syncedAt = info.syncedAt;
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
