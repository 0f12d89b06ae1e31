/**
 * The drizzle schema: the single source of truth for Baton's stored data. Domain types are derived from it through drizzle-zod in `model.ts`; migrations are generated from it by drizzle-kit.
 * Rules that keep the journal replayable (see journalStore.ts): no SQL-side defaults that read the clock or randomness. Every timestamp is an ISO-8601 string computed in TypeScript.
 */
import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import type {
	CheckpointAnnotation,
	CheckpointMetrics,
	DebriefData,
	EnvironmentSnapshot,
	EscalationThresholds,
	FileStats,
	HandoffData,
	LinkedIssue,
	RollbackPhase,
	SessionFocus,
	SessionScope,
	SessionStats,
} from './jsonShapes';

export const sessionStatuses = ['active', 'suspended', 'ended', 'orphaned', 'archived', 'closed'] as const;
export const taskTypes = ['epic', 'task', 'subtask', 'bug'] as const;
export const taskStatuses = ['pending', 'active', 'blocked', 'done', 'cancelled'] as const;
export const taskPriorities = ['critical', 'high', 'medium', 'low'] as const;
export const decisionKinds = ['decision', 'assumption'] as const;

export const sessions = sqliteTable(
	'sessions',
	{
		id: text('id').primaryKey(),
		name: text('name').notNull(),
		status: text('status', { enum: sessionStatuses }).notNull(),
		scope: text('scope_json', { mode: 'json' }).$type<SessionScope>().notNull(),
		/** Denormalised scope key (`global`, `epic:T1`, …): chains and the one-active-per-scope rule use it. */
		scopeKey: text('scope_key').notNull(),
		currentTask: text('current_task'),
		taskStartedAt: text('task_started_at'),
		/** The kind of agent (`claude-code`, `copilot`, `cline`, a person's name…). */
		agent: text('agent'),
		/** The agent's own current conversation id; older ids stay in session_aliases. */
		agentIdentifier: text('agent_identifier'),
		previousSessionId: text('previous_session_id'),
		nextSessionId: text('next_session_id'),
		parentSessionId: text('parent_session_id'),
		handoffConsumedAt: text('handoff_consumed_at'),
		handoffConsumedBy: text('handoff_consumed_by'),
		debrief: text('debrief_json', { mode: 'json' }).$type<DebriefData>(),
		stats: text('stats_json', { mode: 'json' }).$type<SessionStats>().notNull(),
		resumeCount: integer('resume_count').notNull().default(0),
		/** The session's own account of where it stands (`jsonShapes.ts`: sessionFocusSchema); null: none given. */
		focus: text('focus_json', { mode: 'json' }).$type<SessionFocus>(),
		/** Why a session ended when Baton ended it (cleanup) or an import said so. */
		endNote: text('end_note'),
		startedAt: text('started_at').notNull(),
		lastActivity: text('last_activity').notNull(),
		suspendedAt: text('suspended_at'),
		endedAt: text('ended_at'),
		archivedAt: text('archived_at'),
		updatedAt: text('updated_at').notNull(),
	},
	(t) => [
		index('sessions_status_idx').on(t.status),
		index('sessions_scope_status_idx').on(t.scopeKey, t.status, t.endedAt),
		index('sessions_previous_idx').on(t.previousSessionId),
		index('sessions_parent_idx').on(t.parentSessionId),
		index('sessions_agent_identifier_idx').on(t.agentIdentifier),
		// With id: a page of the list newest first (ties by id) reads its rows by index, not every session sorted.
		index('sessions_started_idx').on(t.startedAt, t.id),
		index('sessions_activity_idx').on(t.lastActivity),
	],
);

/**
 * One row per scope that has sessions: the Session Chains tree's groups, read without visiting every
 * session. Kept by SQLite triggers on `sessions` (migration 0013_session_scopes), never written by
 * the engine: every write of a session, a journal replay and a sync merge alike keep it exact.
 */
