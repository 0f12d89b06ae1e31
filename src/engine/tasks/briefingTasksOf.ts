/**
 * What a briefing reads of the tasks, without building the graph of every task. A briefing lists open
 * tasks only (ranked, bugs, blocked, epics); of the closed ones it needs the dependencies that lead
 * through them (leverage walks every edge an open task's waiting reaches; a closed task there counts as
 * much as a missing one: not at all), the parent links a subtree walk passes through (a scope reaches an
 * open task, an epic's count a done one, through a closed parent), the number of done tasks under each
 * open epic, and the title, status and blockers of the few it names by id (the current task, a
 * handoff's suggestions). So its graph holds the open tasks, the closed tasks with a parent on the parent
 * chains of open and done tasks, and the dependency rows open tasks reach; the done tasks are counted
 * per parent by SQLite's triggers (`task_done_children`); a named task outside the graph is read by
 * id, and so is the title of each task the briefing shows (the graph reads none). The answers are those
 * of the graph of every task (test/unit/engine/tasks/briefingTasksOf.test.ts compares the two on
 * random stores).
 */
import type { Database } from 'sql.js';
import type { EngineContext } from '../context';
import { isOpen, TaskGraph, type TaskNode } from './taskGraph';
import { openTasksFile, readOpenTasks, savedMark, writeOpenTasks, type OpenTaskSources } from './openTasksFile';
import { currentTaskGraph, dependencyRows, taskNodes } from './taskGraphOf';

/** An open epic's progress over its whole subtree: done and total (cancelled ones left out), and whether any is done or active. */
interface EpicProgress {
	done: number;
	total: number;
	started: boolean;
}

/** The tasks as a briefing reads them. */
export interface BriefingTasks {
	/**
	 * Holds every open task and every dependency an open task's waiting reaches: ranking, leverage,
	 * scopes and the open lists. Its nodes' titles may be '' (not read): a title shown is `title(id)`.
	 */
	readonly graph: TaskGraph;
	/** A task's title and status by id, open or not; undefined when there is no such task. */
	task(id: string): Pick<TaskNode, 'id' | 'title' | 'status'> | undefined;
	/** The title of a task of the graph. */
	title(id: string): string;
	/** The open tasks `id` waits on, in table order, whether `id` itself is open or not. */
	openBlockersOf(id: string): string[];
	/** Each open epic's progress (no entry: nothing under it). */
	epicProgress(): ReadonlyMap<string, EpicProgress>;
}

const openList = `('pending', 'active', 'blocked')`;

/**
 * The graph of every task when one is already built for this data (a session start builds it for its
 * scope checks: no second graph for one briefing), else the graph of the open tasks, kept until a task
 * table changes.
 */
export function briefingTasksOf(ctx: EngineContext): BriefingTasks {
	const whole = currentTaskGraph(ctx);
	return whole ? wholeGraphTasks(whole) : openTasksOf(ctx);
}

/** The tasks as the graph of every task answers: what the briefing read before it had its own graph. */
export function wholeGraphTasks(graph: TaskGraph): BriefingTasks {
	return {
		graph,
		task: (id) => graph.byId.get(id),
		title: (id) => graph.byId.get(id)?.title ?? '',
		openBlockersOf: (id) => graph.openBlockersOf(id),
		epicProgress: () => graph.memoize('epicProgress', () => progressOverGraph(graph)),
	};
}

/** The open tasks' graph (see the file's comment), rebuilt only when a tasks table changed (leverage carried over). */
export function openTasksOf(ctx: EngineContext): BriefingTasks {
	return ctx.derived('openTaskGraph', taskTables, (_db, previous: OpenTasks | undefined) => {
		const sqlite = ctx.store.sqlite;
		const { nodes, deps, doneUnder } = savedSources(ctx) ?? sourcesFromStore(sqlite);
		const graph = new TaskGraph(nodes, deps, previous?.graph);
		const titles = new Map<string, string>();
		const title = (id: string): string => {
			let known = titles.get(id);
			if (known === undefined) {
				known = taskById(sqlite, id)?.title ?? '';
				titles.set(id, known);
			}
			return known;
		};
		return {
			graph,
			task: (id) => {
				const node = graph.byId.get(id);
				return node ? { id, title: title(id), status: node.status } : taskById(sqlite, id);
			},
			title,
			openBlockersOf: (id) => (isOpenNode(graph, id) ? graph.openBlockersOf(id) : blockersById(sqlite, graph, id)),
			epicProgress: () => graph.memoize('epicProgress', () => progressFromCounts(graph, doneUnder)),
			doneUnder,
		};
	});
}

