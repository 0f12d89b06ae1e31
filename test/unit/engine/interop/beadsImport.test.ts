import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import fs from 'node:fs';
import { Engine } from '../../../../src/engine/engine';
import { actor, MemoryLogger, openTestEngine, snapshotFiles, tempDir } from '../../helpers';
import { beadsIssues, writeJsonl, type Json } from './interopFixtures';

void describe('import beads (issues.jsonl)', () => {
	void it('maps status, type, priority 0–4, parent (dependency or dotted id) and blocking dependencies; keeps the rest in the description', async (t) => {
		const { engine, root } = await openTestEngine(t);
		await engine.tasks.add({ title: 'existing', actor });
		const folder = tempDir(t);
		writeJsonl(path.join(folder, '.beads', 'issues.jsonl'), beadsIssues());
		const before = snapshotFiles(path.join(root, '.baton'));
		const preview = await engine.imports.run({ format: 'beads', path: folder, dryRun: true, actor });
		assert.deepEqual(preview.errors, []);
		assert.equal(preview.path, path.join(folder, '.beads', 'issues.jsonl'), 'a folder is looked into');
		assert.deepEqual(preview.added, { sessions: 0, tasks: 5, decisions: 0, handoffs: 0, settings: 0 });
		assert.deepEqual(snapshotFiles(path.join(root, '.baton')), before);

		await engine.imports.run({ format: 'beads', path: folder, dryRun: false, actor });
		const tasks = (await engine.tasks.list()).slice(1);
		assert.deepEqual(
			tasks.map((x) => [x.id, x.title, x.type, x.status, x.priority, x.parentId, x.dependsOn]),
			[
				['T2', 'Search', 'epic', 'pending', 'high', null, []],
				['T3', 'Index products', 'task', 'active', 'critical', 'T2', []],
				['T4', 'Query parser', 'task', 'blocked', 'medium', 'T2', ['T3']],
				['T5', 'Typo in results page', 'bug', 'done', 'low', null, []],
				['T6', 'Someday: fuzzy search', 'task', 'pending', 'low', null, []],
			],
		);
		const parser = tasks[2];
		assert.match(
			parser?.description ?? '',
			/^Parse the query\n\n## Design\nPratt parser\n\n## Acceptance criteria\nHandles quotes\n\nBeads: related: related bd-e5f6\n\nImported from beads bd-c3d4\.$/,
		);
		assert.match(tasks[1]?.description ?? '', /Beads: assignee ana/);
		assert.equal(tasks[3]?.completedAt, '2026-02-02T10:00:00.000Z');
		assert.equal(tasks[0]?.createdAt, '2026-02-01T17:00:00.123Z', 'offsets are honoured');
		// The briefing ranks by leverage over the imported graph.
		const briefing = await engine.briefings.briefing({ scope: 'global' });
		assert.equal(briefing.nextTasks.find((n) => n.id === 'T3')?.leverage, 1);

		const again = await engine.imports.run({ format: 'beads', path: folder, dryRun: false, actor });
		assert.deepEqual(again.added.tasks, 0);
		assert.deepEqual(again.unchanged.tasks, 5);
		assert.equal((await engine.tasks.list()).length, 6);
	});

	void it('a new issue may depend on one imported before; a changed issue is kept and reported', async (t) => {
		const { engine } = await openTestEngine(t);
		const file = path.join(tempDir(t), 'issues.jsonl');
		const issues = beadsIssues();
		writeJsonl(file, issues.slice(0, 2));
		await engine.imports.run({ format: 'beads', path: file, dryRun: false, actor });
		writeJsonl(file, [
			{ ...issues[0], title: 'Search (renamed)' },
			issues[1] as Json,
			{ ...issues[4], dependencies: [{ depends_on_id: 'bd-a1b2.1', type: 'blocks' }] },
		]);
		const result = await engine.imports.run({ format: 'beads', path: file, dryRun: false, actor });
		assert.equal(result.added.tasks, 1);
		assert.deepEqual(
			result.warnings.map((w) => w.record),
			['line 1 (bd-a1b2)'],
		);
		assert.deepEqual((await engine.tasks.get('T3')).dependsOn, ['T2']);
		assert.equal((await engine.tasks.get('T1')).title, 'Search');
	});

	void it('reports bad lines by line number, id and field — bad JSON, wrong types, a missing field, duplicates, unknown or cyclic dependencies, hostile ids — and writes nothing', async (t) => {
		const { engine, root } = await openTestEngine(t);
		const dir = tempDir(t);
		const before = snapshotFiles(path.join(root, '.baton'));
		const issues = beadsIssues();
		const { priority: _priority, ...noPriority } = issues[4] as Record<string, unknown>;
		const lines: (Json | string)[] = [
			issues[0] as Json,
			'{"id": "bd-broken", "title": ',
			{ ...issues[1], priority: 7 },
			{ ...issues[2], status: 'wontfix' },
			noPriority,
			{ ...issues[3], id: 'bd-a1b2' },
			{ ...issues[3], id: '../../etc/passwd' },
			{
				id: 'bd-x1',
				title: 'needs a ghost',
				status: 'open',
				priority: 2,
				created_at: '2026-02-01T10:00:00Z',
				dependencies: [{ issue_id: 'bd-x1', depends_on_id: 'bd-ghost', type: 'blocks' }],
			},
			{
				id: 'bd-y1',
				title: 'wrong owner',
				status: 'open',
				priority: 2,
				created_at: '2026-02-01T10:00:00Z',
				dependencies: [{ issue_id: 'bd-other', depends_on_id: 'bd-a1b2', type: 'blocks' }],
			},
			{ id: 'bd-z1', title: 'a title', status: 'open', priority: 2, issue_type: 'saga', created_at: 'someday' },
		];
		const result = await engine.imports.run({ format: 'beads', path: writeJsonl(path.join(dir, 'issues.jsonl'), lines), dryRun: false, actor });
		assert.deepEqual(
			result.errors.map((e) => `${e.record}: ${e.field}: ${e.message}`),
			[
				'line 2: null: not valid JSON: ' + result.errors[0]?.message.replace('not valid JSON: ', ''),
				'line 3 (bd-a1b2.1): priority: Too big: expected number to be <=4 (got number 7)',
				'line 4 (bd-c3d4): status: expected one of open, in_progress, blocked, deferred, closed, pinned, hooked, tombstone (got "wontfix")',
				'line 5 (bd-f7a8): priority: missing (expected number)',
				'line 6 (bd-a1b2): id: duplicate of line 1 (bd-a1b2)',
				'line 7 (../../etc/passwd): id: not a Beads id (letters, digits, . _ -) (got "../../etc/passwd")',
				'line 9 (bd-y1): dependencies[0].issue_id: expected bd-y1 (this issue), got bd-other',
				'line 10 (bd-z1): created_at: not a timestamp (got "someday")',
			],
		);
		assert.deepEqual(result.added, { sessions: 0, tasks: 0, decisions: 0, handoffs: 0, settings: 0 }, 'a refused import adds nothing');
		// Unfamiliar is not malformed: a dependency outside the file is a warning, not an error.
		assert.deepEqual(
			result.warnings.map((w) => `${w.record}: ${w.field}`),
			['line 8 (bd-x1): dependencies[0].depends_on_id'],
		);
		assert.deepEqual(snapshotFiles(path.join(root, '.baton')), before, 'nothing written');

		const cyclic = [
			{
				id: 'bd-1',
				title: 'one',
				status: 'open',
				priority: 2,
				created_at: '2026-02-01T10:00:00Z',
				dependencies: [{ depends_on_id: 'bd-2', type: 'blocks' }],
			},
			{
				id: 'bd-2',
				title: 'two',
				status: 'open',
				priority: 2,
				created_at: '2026-02-01T10:00:00Z',
				dependencies: [{ depends_on_id: 'bd-1', type: 'waits-for' }],
			},
			{
				id: 'bd-3',
				title: 'three',
				status: 'open',
				priority: 2,
				created_at: '2026-02-01T10:00:00Z',
				dependencies: [{ depends_on_id: 'bd-3', type: 'blocks' }],
			},
			{
				id: 'bd-4',
				title: 'four',
				status: 'open',
				priority: 2,
				created_at: '2026-02-01T10:00:00Z',
				dependencies: [
					{ depends_on_id: 'bd-1', type: 'parent-child' },
					{ depends_on_id: 'bd-2', type: 'parent-child' },
				],
			},
		];
		const cycle = await engine.imports.run({ format: 'beads', path: writeJsonl(path.join(dir, 'cycle.jsonl'), cyclic), dryRun: false, actor });
		assert.deepEqual(
			cycle.errors.map((e) => `${e.record}: ${e.field}: ${e.message}`),
			[
				'line 3 (bd-3): dependencies[0].depends_on_id: an issue cannot depend on itself',
				'line 1 (bd-1): dependencies[0].depends_on_id: dependencies form a cycle: T1 → T2 → T1 (Baton ids)',
			],
		);
		// A second parent is unfamiliar, not malformed: kept as a link, with a warning.
		assert.deepEqual(
			cycle.warnings.map((w) => `${w.record}: ${w.field}`),
			['line 4 (bd-4): dependencies[1].depends_on_id'],
		);
		assert.deepEqual(snapshotFiles(path.join(root, '.baton')), before);
	});

	void it('an import past the journal threshold compacts before it answers: the next process replays nothing', async (t) => {
		const root = tempDir(t);
		const engine = await Engine.open({ workspaceRoot: root, log: new MemoryLogger(), create: true, compactAfterBytes: 16 * 1024 });
		t.after(() => engine.close());
		const folder = tempDir(t);
		const issues: Json[] = Array.from({ length: 300 }, (_, i) => ({
			id: `bd-${i}`,
			title: `Issue ${i} ${'words '.repeat(20)}`,
			status: 'open',
			issue_type: 'task',
			priority: 2,
			created_at: '2026-02-01T10:00:00Z',
		}));
		writeJsonl(path.join(folder, '.beads', 'issues.jsonl'), issues);
		const report = await engine.imports.run({ format: 'beads', path: folder, dryRun: false, actor });
		assert.equal(report.added.tasks, 300);
		const journal = path.join(root, '.baton', 'baton.db.journal');
		assert.ok(fs.statSync(journal).size < 16 * 1024, `the journal still holds the import: ${fs.statSync(journal).size} bytes`);
		const again = await Engine.open({ workspaceRoot: root, log: new MemoryLogger() });
		try {
			assert.equal((await again.tasks.list()).length, 300, 'everything imported is in the snapshot');
		} finally {
			again.close();
		}
	});
});
