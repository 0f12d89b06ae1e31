/**
 * The records that change without a domain event travel too, through the real bare remote between
 * two real clones: decisions, checkpoint tags and annotations added after recording, memory facts and
 * their confirmations, task changes, import records. Both machines end with the same derived state.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import test from 'node:test';
import { decisions, importRecords } from '../../../../src/engine/storage/schema';
import { actor } from '../../helpers';
import { beadsIssues, cleoDbData, cleoSessionsData, writeCleoDb, writeJson, writeJsonl } from '../interop/interopFixtures';
import { allObjects, startEnd, syncWorld } from './syncWorld';
import type { TestEngine } from '../../helpers';

async function roundTrip(from: TestEngine, to: TestEngine): Promise<Awaited<ReturnType<TestEngine['engine']['sync']['pull']>>> {
	await from.engine.sync.push();
	return to.engine.sync.pull();
}

async function records(e: TestEngine): Promise<unknown> {
	const cps = (await e.engine.checkpoints.list({})).map((c) => [c.id, [...c.tags].sort(), c.annotations.map((a) => a.text)]).sort();
	// The secret is redacted in what travels; the writer's own copy keeps it.
	const facts = (await e.engine.memory.list({})).map((f) => [f.kind, f.text.replace(/ghp_\w+/, '[REDACTED:github-token]'), f.confirmations]).sort();
	const tasks = (await e.engine.tasks.list()).map((t) => [t.id, t.title, t.status, t.priority, t.parentId, t.completedAt]);
	return { cps, facts, tasks };
}

test('decisions, labels added after recording, facts and confirmations, task changes and imports reach the other clone; both derive the same state', async (t) => {
	const w = await syncWorld(t);
	await w.a.engine.sync.enable('origin');
	await w.b.engine.sync.enable('origin');

	const s = await w.a.engine.sessions.start({ name: 'records on A', actor });
	const decision = await w.a.engine.sessions.recordDecision({
		text: 'use ULIDs; token ghp_abcdefghijklmnopqrstuvwxyz0123456789AB stays here',
		rationale: 'sortable',
		actor,
	});
	const cp = await w.a.engine.checkpoints.create({ sessionId: s.session.id, message: 'first', tags: ['one'], actor });
	await w.a.engine.checkpoints.tag(cp.id, 'two', actor);
	await w.a.engine.checkpoints.annotate(cp.id, 'looked at the parser', actor);
	const fact = await w.a.engine.memory.record({ kind: 'gotcha', text: 'the parser needs a trailing newline', files: ['app.ts'], actor });
	await w.a.engine.memory.confirm(fact.entry.id, actor);
	const task = await w.a.engine.tasks.add({ title: 'write the printer', priority: 'high', actor });
	await w.a.engine.tasks.update({ id: task.id, status: 'active', actor });
	await w.a.engine.sessions.end({ id: s.session.id, note: 'done', actor });

	const first = await roundTrip(w.a, w.b);
	// The session's end added facts of its own (its decision): every fact of A's arrives.
	const factsOnA = (await w.a.engine.memory.list({})).length;
	assert.ok(factsOnA >= 1);
	assert.deepEqual(first.records, { decisions: 1, checkpointLabels: 1, memory: factsOnA, tasks: 1, imports: 0 });
	const onB = await w.b.engine.briefings.get(s.session.id);
	assert.equal(onB.name, 'records on A');
	assert.equal(JSON.stringify(await records(w.b)), JSON.stringify(await records(w.a)));
	const cpOnB = await w.b.engine.checkpoints.get(cp.id);
	assert.deepEqual([...cpOnB.tags].sort(), ['one', 'two']);
	assert.deepEqual(
		cpOnB.annotations.map((a) => a.text),
		['looked at the parser'],
	);
	assert.equal((await w.b.engine.memory.get(fact.entry.id)).confirmations, 2);
	assert.equal((await w.b.engine.tasks.get(task.id)).status, 'active');
	// The secret in the decision never left A.
	assert.ok(!allObjects(w.bare).includes('ghp_abcdefghijklmnopqrstuvwxyz0123456789AB'), 'the secret reached the remote');
	assert.ok(allObjects(w.bare).includes(decision.id), 'the decision travelled as its own event');

	// B changes them in turn: untag, annotate, confirm, finish the task.
	await w.b.engine.checkpoints.untag(cp.id, 'one', actor);
	await w.b.engine.checkpoints.annotate(cp.id, 'approved the approach', actor);
	await w.b.engine.memory.confirm(fact.entry.id, actor);
	await w.b.engine.tasks.update({ id: task.id, status: 'done', actor });
	// The fact whose text held the secret: A's own copy keeps it, and B's confirmation still finds it.
	const secretFact = (await w.b.engine.memory.list({})).find((f) => f.text.includes('[REDACTED:github-token]'));
	assert.ok(secretFact);
	await w.b.engine.memory.confirm(secretFact.id, actor);
	const back = await roundTrip(w.b, w.a);
	assert.deepEqual([back.records.checkpointLabels, back.records.memory, back.records.tasks], [1, 2, 1]);
	assert.equal((await w.a.engine.memory.list({})).length, factsOnA, 'no fact doubled');
	assert.deepEqual((await w.a.engine.checkpoints.get(cp.id)).tags, ['two']);
	assert.equal((await w.a.engine.memory.get(fact.entry.id)).confirmations, 3);
	assert.equal((await w.a.engine.tasks.get(task.id)).status, 'done');
	assert.equal(JSON.stringify(await records(w.a)), JSON.stringify(await records(w.b)));

	// Nothing echoes: another round writes no new event on either side.
	const quiet = await roundTrip(w.a, w.b);
	assert.equal(quiet.newEvents, 0);
	assert.equal((await roundTrip(w.b, w.a)).newEvents, 0);

	// The decision's own row is on B (not only inside the handoff), redacted, in its session.
	const rows = await w.b.engine.ctx.store.read((db) => db.select().from(decisions).all());
	assert.deepEqual(
		rows.map((r) => [r.id, r.sessionId, r.rationale, r.text.includes('ghp_')]),
		[[decision.id, s.session.id, 'sortable', false]],
	);
});

test('an import on A reaches B with its import records: importing the same file on B adds nothing', async (t) => {
	const w = await syncWorld(t);
	await w.a.engine.sync.enable('origin');
	await w.b.engine.sync.enable('origin');
	const folder = path.join(w.dir, 'beads');
	writeJsonl(path.join(folder, '.beads', 'issues.jsonl'), beadsIssues());
	const imported = await w.a.engine.imports.run({ format: 'beads', path: folder, dryRun: false, actor });
	assert.equal(imported.added.tasks, 5);
	const pulled = await roundTrip(w.a, w.b);
	assert.equal(pulled.records.tasks, 5);
	assert.equal(pulled.records.imports, 5);
	assert.equal(JSON.stringify(await records(w.b)), JSON.stringify(await records(w.a)));
	const again = await w.b.engine.imports.run({ format: 'beads', path: folder, dryRun: false, actor });
	assert.equal(again.added.tasks, 0, 'B knows these records were imported already');
	assert.equal(again.unchanged.tasks, 5);
	await startEnd(w.b, 'after import', 'nothing');
});

test('import records of sessions, tasks and decisions arrive once each, across pages of the pull, beside the records the clone holds already', async (t) => {
	const w = await syncWorld(t, { syncPageEvents: 3 });
	await w.a.engine.sync.enable('origin');
	await w.b.engine.sync.enable('origin');
	const importsOf = (e: TestEngine): Promise<string[]> =>
		e.engine.store.read((db) =>
			db
				.select()
				.from(importRecords)
				.all()
				.map((r) => [r.source, r.entityType, r.externalId, r.entityId, r.contentHash].join(' '))
				.sort(),
		);
	const cleo = await writeCleoDb(path.join(w.dir, 'cleo', '.cleo', 'tasks.db'), cleoDbData());
	assert.deepEqual((await w.a.engine.imports.run({ format: 'cleo-db', path: cleo, dryRun: false, actor })).errors, []);
	const onA = await importsOf(w.a);
	assert.deepEqual([...new Set(onA.map((r) => r.split(' ').slice(0, 2).join(' ')))], ['cleo-db decision', 'cleo-db session', 'cleo-db task']);
	const pulled = await roundTrip(w.a, w.b);
	assert.deepEqual(pulled.refused, []);
	assert.equal(pulled.records.imports, onA.length);
	assert.deepEqual(await importsOf(w.b), onA);
	assert.equal((await roundTrip(w.a, w.b)).records.imports, 0, 'a second pull adds none');
	// B imported a Beads file itself before it pulls A's import of the same file: B keeps its own records.
	const beads = path.join(w.dir, 'beads');
	writeJsonl(path.join(beads, '.beads', 'issues.jsonl'), beadsIssues());
	await w.b.engine.imports.run({ format: 'beads', path: beads, dryRun: false, actor });
	await w.a.engine.imports.run({ format: 'beads', path: beads, dryRun: false, actor });
	const onB = await importsOf(w.b);
	assert.equal((await roundTrip(w.a, w.b)).records.imports, 0);
	assert.deepEqual(await importsOf(w.b), onB);
});

test('tags changed on both machines at once, and a task changed on both: after syncing both ways both hold the same state, whatever order the events came in', async (t) => {
	const w = await syncWorld(t);
	await w.a.engine.sync.enable('origin');
	await w.b.engine.sync.enable('origin');
	const s = await w.a.engine.sessions.start({ name: 'tags', actor });
	const cp = await w.a.engine.checkpoints.create({ sessionId: s.session.id, message: 'tagged', tags: ['keep', 'drop'], actor });
	const task = await w.a.engine.tasks.add({ title: 'shared task', actor });
	await roundTrip(w.a, w.b);
	// Concurrently: A removes `drop` and adds `a`; B adds `b` and raises the task's priority; A finishes it.
	await w.a.engine.checkpoints.untag(cp.id, 'drop', actor);
	await w.a.engine.checkpoints.tag(cp.id, 'a', actor);
	await w.a.engine.tasks.update({ id: task.id, status: 'done', actor });
	w.b.clock.advance(5_000);
	await w.b.engine.checkpoints.tag(cp.id, 'b', actor);
	await w.b.engine.tasks.update({ id: task.id, priority: 'critical', actor });
	// B pushes first, A pulls B's before pushing its own: the two received the events in different orders.
	await w.b.engine.sync.push();
	await w.a.engine.sync.pull();
	await w.a.engine.sync.push();
	await w.b.engine.sync.pull();
	const onA = await w.a.engine.checkpoints.get(cp.id);
	const onB = await w.b.engine.checkpoints.get(cp.id);
	assert.deepEqual([...onA.tags].sort(), ['a', 'b', 'keep']);
	assert.deepEqual([...onB.tags].sort(), [...onA.tags].sort());
	const taskA = await w.a.engine.tasks.get(task.id);
	const taskB = await w.b.engine.tasks.get(task.id);
	assert.deepEqual([taskA.status, taskA.priority], ['done', 'critical'], 'each machine’s field change survives');
	assert.deepEqual([taskB.status, taskB.priority, taskB.updatedAt], [taskA.status, taskA.priority, taskA.updatedAt]);
	assert.equal((await roundTrip(w.a, w.b)).newEvents, 0, 'settled: nothing more to say');
	assert.equal((await roundTrip(w.b, w.a)).newEvents, 0);
});

test('sessions imported from CLEO’s own sessions.json travel with their legacy states: the other clone counts the same archived and closed ones', async (t) => {
	const w = await syncWorld(t);
	await w.a.engine.sync.enable('origin');
	await w.b.engine.sync.enable('origin');
	const file = path.join(__dirname, '../..', '..', 'fixtures', 'real', 'cleo', 'sessions-606.json');
	const imported = await w.a.engine.imports.run({ format: 'cleo-sessions', path: file, dryRun: false, actor });
	assert.equal(imported.added.sessions, 613);
	const countBy = async (e: TestEngine): Promise<Record<string, number>> => {
		const out: Record<string, number> = {};
		for (const s of await e.engine.briefings.list({ limit: 10_000 })) out[s.status] = (out[s.status] ?? 0) + 1;
		return out;
	};
	// The counts the corpus test reads from the source: 2 active, 100 archived, 504 ended, 7 closed.
	assert.deepEqual(await countBy(w.a), { active: 2, archived: 100, ended: 504, closed: 7 });
	const pulled = await roundTrip(w.a, w.b);
	assert.equal(pulled.sessions.added, 613);
	assert.deepEqual(pulled.refused, []);
	assert.deepEqual(await countBy(w.b), await countBy(w.a));
});

test('an imported live CLEO session’s focus travels with it: the other clone shows the same focus', async (t) => {
	const w = await syncWorld(t);
	await w.a.engine.sync.enable('origin');
	await w.b.engine.sync.enable('origin');
	const file = writeJson(path.join(w.dir, 'cleo', 'sessions.json'), cleoSessionsData());
	assert.deepEqual((await w.a.engine.imports.run({ format: 'cleo-sessions', path: file, dryRun: false, actor })).errors, []);
	const onA = (await w.a.engine.briefings.list({ limit: 100 })).find((s) => s.name === 'Auth Implementation');
	assert.deepEqual(onA?.focus, { note: 'Working on JWT validation', nextAction: 'Add error handling', blockedReason: null });
	const pulled = await roundTrip(w.a, w.b);
	assert.deepEqual(pulled.refused, []);
	const onB = await w.b.engine.briefings.get(onA.id);
	assert.deepEqual(onB.focus, onA.focus);
	assert.equal((await roundTrip(w.b, w.a)).newEvents, 0, 'nothing echoes back');
});
