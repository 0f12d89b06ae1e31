/**
 * A briefing reads a graph of the open tasks (and of the closed ones only their parent links, done
 * counts and, by id, a named task's title and status) instead of the graph of every task. Its answer
 * must be exactly the one the graph of every task gives: compared here field by field on many random
 * stores (closed and cancelled tasks, closed blockers and parents of open tasks, epics with closed
 * children and grandchildren, parent cycles, rows inserted out of id order, most tasks closed or not),
 * for every kind of scope, with current tasks and handoff suggestions that are open, closed or missing.
 * The stores follow one another in one engine, so the open graph is also updated from the previous one
 * (carried leverage).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EngineContext } from '../../../../src/engine/context';
import type { Briefing, HandoffData } from '../../../../src/engine/storage/jsonShapes';
import type { JournalStore } from '../../../../src/engine/storage/journalStore';
import { computeBriefing, type BriefingSources } from '../../../../src/engine/sessions/briefing';
import { parseScope } from '../../../../src/engine/sessions/scope';
import { openTasksOf, saveOpenTasks, wholeGraphTasks } from '../../../../src/engine/tasks/briefingTasksOf';
import { openTasksFile, readOpenTasks } from '../../../../src/engine/tasks/openTasksFile';
import { taskGraphOf } from '../../../../src/engine/tasks/taskGraphOf';
import { openTestEngine } from '../../helpers';
import { pick, rng } from './randomGraphs';
import { handoffData } from '../../../../src/engine/interop/sessionRows';

const openStatuses = ['pending', 'active', 'blocked'] as const;
const closedStatuses = ['done', 'done', 'cancelled'] as const;
const types = ['epic', 'task', 'task', 'subtask', 'bug'] as const;
const priorities = ['low', 'medium', 'high', 'critical'] as const;

/** Echoes what the briefing hands project memory (the current task's title), so that is compared too. */
const sources: BriefingSources = {
	memory: (_db, input) => ({ entries: [], currentTitle: input.currentTask?.title ?? null }) as unknown as Briefing['memory'],
	laterWork: () => null,
};

interface Store {
	ids: string[];
	epics: string[];
	/** Fewer than a quarter of the tasks open: the briefing then reads only the dependencies open tasks reach. */
	mostlyClosed: boolean;
}

/**
 * Replaces every task and dependency with a random set; rows go in shuffled, so table order is not id
 * order. Half the stores have most of their tasks closed.
 */
async function randomStore(store: JournalStore, rand: () => number): Promise<Store> {
	const n = 20 + Math.floor(rand() * 100);
	const ids = Array.from({ length: n }, (_, i) => `T${i + 1}`);
	const order = [...ids.keys()].sort(() => rand() - 0.5);
	const typeOf = ids.map(() => pick(rand, types));
	const epics = ids.filter((_, i) => typeOf[i] === 'epic');
	const bigSeqs = rand() < 0.2;
	const openShare = rand() < 0.5 ? 0.1 : 0.5;
	const statusOf = ids.map(() => (rand() < openShare ? pick(rand, openStatuses) : pick(rand, closedStatuses)));
	await store.write(() => {
		store.execCaptured('DELETE FROM task_dependencies');
		store.execCaptured('DELETE FROM tasks');
		for (const i of order) {
			const r = rand();
			// Mostly under an epic, some under any task (a cycle now and then), some under a task that does not exist.
			const parent = r < 0.5 && epics.length > 0 ? pick(rand, epics) : r < 0.75 ? pick(rand, ids) : r < 0.8 ? 'T9999' : null;
			store.execCaptured(
				'INSERT INTO tasks (id, seq, title, type, status, priority, parent_id, phase, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
				[
					ids[i] as string,
					bigSeqs ? 2 ** 33 + i : i + 1,
					`task ${i + 1}`,
					typeOf[i] as string,
					statusOf[i] as string,
					pick(rand, priorities),
					parent === ids[i] ? null : parent,
					pick(rand, ['a', 'b', null]),
					'2026-01-01T00:00:00.000Z',
					'2026-01-01T00:00:00.000Z',
				],
			);
		}
		const deps = new Set<string>();
		for (let k = 0; k < n; k++) {
			const [a, b] = [pick(rand, ids), pick(rand, ids)];
			if (a !== b && !deps.has(`${a} ${b}`)) {
				deps.add(`${a} ${b}`);
				store.execCaptured('INSERT INTO task_dependencies (task_id, depends_on_id) VALUES (?, ?)', [a, b]);
			}
		}
	});
	return { ids, epics, mostlyClosed: statusOf.filter((s) => s === 'pending' || s === 'active' || s === 'blocked').length * 4 < n };
}

function randomScopes(rand: () => number, { ids, epics }: Store): string[] {
	const root = () => (rand() < 0.1 ? 'T9999' : pick(rand, ids));
	const epic = () => (epics.length > 0 ? pick(rand, epics) : root());
	const custom = [...new Set(Array.from({ length: 1 + Math.floor(rand() * 6) }, root))].join(',');
	return [
		'global',
		`epic:${epic()}`,
		`subtree:${root()}`,
		`taskGroup:${root()}`,
		`task:${root()}`,
		`epicPhase:${epic()}:${pick(rand, ['a', 'b'])}`,
		`custom:${custom}`,
	];
}

