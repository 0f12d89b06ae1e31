/**
 * The briefing: what a session starting now needs to know. Computed from live data at start (and on
 * request), never stored. A handoff's suggestions are re-checked against the task graph, so advice
 * that went stale since the handoff was written is marked, not repeated. Project memory's most
 * relevant facts come with it, their stale marks as last computed: project memory sits above the
 * sessions, so the engine hands its part in (`BriefingSources`), as it does the timeline's account of
 * what a resumed session did after its write-once handoff (`laterWork`).
 */
import { desc, eq } from 'drizzle-orm';
import type { EngineContext } from '../context';
import type { Briefing, HandoffData, SessionScope } from '../storage/jsonShapes';
import type { BatonDb } from '../storage/journalStore';
import type { Session, Task } from '../storage/model';
import { decisions, handoffs, tasks } from '../storage/schema';
import { isOpen, type TaskGraph, type TaskNode } from '../tasks/taskGraph';
import { scopeTaskIds } from '../tasks/scopeTaskIds';
import { scopeKey } from './scope';
import { briefingTasksOf, type BriefingTasks } from '../tasks/briefingTasksOf';

const priorityOrder: Record<Task['priority'], number> = { critical: 0, high: 1, medium: 2, low: 3 };
const listLimit = 10;

interface BriefingInput {
	scope: SessionScope;
	sessionId: string | null;
	/** The briefed session's focus, as stored (null: none, or no session). */
	focus: Briefing['focus'];
	currentTask: string | null;
	predecessor: Session | null;
	handoff: HandoffData | null;
	warnings: string[];
}

/** Project memory's part of a briefing: the facts a session in this scope, on this task, should know first. */
type BriefingMemorySource = (db: BatonDb, input: { scopeKey: string; currentTask: Pick<Task, 'title' | 'description'> | null }) => Briefing['memory'];

/** A session's work after `since` (its handoff), from the timeline, which sits above the sessions; null when there was none. */
type LaterWorkSource = (db: BatonDb, input: { sessionId: string; since: string }) => NonNullable<Briefing['lastSession']>['laterWork'];

/** What the engine hands the briefing from the rooms above the sessions. */
export interface BriefingSources {
	memory: BriefingMemorySource;
	laterWork: LaterWorkSource;
}

/** `taskView`: what the briefing reads of the tasks (see briefingTasksOf.ts; the tests compare its two sources). */
export function computeBriefing(
	ctx: EngineContext,
	db: BatonDb,
	sources: BriefingSources,
	input: BriefingInput,
	taskView: BriefingTasks = briefingTasksOf(ctx),
): Briefing {
	const graph = taskView.graph;
	const inScopeSet = scopeTaskIds(input.scope, graph);
	const nextTasks: Briefing['nextTasks'] = firstInScope(
		graph,
		'ranked',
		graph.rankedActionable(),
		inScopeSet,
		ctx.config.briefingNextTasks,
		input.currentTask,
	).map((task) => ({
		id: task.id,
		title: taskView.title(task.id),
		type: task.type,
		priority: task.priority,
		leverage: graph.leverage(task.id),
		score: graph.score(task),
	}));
	const current = input.currentTask ? taskView.task(input.currentTask) : undefined;
	const predecessor = input.predecessor;
	// A resumed session's later runs, after its write-once handoff: computed now, never written into it.
	const handoffAt = predecessor
		? (db.select({ at: handoffs.createdAt }).from(handoffs).where(eq(handoffs.sessionId, predecessor.id)).get()?.at ?? predecessor.endedAt)
		: null;
	const laterWork = predecessor && handoffAt ? sources.laterWork(db, { sessionId: predecessor.id, since: handoffAt }) : null;
	return {
		sessionId: input.sessionId,
		scope: scopeKey(input.scope),
		generatedAt: ctx.nowIso(),
		lastSession: predecessor
			? {
					id: predecessor.id,
					name: predecessor.name,
					endedAt: predecessor.endedAt,
					durationMinutes: predecessor.endedAt ? minutesBetween(predecessor.startedAt, predecessor.endedAt) : null,
					handoff: input.handoff,
					...(laterWork ? { laterWork } : {}),
				}
			: null,
		focus: input.focus,
		suggestions: (input.handoff?.nextSuggested ?? []).map((s) => {
			const task = taskView.task(s.id);
			return { id: s.id, title: task?.title ?? s.title, status: task?.status ?? null, stale: !task || !isOpen(task) };
		}),
		currentTask: current ? { id: current.id, title: current.title, status: current.status, blockedBy: taskView.openBlockersOf(current.id) } : null,
		nextTasks,
		...openLists(taskView, inScopeSet),
		recentDecisions: predecessor
			? db
					.select({ id: decisions.id, text: decisions.text, sessionId: decisions.sessionId })
					.from(decisions)
					.where(eq(decisions.sessionId, predecessor.id))
					.orderBy(desc(decisions.createdAt))
					.limit(5)
					.all()
			: [],
		memory: sources.memory(db, {
			scopeKey: scopeKey(input.scope),
			currentTask: current
				? (db.select({ title: tasks.title, description: tasks.description }).from(tasks).where(eq(tasks.id, current.id)).get() ?? null)
				: null,
		}),
		warnings: input.warnings,
	};
}

