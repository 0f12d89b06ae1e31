/**
 * Project memory in the briefing (the most relevant facts, gotchas first, stale ones marked, retired
 * ones never) and in the injected diet (a share of the budget, never cut tail-first silently).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { memoryShare, renderBriefingDiet } from '../../../../src/engine/hooks/briefingDiet';
import type { Briefing, BriefingMemoryEntry } from '../../../../src/engine/storage/jsonShapes';
import { actor, openTestEngine } from '../../helpers';

function fact(i: number, overrides: Partial<BriefingMemoryEntry> = {}): BriefingMemoryEntry {
	return {
		id: `mem_20260301090000_${String(i).padStart(6, '0')}`,
		kind: i % 2 ? 'knowledge' : 'gotcha',
		text: `Fact number ${i}: the payment adapter retries 5xx responses three times with jitter ${'and more words '.repeat(3)}`,
		files: [],
		source: 'manual',
		sourceSessionId: null,
		sourceSessionName: null,
		confirmations: 1,
		lastConfirmedAt: '2026-03-01T09:00:00.000Z',
		staleSince: null,
		staleReason: null,
		relevant: false,
		...overrides,
	};
}

function briefingWith(memory: Briefing['memory'], handoffNote = 'Retry policy is in. '.repeat(5)): Briefing {
	return {
		sessionId: 'ses_20260301090000_abcdef',
		scope: 'global',
		generatedAt: '2026-03-01T09:00:00.000Z',
		lastSession: {
			id: 'ses_20260228170000_123456',
			name: 'Retries',
			endedAt: '2026-02-28T18:00:00.000Z',
			durationMinutes: 60,
			handoff: {
				lastTask: null,
				tasksCompleted: [],
				tasksCreated: [],
				decisionsRecorded: 0,
				decisions: [],
				nextSuggested: [],
				openBlockers: [],
				openBugs: [],
				note: handoffNote,
				nextAction: 'Persist the idempotency keys',
			},
		},
		focus: null,
		suggestions: [],
		currentTask: null,
		nextTasks: [1, 2, 3].map((i) => ({ id: `T${i}`, title: `Next task ${i}`, type: 'task', priority: 'high', leverage: i, score: i })),
		openBugs: [{ id: 'T9', title: 'JPY rounding', priority: 'critical' }],
		blockedTasks: [],
		activeEpics: [],
		recentDecisions: [],
		memory,
		warnings: [],
	};
}

void describe('memory in the briefing', () => {
	void it('lists gotchas first, then facts relevant to the task or scope, fresh before stale, most confirmed; never retired ones; counts them all', async (t) => {
		const { engine, root, clock } = await openTestEngine(t, { config: { briefingMemory: 4 } });
		fs.mkdirSync(path.join(root, 'src/payments'), { recursive: true });
		fs.writeFileSync(path.join(root, 'src/payments/gateway.ts'), '// generated\n');
		fs.utimesSync(path.join(root, 'src/payments/gateway.ts'), new Date(clock.now() - 60_000), new Date(clock.now() - 60_000));
		await engine.tasks.add({ title: 'Retry the gateway', description: 'See gateway.ts and its template.', actor });
		const { session: earlier } = await engine.sessions.start({ name: 'earlier', scope: 'task:T1', actor });
		const record = async (kind: 'knowledge' | 'gotcha', text: string, extra: { files?: string[]; sourceSessionId?: string } = {}) =>
			(await engine.memory.record({ kind, text, actor, ...extra })).entry.id;
		const scoped = await record('knowledge', 'Learned in this scope', { sourceSessionId: earlier.id });
		await engine.sessions.end({ id: earlier.id, actor });
		const { session: other } = await engine.sessions.start({ name: 'elsewhere', actor });
		clock.advance(60_000);
		const aboutFile = await record('knowledge', 'The gateway client is generated', { files: ['src/payments/gateway.ts'] });
		const popular = await record('knowledge', 'Money is integers', { sourceSessionId: other.id });
		for (let i = 0; i < 4; i++) await engine.memory.confirm(popular, actor);
		const gotcha = await record('gotcha', 'CI needs the sandbox key');
		const staleGotcha = await record('gotcha', 'The export job reads the replica', { files: ['docs/replica.md'] });
		const retired = await record('gotcha', 'Old advice');
		await engine.memory.retire(retired, actor);
		await engine.sessions.end({ id: other.id, actor });

		const { briefing } = await engine.sessions.start({ name: 'now', scope: 'task:T1', currentTask: 'T1', actor });
		assert.deepEqual(
			briefing.memory.entries.map((e) => e.id),
			[gotcha, staleGotcha, aboutFile, scoped],
			'gotchas (fresh, then stale), then relevant knowledge',
		);
		assert.equal(briefing.memory.total, 5, 'every live fact counted, the retired one not');
		assert.ok(!briefing.memory.entries.some((e) => e.id === retired));
		const shownStale = briefing.memory.entries[1];
		assert.equal(shownStale?.staleReason, 'docs/replica.md is missing', 'marked when the briefing was computed');
		assert.deepEqual(
			briefing.memory.entries.map((e) => e.relevant),
			[false, false, true, true],
		);
		assert.equal(briefing.memory.entries[3]?.sourceSessionId, earlier.id);
		assert.equal(briefing.memory.entries[3]?.sourceSessionName, 'earlier', 'where a fact was learned is named as people know the session');
		assert.equal(briefing.memory.entries[2]?.sourceSessionName, null);

		const global = await engine.briefings.briefing({ scope: 'global' });
		assert.equal(global.memory.entries[2]?.id, popular, 'in the global scope, the knowledge learned there leads');
		assert.equal(global.memory.entries[2]?.relevant, true);
	});
});

void describe('memory in the briefing diet', () => {
	void it('spends at most its share of the budget, after the handoff and next tasks, and says how many facts it left out', () => {
		const entries = Array.from({ length: 8 }, (_, i) =>
			fact(
				i + 1,
				i === 1
					? {
							staleSince: '2026-03-01T09:00:00.000Z',
							staleReason: 'src/payments/adapter.ts changed since the fact was last confirmed',
							files: ['src/payments/adapter.ts'],
						}
					: {},
			),
		);
		const briefing = briefingWith({ entries, total: 12 });
		for (const budget of [1_000, 1_500, 2_500, 4_000]) {
			const text = renderBriefingDiet(briefing, budget);
			assert.ok(text.length <= budget, `${text.length} ≤ ${budget}`);
			const lines = text.split('\n');
			const start = lines.indexOf('Project memory (gotchas first):');
			assert.ok(start > lines.indexOf('Previous session:'), `${budget}: memory after the handoff`);
			assert.ok(start > lines.indexOf('Next tasks (most unblocking first):'), `${budget}: and after the next tasks`);
			const memoryLines = lines.slice(start).filter((l, i) => i === 0 || l.startsWith('- '));
			const end = memoryLines.findIndex((l, i) => i > 0 && !/^- (Gotcha|Fact|… and)/.test(l));
			const section = end === -1 ? memoryLines : memoryLines.slice(0, end);
			const used = section.reduce((n, l) => n + l.length + 1, 0);
			assert.ok(used <= Math.floor(budget * memoryShare), `${budget}: memory used ${used} of its ${Math.floor(budget * memoryShare)}`);
			const shown = section.filter((l) => /^- (Gotcha|Fact):/.test(l)).length;
			assert.ok(shown >= 1, `${budget}: at least one fact`);
			assert.equal(section.at(-1), `- … and ${12 - shown} more (\`baton memory list\`)`, `${budget}: the rest is counted, not dropped silently`);
		}
		const roomy = renderBriefingDiet(briefing, 20_000);
		assert.match(
			roomy,
			/- Fact: Fact number 1: .*\n- Gotcha: Fact number 2: .* \(src\/payments\/adapter\.ts\) \[stale: src\/payments\/adapter\.ts changed since the fact was last confirmed\]/,
		);
		assert.match(roomy, /- … and 4 more \(`baton memory list`\)/, 'the briefing listed 8 of 12');
	});

	void it('does not repeat a fact the handoff lines already said, nor count it as left out', () => {
		const briefing = briefingWith({
			entries: [
				fact(2, { text: 'Staging sandbox rejects refunds older than 24 h.', source: 'handoff' }),
				fact(4),
				fact(5, { text: 'Retries live in the adapter — why: one policy' }),
			],
			total: 3,
		});
		const handoff = briefing.lastSession?.handoff;
		assert.ok(handoff);
		handoff.openBlockers = ['staging sandbox rejects refunds older than 24 h'];
		handoff.decisions = [{ id: 'dec_1', text: 'Retries live in the adapter', rationale: 'One policy' }];
		const text = renderBriefingDiet(briefing, 4_000);
		assert.match(text, /- Blocker: staging sandbox rejects refunds older than 24 h/);
		assert.match(text, /- Decision: Retries live in the adapter/);
		assert.doesNotMatch(text, /Gotcha: Staging sandbox|Fact: Retries live/);
		assert.match(text, /Project memory \(gotchas first\):\n- Gotcha: Fact number 4[^\n]*\nOpen bugs:/, 'only the fact not said yet, and no "more" line');
		handoff.note = 'A long note that takes the room of the blocker line. '.repeat(10);
		const tight = [400, 450, 500, 550, 600]
			.map((budget) => renderBriefingDiet(briefing, budget))
			.filter((t) => !t.includes('Blocker:') && t.includes('Project memory'));
		assert.ok(tight.length > 0, 'some budget leaves the handoff’s blocker out but keeps memory');
		for (const text of tight) {
			assert.match(text, /Gotcha: Staging sandbox rejects refunds/, 'the blocker not shown: its fact is');
		}
	});

	void it('holds memory’s room while the handoff is added, and gives it back when memory needs less', () => {
		const long = 'The retry policy and the idempotency keys were discussed at length. '.repeat(40);
		const withMemory = renderBriefingDiet(briefingWith({ entries: [fact(2)], total: 1 }, long), 1_200);
		assert.match(withMemory, /- Gotcha: Fact number 2/, 'a long handoff does not crowd out memory');
		assert.doesNotMatch(withMemory, /and \d+ more/, 'everything shown: nothing to count');
		const without = renderBriefingDiet(briefingWith({ entries: [], total: 0 }, long), 1_200);
		assert.doesNotMatch(without, /Project memory/);
		assert.match(without, /Open bugs:\n- T9 JPY rounding/, 'no memory: the rest of the budget goes to the later lists');
	});
});
