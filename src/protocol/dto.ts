/**
 * Wire shapes shared by the backend server, the extension and the webviews. They mirror the engine's
 * drizzle-derived zod schemas field for field; `test/unit/protocol/dto.test.ts` proves the two stay
 * identical (the protocol layer may not import the engine, the engine may not import the protocol).
 */
import { z } from 'zod';

export const sessionStatusDto = z.enum(['active', 'suspended', 'ended', 'orphaned', 'archived', 'closed']);
export type SessionStatusDto = z.infer<typeof sessionStatusDto>;

export const sessionScopeDto = z.object({
	type: z.enum(['global', 'epic', 'subtree', 'taskGroup', 'task', 'epicPhase', 'custom']),
	rootTaskId: z.string().min(1).optional(),
	phaseFilter: z.string().min(1).optional(),
	explicitTaskIds: z.array(z.string()).optional(),
});

export const sessionStatsDto = z.object({
	tasksCompleted: z.number().int().nonnegative(),
	tasksCreated: z.number().int().nonnegative(),
	focusChanges: z.number().int().nonnegative(),
	suspendCount: z.number().int().nonnegative(),
	resumeCount: z.number().int().nonnegative(),
	decisionsRecorded: z.number().int().nonnegative(),
});

const taskRefDto = z.object({ id: z.string(), title: z.string() });

export const handoffDto = z.object({
	lastTask: taskRefDto.nullable(),
	tasksCompleted: z.array(taskRefDto),
	tasksCreated: z.array(taskRefDto),
	decisionsRecorded: z.number().int().nonnegative(),
	decisions: z.array(z.object({ id: z.string(), text: z.string(), rationale: z.string().nullable() })),
	nextSuggested: z.array(taskRefDto),
	openBlockers: z.array(z.string()),
	openBugs: z.array(taskRefDto.extend({ priority: z.string() })),
	note: z.string().nullable(),
	nextAction: z.string().nullable(),
});
export type HandoffDto = z.infer<typeof handoffDto>;

export const gitStateDto = z.object({
	branch: z.string().nullable(),
	head: z.string().nullable(),
	commitCount: z.number().int().nonnegative(),
	uncommittedChanges: z.number().int().nonnegative(),
});

export const debriefDto = z.object({
	sessionId: z.string(),
	handoff: handoffDto,
	agentIdentifier: z.string().nullable(),
	agent: z.string().nullable(),
	startedAt: z.string(),
	endedAt: z.string(),
	durationMinutes: z.number().nonnegative(),
	decisions: z.array(z.object({ id: z.string(), kind: z.string(), text: z.string(), rationale: z.string().nullable(), taskId: z.string().nullable() })),
	gitState: gitStateDto.nullable(),
	chainPosition: z.number().int().positive(),
	chainLength: z.number().int().positive(),
});
export type DebriefDto = z.infer<typeof debriefDto>;

export const sessionDto = z.object({
	id: z.string(),
	name: z.string(),
	status: sessionStatusDto,
	scope: sessionScopeDto,
	scopeKey: z.string(),
	currentTask: z.string().nullable(),
	taskStartedAt: z.string().nullable(),
	agent: z.string().nullable(),
	agentIdentifier: z.string().nullable(),
	previousSessionId: z.string().nullable(),
	nextSessionId: z.string().nullable(),
	parentSessionId: z.string().nullable(),
	handoffConsumedAt: z.string().nullable(),
	handoffConsumedBy: z.string().nullable(),
	debrief: debriefDto.nullable(),
	stats: sessionStatsDto,
	resumeCount: z.number().int(),
	endNote: z.string().nullable(),
	startedAt: z.string(),
	lastActivity: z.string(),
	suspendedAt: z.string().nullable(),
	endedAt: z.string().nullable(),
	archivedAt: z.string().nullable(),
	updatedAt: z.string(),
});
export type SessionDto = z.infer<typeof sessionDto>;

export const briefingDto = z.object({
	sessionId: z.string().nullable(),
	scope: z.string(),
	generatedAt: z.string(),
	lastSession: z
		.object({
			id: z.string(),
			name: z.string(),
			endedAt: z.string().nullable(),
			durationMinutes: z.number().nullable(),
			handoff: handoffDto.nullable(),
		})
		.nullable(),
	suggestions: z.array(z.object({ id: z.string(), title: z.string(), status: z.string().nullable(), stale: z.boolean() })),
	currentTask: z.object({ id: z.string(), title: z.string(), status: z.string(), blockedBy: z.array(z.string()) }).nullable(),
	nextTasks: z.array(z.object({ id: z.string(), title: z.string(), type: z.string(), priority: z.string(), leverage: z.number(), score: z.number() })),
	openBugs: z.array(z.object({ id: z.string(), title: z.string(), priority: z.string() })),
	blockedTasks: z.array(z.object({ id: z.string(), title: z.string(), blockedBy: z.array(z.string()) })),
	activeEpics: z.array(z.object({ id: z.string(), title: z.string(), completionPercent: z.number(), done: z.number(), total: z.number() })),
	recentDecisions: z.array(z.object({ id: z.string(), text: z.string(), sessionId: z.string().nullable() })),
	/** Project memory's most relevant facts (gotchas first; stale ones marked); `total` counts all live facts. */
	memory: z.object({
		entries: z.array(
			z.object({
				id: z.string(),
				kind: z.enum(['knowledge', 'gotcha']),
				text: z.string(),
				files: z.array(z.string()),
				source: z.string(),
				sourceSessionId: z.string().nullable(),
				confirmations: z.number().int().nonnegative(),
				lastConfirmedAt: z.string(),
				staleSince: z.string().nullable(),
				staleReason: z.string().nullable(),
				relevant: z.boolean(),
			}),
		),
		total: z.number().int().nonnegative(),
	}),
	warnings: z.array(z.string()),
});
export type BriefingDto = z.infer<typeof briefingDto>;
export type BriefingMemoryEntryDto = BriefingDto['memory']['entries'][number];

