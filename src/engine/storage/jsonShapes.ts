/**
 * Shapes of the JSON columns. The schema types its JSON columns with these, and `model.ts` plugs the
 * same zod schemas into the drizzle-derived row schemas, so there is one definition of each shape.
 */
import { z } from 'zod';

export const scopeTypes = ['global', 'epic', 'subtree', 'taskGroup', 'task', 'epicPhase', 'custom'] as const;

export const sessionScopeSchema = z.object({
	type: z.enum(scopeTypes),
	rootTaskId: z.string().min(1).optional(),
	phaseFilter: z.string().min(1).optional(),
	explicitTaskIds: z.array(z.string()).optional(),
});
export type SessionScope = z.infer<typeof sessionScopeSchema>;

export const sessionStatsSchema = z.object({
	tasksCompleted: z.number().int().nonnegative(),
	tasksCreated: z.number().int().nonnegative(),
	focusChanges: z.number().int().nonnegative(),
	suspendCount: z.number().int().nonnegative(),
	resumeCount: z.number().int().nonnegative(),
	decisionsRecorded: z.number().int().nonnegative(),
});
export type SessionStats = z.infer<typeof sessionStatsSchema>;

export const emptyStats = (): SessionStats => ({
	tasksCompleted: 0,
	tasksCreated: 0,
	focusChanges: 0,
	suspendCount: 0,
	resumeCount: 0,
	decisionsRecorded: 0,
});

const taskRefSchema = z.object({ id: z.string(), title: z.string() });

export const handoffDataSchema = z.object({
	lastTask: taskRefSchema.nullable(),
	tasksCompleted: z.array(taskRefSchema),
	tasksCreated: z.array(taskRefSchema),
	decisionsRecorded: z.number().int().nonnegative(),
	decisions: z.array(z.object({ id: z.string(), text: z.string(), rationale: z.string().nullable() })),
	nextSuggested: z.array(taskRefSchema),
	openBlockers: z.array(z.string()),
	openBugs: z.array(taskRefSchema.extend({ priority: z.string() })),
	note: z.string().nullable(),
	nextAction: z.string().nullable(),
});
export type HandoffData = z.infer<typeof handoffDataSchema>;

const gitStateSchema = z.object({
	branch: z.string().nullable(),
	head: z.string().nullable(),
	commitCount: z.number().int().nonnegative(),
	uncommittedChanges: z.number().int().nonnegative(),
});
export type GitState = z.infer<typeof gitStateSchema>;

export const debriefDataSchema = z.object({
	sessionId: z.string(),
	handoff: handoffDataSchema,
	agentIdentifier: z.string().nullable(),
	agent: z.string().nullable(),
	startedAt: z.string(),
	endedAt: z.string(),
	durationMinutes: z.number().nonnegative(),
	decisions: z.array(z.object({ id: z.string(), kind: z.string(), text: z.string(), rationale: z.string().nullable(), taskId: z.string().nullable() })),
	gitState: gitStateSchema.nullable(),
	chainPosition: z.number().int().positive(),
	chainLength: z.number().int().positive(),
});
export type DebriefData = z.infer<typeof debriefDataSchema>;

/**
 * Where a live session stands, in its own words: what it is working on (`note`), what it does next
 * and what holds it up. Kept on the session (CLEO's active sessions bring it as their `focus`; their
 * handoff is written once, at the end), so the details, the tree's hover and the briefing of the
 * session show it; a session that is no longer active shows it as its last focus.
 */
export const sessionFocusSchema = z.object({
	note: z.string().nullable(),
	nextAction: z.string().nullable(),
	blockedReason: z.string().nullable(),
});
export type SessionFocus = z.infer<typeof sessionFocusSchema>;

