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

export const gitStateSchema = z.object({
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
	decisions: z.array(
		z.object({ id: z.string(), kind: z.string(), text: z.string(), rationale: z.string().nullable(), taskId: z.string().nullable() }),
	),
	gitState: gitStateSchema.nullable(),
	chainPosition: z.number().int().positive(),
	chainLength: z.number().int().positive(),
});
export type DebriefData = z.infer<typeof debriefDataSchema>;

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
		})
		.nullable(),
	/** The previous handoff's suggestions, re-checked now: done, cancelled or missing ones are stale. */
	suggestions: z.array(z.object({ id: z.string(), title: z.string(), status: z.string().nullable(), stale: z.boolean() })),
	currentTask: z.object({ id: z.string(), title: z.string(), status: z.string(), blockedBy: z.array(z.string()) }).nullable(),
	nextTasks: z.array(
		z.object({ id: z.string(), title: z.string(), type: z.string(), priority: z.string(), leverage: z.number(), score: z.number() }),
	),
	openBugs: z.array(z.object({ id: z.string(), title: z.string(), priority: z.string() })),
	blockedTasks: z.array(z.object({ id: z.string(), title: z.string(), blockedBy: z.array(z.string()) })),
	activeEpics: z.array(z.object({ id: z.string(), title: z.string(), completionPercent: z.number(), done: z.number(), total: z.number() })),
	recentDecisions: z.array(z.object({ id: z.string(), text: z.string(), sessionId: z.string().nullable() })),
	warnings: z.array(z.string()),
});
export type Briefing = z.infer<typeof briefingSchema>;