/** The open tasks' graph as `openTasksOf` keeps it: with the done counts it was built from, to save them. */
interface OpenTasks extends BriefingTasks {
	readonly doneUnder: ReadonlyMap<string, number>;
}

const taskTables = ['tasks', 'task_dependencies'];

/** What the open tasks' graph is built from, read from the store. */
function sourcesFromStore(sqlite: Database): OpenTaskSources {
	const doneUnder = doneChildCounts(sqlite);
	const mostlyOpen = mostTasksOpen(sqlite);
	return { nodes: openTasksAndAncestors(sqlite, [...doneUnder.keys()], mostlyOpen), deps: briefingDependencies(sqlite, mostlyOpen), doneUnder };
}

/** The sources another process saved for the tables as they are now, if any (openTasksFile.ts). */
function savedSources(ctx: EngineContext): OpenTaskSources | undefined {
	const mark = ctx.store.contentMark(taskTables);
	if (mark === undefined) return undefined;
	const read = readOpenTasks(openTasksFile(ctx.workspaceRoot), mark);
	if ('problem' in read) {
		if (read.problem !== 'missing' && read.problem !== 'stale') ctx.log.info(`the open tasks' cache was not used (${read.problem}): read from the store`);
		return undefined;
	}
	return read;
}

/** Open tasks from which a saved copy of their graph is worth its file: below, the store reads them in a few ms. */
export const saveOpenTasksFrom = 2_000;

/**
 * Saves the open tasks' graph for the next process (openTasksFile.ts) when there are enough of them
 * (`from`) and the file does not already hold them as they are now; builds the graph if this process
 * has none current. Run while nothing else needs the process (the daemon when idle). Returns whether it wrote.
 */
export function saveOpenTasks(ctx: EngineContext, from = saveOpenTasksFrom): boolean {
	const mark = ctx.store.contentMark(taskTables);
	if (mark === undefined || openTaskCount(ctx.store.sqlite) < from) return false;
	const file = openTasksFile(ctx.workspaceRoot);
	if (savedMarks.get(ctx) === mark || savedMark(file) === mark) {
		savedMarks.set(ctx, mark);
		return false;
	}
	const tasks = openTasksOf(ctx) as OpenTasks;
	const wrote = writeOpenTasks(file, mark, { nodes: [...tasks.graph.byId.values()], deps: tasks.graph.dependencies(), doneUnder: tasks.doneUnder });
	savedMarks.set(ctx, mark);
	return wrote;
}

/** The mark each engine last saved or found saved: the file is not read again for it. */
const savedMarks = new WeakMap<EngineContext, string>();

function openTaskCount(sqlite: Database): number {
	const counts = sqlite.exec(`SELECT coalesce(sum(task_count), 0) FROM task_status_counts WHERE status IN ${openList}`);
	return Number(counts[0]?.values[0]?.[0] ?? 0);
}

/**
 * How many done tasks each task has as children: `task_done_children`, kept by triggers (at 116,000
 * done tasks, counting them from the status index read ~5 MB of it cold, 25-95 ms).
 */
function doneChildCounts(sqlite: Database): Map<string, number> {
	const out = new Map<string, number>();
	for (const result of sqlite.exec('SELECT parent_id, done_count FROM task_done_children')) {
		for (const row of result.values) {
			out.set(row[0] as string, row[1] as number);
		}
	}
	return out;
}

/**
 * Whether the open tasks are a large share of all (a quarter or more), from `task_status_counts`
 * (kept by triggers). Then reading them is a scan of the table rather than a lookup per row from the index
 * (at 84,000 open tasks of 200,000: a quarter less of that read), and their dependencies are every row (below).
 */
function mostTasksOpen(sqlite: Database): boolean {
	const counts = sqlite.exec(
		`SELECT coalesce(sum(task_count) FILTER (WHERE status IN ${openList}), 0), coalesce(sum(task_count), 0) FROM task_status_counts`,
	);
	const [open, all] = (counts[0]?.values[0] ?? [0, 0]) as [number, number];
	return open * 4 >= all;
}

/**
 * Every open task in table order (the order the lists keep among equals), then the closed tasks on
 * the parent chains of the open tasks (a scope's subtree reaches them) and of the done ones (an open
 * epic above counts them), level by level. Only closed tasks with a parent are ever passed through: a
 * subtree walk starts at its root whether or not the graph holds it (so a finished epic is not read).
 * The open tasks' closed parents are found by SQLite from the (status, parent_id) index.
 */