/** A briefing is computed, never stored; its shape is declared here beside the stored ones it draws on. */
export const briefingSchema = z.object({
	sessionId: z.string().nullable(),
	scope: z.string(),
	generatedAt: z.string(),
	lastSession: z
		.object({
			id: z.string(),
			name: z.string(),
			endedAt: z.string().nullable(),
			durationMinutes: z.number().nullable(),
			handoff: handoffDataSchema.nullable(),
			/**
			 * What the session did after its handoff was written (it was resumed: a headless agent ends
			 * its session after every run), from its timeline; the handoff itself is write-once. Absent
			 * when nothing was done since.
			 */
			laterWork: z.object({ requests: z.number(), lastRequest: z.string().nullable(), files: z.array(z.string()), lastAt: z.string() }).nullish(),
		})
		.nullable(),
	/**
	 * The briefed session's own focus (sessionFocusSchema): where it stood, for the agent that resumes
	 * it. `last` when the session is not active (its last focus, from before it stopped); null: none.
	 */
	focus: sessionFocusSchema.extend({ last: z.boolean() }).nullable(),
	/** The previous handoff's suggestions, re-checked now: done, cancelled or missing ones are stale. */
	suggestions: z.array(z.object({ id: z.string(), title: z.string(), status: z.string().nullable(), stale: z.boolean() })),
	currentTask: z.object({ id: z.string(), title: z.string(), status: z.string(), blockedBy: z.array(z.string()) }).nullable(),
	nextTasks: z.array(z.object({ id: z.string(), title: z.string(), type: z.string(), priority: z.string(), leverage: z.number(), score: z.number() })),
	openBugs: z.array(z.object({ id: z.string(), title: z.string(), priority: z.string() })),
	blockedTasks: z.array(z.object({ id: z.string(), title: z.string(), blockedBy: z.array(z.string()) })),
	activeEpics: z.array(z.object({ id: z.string(), title: z.string(), completionPercent: z.number(), done: z.number(), total: z.number() })),
	recentDecisions: z.array(z.object({ id: z.string(), text: z.string(), sessionId: z.string().nullable() })),
	/** Project memory (knowledge and gotchas), the most relevant first; see memory/briefingMemory.ts. */
	memory: z.object({
		entries: z.array(
			z.object({
				id: z.string(),
				kind: z.enum(['knowledge', 'gotcha']),
				text: z.string(),
				files: z.array(z.string()),
				source: z.string(),
				sourceSessionId: z.string().nullable(),
				/** That session's name, which views show (its id is for tools and hovers). */
				sourceSessionName: z.string().nullable(),
				confirmations: z.number().int().nonnegative(),
				lastConfirmedAt: z.string(),
				/** Set when the fact went stale (its files changed or vanished, or nobody confirmed it for long): shown with the mark. */
				staleSince: z.string().nullable(),
				staleReason: z.string().nullable(),
				/** About a file the current task names, or learned in a session of this scope. */
				relevant: z.boolean(),
			}),
		),
		/** Facts not retired, in all: when it exceeds `entries`, the rest are counted ("and N more"), never dropped silently. */
		total: z.number().int().nonnegative(),
	}),
	warnings: z.array(z.string()),
});
export type Briefing = z.infer<typeof briefingSchema>;
export type BriefingMemoryEntry = Briefing['memory']['entries'][number];

/**
 * A session's work, summarised deterministically from its records and its agents' transcripts
 * (docs/architecture.md §1, Memory). Computed on request, never stored.
 */
export const sessionSummarySchema = z.object({
	sessionId: z.string(),
	name: z.string(),
	status: z.string(),
	scope: z.string(),
	agent: z.string().nullable(),
	startedAt: z.string(),
	endedAt: z.string().nullable(),
	durationMinutes: z.number().nonnegative(),
	/** What got done, in a few sentences. */
	progress: z.string(),
	tasksCompleted: z.array(taskRefSchema),
	tasksCreated: z.array(taskRefSchema),
	/** The task the session worked on last. */
	lastTask: taskRefSchema.nullable(),
	/** Files agents changed (transcripts' edit tools and tool hooks), workspace-relative. */
	filesChanged: z.array(z.string()),
	decisions: z.array(z.object({ text: z.string(), rationale: z.string().nullable(), kind: z.string() })),
	/** Tool calls that failed (agent mechanics such as a stale edit left out), newest last. */
	failedApproaches: z.array(z.object({ description: z.string(), reason: z.string(), at: z.string().nullable() })),
	blockers: z.array(z.string()),
	/** Where to pick up: the next action, else the last request and the agent's last words. */
	resumeContext: z.string(),
	/** The person's requests to the agents (subagents' prompts not counted). */
	turns: z.number().int().nonnegative(),
	toolCalls: z.number().int().nonnegative(),
	errors: z.number().int().nonnegative(),
	compactions: z.number().int().nonnegative(),
	tokens: z.object({
		input: z.number().int().nonnegative(),
		output: z.number().int().nonnegative(),
		cacheRead: z.number().int().nonnegative(),
		cacheCreation: z.number().int().nonnegative(),
		total: z.number().int().nonnegative(),
	}),
	/** List-price estimate from the tokens (transcripts/costEstimate.ts); an estimate, never a bill. */
	estimatedCostUsd: z.number().nonnegative(),
	/** Agent transcripts the figures come from (0: only Baton's own records). */
	transcripts: z.number().int().nonnegative(),
});
export type SessionSummary = z.infer<typeof sessionSummarySchema>;

export const checkpointAnnotationSchema = z.object({ at: z.string(), user: z.string(), text: z.string() });
export type CheckpointAnnotation = z.infer<typeof checkpointAnnotationSchema>;

