/** The history benchSessionStart starts sessions in: tasks and ended sessions in scope chains, written straight into the store. */
import type { JournalStore } from '../src/engine/storage/journalStore';

/**
 * `taskCount` tasks (one epic in 40) and `sessionCount` ended sessions chained in up to 500 epic
 * scopes, each with a handoff: the scopes, in the order sessions were spread over them.
 */
export async function seedSessionHistory(store: JournalStore, sessionCount: number, taskCount: number): Promise<string[]> {
	const epics = Math.max(1, Math.floor(taskCount / 40));
	await seedTasks(store, taskCount, epics);
	const scopes = Array.from({ length: Math.min(500, epics) }, (_, i) => `epic:T${i + 1}`);
	await seedSessions(store, sessionCount, scopes);
	return scopes;
}

/** `taskCount` tasks: the first `epics` are epics, the rest their children, with dependencies, bugs, done and blocked ones. */
async function seedTasks(store: JournalStore, taskCount: number, epics: number): Promise<void> {
	await store.write(() => {
		const now = new Date().toISOString();
		for (let i = 1; i <= taskCount; i++) {
			const isEpic = i <= epics;
			const parent = isEpic ? null : `T${1 + (i % epics)}`;
			const status = i % 7 === 0 ? 'done' : i % 11 === 0 ? 'blocked' : 'pending';
			store.execCaptured(
				'INSERT INTO tasks (id, seq, title, type, status, priority, parent_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
				[
					`T${i}`,
					i,
					`Task number ${i}`,
					isEpic ? 'epic' : i % 13 === 0 ? 'bug' : 'task',
					status,
					['low', 'medium', 'high', 'critical'][i % 4] as string,
					parent,
					now,
					now,
				],
			);
			if (!isEpic && i > epics + 3 && i % 3 === 0) {
				store.execCaptured('INSERT INTO task_dependencies (task_id, depends_on_id) VALUES (?, ?)', [`T${i}`, `T${i - 3}`]);
			}
		}
	});
}

/** `sessionCount` ended sessions, one a minute, in chains per scope, each with a handoff. */
async function seedSessions(store: JournalStore, sessionCount: number, scopes: string[]): Promise<void> {
	await store.write(() => {
		let when = Date.now() - sessionCount * 60_000;
		const previous = new Map<string, string>();
		for (let i = 0; i < sessionCount; i++) {
			const scope = scopes[i % scopes.length] as string;
			const id = `ses_${String(20200101000000 + i)}_${(i % 0xffffff).toString(16).padStart(6, '0')}`;
			const started = new Date(when).toISOString();
			const ended = new Date(when + 30_000).toISOString();
			when += 60_000;
			const prev = previous.get(scope) ?? null;
			store.execCaptured(
				`INSERT INTO sessions (id, name, status, scope_json, scope_key, previous_session_id, stats_json, resume_count, started_at, last_activity, ended_at, updated_at)
				 VALUES (?, ?, 'ended', ?, ?, ?, ?, 0, ?, ?, ?, ?)`,
				[
					id,
					`Session ${i}`,
					JSON.stringify({ type: 'epic', rootTaskId: scope.slice(5) }),
					scope,
					prev,
					JSON.stringify({ tasksCompleted: 0, tasksCreated: 0, focusChanges: 0, suspendCount: 0, resumeCount: 0, decisionsRecorded: 0 }),
					started,
					ended,
					ended,
					ended,
				],
			);
			if (prev) {
				store.execCaptured('UPDATE sessions SET next_session_id = ? WHERE id = ?', [id, prev]);
			}
			store.execCaptured('INSERT INTO handoffs (session_id, handoff_json, created_at) VALUES (?, ?, ?)', [
				id,
				JSON.stringify({
					lastTask: null,
					tasksCompleted: [],
					tasksCreated: [],
					decisionsRecorded: 0,
					decisions: [],
					nextSuggested: [{ id: 'T100', title: 'x' }],
					openBlockers: [],
					openBugs: [],
					note: `note ${i}`,
					nextAction: null,
				}),
				ended,
			]);
			previous.set(scope, id);
		}
	});
}