export const sessionScopes = sqliteTable(
	'session_scopes',
	{
		scopeKey: text('scope_key').primaryKey(),
		sessionCount: integer('session_count').notNull(),
		activeCount: integer('active_count').notNull(),
		/** The newest session's activity: groups sort by it. */
		lastActivity: text('last_activity').notNull(),
		/** `started_at || ' ' || id` of the scope's first session: ties in activity sort by it. */
		firstSession: text('first_session').notNull(),
	},
	(t) => [index('session_scopes_order_idx').on(t.lastActivity, t.firstSession)],
);

/**
 * How many sessions have each status: the window's first status and the MCP status read it as a few
 * rows, not by counting every session (at 100,000 sessions the status index's pages lie through the
 * whole file, and a cold count read and checked 95 MB of it). Kept by SQLite triggers on `sessions`
 * (migration 0014_session_status_counts), like `session_scopes`; a status with no session has no row.
 */
export const sessionStatusCounts = sqliteTable('session_status_counts', {
	status: text('status').primaryKey(),
	sessionCount: integer('session_count').notNull(),
});

/** An agent's own session ids (they change on resume/clear/compact) pointing at one durable session. */
export const sessionAliases = sqliteTable(
	'session_aliases',
	{
		agent: text('agent').notNull(),
		alias: text('alias').notNull(),
		sessionId: text('session_id')
			.notNull()
			.references(() => sessions.id, { onDelete: 'cascade' }),
		createdAt: text('created_at').notNull(),
		lastSeenAt: text('last_seen_at').notNull(),
	},
	(t) => [primaryKey({ columns: [t.agent, t.alias] }), index('session_aliases_session_idx').on(t.sessionId)],
);

/** Write-once: the primary key on session_id refuses a second handoff at the database level too. */
export const handoffs = sqliteTable('handoffs', {
	sessionId: text('session_id')
		.primaryKey()
		.references(() => sessions.id, { onDelete: 'cascade' }),
	data: text('handoff_json', { mode: 'json' }).$type<HandoffData>().notNull(),
	createdAt: text('created_at').notNull(),
});

export const decisions = sqliteTable(
	'decisions',
	{
		id: text('id').primaryKey(),
		sessionId: text('session_id').references(() => sessions.id, { onDelete: 'set null' }),
		kind: text('kind', { enum: decisionKinds }).notNull(),
		text: text('text').notNull(),
		rationale: text('rationale'),
		taskId: text('task_id'),
		createdAt: text('created_at').notNull(),
	},
	(t) => [index('decisions_session_idx').on(t.sessionId)],
);

export const tasks = sqliteTable(
	'tasks',
	{
		id: text('id').primaryKey(),
		/** Monotonic number behind the `T<n>` id, so new ids never collide with deleted ones. */
		seq: integer('seq').notNull(),
		title: text('title').notNull(),
		description: text('description'),
		type: text('type', { enum: taskTypes }).notNull(),
		status: text('status', { enum: taskStatuses }).notNull(),
		priority: text('priority', { enum: taskPriorities }).notNull(),
		parentId: text('parent_id'),
		phase: text('phase'),
		createdAt: text('created_at').notNull(),
		updatedAt: text('updated_at').notNull(),
		completedAt: text('completed_at'),
		createdBySession: text('created_by_session'),
		completedBySession: text('completed_by_session'),
	},
	(t) => [
		uniqueIndex('tasks_seq_idx').on(t.seq),
		// With parent_id: a briefing counts the done tasks under each parent from this index alone (briefingTasksOf.ts).
		index('tasks_status_idx').on(t.status, t.parentId),
		index('tasks_parent_idx').on(t.parentId),
	],
);

/**
 * Tasks per status, kept by SQLite triggers on `tasks` (migration 0015_task_counts); a status with no
 * task has no row. A briefing asks whether open tasks are a large share of all (briefingTasksOf.ts)
 * without counting 200,000 rows of an index.
 */
