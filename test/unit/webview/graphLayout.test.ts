import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SessionDto } from '../../../src/protocol/dto';
import { layoutGraph } from '../../../webview/graphLayout';

const base = Date.parse('2025-03-01T00:00:00.000Z');
const at = (minutes: number): string => new Date(base + minutes * 60_000).toISOString();

function session(id: string, scopeKey: string, start: number, end: number | null, links: { previous?: string; parent?: string } = {}): SessionDto {
	return {
		id,
		name: id,
		status: end === null ? 'active' : 'ended',
		scope: { type: 'global' },
		scopeKey,
		currentTask: null,
		taskStartedAt: null,
		agent: null,
		agentIdentifier: null,
		previousSessionId: links.previous ?? null,
		nextSessionId: null,
		parentSessionId: links.parent ?? null,
		handoffConsumedAt: null,
		handoffConsumedBy: null,
		debrief: null,
		focus: null,
		stats: { tasksCompleted: 0, tasksCreated: 0, focusChanges: 0, suspendCount: 0, resumeCount: 0, decisionsRecorded: 0 },
		resumeCount: 0,
		endNote: null,
		startedAt: at(start),
		lastActivity: at(end ?? start),
		suspendedAt: null,
		endedAt: end === null ? null : at(end),
		archivedAt: null,
		updatedAt: at(end ?? start),
	};
}

const sessions = [
	session('c', 'epic:T1', 200, 260, { previous: 'b' }),
	session('a', 'epic:T1', 0, 50),
	session('b', 'epic:T1', 100, 150, { previous: 'a' }),
	session('w1', 'task:T2', 110, 140, { parent: 'b' }),
	session('w2', 'task:T3', 115, null, { parent: 'b' }),
	session('late', 'global', 500, null),
];

void describe('chain graph layout', () => {
	void it('puts one lane per scope, in the order scopes first appear, and nodes in time order', () => {
		const layout = layoutGraph(sessions, { alignTime: false });
		assert.deepEqual(
			layout.lanes.map((l) => l.scopeKey),
			['epic:T1', 'task:T2', 'task:T3', 'global'],
		);
		assert.deepEqual(
			layout.lanes[0]?.nodes.map((n) => [n.session.id, n.column]),
			[
				['a', 0],
				['b', 1],
				['c', 2],
			],
		);
	});

	void it('draws chain and fork edges that always point right', () => {
		const layout = layoutGraph(sessions, { alignTime: false });
		const edges = layout.edges.map((e) => `${e.kind}:${e.from.session.id}>${e.to.session.id}`).sort();
		assert.deepEqual(edges, ['chain:a>b', 'chain:b>c', 'fork:b>w1', 'fork:b>w2']);
		assert.ok(layout.edges.every((e) => e.to.column > e.from.column));
	});

	void it('is compact by default and time-aligned on request', () => {
		const compact = layoutGraph(sessions, { alignTime: false });
		const late = (l: typeof compact) => l.nodes.find((n) => n.session.id === 'late')?.column;
		assert.equal(late(compact), 0, 'an unrelated scope starts at the left');
		const aligned = layoutGraph(sessions, { alignTime: true });
		// c starts after the workers ended (column 2), so it moves to 3; late comes after everything.
		assert.equal(aligned.nodes.find((n) => n.session.id === 'c')?.column, 3);
		assert.equal(late(aligned), 4, 'after every session that had ended before it started');
		assert.equal(aligned.columns, 5);
	});

	void it('ignores links to sessions it was not given and survives bad times', () => {
		const layout = layoutGraph(
			[session('x', 'global', 0, 10, { previous: 'gone', parent: 'also-gone' }), { ...session('y', 'global', 5, 6), startedAt: 'not a time' }],
			{ alignTime: true },
		);
		assert.equal(layout.edges.length, 0);
		assert.equal(layout.nodes.length, 2);
	});

	void it('lays out thousands of sessions in n log n: the reads of their fields grow with n, not its square', () => {
		// Counted, not timed (a test asserts no speed: a loaded machine failed a 500 ms bound): every read
		// of a session's fields goes through a proxy that counts it.
		const readsFor = (n: number): number => {
			let reads = 0;
			const many: SessionDto[] = [];
			for (let i = 0; i < n; i++) {
				const dto = session(`s${i}`, `task:T${i % 50}`, i * 10, i * 10 + 5, {
					previous: i >= 50 ? `s${i - 50}` : undefined,
					parent: i % 7 === 3 && i > 10 ? `s${i - 9}` : undefined,
				});
				many.push(new Proxy(dto, { get: (target, key, receiver) => (reads++, Reflect.get(target, key, receiver)) }));
			}
			const layout = layoutGraph(many, { alignTime: true });
			assert.equal(layout.nodes.length, n);
			return reads;
		};
		const small = readsFor(1_000);
		const large = readsFor(8_000);
		// Eight times the sessions: n log n reads about 10× as much, the square 64×.
		assert.ok(large / small < 12, `${small} reads for 1,000 sessions, ${large} for 8,000 (${(large / small).toFixed(1)}×)`);
	});
});
