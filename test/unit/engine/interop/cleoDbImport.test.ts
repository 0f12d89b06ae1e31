import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { importRecords } from '../../../../src/engine/storage/schema';
import { actor, openTestEngine, snapshotFiles, tempDir } from '../../helpers';
import { cleoDbData, cleoSessionsData, writeCleoDb, writeJson } from './interopFixtures';

const first = 'ses_20260110090000_a0a0a0';
const second = 'ses_20260111090000_b0b0b0';
const worker = 'ses_20260112090000_c0c0c0';

void describe('import cleo-db (CLEO tasks.db through sql.js)', () => {
	void it('imports tasks with their CLEO ids, parents and dependencies, and sessions with chain, fork, handoffs and decisions', async (t) => {
		const { engine, root } = await openTestEngine(t);
		const file = await writeCleoDb(path.join(tempDir(t), '.cleo', 'tasks.db'), cleoDbData());
		const dbBytes = fs.readFileSync(file);
		const before = snapshotFiles(path.join(root, '.baton'));
		const preview = await engine.imports.run({ format: 'cleo-db', path: file, dryRun: true, actor });
		assert.deepEqual(preview.errors, []);
		assert.deepEqual(preview.added, { sessions: 3, tasks: 5, decisions: 1, handoffs: 2, settings: 0 });
		assert.deepEqual(snapshotFiles(path.join(root, '.baton')), before, 'a dry run writes nothing');

		const result = await engine.imports.run({ format: 'cleo-db', path: file, dryRun: false, actor });
		assert.deepEqual(result.added, preview.added);
		assert.deepEqual(fs.readFileSync(file), dbBytes, 'CLEO’s database is only read');

		const tasks = await engine.tasks.list();
		assert.deepEqual(
			tasks.map((x) => [x.id, x.type, x.status, x.priority, x.parentId, x.dependsOn]),
			[
				['T1', 'epic', 'active', 'high', null, []],
				['T2', 'task', 'done', 'high', 'T1', []],
				['T3', 'task', 'pending', 'medium', 'T1', ['T2']],
				['T4', 'bug', 'pending', 'critical', 'T1', ['T2']],
				['T5', 'task', 'done', 'low', null, []],
			],
		);
		assert.equal(tasks[1]?.completedAt, '2026-01-10T11:00:00.000Z', 'SQLite timestamps are read as UTC');
		assert.equal(tasks[2]?.phase, 'core');
		assert.equal(tasks[3]?.description, 'Totals are off by a cent', 'a kept id needs no note');

		const one = await engine.briefings.details(first);
		assert.equal(one.session.nextSessionId, second);
		assert.equal(one.session.handoffConsumedBy, second);
		assert.equal(one.session.agentIdentifier, 'claude-1111');
		assert.equal(one.session.debrief?.gitState?.head, 'abc1234');
		assert.equal(one.session.debrief?.chainLength, 2);
		assert.equal(one.handoff.kind === 'valid' && one.handoff.data.note, 'Totals done', 'the write-once entry wins');
		assert.deepEqual(
			one.decisions.map((d) => [d.id, d.text, d.rationale, d.taskId]),
			[['D1', 'Store money as integer cents', 'floats drift', 'T2']],
		);
		assert.deepEqual(
			one.chain.map((s) => s.id),
			[first, second],
		);

		const two = await engine.briefings.details(second);
		assert.equal(two.session.scopeKey, 'epic:T1', 'epicId is the root task');
		assert.ok(two.handoff.kind === 'valid');
		if (two.handoff.kind === 'valid') {
			assert.deepEqual(two.handoff.data.lastTask, { id: 'T3', title: 'Payment form' }, 'titles come from the imported tasks');
			assert.deepEqual(
				two.handoff.data.nextSuggested.map((s) => s.title),
				['Payment form', 'Rounding error in totals'],
			);
			assert.deepEqual(two.handoff.data.openBlockers, ['Card vault sandbox is down']);
		}
		const tree = await engine.briefings.forkTree(worker);
		assert.equal(tree.session.id, second);
		assert.deepEqual(
			tree.children.map((c) => c.session.id),
			[worker],
		);
		assert.equal((await engine.briefings.get(worker)).currentTask, 'T4');

		const again = await engine.imports.run({ format: 'cleo-db', path: file, dryRun: false, actor });
		assert.deepEqual(again.added, { sessions: 0, tasks: 0, decisions: 0, handoffs: 0, settings: 0 });
		assert.deepEqual(again.unchanged, { sessions: 3, tasks: 5, decisions: 1, handoffs: 2, settings: 0 });
	});

	void it('gives CLEO tasks new ids when theirs are taken, keeps the mapping, and maps the sessions’ task references', async (t) => {
		const { engine } = await openTestEngine(t);
		await engine.tasks.add({ title: 'Baton’s own first task', actor });
		await engine.tasks.add({ title: 'Baton’s own second task', actor });
		const file = await writeCleoDb(path.join(tempDir(t), 'tasks.db'), cleoDbData(), { consolidated: true });
		const result = await engine.imports.run({ format: 'cleo-db', path: file, dryRun: false, actor });
		assert.deepEqual(result.errors, []);
		const mapping = Object.fromEntries(
			(await engine.store.read((db) => db.select().from(importRecords).all()))
				.filter((r) => r.entityType === 'task')
				.map((r) => [r.externalId, r.entityId]),
		);
		assert.deepEqual(mapping, { T1: 'T6', T2: 'T7', T3: 'T3', T4: 'T4', T5: 'T5' }, 'free ids are kept, taken ones get the next numbers');
		const checkout = await engine.tasks.get('T6');
		assert.equal(checkout.title, 'Checkout');
		assert.match(checkout.description ?? '', /Imported from cleo-db T1\.$/);
		assert.deepEqual((await engine.tasks.get('T3')).dependsOn, ['T7']);
		assert.equal((await engine.tasks.get('T3')).parentId, 'T6');
		assert.equal((await engine.briefings.get(first)).scopeKey, 'epic:T6');
		assert.equal((await engine.briefings.get(first)).currentTask, 'T7');
		const decisions = (await engine.briefings.details(first)).decisions;
		assert.equal(decisions[0]?.taskId, 'T7');

		// Legacy sessions.json imported afterwards names CLEO ids: they follow the same mapping.
		const legacy = cleoSessionsData();
		legacy['sessions'] = [{ ...legacy['sessions'][0], scope: { type: 'epic', rootTaskId: 'T1' }, focus: { currentTask: 'T2' } }];
		legacy['sessionHistory'] = [];
		const json = await engine.imports.run({
			format: 'cleo-sessions',
			path: writeJson(path.join(tempDir(t), 'sessions.json'), legacy),
			dryRun: false,
			actor,
		});
		assert.deepEqual(json.errors, []);
		const imported = await engine.briefings.get('session_20251230_161248_81c3ce');
		assert.equal(imported.scopeKey, 'epic:T6');
		assert.equal(imported.currentTask, 'T7');
	});

	void it('reports bad rows by table, row and column, warns of a dependency on an unknown task, and writes nothing', async (t) => {
		const { engine, root } = await openTestEngine(t);
		const dir = tempDir(t);
		const before = snapshotFiles(path.join(root, '.baton'));
		const data = cleoDbData();
		data.task_dependencies.push({ task_id: 'T3', depends_on: 'T99' });
		data.tasks[4] = { ...data.tasks[4], priority: 'urgent' };
		data.sessions[1] = { ...data.sessions[1], scope_json: '{"type": "epic", ' };
		data.sessions[2] = { ...data.sessions[2], started_at: 'yesterday' };
		data.session_handoff_entries.push({ session_id: 'ses_20260101000000_ffffff', handoff_json: '{}', created_at: '2026-01-01 00:00:00' });
		const result = await engine.imports.run({ format: 'cleo-db', path: await writeCleoDb(path.join(dir, 'bad.db'), data), dryRun: false, actor });
		assert.deepEqual(
			result.errors.map((e) => `${e.record}: ${e.field}`),
			[
				'tasks[4] (T5): priority',
				`sessions[1] (${second}): scope_json`,
				`sessions[2] (${worker}): started_at`,
				'session_handoff_entries[1] (ses_20260101000000_ffffff): session_id',
			],
		);
		assert.match(result.errors.find((e) => e.field === 'scope_json')?.message ?? '', /^not valid JSON/);
		assert.match(
			result.warnings.find((e) => e.field === 'depends_on')?.message ?? '',
			/dependency T99 is neither in this import nor imported before from cleo-db; kept as an external reference/,
		);
		assert.deepEqual(snapshotFiles(path.join(root, '.baton')), before);

		const cycle = cleoDbData();
		cycle.task_dependencies.push({ task_id: 'T2', depends_on: 'T3' });
		const cyclic = await engine.imports.run({ format: 'cleo-db', path: await writeCleoDb(path.join(dir, 'cycle.db'), cycle), dryRun: false, actor });
		assert.equal(cyclic.errors.length, 1);
		assert.match(cyclic.errors[0]?.message ?? '', /dependencies form a cycle/);

		const dup = cleoDbData();
		dup.session_handoff_entries.push({ ...dup.session_handoff_entries[0] });
		await assert.rejects(writeCleoDb(path.join(dir, 'dup.db'), dup), /UNIQUE/, 'CLEO’s own schema refuses a second handoff');

		fs.writeFileSync(path.join(dir, 'text.db'), 'not a database at all');
		const notSqlite = await engine.imports.run({ format: 'cleo-db', path: path.join(dir, 'text.db'), dryRun: false, actor });
		assert.deepEqual(notSqlite.errors, [
			{ record: 'tasks.db', field: null, message: 'not a SQLite database (the file does not start with "SQLite format 3")' },
		]);
		// Past 64 MB (a sparse file: nothing is read to refuse it), in sizes a person reads.
		const huge = path.join(dir, 'huge.db');
		fs.writeFileSync(huge, '');
		fs.truncateSync(huge, 96 * 1024 * 1024 + 512 * 1024);
		const tooLarge = await engine.imports.run({ format: 'cleo-db', path: huge, dryRun: false, actor });
		assert.deepEqual(tooLarge.errors, [{ record: 'tasks.db', field: null, message: `${huge} is 96.5 MB; imports read files up to 64 MB` }]);
		assert.deepEqual(snapshotFiles(path.join(root, '.baton')), before);
	});
});