export const taskStatusCounts = sqliteTable('task_status_counts', {
	status: text('status').primaryKey(),
	taskCount: integer('task_count').notNull(),
});

/**
 * Done tasks per parent, kept by SQLite triggers on `tasks` (migration 0015_task_counts); a parent with
 * none has no row. An open epic's progress counts its done tasks through these (briefingTasksOf.ts).
 */
export const taskDoneChildren = sqliteTable('task_done_children', {
	parentId: text('parent_id').primaryKey(),
	doneCount: integer('done_count').notNull(),
});

/** `taskId` cannot start until `dependsOnId` is done. */
export const taskDependencies = sqliteTable(
	'task_dependencies',
	{
		taskId: text('task_id')
			.notNull()
			.references(() => tasks.id, { onDelete: 'cascade' }),
		dependsOnId: text('depends_on_id')
			.notNull()
			.references(() => tasks.id, { onDelete: 'cascade' }),
	},
	(t) => [primaryKey({ columns: [t.taskId, t.dependsOnId] }), index('task_dependencies_on_idx').on(t.dependsOnId)],
);

/** Every write records who did what, in which session. */
export const auditLog = sqliteTable(
	'audit_log',
	{
		id: integer('id').primaryKey({ autoIncrement: true }),
		at: text('at').notNull(),
		sessionId: text('session_id'),
		actor: text('actor').notNull(),
		operation: text('operation').notNull(),
		entityType: text('entity_type'),
		entityId: text('entity_id'),
		details: text('details_json', { mode: 'json' }).$type<Record<string, unknown>>(),
	},
	(t) => [index('audit_log_session_idx').on(t.sessionId), index('audit_log_at_idx').on(t.at)],
);

/** Key/value settings that travel with the workspace data (e.g. imported legacy limits). */
export const settings = sqliteTable('settings', {
	key: text('key').primaryKey(),
	value: text('value_json', { mode: 'json' }).$type<unknown>().notNull(),
	updatedAt: text('updated_at').notNull(),
});

/** What made a checkpoint. Unknown triggers (a newer agent hook) are stored as given and always need review. */
export const checkpointTriggers = ['manual', 'periodic', 'heartbeat', 'complete', 'error', 'detach', 'shutdown', 'pre-rollback', 'compact'] as const;
export type CheckpointTrigger = (typeof checkpointTriggers)[number];
export const approvalStatuses = ['pending', 'approved', 'rejected', 'auto_approved'] as const;
export const approvalPolicies = ['auto', 'review', 'strict'] as const;
export const rollbackStatuses = ['running', 'done', 'failed', 'recovered'] as const;

/**
 * A snapshot of the workspace files in Baton's shadow git store (`.baton/shadow.git`), with its
 * provenance (parent), approval and environment. The files themselves live in the shadow store.
 */
