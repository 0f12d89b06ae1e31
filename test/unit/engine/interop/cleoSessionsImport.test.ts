import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { eq } from 'drizzle-orm';
import { auditLog, importRecords, settings } from '../../../../src/engine/storage/schema';
import { actor, openTestEngine, snapshotFiles, tempDir } from '../../helpers';
import { cleoSessionsData, writeJson, type Json } from './interopFixtures';

const legacy = 'session_20251228_100000_b2b2b2';

void describe('import cleo-sessions (.cleo/sessions.json)', () => {
	void it('previews without writing, then imports every session with its legacy id, status, focus, stats, chain and limits', async (t) => {
		// CLEO's tasks live in its tasks.db (not imported here): scopes name tasks Baton does not hold.
		const { engine, root } = await openTestEngine(t, { config: { scopeValidation: 'none' } });
		const file = writeJson(path.join(tempDir(t), '.cleo', 'sessions.json'), cleoSessionsData());
		const before = snapshotFiles(path.join(root, '.baton'));
		const preview = await engine.imports.run({ format: 'cleo-sessions', path: file, dryRun: true, actor });
		assert.deepEqual(preview.errors, []);
		assert.equal(preview.dryRun, true);
		assert.deepEqual(preview.added, { sessions: 6, tasks: 0, decisions: 0, handoffs: 2, settings: 1 });
		assert.deepEqual(snapshotFiles(path.join(root, '.baton')), before, 'a dry run writes nothing');

		const result = await engine.imports.run({ format: 'cleo-sessions', path: file, dryRun: false, actor });
		assert.deepEqual(result.added, preview.added);
		const all = await engine.briefings.list();
		assert.deepEqual(Object.fromEntries(all.map((s) => [s.id, s.status])), {
			session_20251230_161248_81c3ce: 'active',
			session_20251229_090000_a1a1a1: 'suspended',
			[legacy]: 'ended',
			session_20251220_100000_c3c3c3: 'archived',
			session_20251201_080000_d4d4d4: 'closed',
			'session-1733000000-e5e5e5': 'closed',
		});
		const active = await engine.briefings.get('session_20251230_161248_81c3ce');
		assert.equal(active.currentTask, 'T002', 'focus becomes the current task');
		assert.equal(active.taskStartedAt, '2025-12-30T15:01:00.000Z');
		assert.equal(active.scopeKey, 'epic:T001');
		assert.equal(active.agent, 'claude-opus');
		assert.equal(active.stats.tasksCompleted, 1);
		assert.equal(active.stats.focusChanges, 2);
		assert.equal(active.lastActivity, '2025-12-30T15:45:00.000Z');

		const ended = await engine.briefings.details(legacy);
		assert.equal(ended.handoff.kind, 'valid');
		if (ended.handoff.kind === 'valid') {
			assert.equal(ended.handoff.data.note, 'Stripe webhooks verified end to end');
			assert.equal(ended.handoff.data.nextAction, 'Wire refunds');
			assert.deepEqual(ended.handoff.data.openBlockers, ['Waiting for the sandbox key']);
			assert.deepEqual(ended.handoff.data.lastTask, { id: 'T021', title: 'T021' });
		}
		assert.equal(ended.session.previousSessionId, 'session_20251201_080000_d4d4d4', 'resumedAs links the chain');
		assert.deepEqual(
			ended.chain.map((s) => s.id),
			['session_20251201_080000_d4d4d4', legacy],
		);
		const archived = await engine.briefings.get('session_20251220_100000_c3c3c3');
		assert.equal(archived.archivedAt, '2025-12-27T00:00:00.000Z');
		assert.equal(archived.endNote, 'archived: stale after the refactor');
		await assert.rejects(engine.sessions.resume({ id: archived.id, actor }), /archived \(imported legacy state, read-only\)/);

		const limits = await engine.store.read((db) => db.select().from(settings).where(eq(settings.key, 'legacy.config')).get());
		assert.deepEqual(limits?.value, {
			maxConcurrentSessions: 4,
			maxActiveTasksPerScope: 2,
			scopeValidation: 'warn',
			allowNestedScopes: true,
			allowScopeOverlap: false,
		});
		const audits = await engine.store.read((db) => db.select().from(auditLog).where(eq(auditLog.operation, 'import.run')).all());
		assert.equal(audits.length, 1);
		assert.equal((audits[0]?.details as Json)['source'], 'cleo-sessions');

		// A new Baton session in the ended session's scope continues its chain and receives its handoff.
		const next = await engine.sessions.start({ name: 'payments, in Baton', scope: 'epic:T020', actor });
		assert.equal(next.session.previousSessionId, legacy);
		assert.equal(next.handoff?.nextAction, 'Wire refunds');
	});

	void it('is idempotent: a second import adds nothing and writes nothing', async (t) => {
		const { engine, root } = await openTestEngine(t);
		const file = writeJson(path.join(tempDir(t), 'sessions.json'), cleoSessionsData());
		await engine.imports.run({ format: 'cleo-sessions', path: file, dryRun: false, actor });
		const records = await engine.store.read((db) => db.select().from(importRecords).all());
		assert.equal(records.length, 7);
		const before = snapshotFiles(path.join(root, '.baton'));
		const again = await engine.imports.run({ format: 'cleo-sessions', path: file, dryRun: false, actor });
		assert.deepEqual(again.added, { sessions: 0, tasks: 0, decisions: 0, handoffs: 0, settings: 0 });
		assert.deepEqual(again.unchanged, { sessions: 6, tasks: 0, decisions: 0, handoffs: 2, settings: 1 });
		assert.deepEqual(again.warnings, []);
		assert.deepEqual(snapshotFiles(path.join(root, '.baton')), before);

		// The file grew (a new session) and one old session changed in CLEO: only the new one is added.
		const grown = cleoSessionsData();
		grown['sessions'][2].name = 'Payments spike (renamed)';
		grown['sessionHistory'].push({
			id: 'session_20251231_090000_f6f6f6',
			name: 'New year',
			startedAt: '2025-12-31T09:00:00Z',
			endedAt: '2025-12-31T10:00:00Z',
		});
		writeJson(file, grown);
		const third = await engine.imports.run({ format: 'cleo-sessions', path: file, dryRun: false, actor });
		assert.equal(third.added.sessions, 1);
		assert.equal(third.unchanged.sessions, 6);
		assert.deepEqual(
			third.warnings.map((w) => w.record),
			[`sessions[2] (${legacy})`],
		);
		assert.equal((await engine.briefings.get(legacy)).name, 'Payments spike', 'an import never changes what Baton holds');
	});

	void it('names the record and the field of every bad record, and writes nothing when one record is bad', async (t) => {
		const { engine, root } = await openTestEngine(t);
		const dir = tempDir(t);
		const before = snapshotFiles(path.join(root, '.baton'));
		const run = async (data: unknown) =>
			engine.imports.run({ format: 'cleo-sessions', path: writeJson(path.join(dir, 'sessions.json'), data), dryRun: false, actor });

		const data = cleoSessionsData();
		data['sessions'][1].status = 'running';
		delete data['sessions'][2].startedAt;
		data['sessions'][3].stats = { tasksCompleted: 'many' };
		data['sessionHistory'][1].id = 'session_20251230_161248_81c3ce';
		data['config'].scopeValidation = 'lenient';
		data['sessions'][0].scope = { type: 'epic' };
		const bad = await run(data);
		assert.deepEqual(
			bad.errors.map((e) => `${e.record}: ${e.field}`),
			[
				'config: scopeValidation',
				'sessions[0] (session_20251230_161248_81c3ce): scope.rootTaskId',
				'sessions[1] (session_20251229_090000_a1a1a1): status',
				`sessions[2] (${legacy}): startedAt`,
				'sessions[3] (session_20251220_100000_c3c3c3): stats.tasksCompleted',
			],
		);
		assert.match(bad.errors[2]?.message ?? '', /^expected one of active, suspended, ended, archived, closed \(got "running"\)$/);
		assert.match(bad.errors[3]?.message ?? '', /^missing/);
		assert.deepEqual(snapshotFiles(path.join(root, '.baton')), before, 'nothing written');

		const dup = cleoSessionsData();
		dup['sessionHistory'][1].id = 'session_20251230_161248_81c3ce';
		const duplicate = await run(dup);
		assert.deepEqual(duplicate.errors, [
			{ record: 'sessionHistory[1] (session_20251230_161248_81c3ce)', field: 'id', message: 'duplicate of sessions[0]' },
		]);
		assert.equal(duplicate.added.sessions, 0, 'a refused import adds nothing, and says so');

		const oneBad = cleoSessionsData();
		oneBad['sessions'][3].id = '../../etc/passwd';
		const allOrNothing = await run(oneBad);
		assert.deepEqual(
			allOrNothing.errors.map((e) => `${e.record}: ${e.field}`),
			['sessions[3] (../../etc/passwd): id'],
		);
		assert.deepEqual(snapshotFiles(path.join(root, '.baton')), before, 'one bad record among good ones: nothing written');

		const notJson = await engine.imports.run({
			format: 'cleo-sessions',
			path: writeJsonText(path.join(dir, 'broken.json'), '{"sessions": [ {"id": '),
			dryRun: false,
			actor,
		});
		assert.equal(notJson.errors[0]?.record, 'sessions.json');
		assert.match(notJson.errors[0]?.message ?? '', /^not valid JSON/);
		const wrongShape = await run({ sessions: 'none' });
		assert.deepEqual(wrongShape.errors, [{ record: 'sessions.json', field: 'sessions', message: 'expected array, got "none"' }]);
		const missing = await engine.imports.run({ format: 'cleo-sessions', path: path.join(dir, 'nope.json'), dryRun: false, actor });
		assert.match(missing.errors[0]?.message ?? '', /does not exist/);
		assert.deepEqual(snapshotFiles(path.join(root, '.baton')), before);
	});

	void it('refuses an active session whose scope already has an active session in Baton', async (t) => {
		const { engine } = await openTestEngine(t, { config: { scopeValidation: 'none' } });
		await engine.sessions.start({ name: 'mine', scope: 'epic:T001', actor });
		const result = await engine.imports.run({
			format: 'cleo-sessions',
			path: writeJson(path.join(tempDir(t), 's.json'), cleoSessionsData()),
			dryRun: false,
			actor,
		});
		assert.equal(result.errors.length, 1);
		assert.equal(result.errors[0]?.record, 'sessions[0] (session_20251230_161248_81c3ce)');
		assert.equal(result.errors[0]?.field, 'status');
		assert.match(result.errors[0]?.message ?? '', /already active in scope epic:T001/);
		assert.equal((await engine.briefings.list()).length, 1);
	});

	void it('plans again inside the write: a conflict another process made after the preview refuses the import, writing nothing', async (t) => {
		const { engine, root } = await openTestEngine(t, { config: { scopeValidation: 'none' } });
		const other = await openTestEngine(t, { root, config: { scopeValidation: 'none' } });
		const file = writeJson(path.join(tempDir(t), 's.json'), cleoSessionsData());
		// Between the preview (a read) and the write, another writer starts a session in the same scope.
		const read = engine.store.read.bind(engine.store);
		engine.store.read = (async (fn: Parameters<typeof read>[0]) => {
			const result = await read(fn);
			await other.engine.sessions.start({ name: 'raced in', scope: 'epic:T001', actor });
			return result;
		}) as typeof read;
		const result = await engine.imports.run({ format: 'cleo-sessions', path: file, dryRun: false, actor });
		assert.deepEqual(
			result.errors.map((e) => `${e.record}: ${e.field}`),
			['sessions[0] (session_20251230_161248_81c3ce): status'],
		);
		assert.deepEqual(
			(await other.engine.briefings.list()).map((s) => s.name),
			['raced in'],
			'the import wrote nothing',
		);
	});
});

function writeJsonText(file: string, text: string): string {
	fs.writeFileSync(file, text);
	return file;
}