export const linkedIssueSchema = z.object({
	/** `github`, `linear`, `beads`, `baton` (a task id), … */
	tracker: z.string().min(1),
	id: z.string().min(1),
	url: z.string().nullable(),
});
export type LinkedIssue = z.infer<typeof linkedIssueSchema>;

const skippedFileSchema = z.object({ path: z.string(), size: z.number().int().nonnegative(), reason: z.string() });
export type SkippedFile = z.infer<typeof skippedFileSchema>;

/** What a checkpoint holds compared with its parent, and what it could not hold. */
export const fileStatsSchema = z.object({
	added: z.number().int().nonnegative(),
	modified: z.number().int().nonnegative(),
	deleted: z.number().int().nonnegative(),
	totalFiles: z.number().int().nonnegative(),
	/** Null when not counted: the first checkpoint (no parent) or very large differences. */
	linesAdded: z.number().int().nonnegative().nullable(),
	linesRemoved: z.number().int().nonnegative().nullable(),
	/** Files left out (over the size cap, unreadable, …), at most 200; `skippedTotal` counts them all. */
	skipped: z.array(skippedFileSchema),
	skippedTotal: z.number().int().nonnegative(),
	/** True when the snapshot is incomplete (time budget ran out): a rollback never treats it as proof of absence. */
	degraded: z.boolean(),
	degradedReason: z.string().nullable(),
	/** Folders with a `.git` of their own whose files the snapshot holds. */
	nestedRepos: z.array(z.string()),
	durationMs: z.number().nonnegative(),
});
export type FileStats = z.infer<typeof fileStatsSchema>;

export const checkpointMetricsSchema = z.object({
	costUsd: z.number().nonnegative(),
	errorCount: z.number().int().nonnegative(),
	sessionAgeMs: z.number().nonnegative(),
});
export type CheckpointMetrics = z.infer<typeof checkpointMetricsSchema>;

export const escalationThresholdsSchema = z.object({
	costUsd: z.number().nonnegative(),
	durationMs: z.number().nonnegative(),
	errorCount: z.number().int().nonnegative(),
});
export type EscalationThresholds = z.infer<typeof escalationThresholdsSchema>;

export const rollbackPhaseSchema = z.object({
	phase: z.enum(['safety_checkpoint', 'verify_target', 'restore', 'done', 'failed', 'recovered']),
	at: z.string(),
	detail: z.string().nullable(),
});
export type RollbackPhase = z.infer<typeof rollbackPhaseSchema>;

const agentInfoSchema = z.object({
	version: z.string().nullable(),
	path: z.string().nullable(),
	/** `sha256:<hex>` of the resolved binary (or script), null when it could not be hashed in time. */
	binaryHash: z.string().nullable(),
});

const mcpServerInfoSchema = z.object({
	/** The file it was declared in, relative to the workspace. */
	source: z.string(),
	type: z.string().nullable(),
	command: z.string().nullable(),
	/** Arguments with anything that looks like a secret replaced by `<redacted>`. */
	args: z.array(z.string()),
	url: z.string().nullable(),
	/** Names of the environment variables it is given; their values are never stored. */
	envKeys: z.array(z.string()),
	/** sha256 of the redacted declaration: changes when the declaration does. */
	configHash: z.string(),
});

const packageSetSchema = z.object({
	manager: z.string(),
	packages: z.record(z.string(), z.string()),
	truncated: z.boolean(),
});

/** Versions around a checkpoint: captured within about a second, never failing the checkpoint. */
export const environmentSnapshotSchema = z.object({
	capturedAt: z.string(),
	durationMs: z.number().nonnegative(),
	agents: z.record(z.string(), agentInfoSchema),
	vscode: z.object({ version: z.string().nullable(), extensions: z.record(z.string(), z.string()) }).nullable(),
	mcpServers: z.record(z.string(), mcpServerInfoSchema),
	runtimes: z.record(z.string(), z.string()),
	/** Lockfile (relative path) → declared packages. */
	packages: z.record(z.string(), packageSetSchema),
	git: z
		.object({
			branch: z.string().nullable(),
			head: z.string().nullable(),
			changedFiles: z.number().int().nonnegative(),
			untrackedFiles: z.number().int().nonnegative(),
		})
		.nullable(),
	/** Probes that failed or ran out of time, with why: recorded as unknown instead of failing. */
	unknown: z.array(z.string()),
	/**
	 * Set while capture still runs after the checkpoint was recorded: every category is empty and
	 * `unknown` says why. Capture replaces the whole snapshot when it finishes; one left pending was
	 * never finished (the process ended first).
	 */
	pending: z.literal(true).optional(),
});
export type EnvironmentSnapshot = z.infer<typeof environmentSnapshotSchema>;
