/**
 * The briefing, the session tree, the status and the task list read only the columns they show: the
 * task graph keeps no descriptions or timestamps, the tree reads only its scopes' root titles. Their
 * answers must not change. On a generated store of 10,000 sessions and 4,000 tasks, each answer is
 * compared byte for byte (as JSON) with the previous code's: a second engine on the same files whose
 * graph is built from whole task rows, the tree built from that graph's titles, the list from it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { asc } from 'drizzle-orm';
import { Engine } from '../../../../src/engine/engine';
import type { EngineContext } from '../../../../src/engine/context';
import type { BatonDb } from '../../../../src/engine/storage/journalStore';
import { sessions, taskDependencies, tasks } from '../../../../src/engine/storage/schema';
import { chainOrder, scopeLabel, sessionRowColumns, type ScopeChains } from '../../../../src/engine/sessions/overview';
import type { SessionRow } from '../../../../src/engine/sessions/sessionShapes';
import { TaskGraph } from '../../../../src/engine/tasks/taskGraph';
import { FakeClock, MemoryLogger, noGit, openTestEngine } from '../../helpers';

const sessionCount = 10_000;
const taskCount = 4_000;

async function seed(engine: Engine): Promise<string[]> {
	const store = engine.store;
	const epics = taskCount / 40;
	await store.write(() => {
		for (let i = 1; i <= taskCount; i++) {
			const isEpic = i <= epics;
			store.execCaptured(
				'INSERT INTO tasks (id, seq, title, description, type, status, priority, parent_id, phase, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
				[
					`T${i}`,
					i,
					`Task number ${i}`,
					i % 5 === 0 ? `Details of ${i}: migrations and the cache` : null,
					isEpic ? 'epic' : i % 13 === 0 ? 'bug' : 'task',
					i % 7 === 0 ? 'done' : i % 11 === 0 ? 'blocked' : i % 17 === 0 ? 'active' : i % 19 === 0 ? 'cancelled' : 'pending',
					['low', 'medium', 'high', 'critical'][i % 4] as string,
					isEpic ? null : `T${1 + (i % epics)}`,
					i % 3 === 0 ? 'build' : null,
					'2026-01-01T00:00:00.000Z',
					'2026-01-01T00:00:00.000Z',
				],
			);
			if (!isEpic && i > epics + 5 && i % 3 === 0) {
				store.execCaptured('INSERT INTO task_dependencies (task_id, depends_on_id) VALUES (?, ?)', [`T${i}`, `T${i - 3}`]);
			}
			if (!isEpic && i > epics + 5 && i % 10 === 1) {
				store.execCaptured('INSERT INTO task_dependencies (task_id, depends_on_id) VALUES (?, ?)', [`T${i}`, `T${i - 5}`]);
			}
		}
	});
	const scopes = Array.from({ length: epics }, (_, i) => (i % 4 === 3 ? `epicPhase:T${i + 1}:build` : `epic:T${i + 1}`));
	scopes.push('global', 'task:T999', 'task:T424242');
	const actives: string[] = [];
	await store.write(() => {
		let when = Date.parse('2025-01-01T00:00:00.000Z');
		const previous = new Map<string, string>();
		for (let i = 0; i < sessionCount; i++) {
			const key = scopes[i % scopes.length] as string;
			const [type, root, phase] = key.split(':');
			const scope = type === 'global' ? { type: 'global' } : { type, rootTaskId: root, ...(phase ? { phase } : {}) };
			const id = `ses_${String(20250101000000 + i)}_${(i % 0xffffff).toString(16).padStart(6, '0')}`;
			const started = new Date(when).toISOString();
			const ended = new Date(when + 30_000).toISOString();
			when += 60_000;
			const active = i >= sessionCount - 3;
			const prev = previous.get(key) ?? null;
			store.execCaptured(
				`INSERT INTO sessions (id, name, status, scope_json, scope_key, previous_session_id, current_task, stats_json, resume_count, started_at, last_activity, ended_at, updated_at)
				 VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?)`,
				[
					id,
					`Session ${i}`,
					active ? 'active' : i % 97 === 0 ? 'archived' : 'ended',
					JSON.stringify(scope),
					key,
					prev,
					active ? `T${100 + (i % 50)}` : null,
					JSON.stringify({ tasksCompleted: 0, tasksCreated: 0, focusChanges: 0, suspendCount: 0, resumeCount: 0, decisionsRecorded: 0 }),
					started,
					ended,
					active ? null : ended,
					ended,
				],
			);
			if (prev) {
				store.execCaptured('UPDATE sessions SET next_session_id = ? WHERE id = ?', [id, prev]);
			}
			if (!active) {
				store.execCaptured('INSERT INTO handoffs (session_id, handoff_json, created_at) VALUES (?, ?, ?)', [
					id,
					JSON.stringify({
						lastTask: null,
						tasksCompleted: [],
						tasksCreated: [],
						decisionsRecorded: 1,
						decisions: [],
						nextSuggested: [{ id: `T${200 + (i % 300)}`, title: 'as it was' }],
						openBlockers: [],
						openBugs: [],
						note: `note ${i}`,
						nextAction: null,
					}),
					ended,
				]);
				store.execCaptured('INSERT INTO decisions (id, session_id, kind, text, created_at) VALUES (?, ?, ?, ?, ?)', [
					`dec_${i}`,
					id,
					'decision',
					`decided ${i}`,
					ended,
				]);
			}
			previous.set(key, id);
			if (active) {
				actives.push(id);
			}
		}
	});
	await engine.memory.record({ text: 'the cache needs migrations to run first', kind: 'gotcha', actor: 'test' });
	return [...actives, ...scopes.slice(0, 12)];
}

/** The graph as the previous code built it: every column of every task. */
function wholeRowGraph(ctx: EngineContext): TaskGraph {
	return ctx.derived(
		'taskGraph',
		['tasks', 'task_dependencies'],
		(db) => new TaskGraph(db.select().from(tasks).all(), db.select().from(taskDependencies).all()),
	);
}

