/**
 * `baton search` and *Baton: Search Sessions…* (docs/search.md): every session's prompts, handoffs,
 * decisions, memory, step files and transcript text, ranked by BM25 over FTS4's matchinfo, each hit
 * with its best passage from FTS4's snippet. The index is this process's own (searchIndex.ts), built
 * on the first search and brought up to date before each later one from what changed (searchSources.ts);
 * a long-lived process (the daemon, an editor's backend) keeps it warm.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Database } from 'sql.js';
import { agentKinds, agentLabel, parseAgentName } from '../agentKinds';
import type { EngineContext } from '../context';
import { BatonError } from '../errors';
import type { TranscriptArchive } from '../transcripts/transcriptArchive';
import { bm25, bm25Sampled } from './bm25';
import { ftsQuery } from './ftsQuery';
import { SearchIndex, type DocRow, type IndexFilter, type Matches } from './searchIndex';
import type { SearchHit, SearchQuery, SearchResult } from './searchShapes';
import { nextTurn } from '../ports';
import { readSearchCache, writeSearchCache } from './searchCache';
import { SearchFeed } from './searchSources';

/** Title (a session's name, a decision, a step's summary, a tool) counts twice a body or a file list. */
const columnWeights = [2, 1, 1];
const open = '\uE000';
const close = '\uE001';
export const searchLimits = { default: 50, max: 500 } as const;
/**
 * Up to 5,000 matches every one is ranked exactly; past that (a word in most records) the newest
 * 2,000 are ranked, their figures estimated from that sample. The total is counted up to 20,000 and
 * estimated past it.
 */
const commonCut = { exactUpTo: 5_000, sample: 2_000, countUpTo: 20_000 };

/** Where the index is kept between processes (searchCache.ts); `save` is false for a read-only engine. */
interface SearchCacheOptions {
	file: string;
	save: boolean;
}

/** Records changed since the last save past which a search saves the index again (a first build always does). */
const saveAfterChanges = 2_000;

export class SearchService {
	private index: SearchIndex | undefined;
	private feed = new SearchFeed();
	private queue: Promise<unknown> = Promise.resolve();
	/**
	 * Searches and rebuilds queued whose answer is not out yet. One may be loading or building the index
	 * right now, and the index's marks and records agree only between them: close() then waits for them.
	 */
	private pending = 0;
	/** close() was called while work was pending: the last of it to end saves and frees the index. */
	private closeWhenIdle = false;

	constructor(
		private readonly ctx: EngineContext,
		private readonly archive: () => TranscriptArchive | null,
		private readonly cache: SearchCacheOptions | null = null,
		private readonly cut: typeof commonCut = commonCut,
	) {}

	async search(query: SearchQuery): Promise<SearchResult> {
		const fts = ftsQuery(query.text);
		const filter = filterOf(query);
		const limit = Math.min(searchLimits.max, Math.max(1, Math.floor(query.limit ?? searchLimits.default)));
		this.pending++;
		// One search at a time brings the index up to date; the next one finds it current.
		const run = this.queue.then(async () => {
			const index = await this.current();
			const started = performance.now();
			let answer = this.best(index, fts.match, filter, limit);
			// Excerpts of an archive removed by hand are taken out when found: ranked again without them.
			while (this.feed.dropVanished(index, transcriptsOf(answer.rows))) answer = this.best(index, fts.match, filter, limit);
			const { found, top, rows } = answer;
			const names = await this.ctx.store.read(() =>
				sessionNames(
					this.ctx.store.sqlite,
					[...rows.values()].map((r) => r.session),
				),
			);
			const hits: SearchHit[] = [];
			for (const { id, score } of top) {
				const row = rows.get(id);
				if (row) hits.push(hitOf(row, score, names));
			}
			return {
				query: query.text,
				terms: fts.terms,
				total: found.total,
				...(found.estimated ? { totalEstimated: true as const } : {}),
				hits,
				tookMs: Math.round((performance.now() - started) * 10) / 10,
			};
		});
		// Saved after the answer, before the next search: the first build's save is not the first query's wait.
		// ended() runs before the caller sees the answer: a close() right after it saves and frees at once.
		this.queue = run.then(
			async () => {
				this.ended();
				if (!this.index || this.index.changes < saveAfterChanges) return;
				await nextTurn();
				this.save();
			},
			() => this.ended(),
		);
		return run;
	}