function openTasksAndAncestors(sqlite: Database, doneParents: readonly string[], scan: boolean): TaskNode[] {
	const nodes = taskNodes(sqlite, `status IN ${openList}`, [], { scan, untitled: true });
	const closed = new Set<string>();
	const closedWithParent = `status NOT IN ${openList} AND parent_id IS NOT NULL AND id IN`;
	let level = [
		...taskNodes(sqlite, `${closedWithParent} (SELECT parent_id FROM tasks WHERE status IN ${openList} AND parent_id IS NOT NULL)`, [], { untitled: true }),
		...taskNodes(sqlite, `${closedWithParent} (SELECT value FROM json_each(?))`, [JSON.stringify(doneParents)], { untitled: true }),
	];
	while (level.length > 0) {
		const parents: string[] = [];
		for (const node of level) {
			if (!closed.has(node.id)) {
				closed.add(node.id);
				nodes.push(node);
				parents.push(node.parentId as string);
			}
		}
		level =
			parents.length > 0 ? taskNodes(sqlite, `${closedWithParent} (SELECT value FROM json_each(?))`, [JSON.stringify(parents)], { untitled: true }) : [];
	}
	return nodes;
}

/**
 * The dependencies a briefing walks: every row, or, when most tasks are closed, only those of the tasks
 * an open task reaches by waiting. Leverage counts open tasks over such paths and an open task's
 * blockers are its own rows, so a row of a task no open task waits on changes no answer (a closed
 * current task's blockers are read by id). Reaching them is a recursive walk of the primary key, dearer
 * per row than reading the table, so it is taken only when it skips most of it.
 */
function briefingDependencies(sqlite: Database, mostlyOpen: boolean): { taskId: string; dependsOnId: string }[] {
	if (mostlyOpen) {
		return dependencyRows(sqlite);
	}
	return dependencyRows(
		sqlite,
		`SELECT id FROM tasks WHERE status IN ${openList}
		UNION SELECT d.depends_on_id FROM task_dependencies d JOIN reach ON d.task_id = reach.id`,
	);
}

function isOpenNode(graph: TaskGraph, id: string): boolean {
	const node = graph.byId.get(id);
	return node !== undefined && isOpen(node);
}

/** The open tasks a task outside the open ones waits on, from its own dependency rows (table order, as the whole graph keeps them). */
function blockersById(sqlite: Database, graph: TaskGraph, id: string): string[] {
	const out: string[] = [];
	for (const result of sqlite.exec('SELECT depends_on_id FROM task_dependencies WHERE task_id = ? ORDER BY rowid', [id])) {
		for (const row of result.values) {
			if (isOpenNode(graph, row[0] as string)) {
				out.push(row[0] as string);
			}
		}
	}
	return out;
}

function taskById(sqlite: Database, id: string): Pick<TaskNode, 'id' | 'title' | 'status'> | undefined {
	const row = sqlite.exec('SELECT id, title, status FROM tasks WHERE id = ?', [id])[0]?.values[0];
	return row ? { id: row[0] as string, title: row[1] as string, status: row[2] as TaskNode['status'] } : undefined;
}

/**
 * Each open epic's progress from the open graph: a done task under the epic is a child of a task in
 * the epic's subtree (the graph holds that parent and its chain), so it is counted through its parent's
 * done count; open tasks are counted as they are met; cancelled ones count for nothing.
 */
function progressFromCounts(graph: TaskGraph, doneUnder: ReadonlyMap<string, number>): Map<string, EpicProgress> {
	return openEpicsProgress(graph, (progress, id, epicId) => {
		const done = doneUnder.get(id) ?? 0;
		progress.done += done;
		progress.total += done;
		progress.started ||= done > 0;
		const task = graph.byId.get(id);
		if (id !== epicId && task && isOpen(task)) {
			progress.total++;
			progress.started ||= task.status === 'active';
		}
	});
}

/** The same counts over a graph of every task. */
function progressOverGraph(graph: TaskGraph): Map<string, EpicProgress> {
	return openEpicsProgress(graph, (progress, id, epicId) => {
		const task = graph.byId.get(id);
		if (!task || id === epicId || task.status === 'cancelled') {
			return;
		}
		progress.total++;
		if (task.status === 'done') {
			progress.done++;
		}
		progress.started ||= task.status === 'done' || task.status === 'active';
	});
}

/** Each open epic of the graph with the progress `count` makes of every task in its subtree (the epic's own id included). */
function openEpicsProgress(graph: TaskGraph, count: (progress: EpicProgress, id: string, epicId: string) => void): Map<string, EpicProgress> {
	const out = new Map<string, EpicProgress>();
	for (const epic of graph.byId.values()) {
		if (epic.type !== 'epic' || !isOpen(epic)) {
			continue;
		}
		const progress: EpicProgress = { done: 0, total: 0, started: false };
		for (const id of graph.subtree(epic.id)) {
			count(progress, id, epic.id);
		}
		out.set(epic.id, progress);
	}
	return out;
}
