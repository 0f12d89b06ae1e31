/**
 * CLEO's JSON shapes (scope, handoff, debrief) read leniently where CLEO's
 * own versions differ (a task reference is an id or `{id, title}`) and strictly where a value has the
 * wrong type. The output is Baton's shape, with CLEO's task ids still in it (the planner maps them).
 */
import { z } from 'zod';
import type { DebriefData, HandoffData, SessionScope } from '../storage/jsonShapes';
import { scopeTypes } from '../storage/jsonShapes';
import { handoffData } from './sessionRows';

const taskRef = z.union([
	z
		.string()
		.min(1)
		.transform((id) => ({ id, title: id })),
	z.object({ id: z.string().min(1), title: z.string().nullish() }).transform((r) => ({ id: r.id, title: r.title ?? r.id })),
]);

const blocker = z.union([
	z.string(),
	z
		.object({ id: z.string().nullish(), title: z.string().nullish(), reason: z.string().nullish() })
		.transform((b) => [b.id, b.title ?? b.reason].filter(Boolean).join(' ') || 'blocker'),
]);

const bugRef = z.union([
	z
		.string()
		.min(1)
		.transform((id) => ({ id, title: id, priority: 'unknown' })),
	z
		.object({ id: z.string().min(1), title: z.string().nullish(), priority: z.union([z.string(), z.number()]).nullish() })
		.transform((b) => ({ id: b.id, title: b.title ?? b.id, priority: b.priority === null || b.priority === undefined ? 'unknown' : String(b.priority) })),
]);

const decisionRef = z
	.object({
		id: z.string().min(1),
		decision: z.string().nullish(),
		text: z.string().nullish(),
		rationale: z.string().nullish(),
		taskId: z.string().nullish(),
		kind: z.string().nullish(),
	})
	.refine((d) => typeof (d.decision ?? d.text) === 'string', { message: 'a decision needs its text (decision or text)' })
	.transform((d) => ({
		id: d.id,
		text: (d.decision ?? d.text) as string,
		rationale: d.rationale ?? null,
		taskId: d.taskId ?? null,
		kind: d.kind === 'assumption' ? ('assumption' as const) : ('decision' as const),
	}));

export const cleoHandoffSchema = z
	.object({
		lastTask: taskRef.nullish(),
		tasksCompleted: z.array(taskRef).nullish(),
		tasksCreated: z.array(taskRef).nullish(),
		decisionsRecorded: z.number().int().nonnegative().nullish(),
		decisions: z.array(decisionRef).nullish(),
		nextSuggested: z.array(taskRef).nullish(),
		openBlockers: z.array(blocker).nullish(),
		openBugs: z.array(bugRef).nullish(),
		note: z.string().nullish(),
		nextAction: z.string().nullish(),
	})
	.transform((h): HandoffData =>
		handoffData({
			lastTask: h.lastTask ?? null,
			tasksCompleted: h.tasksCompleted ?? [],
			tasksCreated: h.tasksCreated ?? [],
			decisionsRecorded: h.decisionsRecorded ?? h.decisions?.length ?? 0,
			decisions: (h.decisions ?? []).map((d) => ({ id: d.id, text: d.text, rationale: d.rationale })),
			nextSuggested: h.nextSuggested ?? [],
			openBlockers: h.openBlockers ?? [],
			openBugs: h.openBugs ?? [],
			note: h.note ?? null,
			nextAction: h.nextAction ?? null,
		}),
	);

const count = z.union([z.number().int().nonnegative(), z.boolean().transform((b) => (b ? 1 : 0))]);

export const cleoDebriefSchema = z.object({
	handoff: cleoHandoffSchema.nullish(),
	agentIdentifier: z.string().nullish(),
	agent: z.string().nullish(),
	durationMinutes: z.number().nonnegative().nullish(),
	decisions: z.array(decisionRef).nullish(),
	gitState: z
		.object({
			branch: z.string().nullish(),
			head: z.string().nullish(),
			lastCommitHash: z.string().nullish(),
			commitCount: count.nullish(),
			uncommittedChanges: count.nullish(),
		})
		.nullish(),
	chainPosition: z.number().int().positive().nullish(),
	chainLength: z.number().int().positive().nullish(),
});
type CleoDebrief = z.output<typeof cleoDebriefSchema>;

/** CLEO's debrief in Baton's shape; the session's own columns fill what the debrief leaves out. */
export function debriefFrom(
	d: CleoDebrief,
	session: { id: string; startedAt: string; endedAt: string; agent: string | null; agentIdentifier: string | null },
	fallbackHandoff: HandoffData | null,
): DebriefData {
	const minutes = Math.max(0, Math.round((Date.parse(session.endedAt) - Date.parse(session.startedAt)) / 60_000));
	return {
		sessionId: session.id,
		handoff: d.handoff ?? fallbackHandoff ?? handoffData({}),
		agentIdentifier: d.agentIdentifier ?? session.agentIdentifier,
		agent: d.agent ?? session.agent,
		startedAt: session.startedAt,
		endedAt: session.endedAt,
		durationMinutes: d.durationMinutes ?? minutes,
		decisions: (d.decisions ?? []).map((x) => ({ id: x.id, kind: x.kind, text: x.text, rationale: x.rationale, taskId: x.taskId })),
		gitState: d.gitState
			? {
					branch: d.gitState.branch ?? null,
					head: d.gitState.head ?? d.gitState.lastCommitHash ?? null,
					commitCount: d.gitState.commitCount ?? 0,
					uncommittedChanges: d.gitState.uncommittedChanges ?? 0,
				}
			: null,
		chainPosition: d.chainPosition ?? 1,
		chainLength: Math.max(d.chainLength ?? 1, d.chainPosition ?? 1),
	};
}

export const cleoScopeSchema = z
	.object({
		type: z.enum(scopeTypes),
		rootTaskId: z.string().min(1).nullish(),
		epicId: z.string().min(1).nullish(),
		phaseFilter: z.string().min(1).nullish(),
		computedTaskIds: z.array(z.string().min(1)).nullish(),
		explicitTaskIds: z.array(z.string().min(1)).nullish(),
	})
	.superRefine((s, ctx) => {
		const root = s.rootTaskId ?? s.epicId;
		if (s.type !== 'global' && !root && !(s.type === 'custom' && (s.explicitTaskIds ?? s.computedTaskIds)?.length)) {
			ctx.addIssue({ code: 'custom', path: ['rootTaskId'], message: `missing (a ${s.type} scope names its root task)` });
		}
		if (s.type === 'epicPhase' && !s.phaseFilter) {
			ctx.addIssue({ code: 'custom', path: ['phaseFilter'], message: 'missing (an epicPhase scope names its phase)' });
		}
	})
	.transform((s): SessionScope => {
		const root = s.rootTaskId ?? s.epicId ?? undefined;
		if (s.type === 'global') return { type: 'global' };
		if (s.type === 'custom' && !root) return { type: 'custom', explicitTaskIds: [...new Set(s.explicitTaskIds ?? s.computedTaskIds ?? [])].sort() };
		if (s.type === 'epicPhase') return { type: 'epicPhase', rootTaskId: root as string, phaseFilter: s.phaseFilter as string };
		return { type: s.type, rootTaskId: root as string };
	});