	/** The `limit` best matches of `match`, ranked, with their rows and snippets, and what was found in all. */
	private best(index: SearchIndex, match: string, filter: IndexFilter, limit: number) {
		const found = index.matches(match, filter, this.cut);
		const top = ranked(found, index.lengthFigures()).slice(0, limit);
		const rows = index.rows(
			top.map((t) => t.id),
			match,
			open,
			close,
		);
		return { found, top, rows };
	}

	/** Drops the index and its cache and builds both again (`baton doctor --reindex`); the records indexed. */
	async rebuild(): Promise<number> {
		this.pending++;
		const run = this.queue.then(async () => {
			this.index?.close();
			this.index = undefined;
			this.feed = new SearchFeed();
			if (this.cache) fs.rmSync(this.cache.file, { force: true });
			const index = await this.current(false);
			this.save();
			return index.size;
		});
		this.queue = run.then(
			() => this.ended(),
			() => this.ended(),
		);
		return run;
	}

	/** Records in the index (for `baton doctor` and the bench). */
	get size(): number {
		return this.index?.size ?? 0;
	}

	/**
	 * Saves what the index gained since it was loaded or saved, then frees it. While a search or a rebuild
	 * is pending that is left to the last of them to end: one may be loading the cache or building the
	 * index right now, and the database it opens would otherwise be kept by nobody.
	 */
	close(): void {
		if (this.pending > 0) this.closeWhenIdle = true;
		else this.release();
	}

	/** A search or a rebuild ended: the last one to end carries out a close() called meanwhile. */
	private ended(): void {
		this.pending--;
		if (this.pending > 0 || !this.closeWhenIdle) return;
		this.closeWhenIdle = false;
		this.release();
	}

	private release(): void {
		if (this.index && this.index.changes > 0) this.save();
		this.index?.close();
		this.index = undefined;
	}

	/** The index, loaded from the cache or built on first use, brought up to date with the store and the archive. */
	private async current(fromCache = true): Promise<SearchIndex> {
		try {
			// Only an index that came from the cache is built again when it cannot catch up (a fresh build's failure is the search's).
			const cached = this.index === undefined && fromCache ? await this.loadCached() : undefined;
			const loaded = cached !== undefined;
			this.index ??= cached ?? (await SearchIndex.create());
			try {
				await this.catchUp(this.index);
			} catch (error) {
				// The store or the archive moved in a way the saved marks cannot follow: start over.
				if (!loaded) throw error;
				this.ctx.log.warn(`search: the saved index could not be brought up to date (${(error as Error).message}); building it again`);
				this.index.close();
				this.feed = new SearchFeed();
				this.index = await SearchIndex.create();
				await this.catchUp(this.index);
			}
			return this.index;
		} catch (error) {
			// Halfway through a catch-up the feed has marked records the index may not hold (a chunk of puts
			// rolled back): kept, or saved by close(), it would never find them. The next search starts over.
			this.index?.close();
			this.index = undefined;
			this.feed = new SearchFeed();
			throw error;
		}
	}

	private async catchUp(index: SearchIndex): Promise<void> {
		await this.feed.fromStore(index, this.ctx.store);
		const archive = this.openArchive();
		if (archive) await this.feed.fromArchive(index, archive);
	}

	/** The saved index with its marks, or undefined (and a word in the log) when there is none to trust. */
	private async loadCached(): Promise<SearchIndex | undefined> {
		if (!this.cache) return undefined;
		const read = readSearchCache(this.cache.file);
		if ('problem' in read) {
			const message = `search: the saved index (.baton/cache/${path.basename(this.cache.file)}) is ${read.problem}; building it again`;
			if (read.problem === 'missing') this.ctx.log.info(message);
			else this.ctx.log.warn(message);
			return undefined;
		}
		try {
			const { index, marks } = await SearchIndex.load(read.bytes);
			try {
				this.feed = SearchFeed.from(marks);
			} catch (error) {
				index.close();
				throw error;
			}
			return index;
		} catch (error) {
			this.ctx.log.warn(
				`search: the saved index (.baton/cache/${path.basename(this.cache.file)}) cannot be read (${(error as Error).message}); building it again`,
			);
			this.feed = new SearchFeed();
			return undefined;
		}
	}

	/** Writes the index and its marks to the cache; a failure costs the next process a build, never this search. */
	private save(): void {
		const index = this.index;
		if (!index || !this.cache?.save) return;
		try {
			writeSearchCache(this.cache.file, index.snapshot(this.feed.marks()));
			index.changes = 0;
		} catch (error) {
			this.ctx.log.warn(`search: the index could not be saved to .baton/cache (${(error as Error).message}); the next process builds it again`);
		}
	}

