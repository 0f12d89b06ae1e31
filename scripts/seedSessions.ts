/**
 * A workspace with many sessions, for the benchmarks and the editor's scale suite: `count` sessions
 * in 250 scopes, each scope a chain (previous/next); the last session of the first four scopes is
 * active (a fifth may start: the default limit is five at once), every other session ended.
 *   node --import tsx scripts/seedSessions.ts <workspace> <count>
 */
import { Engine } from '../src/engine/engine';
import { silentLogger } from '../src/engine/ports';

export const seededScopes = 250;
export const seededActive = 4;

/** Creates the workspace's store (if needed) and writes `count` sessions in one write. */
export async function seedSessionChains(root: string, count: number): Promise<void> {
	const engine = await Engine.open({ workspaceRoot: root, log: silentLogger, create: true, git: { read: async () => null } });
	try {
		const store = engine.store;
		await store.write(() => {
			const last = new Map<number, string>();
			for (let i = 0; i < count; i++) {
				const scope = i % seededScopes;
				const id = `ses_${String(20200101000000 + i)}_${(i % 0xffffff).toString(16).padStart(6, '0')}`;
				const at = new Date(1_700_000_000_000 + i * 60_000).toISOString();
				const status = i >= count - seededScopes && scope < seededActive ? 'active' : 'ended';
				store.execCaptured(
					`INSERT INTO sessions (id, name, status, scope_json, scope_key, previous_session_id, stats_json, resume_count, started_at, last_activity, ended_at, updated_at)
					 VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?)`,
					[
						id,
						`Session ${i} on scope ${scope}`,
						status,
						JSON.stringify({ type: 'custom', rootTaskId: `S${scope}` }),
						`custom:S${scope}`,
						last.get(scope) ?? null,
						JSON.stringify({ tasksCompleted: 1, tasksCreated: 2, focusChanges: 1, suspendCount: 0, resumeCount: 0, decisionsRecorded: 1 }),
						at,
						at,
						status === 'ended' ? at : null,
						at,
					],
				);
				const prev = last.get(scope);
				if (prev) {
					store.execCaptured('UPDATE sessions SET next_session_id = ? WHERE id = ?', [id, prev]);
				}
				last.set(scope, id);
			}
		});
		await store.compact();
	} finally {
		engine.close();
	}
}

if (require.main === module) {
	const [root, count] = process.argv.slice(2);
	if (!root || !Number.isInteger(Number(count)) || Number(count) < 1) {
		process.stderr.write('usage: node --import tsx scripts/seedSessions.ts <workspace> <count>\n');
		process.exit(2);
	}
	void seedSessionChains(root, Number(count)).then(
		() => process.stdout.write(`${count} sessions in ${seededScopes} scopes\n`),
		(error: unknown) => {
			process.stderr.write(`seeding failed: ${(error as Error).message}\n`);
			process.exit(1);
		},
	);
}