export const checkpoints = sqliteTable(
	'checkpoints',
	{
		id: text('id').primaryKey(),
		/** Creation order; ties of `created_at` (same millisecond) are ordered by it. */
		seq: integer('seq').notNull(),
		sessionId: text('session_id').references(() => sessions.id, { onDelete: 'set null' }),
		trigger: text('trigger').$type<CheckpointTrigger | (string & {})>().notNull(),
		/** The workspace's previous checkpoint (or the rollback target it was restored to): the provenance DAG. */
		parentCheckpointId: text('parent_checkpoint_id'),
		commitSha: text('commit_sha').notNull(),
		treeSha: text('tree_sha').notNull(),
		message: text('message'),
		tags: text('tags_json', { mode: 'json' }).$type<string[]>().notNull(),
		annotations: text('annotations_json', { mode: 'json' }).$type<CheckpointAnnotation[]>().notNull(),
		linkedIssues: text('linked_issues_json', { mode: 'json' }).$type<LinkedIssue[]>().notNull(),
		fileStats: text('file_stats_json', { mode: 'json' }).$type<FileStats>().notNull(),
		environment: text('environment_json', { mode: 'json' }).$type<EnvironmentSnapshot>(),
		/** The session's cost, error count and age when the checkpoint was taken: the escalation inputs. */
		metrics: text('metrics_json', { mode: 'json' }).$type<CheckpointMetrics>().notNull(),
		approvalStatus: text('approval_status', { enum: approvalStatuses }).notNull(),
		approvalUser: text('approval_user'),
		approvalAt: text('approval_at'),
		approvalReason: text('approval_reason'),
		/** The policy that decided the initial status. */
		approvalPolicy: text('approval_policy', { enum: approvalPolicies }).notNull(),
		escalationReasons: text('escalation_reasons_json', { mode: 'json' }).$type<string[]>().notNull(),
		createdAt: text('created_at').notNull(),
	},
	(t) => [
		uniqueIndex('checkpoints_seq_idx').on(t.seq),
		index('checkpoints_session_idx').on(t.sessionId, t.seq),
		index('checkpoints_parent_idx').on(t.parentCheckpointId),
		index('checkpoints_approval_idx').on(t.approvalStatus),
	],
);

/** A rollback and what it did, phase by phase (safety checkpoint → verify target → restore → done | failed → recovered). */
export const rollbacks = sqliteTable(
	'rollbacks',
	{
		id: text('id').primaryKey(),
		targetCheckpointId: text('target_checkpoint_id').notNull(),
		safetyCheckpointId: text('safety_checkpoint_id'),
		sessionId: text('session_id'),
		status: text('status', { enum: rollbackStatuses }).notNull(),
		phases: text('phases_json', { mode: 'json' }).$type<RollbackPhase[]>().notNull(),
		restoredPaths: text('restored_paths_json', { mode: 'json' }).$type<string[]>().notNull(),
		removedPaths: text('removed_paths_json', { mode: 'json' }).$type<string[]>().notNull(),
		/** Absent from the target but kept: no snapshot proves they were created after it. */
		keptPaths: text('kept_paths_json', { mode: 'json' }).$type<string[]>().notNull(),
		/** Content that stood where the target puts a file, moved to `preservedDir` instead of being overwritten. */
		preservedPaths: text('preserved_paths_json', { mode: 'json' }).$type<string[]>().notNull(),
		preservedDir: text('preserved_dir'),
		error: text('error'),
		actor: text('actor').notNull(),
		createdAt: text('created_at').notNull(),
		finishedAt: text('finished_at'),
	},
	(t) => [index('rollbacks_target_idx').on(t.targetCheckpointId), index('rollbacks_created_idx').on(t.createdAt)],
);

/**
 * Per-session checkpoint inputs: the cost and error count fed in by hosts (later: from transcripts),
 * and the session's own approval policy and escalation thresholds when they differ from the workspace's.
 */
export const checkpointSessionSettings = sqliteTable('checkpoint_session_settings', {
	sessionId: text('session_id')
		.primaryKey()
		.references(() => sessions.id, { onDelete: 'cascade' }),
	costUsd: real('cost_usd').notNull(),
	errorCount: integer('error_count').notNull(),
	policy: text('policy', { enum: approvalPolicies }),
	thresholds: text('thresholds_json', { mode: 'json' }).$type<Partial<EscalationThresholds>>(),
	updatedAt: text('updated_at').notNull(),
});

/** What each agent conversation (an agent and its own id; several may share a durable session) last told its hooks about needing a person: the Agents board (src/engine/board). */
export const agentSignals = sqliteTable(
	'agent_signals',
	{
		agent: text('agent').notNull(),
		alias: text('alias').notNull(),
		sessionId: text('session_id').notNull(),
		state: text('state', { enum: ['working', 'waiting', 'done', 'failed'] }).notNull(),
		reason: text('reason').notNull(),
		event: text('event').notNull(),
		since: text('since').notNull(),
	},
	(t) => [primaryKey({ columns: [t.agent, t.alias] }), index('agent_signals_session_idx').on(t.sessionId)],
);

