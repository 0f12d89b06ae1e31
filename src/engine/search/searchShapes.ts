/**
 * What `baton search` and *Baton: Search Sessions…* answer (docs/search.md): ranked hits over every
 * session's prompts, handoffs, decisions, memory, step files and transcript text, each with the
 * excerpt that matched. A shape file (docs/architecture.md §2, "One shape per record"): types only,
 * so the protocol names them with `import type`.
 */

/** Where a hit was found; each kind opens somewhere else in the editor. */
export type SearchKind = 'session' | 'handoff' | 'decision' | 'memory' | 'prompt' | 'step' | 'transcript';

export interface SearchQuery {
	text: string;
	/** An agent kind (`claude-code`) or its label (`Claude Code`), any case. */
	agent?: string;
	/** Only sessions that touched this workspace-relative path (a step's files, a transcript's edits, a fact's files), or records naming it. */
	file?: string;
	/** ISO time: only records from then on. */
	since?: string;
	/** At most this many hits (default 50, at most 500). */
	limit?: number;
}

export interface SearchHit {
	kind: SearchKind;
	/** The record's own id: the session, decision, memory fact, timeline event or transcript excerpt (`<transcript id>#<n>`). */
	ref: string;
	sessionId: string | null;
	sessionName: string | null;
	agent: string | null;
	/** When the record was written (ISO), when known. */
	at: string | null;
	/** BM25 over the record's fields (higher is better). */
	score: number;
	/** The matching passage, one line; `matches` are [start, end) character ranges of the query's words in it. */
	excerpt: string;
	matches: [number, number][];
	/** A step's number in its session, a prompt's turn. */
	step?: number;
	turn?: number;
	/** A transcript hit: the transcript's id and the excerpt's place in it (0-based). */
	transcriptId?: string;
	excerptIndex?: number;
}

export interface SearchResult {
	query: string;
	/** The words searched for, as the index reads them. */
	terms: string[];
	/** Every match before the limit was applied (an estimate when `totalEstimated`). */
	total: number;
	/**
	 * True when the query's words are in so many records (over 20,000) that `total` was estimated
	 * from the newest matches; past 5,000 matches only the newest 2,000 are ranked (docs/search.md).
	 */
	totalEstimated?: true;
	hits: SearchHit[];
	/** Milliseconds the search took (after the index was current). */
	tookMs: number;
}
