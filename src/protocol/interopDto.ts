/**
 * Wire shapes of imports and exports (issue 6). The server passes the engine's results through
 * unchanged; its handlers only compile when the engine's types fit these.
 */
export const importFormatsDto = ['cleo-sessions', 'cleo-db', 'json-sessions', 'beads'] as const;
export type ImportFormatDto = (typeof importFormatsDto)[number];

export interface ImportCountsDto {
	sessions: number;
	tasks: number;
	decisions: number;
	handoffs: number;
	settings: number;
}

/** One problem with one record of an import source: which record, which field (null: all of it), what. */
export interface ImportIssueDto {
	record: string;
	field: string | null;
	message: string;
}

export interface ImportReportDto {
	dryRun: boolean;
	source: ImportFormatDto;
	path: string;
	added: ImportCountsDto;
	unchanged: ImportCountsDto;
	/** Non-empty: nothing was (or would be) written. */
	errors: ImportIssueDto[];
	/** Records already in the workspace with other content (kept as Baton holds them). */
	warnings: ImportIssueDto[];
}

export interface ImportParams {
	format: ImportFormatDto;
	/** A file (sessions.json, tasks.db, issues.jsonl) or a folder (json-sessions; beads also looks into one). */
	path: string;
}

export interface ExportParams {
	/** Exactly one of the two. */
	sessionId?: string;
	chainId?: string;
	/** The folder: new, empty, or a previous Baton export. */
	out: string;
}

export interface ExportResultDto {
	out: string;
	/** File names inside `out`, index.json first. */
	files: string[];
}

export type MarkdownKindDto = 'handoff' | 'briefing';
