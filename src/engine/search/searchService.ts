/**
 * `baton search` and *Baton: Search Sessions…* (docs/search.md): every session's prompts, handoffs,
 * decisions, memory, step files and transcript text, ranked by BM25 over FTS4's matchinfo, each hit
 * with its best passage from FTS4's snippet. The index is this process's own (searchIndex.ts), built
 * on the first search and brought up to date before each later one from what changed (searchSources.ts);
 * a long-lived process (the daemon, an editor's backend) keeps it warm.
 */
import type { Database } from 'sql.js';
import { agentKinds, agentLabel, parseAgentName } from '../agentKinds';
import type { EngineContext } from '../context';
import { BatonError } from '../errors';
import type { TranscriptArchive } from '../transcripts/transcriptArchive';
import { bm25 } from './bm25';
import { ftsQuery } from './ftsQuery';
import { SearchIndex, type DocRow, type IndexFilter } from './searchIndex';
import type { SearchHit, SearchQuery, SearchResult } from './searchShapes';
import { SearchFeed } from './searchSources';

/** Title (a session's name, a decision, a step's summary, a tool) counts twice a body or a file list. */
const columnWeights = [2, 1, 1];
const open = '\uE000';
const close = '\uE001';
export const searchLimits = { default: 50, max: 500 } as const;

export class SearchService {
	private index: SearchIndex | undefined;
	private readonly feed = new SearchFeed();
	private queue: Promise<unknown> = Promise.resolve();

	constructor(
		private readonly ctx: EngineContext,
		private readonly archive: () => TranscriptArchive | null,
	) {}

	async search(query: SearchQuery): Promise<SearchResult> {
		const fts = ftsQuery(query.text);
		const filter = filterOf(query);
		const limit = Math.min(searchLimits.max, Math.max(1, Math.floor(query.limit ?? searchLimits.default)));
		// One search at a time brings the index up to date; the next one finds it current.
		const run = this.queue.then(async () => {
			this.index ??= await SearchIndex.create();
			const index = this.index;
			await this.feed.fromStore(index, this.ctx.store);
			const archive = this.openArchive();
			if (archive) await this.feed.fromArchive(index, archive);
			const started = performance.now();
			const figures = index.lengthFigures();
			const scored = index.matches(fts.match, filter).map((m) => ({ id: m.id, score: bm25(m.info, m.id, figures, columnWeights) }));
			scored.sort((a, b) => b.score - a.score || b.id - a.id);
			const top = scored.slice(0, limit);
			const rows = index.rows(
				top.map((t) => t.id),
				fts.match,
				open,
				close,
			);
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
			return { query: query.text, terms: fts.terms, total: scored.length, hits, tookMs: Math.round((performance.now() - started) * 10) / 10 };
		});
		this.queue = run.catch(() => undefined);
		return run;
	}

	/** Records in the index (for `baton doctor` and the bench). */
	get size(): number {
		return this.index?.size ?? 0;
	}

	close(): void {
		this.index?.close();
		this.index = undefined;
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