/**
 * Project memory (docs/architecture.md §1, Memory): knowledge and gotchas that outlive sessions. One row per
 * distinct fact — `fingerprint` (normalised text) de-duplicates, a repeat only confirms it again.
 * A fact is stale when the files it names changed after it was last confirmed, or when it has not
 * been confirmed for a long time; stale facts stay visible with their mark, never silently dropped.
 */
export const memoryKinds = ['knowledge', 'gotcha'] as const;
export const memoryEntries = sqliteTable(
	'memory_entries',
	{
		id: text('id').primaryKey(),
		kind: text('kind', { enum: memoryKinds }).notNull(),
		text: text('text').notNull(),
		fingerprint: text('fingerprint').notNull(),
		/** The session the fact came from (null: recorded by a person outside any session, or imported). */
		sourceSessionId: text('source_session_id').references(() => sessions.id, { onDelete: 'set null' }),
		/** Where it was found: `manual`, `decision`, `handoff`, `transcript`, `import`. */
		source: text('source').notNull(),
		/** Workspace-relative paths the fact is about; a later change to one of them marks it stale. */
		files: text('files_json', { mode: 'json' }).$type<string[]>().notNull(),
		confirmations: integer('confirmations').notNull(),
		createdAt: text('created_at').notNull(),
		lastConfirmedAt: text('last_confirmed_at').notNull(),
		staleSince: text('stale_since'),
		staleReason: text('stale_reason'),
		/** Set when a person retires the fact; retired facts never reach a briefing. */
		retiredAt: text('retired_at'),
	},
	(t) => [uniqueIndex('memory_entries_fingerprint_idx').on(t.kind, t.fingerprint), index('memory_entries_session_idx').on(t.sourceSessionId)],
);

/**
 * Sessions tied to issues in a tracker (`github`, `linear`, `beads`, `webhook`): found from the
 * session name, branch, prompts, or linked by hand. `source` says which.
 */
export const issueLinks = sqliteTable(
	'issue_links',
	{
		sessionId: text('session_id')
			.notNull()
			.references(() => sessions.id, { onDelete: 'cascade' }),
		tracker: text('tracker').notNull(),
		/** The tracker's own id: `123` or `owner/repo#123` (GitHub), `ABC-123` (Linear), `bd-a1b2` (Beads). */
		issueId: text('issue_id').notNull(),
		url: text('url'),
		title: text('title'),
		state: text('state'),
		source: text('source').notNull(),
		createdAt: text('created_at').notNull(),
		updatedAt: text('updated_at').notNull(),
	},
	(t) => [primaryKey({ columns: [t.sessionId, t.tracker, t.issueId] }), index('issue_links_issue_idx').on(t.tracker, t.issueId)],
);

/**
 * What an import brought in: (source format, entity type, the record's id in the source) → Baton's
 * id. Importing the same record again finds it here and adds nothing.
 */
export const importRecords = sqliteTable(
	'import_records',
	{
		source: text('source').notNull(),
		entityType: text('entity_type').notNull(),
		externalId: text('external_id').notNull(),
		entityId: text('entity_id').notNull(),
		contentHash: text('content_hash').notNull(),
		importedAt: text('imported_at').notNull(),
		/** The source record's fields Baton has no column for, verbatim (null: none). */
		extra: text('extra_json', { mode: 'json' }).$type<Record<string, unknown>>(),
	},
	(t) => [primaryKey({ columns: [t.source, t.entityType, t.externalId] }), index('import_records_entity_idx').on(t.entityType, t.entityId)],
);

export const notificationPriorities = ['info', 'notice', 'warning', 'critical'] as const;
export const notificationStatuses = ['pending', 'sending', 'sent', 'failed', 'suppressed'] as const;

