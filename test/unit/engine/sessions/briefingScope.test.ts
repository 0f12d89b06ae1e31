/**
 * A briefing in a narrow scope walks the scope's tasks by their position in the graph's orders
 * instead of filtering the whole ranked list. Its lists must be exactly the whole lists filtered by
 * the scope: checked here against that filter, computed from a graph built independently from
 * whole task rows, for every kind of scope over a store where some scopes are larger than a list.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { taskDependencies, tasks } from '../../../../src/engine/storage/schema';
import { parseScope } from '../../../../src/engine/sessions/scope';
import { isOpen, TaskGraph } from '../../../../src/engine/tasks/taskGraph';
import { scopeTaskIds } from '../../../../src/engine/tasks/scopeTaskIds';
import { openTestEngine } from '../../helpers';

const priorityOrder = { critical: 0, high: 1, medium: 2, low: 3 } as const;

void describe('briefing in a scope', () => {
	void it('lists exactly the whole ranked, bug, blocked and epic lists filtered by the scope, in their order', async (t) => {
		const { engine } = await openTestEngine(t, { config: { maxConcurrentSessions: 100, briefingNextTasks: 7 } });
		const store = engine.store;
		const taskCount = 1_200;
		const epics = 8;
		await store.write(() => {
			for (let i = 1; i <= taskCount; i++) {
				const isEpic = i <= epics;
				store.execCaptured(
					'INSERT INTO tasks (id, seq, title, type, status, priority, parent_id, phase, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
					[
						`T${i}`,
						i,
						`Task ${i}`,
						isEpic ? 'epic' : i % 5 === 0 ? 'bug' : 'task',
						i % 7 === 0 ? 'done' : i % 11 === 0 ? 'blocked' : i % 13 === 0 ? 'active' : 'pending',
						(['low', 'medium', 'high', 'critical'] as const)[(i * 7) % 4] as string,
						// Epic 1 holds half the tasks (a scope larger than the lists), the others share the rest.
						isEpic ? null : i % 2 === 0 ? 'T1' : `T${2 + (i % (epics - 1))}`,
						i % 3 === 0 ? 'build' : null,
						'2026-01-01T00:00:00.000Z',
						'2026-01-01T00:00:00.000Z',
					],
				);
				if (!isEpic && i > epics + 4 && i % 3 === 0) {
					store.execCaptured('INSERT INTO task_dependencies (task_id, depends_on_id) VALUES (?, ?)', [`T${i}`, `T${i - 4}`]);
				}
			}
		});
		const graph = await store.read((db) => new TaskGraph(db.select().from(tasks).all(), db.select().from(taskDependencies).all()));
		const bugs = [...graph.byId.values()]
			.filter((task) => task.type === 'bug' && isOpen(task))
			.sort((a, b) => priorityOrder[a.priority] - priorityOrder[b.priority] || a.seq - b.seq);
		const blocked = [...graph.byId.values()].filter((task) => isOpen(task) && (task.status === 'blocked' || graph.openBlockersOf(task.id).length > 0));
		const allEpics = (await engine.briefings.briefing({ scope: 'global' })).activeEpics;
		// The global list holds every active epic (fewer than its limit of 10): the reference for the others.
		assert.ok(allEpics.length > 3 && allEpics.length < 10, `some epics are active (${allEpics.length})`);
		const scopes = ['epic:T1', 'epic:T2', 'epic:T7', 'epicPhase:T3:build', 'task:T40', 'task:T2', 'custom:T5,T6,T9,T12,T45,T60', 'global'];
		let compared = 0;
		for (const key of scopes) {
			const scope = parseScope(key);
			const set = scopeTaskIds(scope, graph);
			const inScope = (id: string) => !set || set.has(id);
			const briefing = await engine.briefings.briefing({ scope: key });
			const ids = (list: readonly { id: string }[]) => list.map((entry) => entry.id);
			assert.deepEqual(
				ids(briefing.nextTasks),
				ids(
					graph
						.rankedActionable()
						.filter((task) => inScope(task.id))
						.slice(0, 7),
				),
				`next tasks of ${key}`,
			);
			assert.deepEqual(ids(briefing.openBugs), ids(bugs.filter((task) => inScope(task.id)).slice(0, 10)), `open bugs of ${key}`);
			assert.deepEqual(ids(briefing.blockedTasks), ids(blocked.filter((task) => inScope(task.id)).slice(0, 10)), `blocked tasks of ${key}`);
			if (key !== 'global') {
				assert.deepEqual(ids(briefing.activeEpics), ids(allEpics.filter((epic) => inScope(epic.id))), `active epics of ${key}`);
			}
			compared += briefing.nextTasks.length + briefing.openBugs.length + briefing.blockedTasks.length;
		}
		assert.ok(compared > 60, `the compared lists are not empty (${compared} entries)`);
		// A started session's briefing leaves out the task it works on.
		const started = await engine.sessions.start({ name: 'on T40', scope: 'task:T2', currentTask: 'T40', actor: 'test' });
		assert.ok(!started.briefing.nextTasks.some((task) => task.id === 'T40'));
		const set = scopeTaskIds(parseScope('task:T2'), graph);
		assert.deepEqual(
			started.briefing.nextTasks.map((task) => task.id),
			graph
				.rankedActionable()
				.filter((task) => set?.has(task.id) && task.id !== 'T40')
				.slice(0, 7)
				.map((task) => task.id),
		);
	});
});