/** A session's work summarised deterministically (progress, files, decisions, failures, blockers, cost). */
export const sessionSummaryDto = z.object({
	sessionId: z.string(),
	name: z.string(),
	status: z.string(),
	scope: z.string(),
	agent: z.string().nullable(),
	startedAt: z.string(),
	endedAt: z.string().nullable(),
	durationMinutes: z.number().nonnegative(),
	progress: z.string(),
	tasksCompleted: z.array(taskRefDto),
	tasksCreated: z.array(taskRefDto),
	lastTask: taskRefDto.nullable(),
	filesChanged: z.array(z.string()),
	decisions: z.array(z.object({ text: z.string(), rationale: z.string().nullable(), kind: z.string() })),
	failedApproaches: z.array(z.object({ description: z.string(), reason: z.string(), at: z.string().nullable() })),
	blockers: z.array(z.string()),
	resumeContext: z.string(),
	turns: z.number().int().nonnegative(),
	toolCalls: z.number().int().nonnegative(),
	errors: z.number().int().nonnegative(),
	compactions: z.number().int().nonnegative(),
	tokens: z.object({ input: z.number().int().nonnegative(), output: z.number().int().nonnegative(), cacheRead: z.number().int().nonnegative(), cacheCreation: z.number().int().nonnegative(), total: z.number().int().nonnegative() }),
	estimatedCostUsd: z.number().nonnegative(),
	transcripts: z.number().int().nonnegative(),
});
export type SessionSummaryDto = z.infer<typeof sessionSummaryDto>;

export const taskDto = z.object({
	id: z.string(),
	seq: z.number().int(),
	title: z.string(),
	description: z.string().nullable(),
	type: z.enum(['epic', 'task', 'subtask', 'bug']),
	status: z.enum(['pending', 'active', 'blocked', 'done', 'cancelled']),
	priority: z.enum(['critical', 'high', 'medium', 'low']),
	parentId: z.string().nullable(),
	phase: z.string().nullable(),
	createdAt: z.string(),
	updatedAt: z.string(),
	completedAt: z.string().nullable(),
	createdBySession: z.string().nullable(),
	completedBySession: z.string().nullable(),
	dependsOn: z.array(z.string()),
});
export type TaskDto = z.infer<typeof taskDto>;

export const decisionDto = z.object({
	id: z.string(),
	sessionId: z.string().nullable(),
	kind: z.enum(['decision', 'assumption']),
	text: z.string(),
	rationale: z.string().nullable(),
	taskId: z.string().nullable(),
	createdAt: z.string(),
});
export type DecisionDto = z.infer<typeof decisionDto>;

export interface ForkNodeDto {
	session: SessionDto;
	children: ForkNodeDto[];
}
export const forkNodeDto: z.ZodType<ForkNodeDto> = z.lazy(() => z.object({ session: sessionDto, children: z.array(forkNodeDto) }));

/** A session's link to a tracker issue (`baton issue list` prints the same shape). */
export const issueLinkDto = z.object({
	sessionId: z.string(),
	/** `github`, `linear`, `beads`, `webhook`. */
	tracker: z.string(),
	/** `123` or `owner/repo#123` (GitHub), `ABC-123` (Linear), `bd-a1b2` (Beads). */
	issueId: z.string(),
	url: z.string().nullable(),
	title: z.string().nullable(),
	state: z.string().nullable(),
	/** `name`, `branch`, `prompt`, `manual`, `created`. */
	source: z.string(),
});
export type IssueLinkDto = z.infer<typeof issueLinkDto>;

/** Everything the session details view shows about one session. */
export const sessionDetailsDto = z.object({
	session: sessionDto,
	handoff: handoffDto.nullable(),
	handoffProblem: z.string().nullable(),
	chain: z.array(sessionDto),
	forkTree: forkNodeDto,
	decisions: z.array(decisionDto),
	linkedIssues: z.array(issueLinkDto),
});
export type SessionDetailsDto = z.infer<typeof sessionDetailsDto>;

/** A tree row: the session fields a row shows; details are fetched on hover or open. */
export const sessionRowDto = sessionDto.pick({
	id: true,
	name: true,
	status: true,
	scopeKey: true,
	agent: true,
	previousSessionId: true,
	nextSessionId: true,
	parentSessionId: true,
	startedAt: true,
	lastActivity: true,
	suspendedAt: true,
	endedAt: true,
	endNote: true,
});
export type SessionRowDto = z.infer<typeof sessionRowDto>;

/** One scope's chain(s) for the tree: sessions in chain order (roots first, then each next). */
export const scopeChainsDto = z.object({
	scopeKey: z.string(),
	/** `Epic T1 · Checkout flow`: the scope with its root task's title. */
	label: z.string(),
	sessions: z.array(sessionRowDto),
	/** The newest session's activity: groups sort by it. */
	lastActivity: z.string(),
});
export type ScopeChainsDto = z.infer<typeof scopeChainsDto>;
