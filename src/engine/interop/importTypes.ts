/**
 * The shapes every importer shares. A reader turns a foreign file into an `ImportBatch` of records
 * already mapped to Baton's rows (plus the problems it found, each naming its record and field); the
 * planner compares the batch with the workspace; the applier writes the plan in one transaction.
 */
import type { Decision, Session, SessionAlias, Task } from '../storage/records';
import type { HandoffData } from '../storage/jsonShapes';

export const importFormats = ['cleo-sessions', 'cleo-db', 'json-sessions', 'beads'] as const;
export type ImportFormat = (typeof importFormats)[number];

/** One problem with one record: `record` names it (`sessions[3] (session_20250101_…)`), `field` the path inside it (null: the whole record). */
export interface ImportIssue {
	record: string;
	field: string | null;
	message: string;
}

export interface ImportCounts {
	sessions: number;
	tasks: number;
	decisions: number;
	handoffs: number;
	settings: number;
}

export const zeroCounts = (): ImportCounts => ({ sessions: 0, tasks: 0, decisions: 0, handoffs: 0, settings: 0 });

/**
 * What `baton import` prints and `import/preview` / `import/run` return. `errors` non-empty means
 * nothing was written. `warnings` name records that were already in the workspace with different
 * content: imports only add, they never change what Baton holds.
 */
export interface ImportReport {
	dryRun: boolean;
	source: ImportFormat;
	path: string;
	added: ImportCounts;
	unchanged: ImportCounts;
	errors: ImportIssue[];
	warnings: ImportIssue[];
}

/** A source task id named by a record, with where it was named (for an error that points there). */
export interface TaskRef {
	id: string;
	record: string;
	field: string;
}

/** A task as read from the source; ids in `parent` and `dependsOn` are the source's own. */
export interface ImportedTask {
	record: string;
	externalId: string;
	contentHash: string;
	/** Keep this Baton id when it is free (CLEO's `T123`); otherwise the next `T<n>` is used. */
	preferredId: string | null;
	title: string;
	description: string | null;
	type: Task['type'];
	status: Task['status'];
	priority: Task['priority'];
	phase: string | null;
	parent: TaskRef | null;
	dependsOn: TaskRef[];
	createdAt: string;
	updatedAt: string;
	completedAt: string | null;
	/** Source fields Baton has no column for, kept verbatim on the import record (null: none). */
	extra?: Record<string, unknown> | null;
}

/** A session with what travels with it. Task ids in it are the source's own until the planner maps them. */
export interface ImportedSession {
	record: string;
	externalId: string;
	contentHash: string;
	session: Session;
	handoff: { data: HandoffData; createdAt: string } | null;
	decisions: (Decision & { record: string })[];
	aliases: Omit<SessionAlias, 'sessionId'>[];
	/** Source fields Baton has no column for, kept verbatim on the import record (null: none). */
	extra?: Record<string, unknown> | null;
}

export interface ImportedSetting {
	record: string;
	key: string;
	value: unknown;
	contentHash: string;
}

export interface ImportBatch {
	source: ImportFormat;
	path: string;
	tasks: ImportedTask[];
	sessions: ImportedSession[];
	settings: ImportedSetting[];
	/**
	 * Where task ids named by sessions (focus, scope) come from when this batch does not hold the
	 * task: CLEO's sessions name CLEO tasks, imported earlier (or later) from its `tasks.db`.
	 */
	taskRefSource: ImportFormat | null;
	errors: ImportIssue[];
	/** Unfamiliar but well-formed data the reader kept (mapped, or as text): reported, never refused. */
	warnings?: ImportIssue[];
}
