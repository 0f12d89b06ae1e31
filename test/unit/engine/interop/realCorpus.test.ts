/**
 * Real files from CLEO's and Beads' own public repositories (test/fixtures/real/README.md names each
 * file's source and how its counts were computed from the raw file). Each is imported through the
 * path `baton import` uses, into a fresh workspace; the expected numbers are the README's, not Baton's.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { and, eq } from 'drizzle-orm';
import { importRecords, sessions } from '../../../../src/engine/storage/schema';
import { loadSqlJs } from '../../../../src/engine/storage/sqlJs';
import { actor, openTestEngine, snapshotFiles, tempDir } from '../../helpers';
import { cleoSessionsData, writeJson, type Json } from './interopFixtures';

const real = path.join(__dirname, '../..', '..', 'fixtures', 'real');
const beadsFile = path.join(real, 'beads', 'issues-704.jsonl');
const cleoDb = path.join(real, 'cleo', 'tasks-210.db');
const cleoSessions = path.join(real, 'cleo', 'sessions-606.json');
const none = { sessions: 0, tasks: 0, decisions: 0, handoffs: 0, settings: 0 };

const countBy = <T>(items: readonly T[], key: (item: T) => string): Record<string, number> => {
	const out: Record<string, number> = {};
	for (const item of items) out[key(item)] = (out[key(item)] ?? 0) + 1;
	return out;
};

void describe('real corpus: Beads’ own .beads/issues.jsonl', () => {
	void it('imports all 704 issues; foreign types, references outside the file and a second parent are kept with warnings; idempotent', async (t) => {
		const { engine, root } = await openTestEngine(t);
		const result = await engine.imports.run({ format: 'beads', path: beadsFile, dryRun: false, actor });
		assert.deepEqual(result.errors, []);
		assert.deepEqual(result.added, { ...none, tasks: 704 });
		const warned = countBy(result.warnings, (w) =>
			w.field === 'issue_type'
				? 'type'
				: /a second parent/.test(w.message)
					? 'second parent'
					: /^parent .* neither/.test(w.message)
						? 'dangling parent'
						: /^dependency .* neither/.test(w.message)
							? 'dangling dependency'
							: `other: ${w.message}`,
		);
		assert.deepEqual(warned, { type: 11, 'dangling dependency': 21, 'dangling parent': 4, 'second parent': 1 });

		const tasks = await engine.tasks.list();
		assert.equal(tasks.length, 704);
		assert.deepEqual(
			countBy(tasks, (x) => x.status),
			{ done: 403, pending: 294, active: 7 },
		);
		assert.deepEqual(
			countBy(tasks, (x) => x.type),
			{ epic: 167, task: 503, bug: 34 },
		);

		const byExternal = async (id: string) => {
			const rec = await engine.store.read((db) =>
				db
					.select()
					.from(importRecords)
					.where(and(eq(importRecords.source, 'beads'), eq(importRecords.externalId, id)))
					.get(),
			);
			assert.ok(rec, `${id} has an import record`);
			return { rec, task: tasks.find((x) => x.id === rec.entityId) };
		};
		const convoy = await byExternal('hq-cv-d46qe');
		assert.match(convoy.task?.description ?? '', /type convoy/);
		const twoParents = await byExternal('bd-98c4e1fa.1');
		assert.equal(twoParents.task?.parentId, null, 'its first parent, bd-0e1f2b1b, is outside the file');
		assert.match(twoParents.task?.description ?? '', /second parent bd-98c4e1fa/);
		assert.match(twoParents.task?.description ?? '', /External references \(not in this import\): parent bd-0e1f2b1b/);

		// Fields Baton has no column for stay verbatim on the import record.
		const raw = fs
			.readFileSync(beadsFile, 'utf8')
			.split('\n')
			.filter(Boolean)
			.map((l) => JSON.parse(l) as Json);
		const agent = raw.find((r) => r['id'] === 'bd-beads-polecat-amber') as Json;
		const amber = await byExternal('bd-beads-polecat-amber');
		assert.equal(amber.rec.extra?.['agent_state'], agent['agent_state']);
		assert.equal(amber.rec.extra?.['created_by'], agent['created_by']);
		assert.equal(amber.rec.extra?.['title'], undefined, 'mapped fields are not repeated');
		const withDeps = raw.find((r) => r['id'] === 'bd-98c4e1fa.1') as Json;
		assert.deepEqual((await byExternal('bd-98c4e1fa.1')).rec.extra?.['dependencies'], withDeps['dependencies'], 'who linked and when, kept verbatim');

		const before = snapshotFiles(path.join(root, '.baton'));
		const again = await engine.imports.run({ format: 'beads', path: beadsFile, dryRun: false, actor });
		assert.deepEqual(again.errors, []);
		assert.deepEqual(again.added, none);
		assert.equal(again.unchanged.tasks, 704);
		assert.deepEqual(snapshotFiles(path.join(root, '.baton')), before, 'a repeated import writes nothing');
	});
});

void describe('real corpus: CLEO’s own .cleo/tasks.db', () => {
	void it('keeps all 210 task ids (99 zero-padded) in an empty workspace, imports debrief-only handoffs, keeps unknown columns; idempotent', async (t) => {
		const { engine, root } = await openTestEngine(t);
		const result = await engine.imports.run({ format: 'cleo-db', path: cleoDb, dryRun: false, actor });
		assert.deepEqual(result.errors, []);
		assert.deepEqual(result.added, { ...none, tasks: 210, sessions: 25, handoffs: 22 });
		assert.deepEqual(result.warnings, []);

		const SQL = await loadSqlJs();
		const source = new SQL.Database(fs.readFileSync(cleoDb));
		t.after(() => source.close());
		const sourceIds = (source.exec('SELECT id FROM tasks')[0]?.values ?? []).map((v) => String(v[0])).sort();
		const tasks = await engine.tasks.list();
		assert.deepEqual(tasks.map((x) => x.id).sort(), sourceIds, 'every source id kept');
		assert.equal(tasks.filter((x) => /^T0/.test(x.id)).length, 99);

		// The first session's handoff lives only in its debrief, and suggests T038–T040: they exist.
		const first = 'ses_20260320172953_529cc7';
		const handoff = await engine.briefings.handoff(first);
		assert.equal(handoff.kind, 'valid');
		const suggested = handoff.kind === 'valid' ? handoff.data.nextSuggested.map((s) => s.id) : [];
		assert.deepEqual(suggested, ['T038', 'T039', 'T040']);
		for (const id of suggested)
			assert.ok(
				tasks.some((x) => x.id === id),
				`${id} points at a task`,
			);

		const [columns, values] = ((r) => [r?.columns ?? [], r?.values[0] ?? []])(source.exec("SELECT * FROM tasks WHERE id = 'T001'")[0]);
		const row = Object.fromEntries(columns.map((c, i) => [c, values[i]]));
		const rec = await engine.store.read((db) =>
			db
				.select()
				.from(importRecords)
				.where(and(eq(importRecords.source, 'cleo-db'), eq(importRecords.externalId, 'T001')))
				.get(),
		);
		assert.equal(rec?.extra?.['size'], row['size']);
		assert.equal(rec?.extra?.['position'], row['position']);

		const before = snapshotFiles(path.join(root, '.baton'));
		const again = await engine.imports.run({ format: 'cleo-db', path: cleoDb, dryRun: false, actor });
		assert.deepEqual(again.added, none);
		assert.deepEqual(again.unchanged, { ...none, tasks: 210, sessions: 25, handoffs: 22 });
		assert.deepEqual(snapshotFiles(path.join(root, '.baton')), before);
	});

	void it('renumbers a task only when its id is taken, and reports the mapping', async (t) => {
		const { engine } = await openTestEngine(t);
		const mine = await engine.tasks.add({ title: 'mine', actor });
		assert.equal(mine.id, 'T1', 'T1 has sequence 1, the same as CLEO’s T001');
		const result = await engine.imports.run({ format: 'cleo-db', path: cleoDb, dryRun: false, actor });
		assert.deepEqual(result.errors, []);
		const mapped = result.warnings.filter((w) => w.field === 'id');
		assert.equal(mapped.length, 1);
		assert.match(mapped[0]?.message ?? '', /^T001 is already taken in this workspace; imported as T(\d+)$/);
		const newId = /imported as (T\d+)/.exec(mapped[0]?.message ?? '')?.[1] as string;
		const tasks = await engine.tasks.list();
		assert.equal(tasks.length, 211);
		assert.match(tasks.find((x) => x.id === newId)?.description ?? '', /Imported from cleo-db T001\.$/);
		assert.ok(
			tasks.some((x) => x.id === 'T002'),
			'the others keep theirs',
		);
	});
});

void describe('real corpus: CLEO’s legacy .cleo/sessions.json', () => {
	void it('imports 606 sessions and 7 history entries with 401 handoffs, and says its limits are not applied', async (t) => {
		const { engine, root } = await openTestEngine(t);
		const result = await engine.imports.run({ format: 'cleo-sessions', path: cleoSessions, dryRun: false, actor });
		assert.deepEqual(result.errors, []);
		assert.deepEqual(result.added, { ...none, sessions: 613, handoffs: 401, settings: 1 });
		assert.equal(result.warnings.length, 1);
		assert.equal(result.warnings[0]?.record, 'config');
		assert.match(
			result.warnings[0]?.message ?? '',
			/not applied: allowNestedScopes true \(Baton: true\), allowScopeOverlap false \(Baton: false\), maxActiveTasksPerScope 1 \(Baton: 1\), maxConcurrentSessions 5 \(Baton: 5\), scopeValidation "strict" \(Baton: "strict"\)/,
		);
		const list = await engine.briefings.list();
		assert.deepEqual(
			countBy(list, (s) => s.status),
			{ active: 2, archived: 100, ended: 504, closed: 7 },
		);
		const history = ((JSON.parse(fs.readFileSync(cleoSessions, 'utf8')) as Json)['sessionHistory'] as Json[]).find((h) => h['endNote']) as Json;
		const closed = await engine.store.read((db) =>
			db
				.select()
				.from(sessions)
				.where(eq(sessions.id, history['id'] as string))
				.get(),
		);
		assert.ok(typeof history['endNote'] === 'string' && history['endNote'].length > 0);
		assert.ok(closed?.endNote?.startsWith(history['endNote'] as string), 'a history entry’s end note is its end note');

		const before = snapshotFiles(path.join(root, '.baton'));
		const again = await engine.imports.run({ format: 'cleo-sessions', path: cleoSessions, dryRun: false, actor });
		assert.deepEqual(again.added, none);
		assert.deepEqual(again.warnings, []);
		assert.deepEqual(snapshotFiles(path.join(root, '.baton')), before);
	});

	void it('keeps an active session’s focus note and next action on the session, and its unknown fields on the import record', async (t) => {
		const { engine } = await openTestEngine(t);
		const data = cleoSessionsData();
		(data['sessions'][0] as Json)['startMetrics'] = { tokens: 12 };
		const file = writeJson(path.join(tempDir(t), 'sessions.json'), data);
		const result = await engine.imports.run({ format: 'cleo-sessions', path: file, dryRun: false, actor });
		assert.deepEqual(result.errors, []);
		const rec = await engine.store.read((db) =>
			db
				.select()
				.from(importRecords)
				.where(and(eq(importRecords.source, 'cleo-sessions'), eq(importRecords.externalId, 'session_20251230_161248_81c3ce')))
				.get(),
		);
		assert.deepEqual(rec?.extra, { startMetrics: { tokens: 12 } });
		const session = await engine.store.read((db) =>
			db
				.select()
				.from(sessions)
				.where(eq(sessions.id, rec?.entityId ?? ''))
				.get(),
		);
		assert.deepEqual(session?.focus, { note: 'Working on JWT validation', nextAction: 'Add error handling', blockedReason: null });
	});
});

void describe('text limits on imports', () => {
	void it('refuses a 20 MB session name with added 0, naming record and field, and writes nothing', async (t) => {
		const source = await openTestEngine(t);
		await source.engine.sessions.start({ name: 'short', scope: 'global', actor });
		const ended = await source.engine.sessions.end({ note: 'done', actor });
		const dir = path.join(tempDir(t), 'export');
		await source.engine.exports.export({ chainId: ended.session.id, out: dir });
		const file = path.join(dir, fs.readdirSync(dir).find((f) => f !== 'index.json') as string);
		const json = JSON.parse(fs.readFileSync(file, 'utf8')) as Json;
		const huge = 'x'.repeat(20 * 1024 * 1024);
		json['baton'].session.name = huge;
		writeJson(file, json);
		const { engine, root } = await openTestEngine(t);
		const before = snapshotFiles(path.join(root, '.baton'));
		const result = await engine.imports.run({ format: 'json-sessions', path: dir, dryRun: false, actor });
		assert.deepEqual(result.added, none);
		assert.equal(result.errors.length, 1);
		assert.equal(result.errors[0]?.field, 'name');
		assert.match(result.errors[0]?.record ?? '', /^sessions\[0\] \(.*short.*\.json\)$/);
		assert.match(result.errors[0]?.message ?? '', /^20971520 characters; at most 200/);
		assert.deepEqual(snapshotFiles(path.join(root, '.baton')), before);
	});
});