/**
 * The notification outbox: one row per (event, channel) delivery, written in the same transaction as
 * the change that caused it, delivered afterwards by whichever process holds the channel's secret
 * (the editor's backend, or a CLI with the environment variables). Rate limiting and de-duplication
 * read it; a crash loses no notification and a delivery never blocks a write.
 */
export const notificationOutbox = sqliteTable(
	'notification_outbox',
	{
		id: text('id').primaryKey(),
		event: text('event').notNull(),
		priority: text('priority', { enum: notificationPriorities }).notNull(),
		channel: text('channel').notNull(),
		/** Same key within the de-duplication window → suppressed. */
		dedupKey: text('dedup_key').notNull(),
		sessionId: text('session_id'),
		message: text('message_json', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
		status: text('status', { enum: notificationStatuses }).notNull(),
		attempts: integer('attempts').notNull(),
		nextAttemptAt: text('next_attempt_at').notNull(),
		/** A claim by one delivering process; expires so a crashed sender's rows are retried. */
		leaseUntil: text('lease_until'),
		lastError: text('last_error'),
		createdAt: text('created_at').notNull(),
		sentAt: text('sent_at'),
	},
	(t) => [index('notification_outbox_due_idx').on(t.status, t.nextAttemptAt), index('notification_outbox_dedup_idx').on(t.channel, t.dedupKey, t.createdAt)],
);

/**
 * Wave 2's shareable records: immutable events, written once and never updated, named so that two
 * machines can never write the same id (`evt_<ULID>_<machine>`). Sync ships them through git; the
 * replay timeline (`timeline.*`) and line provenance (`provenance.*`) are events too. State that
 * changes is derived from them by one deterministic rule (order by id), so two machines that hold the
 * same events show the same state whatever order they received them in. See docs/records.md.
 */
export const sharedEvents = sqliteTable(
	'shared_events',
	{
		/** `evt_<26-char ULID>_<8-hex machine id>`: sorts by time, unique across machines. */
		id: text('id').primaryKey(),
		/** `session.started`, `handoff.consumed`, `timeline.step`, `provenance.attribution`, … */
		kind: text('kind').notNull(),
		/** The record the event is about: a session, checkpoint, commit or task id. */
		subject: text('subject').notNull(),
		sessionId: text('session_id'),
		/** Who did it: `human`, `agent:claude-code`, `cli`, … (never a path). */
		actor: text('actor').notNull(),
		/** The writing machine's random id (also the id's suffix); never a hostname. */
		machine: text('machine').notNull(),
		/** Display only: the machine's name and the author (git user.name) as the writer chose to show them. */
		machineName: text('machine_name'),
		author: text('author'),
		at: text('at').notNull(),
		/** The kind's payload (redacted before it was written); relative paths only. */
		body: text('body_json', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
		/** Local bookkeeping, never shared: `local`, or the remote it was pulled from. */
		source: text('source').notNull(),
		/** Local bookkeeping: when this copy arrived (ISO). */
		receivedAt: text('received_at').notNull(),
	},
	(t) => [
		index('shared_events_kind_subject_idx').on(t.kind, t.subject),
		index('shared_events_session_idx').on(t.sessionId, t.kind),
		index('shared_events_source_idx').on(t.source),
	],
);

/** Commands the daemon ran for a client, under the client's random request id, with their answer: a client whose daemon died before answering reruns the command in its own process with the same id and gets this answer instead of a second run. */
export const clientRequests = sqliteTable(
	'client_requests',
	{
		id: text('id').primaryKey(),
		command: text('command').notNull(),
		exitCode: integer('exit_code'),
		stdout: text('stdout'),
		stderr: text('stderr'),
		createdAt: text('created_at').notNull(),
	},
	(t) => [index('client_requests_created_idx').on(t.createdAt)],
);
