/**
 * What `baton import agents` answers (the CLI's `--json`, the editor's progress): a shape leaf the
 * protocol names with `import type` (docs/architecture.md §2, One shape per record).
 */

/** One agent's sessions in this run: new Baton sessions, sessions that got new records, the rest, and files passed over. */
export interface AgentHistoryCounts {
	/** Sessions found in the agent's files for this workspace (after `--since`). */
	found: number;
	imported: number;
	updated: number;
	unchanged: number;
	skipped: number;
	/** Records of a type the reader does not know: passed over, never fatal. */
	unknownRecords: number;
	/** Lines that are not JSON (a torn or damaged write): passed over, never fatal. */
	badLines: number;
}

export interface AgentHistorySession {
	agent: string;
	/** Which product wrote it: the agent's kind, or `copilot-cli`, `vscode` (VS Code's chat sessions), `cline`, `roo-code`, `cline-sdk`. */
	product: string;
	/** The agent's own id: an alias of the Baton session. */
	agentSessionId: string;
	sessionId: string;
	outcome: 'imported' | 'updated' | 'unchanged';
	/** True when the alias was already there: a session a hook recorded, or an earlier import. */
	linked: boolean;
	sourcePath: string;
}

interface AgentHistorySkipped {
	agent: string;
	path: string;
	reason: string;
}

export interface AgentHistoryReport {
	dryRun: boolean;
	/** Only sessions active since this time (ISO), or null. */
	since: string | null;
	agents: Record<string, AgentHistoryCounts>;
	sessions: AgentHistorySession[];
	skipped: AgentHistorySkipped[];
}

/** One agent's transcripts in the rebuilt index (`baton doctor --reindex`). */
export interface ReindexAgentCounts {
	transcripts: number;
	/** With excerpts in the archive. */
	archived: number;
	/** Whose agent's file is gone: read from the archive alone. */
	sourceMissing: number;
	/** Not linked to a Baton session (listed, not archived). */
	unlinked: number;
}

/** A file the rebuild could not use (`error`: left where it is) or used with a caveat (`warning`). */
interface ReindexProblem {
	/** Relative to `.baton/transcripts/`. */
	path: string;
	level: 'error' | 'warning';
	reason: string;
}

export interface ReindexReport {
	/** What index.json was before: there and readable, missing, or damaged (set aside, never deleted). */
	previousIndex: 'ok' | 'missing' | 'damaged';
	/** False when this run changed no byte. */
	changed: boolean;
	transcripts: number;
	sessions: number;
	/** Entries read from the archive's own headers, taken from the old index (archives written before headers), rebuilt from excerpts. */
	fromHeader: number;
	fromIndex: number;
	recovered: number;
	/** Headers written or brought up to date. */
	headersWritten: number;
	/** Bytes of the agents' files read (what they gained since the last read). */
	parsedBytes: number;
	agents: Record<string, ReindexAgentCounts>;
	problems: ReindexProblem[];
	/** The agents' files that could not be read, and why. */
	skipped: AgentHistorySkipped[];
}