/** The tree as the previous code built it: labels from the whole-row graph. */
function previousOverview(ctx: EngineContext, db: BatonDb): ScopeChains[] {
	const all: SessionRow[] = db.select(sessionRowColumns).from(sessions).orderBy(asc(sessions.startedAt), asc(sessions.id)).all();
	const groups = new Map<string, SessionRow[]>();
	for (const session of all) {
		groups.set(session.scopeKey, [...(groups.get(session.scopeKey) ?? []), session]);
	}
	const graph = wholeRowGraph(ctx);
	const out: ScopeChains[] = [];
	for (const [scopeKey, members] of groups) {
		out.push({
			scopeKey,
			label: scopeLabel(scopeKey, (id) => graph.byId.get(id)?.title),
			sessions: chainOrder(members),
			lastActivity: members.reduce((latest, s) => (s.lastActivity > latest ? s.lastActivity : latest), ''),
		});
	}
	return out.sort((a, b) => (a.lastActivity < b.lastActivity ? 1 : a.lastActivity > b.lastActivity ? -1 : 0));
}

void describe('narrow reads', () => {
	void it('briefing, tree, status and task list answer byte for byte as the whole-table code did, at 10,000 sessions', async (t) => {
		const clock = new FakeClock();
		const { engine, root } = await openTestEngine(t, { clock, config: { maxConcurrentSessions: 100 } });
		const targets = await seed(engine);
		const previous = await Engine.open({ workspaceRoot: root, log: new MemoryLogger(), clock, git: noGit });
		t.after(() => previous.close());
		await previous.store.read(() => wholeRowGraph(previous.ctx));
		assert.ok(
			[...wholeRowGraph(previous.ctx).byId.values()].every((task) => 'description' in task),
			'the reference engine ranks over whole rows',
		);

		let compared = 0;
		for (const target of targets) {
			const input = target.startsWith('ses_') ? { sessionId: target } : { scope: target };
			const ours = JSON.stringify(await engine.briefings.briefing(input));
			const theirs = JSON.stringify(await previous.briefings.briefing(input));
			assert.equal(ours, theirs, `briefing of ${target}`);
			compared++;
		}
		assert.ok(compared >= 15);
		const sample = JSON.parse(JSON.stringify(await engine.briefings.briefing({ sessionId: targets[0] as string }))) as {
			nextTasks: unknown[];
			suggestions: unknown[];
			currentTask: unknown;
			lastSession: unknown;
		};
		assert.ok(
			sample.nextTasks.length > 0 && sample.suggestions.length > 0 && sample.currentTask && sample.lastSession,
			'the compared briefings are not empty',
		);

		const tree = await engine.briefings.overview();
		assert.equal(
			tree.reduce((n, group) => n + group.sessions.length, 0),
			sessionCount,
		);
		assert.equal(JSON.stringify(tree), JSON.stringify(await previous.store.read((db) => previousOverview(previous.ctx, db))), 'the session tree');

		assert.equal(
			JSON.stringify({ active: await engine.briefings.active(), counts: await engine.briefings.counts() }),
			JSON.stringify({ active: await previous.briefings.active(), counts: await previous.briefings.counts() }),
			'session status',
		);

		for (const filter of [{}, { status: 'pending' as const }, { type: 'bug' as const }, { status: 'done' as const, type: 'task' as const }]) {
			const ours = await engine.tasks.list(filter);
			const theirs = await previous.store.read(() => {
				const graph = wholeRowGraph(previous.ctx);
				return [...graph.byId.values()]
					.sort((a, b) => a.seq - b.seq)
					.filter((task) => (!filter.status || task.status === filter.status) && (!('type' in filter) || task.type === filter.type))
					.map((task) => ({ ...task, dependsOn: [...graph.dependenciesOf(task.id)] }));
			});
			assert.ok(ours.length > 0);
			assert.equal(JSON.stringify(ours), JSON.stringify(theirs), `task list ${JSON.stringify(filter)}`);
		}
	});
});