	private openArchive(): TranscriptArchive | null {
		try {
			return this.archive();
		} catch (error) {
			this.ctx.log.warn(`search: transcripts left out, the archive is unavailable: ${(error as Error).message}`);
			return null;
		}
	}
}

/**
 * Ranks the matches best first (ties: the newer record). A sample (a query whose words are in most
 * records) is ranked by BM25 with each phrase's rows per column estimated from the sample's share.
 */
function ranked(found: Matches, figures: ReturnType<SearchIndex['lengthFigures']>): { id: number; score: number }[] {
	let scored: { id: number; score: number }[];
	if (!found.sampled) {
		scored = found.rows.map((m) => ({ id: m.id, score: bm25(m.info, m.id, figures, columnWeights) }));
	} else {
		const withHit: number[] = [];
		for (const { info } of found.rows) {
			const words = new Uint32Array(info.buffer, info.byteOffset, info.byteLength >>> 2);
			for (let i = 2; i < words.length; i++) withHit[i - 2] = (withHit[i - 2] ?? 0) + ((words[i] ?? 0) > 0 ? 1 : 0);
		}
		const scale = found.total / Math.max(1, found.rows.length);
		const estimated = withHit.map((n) => n * scale);
		scored = found.rows.map((m) => ({ id: m.id, score: bm25Sampled(m.info, m.id, figures, columnWeights, estimated) }));
	}
	return scored.sort((a, b) => b.score - a.score || b.id - a.id);
}

/** The transcripts whose excerpts are among `rows`. */
function transcriptsOf(rows: ReadonlyMap<number, DocRow>): string[] {
	return [...rows.values()].flatMap((row) => (row.transcript === null ? [] : [row.transcript]));
}

function filterOf(query: SearchQuery): IndexFilter {
	const filter: IndexFilter = {};
	if (query.since !== undefined) {
		const since = Date.parse(query.since);
		if (Number.isNaN(since)) {
			throw new BatonError('invalidInput', `--since takes a time (2026-11-28T09:00 or 2026-11-28), not ${JSON.stringify(query.since)}`);
		}
		filter.since = new Date(since).toISOString();
	}
	if (query.agent !== undefined && query.agent.trim() !== '') {
		const given = query.agent.trim();
		const kind = parseAgentName(given) ?? agentKinds.find((k) => agentLabel(k).toLowerCase() === given.toLowerCase());
		filter.agents = kind ? [kind] : [given];
	}
	if (query.file !== undefined && query.file.trim() !== '') {
		filter.file = query.file.trim().replace(/^\.\//, '');
	}
	return filter;
}

function sessionNames(db: Database, ids: readonly (string | null)[]): Map<string, { name: string; agent: string | null }> {
	const out = new Map<string, { name: string; agent: string | null }>();
	const statement = db.prepare('SELECT name, agent FROM sessions WHERE id = ?');
	try {
		for (const id of ids) {
			if (id === null || out.has(id)) continue;
			statement.bind([id]);
			if (statement.step()) {
				const [name, agent] = statement.get();
				out.set(id, { name: String(name), agent: typeof agent === 'string' ? agent : null });
			}
			statement.reset();
		}
	} finally {
		statement.free();
	}
	return out;
}

/** The snippet as one line, its marks taken out and kept as ranges. */
function marked(snippet: string): { excerpt: string; matches: [number, number][] } {
	const flat = snippet.replace(/\s+/g, ' ').trim();
	let excerpt = '';
	const matches: [number, number][] = [];
	let start = -1;
	for (const ch of flat) {
		if (ch === open) {
			start = excerpt.length;
		} else if (ch === close) {
			if (start >= 0 && excerpt.length > start) matches.push([start, excerpt.length]);
			start = -1;
		} else {
			excerpt += ch;
		}
	}
	return { excerpt, matches };
}

function hitOf(row: DocRow & { snippet: string }, score: number, names: Map<string, { name: string; agent: string | null }>): SearchHit {
	const session = row.session ? names.get(row.session) : undefined;
	const hit: SearchHit = {
		kind: row.kind,
		ref: row.ref,
		sessionId: row.session,
		sessionName: session?.name ?? null,
		agent: row.agent ?? session?.agent ?? null,
		at: row.at,
		score: Math.round(score * 1000) / 1000,
		...marked(row.snippet),
	};
	if (row.step !== null) hit.step = row.step;
	if (row.turn !== null) hit.turn = row.turn;
	if (row.transcript !== null) hit.transcriptId = row.transcript;
	if (row.excerpt !== null) hit.excerptIndex = row.excerpt;
	return hit;
}