function randomHandoff(rand: () => number, ids: readonly string[]): HandoffData | null {
	if (rand() < 0.2) {
		return null;
	}
	const ref = () => {
		const id = rand() < 0.15 ? 'T8888' : pick(rand, ids);
		return { id, title: `as written: ${id}` };
	};
	return handoffData({ nextSuggested: Array.from({ length: Math.floor(rand() * 6) }, ref) });
}

/** The briefing from the graph of every task and from the open tasks' graph, for one scope. */
async function bothBriefings(ctx: EngineContext, scope: string, currentTask: string | null, handoff: HandoffData | null): Promise<[Briefing, Briefing]> {
	return ctx.store.read((db) => {
		const input = { scope: parseScope(scope), sessionId: null, focus: null, currentTask, predecessor: null, handoff, warnings: [] };
		const whole = computeBriefing(ctx, db, sources, input, wholeGraphTasks(taskGraphOf(ctx)));
		const open = computeBriefing(ctx, db, sources, input, openTasksOf(ctx));
		return [whole, open];
	});
}

void describe('the briefing from the open tasks', () => {
	void it('answers exactly as the graph of every task, field by field, on random stores', async (t) => {
		const { engine } = await openTestEngine(t, { config: { briefingNextTasks: 8 } });
		const seen = {
			mostlyClosed: 0,
			mostlyOpen: 0,
			next: 0,
			epicsWithDone: 0,
			closedCurrent: 0,
			closedCurrentBlocked: 0,
			staleSuggestions: 0,
			scopedEntries: 0,
		};
		for (let seed = 1; seed <= 60; seed++) {
			const rand = rng(seed * 7919);
			const store = await randomStore(engine.store, rand);
			seen[store.mostlyClosed ? 'mostlyClosed' : 'mostlyOpen']++;
			for (const scope of randomScopes(rand, store)) {
				const current = rand() < 0.2 ? null : rand() < 0.1 ? 'T7777' : pick(rand, store.ids);
				const [whole, open] = await bothBriefings(engine.ctx, scope, current, randomHandoff(rand, store.ids));
				for (const field of Object.keys(whole) as (keyof Briefing)[]) {
					assert.deepEqual(open[field], whole[field], `seed ${seed}, scope ${scope}, current ${current}: ${field}`);
				}
				assert.deepEqual(Object.keys(open).sort(), Object.keys(whole).sort());
				seen.next += whole.nextTasks.length;
				seen.epicsWithDone += whole.activeEpics.filter((e) => e.done > 0).length;
				const closed = whole.currentTask && (whole.currentTask.status === 'done' || whole.currentTask.status === 'cancelled');
				seen.closedCurrent += closed ? 1 : 0;
				seen.closedCurrentBlocked += closed && whole.currentTask?.blockedBy.length ? 1 : 0;
				seen.staleSuggestions += whole.suggestions.filter((s) => s.stale).length;
				seen.scopedEntries +=
					scope === 'global' ? 0 : whole.nextTasks.length + whole.openBugs.length + whole.blockedTasks.length + whole.activeEpics.length;
			}
		}
		// The comparison is only worth what it compared: every case the file's comment names occurred.
		for (const [name, count] of Object.entries(seen)) {
			assert.ok(count > 10, `${name}: ${count}`);
		}
	});
});

void describe('the briefing from the open tasks a previous process saved', () => {
	void it('answers exactly as the graph of every task, on random stores read back from the file', async (t) => {
		const { engine, root } = await openTestEngine(t, { config: { briefingNextTasks: 8 } });
		// The next process: the same store, with no graph of its own.
		const { engine: next, log } = await openTestEngine(t, { root, config: { briefingNextTasks: 8 } });
		const file = openTasksFile(root);
		let compared = 0;
		for (let seed = 1; seed <= 25; seed++) {
			const rand = rng(seed * 104729);
			const store = await randomStore(engine.store, rand);
			await engine.store.read(() => undefined);
			assert.equal(saveOpenTasks(engine.ctx, 0), true, `seed ${seed}: saved`);
			await next.store.refresh();
			const mark = next.store.contentMark(['tasks', 'task_dependencies']);
			assert.equal(mark, engine.store.contentMark(['tasks', 'task_dependencies']), `seed ${seed}: both processes name the tables alike`);
			const saved = readOpenTasks(file, mark as string);
			assert.ok(!('problem' in saved), `seed ${seed}: the file is read back (${'problem' in saved ? saved.problem : ''})`);
			for (const scope of randomScopes(rand, store)) {
				const current = rand() < 0.2 ? null : pick(rand, store.ids);
				const [whole, open] = await bothBriefings(next.ctx, scope, current, randomHandoff(rand, store.ids));
				assert.deepEqual(open, whole, `seed ${seed}, scope ${scope}`);
				compared++;
			}
		}
		assert.equal(compared, 25 * 7);
		assert.deepEqual(log.lines, []);
	});
});
