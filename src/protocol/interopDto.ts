/**
 * Wire shapes of imports and exports (issue 6). An import's report is the engine's own
 * (`engine/interop/importTypes.ts`, imported as a type only, see dto.ts); the handlers pass it through.
 */
import type { AgentHistoryReport, ReindexReport } from '../engine/agentHistory/historyShapes';
import type { ImportCounts, ImportFormat, ImportIssue, ImportReport } from '../engine/interop/importTypes';

export type ImportFormatDto = ImportFormat;
export type ImportCountsDto = ImportCounts;
export type ImportIssueDto = ImportIssue;
export type ImportReportDto = ImportReport;

export interface ImportParams {
	format: ImportFormatDto;
	/** A file (sessions.json, tasks.db, issues.jsonl) or a folder (json-sessions; beads also looks into one). */
	path: string;
}

/** `baton import agents` from the editor: the agents' own history of this workspace (issue 26). */
export type AgentHistoryReportDto = AgentHistoryReport;

export interface AgentHistoryParams {
	/** The agents to read (`claude-code`, `codex`, `gemini`, `copilot`); every one when absent. */
	agents?: string[];
	/** Only sessions active since this time (ISO). */
	since?: string | null;
	dryRun: boolean;
	/**
	 * The asking editor's environment: of it the backend reads only where the agents keep their files
	 * (HOME, CODEX_HOME, GEMINI_CLI_HOME, CLAUDE_CONFIG_DIR, … — agentHistory/historySources.ts
	 * `agentHomeVariables`), since a backend started elsewhere has an environment of its own.
	 */
	env?: Record<string, string>;
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

/** `baton doctor --reindex` from the editor (*Baton: Rebuild Session Index*): the transcript index rebuilt (issue 26). */
export type ReindexReportDto = ReindexReport;

export interface ReindexParams {
	/** The asking editor's agent-home variables (HOME, CODEX_HOME, …), read over the backend's own environment. */
	env?: Record<string, string | undefined>;
}