export function minutesBetween(fromIso: string, toIso: string): number {
	return Math.max(0, Math.round((Date.parse(toIso) - Date.parse(fromIso)) / 60_000));
}

/**
 * The first `limit` entries of `list` (one of the graph's memoized orders) whose task is in `scope`,
 * except `skip`. A scope smaller than the list (an epic's forty tasks against twenty thousand ranked
 * ones) is walked instead of the list, by each task's position in it: same entries, same order.
 */
function firstInScope<T extends { id: string }>(
	graph: TaskGraph,
	name: string,
	list: readonly T[],
	scope: ReadonlySet<string> | undefined,
	limit: number,
	skip: string | null = null,
): T[] {
	if (!scope || scope.size >= list.length) {
		const out: T[] = [];
		for (const entry of list) {
			if (out.length >= limit) {
				break;
			}
			if ((!scope || scope.has(entry.id)) && entry.id !== skip) {
				out.push(entry);
			}
		}
		return out;
	}
	const positions = graph.memoize(`positions:${name}`, () => new Map(list.map((entry, i) => [entry.id, i])));
	const found: number[] = [];
	for (const id of scope) {
		const at = positions.get(id);
		if (at !== undefined && id !== skip) {
			found.push(at);
		}
	}
	return found
		.sort((a, b) => a - b)
		.slice(0, limit)
		.map((at) => list[at] as T);
}

function openBugs(graph: TaskGraph): TaskNode[] {
	return graph.memoize('openBugs', () =>
		[...graph.byId.values()]
			.filter((t) => t.type === 'bug' && isOpen(t))
			.sort((a, b) => priorityOrder[a.priority] - priorityOrder[b.priority] || a.seq - b.seq),
	);
}

function blockedTasks(graph: TaskGraph): TaskNode[] {
	return graph.memoize('blockedTasks', () =>
		[...graph.byId.values()].filter((t) => isOpen(t) && (t.status === 'blocked' || graph.openBlockersOf(t.id).length > 0)),
	);
}

/** The open bugs, blocked tasks and active epics in scope, the first `listLimit` of each, with their titles. */
function openLists(taskView: BriefingTasks, inScopeSet: ReadonlySet<string> | undefined): Pick<Briefing, 'openBugs' | 'blockedTasks' | 'activeEpics'> {
	const graph = taskView.graph;
	return {
		openBugs: firstInScope(graph, 'openBugs', openBugs(graph), inScopeSet, listLimit).map((t) => ({
			id: t.id,
			title: taskView.title(t.id),
			priority: t.priority,
		})),
		blockedTasks: firstInScope(graph, 'blockedTasks', blockedTasks(graph), inScopeSet, listLimit).map((t) => ({
			id: t.id,
			title: taskView.title(t.id),
			blockedBy: graph.openBlockersOf(t.id),
		})),
		activeEpics: firstInScope(graph, 'activeEpics', activeEpics(taskView), inScopeSet, listLimit).map((e) => ({
			id: e.id,
			title: taskView.title(e.id),
			done: e.done,
			total: e.total,
			completionPercent: e.completionPercent,
		})),
	};
}

type EpicEntry = Omit<Briefing['activeEpics'][number], 'title'>;

/** Open epics with something done or active (or active themselves), most complete first; their titles are read for the few shown. */
function activeEpics(taskView: BriefingTasks): EpicEntry[] {
	const graph = taskView.graph;
	return graph.memoize('activeEpics', () => {
		const progress = taskView.epicProgress();
		const out: EpicEntry[] = [];
		for (const epic of graph.byId.values()) {
			if (epic.type !== 'epic' || !isOpen(epic)) {
				continue;
			}
			const { done, total, started } = progress.get(epic.id) ?? { done: 0, total: 0, started: false };
			if (started || epic.status === 'active') {
				out.push({ id: epic.id, done, total, completionPercent: total === 0 ? 0 : Math.round((done / total) * 100) });
			}
		}
		return out.sort((a, b) => b.completionPercent - a.completionPercent);
	});
}
