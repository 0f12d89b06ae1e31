/**
 * Builds a session's handoff and debrief from what the records say happened in it.
 */
import { asc, eq } from 'drizzle-orm';
import type { EngineContext } from '../context';
import type { DebriefData, GitState, HandoffData } from '../storage/jsonShapes';
import type { BatonDb } from '../storage/journalStore';
import type { Session } from '../storage/model';
import { decisions, tasks } from '../storage/schema';
import { isOpen } from '../tasks/taskGraph';
import { minutesBetween } from './briefing';
import { chainOf } from './sessionQueries';
import { scopeTaskIds } from '../tasks/scopeTaskIds';
import { taskGraphOf } from '../tasks/taskGraphOf';

interface HandoffInput {
	note?: string | null;
	nextAction?: string | null;
	blockers?: string[];
}

export function buildHandoff(ctx: EngineContext, db: BatonDb, session: Session, input: HandoffInput): HandoffData {
	const graph = taskGraphOf(ctx);
	const inScopeSet = scopeTaskIds(session.scope, graph);
	const inScope = (id: string): boolean => !inScopeSet || inScopeSet.has(id);
	const ref = (t: { id: string; title: string }) => ({ id: t.id, title: t.title });
	const last = session.currentTask ? graph.byId.get(session.currentTask) : undefined;
	const sessionDecisions = decisionsOf(db, session.id);
	return {
		lastTask: last ? ref(last) : session.currentTask ? { id: session.currentTask, title: '(deleted task)' } : null,
		tasksCompleted: db
			.select({ id: tasks.id, title: tasks.title })
			.from(tasks)
			.where(eq(tasks.completedBySession, session.id))
			.orderBy(asc(tasks.seq))
			.all(),
		tasksCreated: db.select({ id: tasks.id, title: tasks.title }).from(tasks).where(eq(tasks.createdBySession, session.id)).orderBy(asc(tasks.seq)).all(),
		decisionsRecorded: sessionDecisions.length,
		decisions: sessionDecisions.map((d) => ({ id: d.id, text: d.text, rationale: d.rationale })),
		nextSuggested: graph
			.rankedActionable()
			.filter((t) => inScope(t.id))
			.slice(0, 3)
			.map(ref),
		openBlockers: (input.blockers ?? []).map((b) => b.trim()).filter(Boolean),
		openBugs: [...graph.byId.values()]
			.filter((t) => t.type === 'bug' && isOpen(t) && inScope(t.id))
			.slice(0, 5)
			.map((t) => ({ ...ref(t), priority: t.priority })),
		note: input.note?.trim() || null,
		nextAction: input.nextAction?.trim() || null,
	};
}

export function buildDebrief(db: BatonDb, session: Session, handoff: HandoffData, endedAt: string, gitState: GitState | null): DebriefData {
	const chain = chainOf(db, session.id);
	return {
		sessionId: session.id,
		handoff,
		agentIdentifier: session.agentIdentifier,
		agent: session.agent,
		startedAt: session.startedAt,
		endedAt,
		durationMinutes: minutesBetween(session.startedAt, endedAt),
		decisions: decisionsOf(db, session.id).map((d) => ({ id: d.id, kind: d.kind, text: d.text, rationale: d.rationale, taskId: d.taskId })),
		gitState,
		chainPosition: chain.findIndex((s) => s.id === session.id) + 1,
		chainLength: chain.length,
	};
}

function decisionsOf(db: BatonDb, sessionId: string) {
	return db.select().from(decisions).where(eq(decisions.sessionId, sessionId)).orderBy(asc(decisions.createdAt)).all();
}
