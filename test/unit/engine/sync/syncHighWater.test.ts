/**
 * A sync costs what is new, not the history (issue #28 item 5): an export reads only the local
 * events above its durable mark (exportMark.ts), the records that become events at a sync are not
 * compared again while nothing changed, and a batch of this machine's events is appended with one
 * lookup. What it must never cost is an event: a sync after a sync sends nothing, a new event after a
 * sync sends only it, and a crash between the mark and the push loses nothing.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import test from 'node:test';
import { eq } from 'drizzle-orm';
import { ShadowRepo } from '../../../../src/engine/shadow/shadowRepo';
import { machineIdentity } from '../../../../src/engine/shared/machineIdentity';
import { sharedEvents, tasks } from '../../../../src/engine/storage/schema';
import { EventRefs } from '../../../../src/engine/sync/eventRefs';
import { batonDir } from '../../../../src/engine/workspace';
import { nextTurn } from '../../../../src/engine/ports';
import { openTestEngine } from '../../helpers';
import { enabledWorld, git, remoteRefs, startEnd } from './syncWorld';

const actor = 'cli:test';

function eventRefs(root: string): EventRefs {
	return new EventRefs(new ShadowRepo(root, batonDir(root)), machineIdentity(root).id);
}

/** The remote's tip of this machine's events ref (null: never pushed). */
function remoteTip(bare: string, root: string): string | null {
	const ref = `refs/baton/events/${machineIdentity(root).id}`;
	const line = git(bare, ['for-each-ref', '--format=%(objectname) %(refname)', ref], { GIT_DIR: bare });
	return line ? (line.split(' ')[0] as string) : null;
}

test('a sync after a sync sends nothing: no event exported, no ref pushed, nothing new for the other clone', async (t) => {
	const w = await enabledWorld(t);
	await startEnd(w.a, 'first', 'done');
	await w.a.engine.tasks.add({ title: 'keep the parser small', actor });
	const first = await w.a.engine.sync.push();
	assert.ok((first[0]?.pushed.length ?? 0) > 0, 'the first push sends the refs');
	const tip = remoteTip(w.bare, w.a.root);
	assert.ok(tip);
	assert.equal((await w.b.engine.sync.pull()).newEvents > 0, true);

	const refsBefore = remoteRefs(w.bare);
	assert.equal((await w.a.engine.sync.export()).events, 0, 'nothing above the mark');
	const again = await w.a.engine.sync.push();
	assert.deepEqual(again[0]?.pushed, [], 'no ref is sent again');
	assert.deepEqual(remoteRefs(w.bare), refsBefore);
	assert.equal(remoteTip(w.bare, w.a.root), tip);
	assert.equal((await w.b.engine.sync.pull()).newEvents, 0);
	assert.equal((await w.a.engine.sync.status()).remotes[0]?.ahead, 0);
});

test('a new event after a sync sends only it: the next export is one event, the other clone receives that one', async (t) => {
	const w = await enabledWorld(t);
	await startEnd(w.a, 'first', 'done');
	await w.a.engine.sync.push();
	await w.b.engine.sync.pull();
	const refs = eventRefs(w.a.root);
	const before = await refs.tip(refs.eventsRef);

	// A task becomes its event at the next sync, after a sync that found no record waiting.
	const task = await w.a.engine.tasks.add({ title: 'ids are ULIDs', actor });
	assert.equal((await w.a.engine.sync.status()).remotes[0]?.ahead, 0, 'not an event until the sync');
	const pushed = await w.a.engine.sync.push();
	assert.equal(
		pushed[0]?.pushed.some((p) => p.ref === refs.eventsRef),
		true,
	);
	const after = await refs.tip(refs.eventsRef);
	const sent = await refs.readEvents(before, after as string);
	assert.deepEqual(
		sent.map((e) => [e.kind, e.subject]),
		[['task.changed', task.id]],
		'the export carries the new event alone',
	);
	const pulled = await w.b.engine.sync.pull();
	assert.equal(pulled.newEvents, 1);
	assert.equal(pulled.records.tasks, 1);
	assert.deepEqual(await w.b.engine.store.read((db) => db.select({ id: tasks.id, title: tasks.title }).from(tasks).all()), [
		{ id: task.id, title: 'ids are ULIDs' },
	]);
});

test('a crash between writing the export mark and pushing loses nothing: the next process pushes what the mark covers', async (t) => {
	const w = await enabledWorld(t);
	const markFile = path.join(w.a.root, '.baton', 'sync', 'exported.json');
	await startEnd(w.a, 'before the crash', 'exported, never pushed');
	await w.a.engine.tasks.add({ title: 'exported before the crash', actor });
	const exported = await w.a.engine.sync.export();
	assert.ok(exported.events >= 4, 'session start, handoff, end and the decision are in the ref');
	const mark = JSON.parse(fs.readFileSync(markFile, 'utf8')) as { tip: string };
	assert.equal(remoteTip(w.bare, w.a.root), null, 'nothing reached the remote');
	const local = await w.a.engine.store.read(
		(db) => db.select({ id: sharedEvents.id }).from(sharedEvents).where(eq(sharedEvents.source, 'local')).all().length,
	);

	// The process ends here, before its push; another one opens the same workspace.
	w.a.engine.close();
	const again = await openTestEngine(t, { root: w.a.root, clock: w.a.clock });
	assert.equal((await again.engine.sync.status()).remotes[0]?.ahead, local, 'status counts every exported, unconfirmed event');
	const pushed = await again.engine.sync.push();
	assert.equal(remoteTip(w.bare, w.a.root), mark.tip, 'the push sends the ref the mark names');
	assert.equal(pushed[0]?.pushed.length ? true : false, true);
	const pulled = await w.b.engine.sync.pull();
	assert.equal(pulled.newEvents, local, 'the other clone receives every event');
	assert.equal(pulled.sessions.added, 1);
	assert.equal((await again.engine.sync.status()).remotes[0]?.ahead, 0);
	again.engine.close();
});

test('the events of one write are appended in order with one lookup: ids go up even within a millisecond and after a teammate’s id from a clock ahead', async (t) => {
	const w = await enabledWorld(t);
	// B's clock is an hour ahead: its ids sort after everything A wrote so far.
	w.b.clock.advance(3_600_000);
	await startEnd(w.b, 'ahead', 'from the future');
	await w.b.engine.sync.push();
	await w.a.engine.sync.pull();
	// A session that ends while its checkpoint is recorded writes several events in one write each; they all follow B's.
	await startEnd(w.a, 'after', 'follows', { checkpoint: true });
	const rows = await w.a.engine.store.read((db) =>
		db.select({ id: sharedEvents.id, kind: sharedEvents.kind, source: sharedEvents.source }).from(sharedEvents).all(),
	);
	const ordered = [...rows].sort((x, y) => (x.id < y.id ? -1 : 1));
	const firstOwn = ordered.findIndex((r) => r.source === 'local');
	assert.ok(firstOwn > 0);
	assert.ok(
		ordered.slice(firstOwn).every((r) => r.source === 'local'),
		'every event A wrote after the pull sorts after B’s',
	);
	assert.deepEqual(
		ordered.slice(firstOwn).map((r) => r.kind),
		// Its start takes B's handoff: the start and the consumption are one write, one millisecond.
		['session.started', 'handoff.consumed', 'checkpoint.recorded', 'handoff.written', 'session.status'],
		`in the order they happened (${ordered.map((r) => r.kind).join(', ')})`,
	);
	const ids = ordered.slice(firstOwn).map((r) => r.id);
	assert.equal(new Set(ids).size, ids.length);
});

test('a session’s work after a sync does not make the next export read every task and import again; a changed record and a pull do', async (t) => {
	const w = await enabledWorld(t);
	const compared = (): string =>
		(['decisions', 'checkpoints', 'memory_entries', 'tasks', 'import_records'] as const).map((table) => w.a.engine.sync.recordComparisons(table)).join(',');
	const tasksCompared = (): number => w.a.engine.sync.recordComparisons('tasks');
	await w.a.engine.tasks.add({ title: 'keep the parser small', actor });
	await w.a.engine.sync.push();
	const settled = compared();
	assert.equal((await w.a.engine.sync.export()).events, 0);
	assert.equal(compared(), settled, 'nothing changed: no table compared again');

	// What a working agent writes between syncs (a session, its handoff, its end and its checkpoint)
	// changes no task, decision, fact or import: only the checkpoints' labels are compared again.
	const tasksBefore = tasksCompared();
	await startEnd(w.a, 'working', 'done');
	const worked = await w.a.engine.sync.export();
	assert.ok(worked.events >= 3, 'the session’s own events are exported');
	assert.equal(tasksCompared(), tasksBefore, 'the tasks were not read again for a session’s work');
	assert.equal(w.a.engine.sync.recordComparisons('import_records'), Number(settled.split(',')[4]));

	// A changed record is found: the tasks table moved.
	const task = await w.a.engine.tasks.add({ title: 'a record after the sync', actor });
	const refs = eventRefs(w.a.root);
	const before = await refs.tip(refs.eventsRef);
	await w.a.engine.sync.export();
	assert.equal(tasksCompared(), tasksBefore + 1);
	const sent = await refs.readEvents(before, (await refs.tip(refs.eventsRef)) as string);
	assert.deepEqual(
		sent.filter((e) => e.kind === 'task.changed').map((e) => e.subject),
		[task.id],
	);

	// A pull may bring or take back records' events: after one that did, the next sync compares every
	// table again; after one that found nothing new (an editor pulls on focus), none.
	await w.a.engine.sync.push();
	const afterPush = tasksCompared();
	assert.equal((await w.a.engine.sync.pull()).newEvents, 0);
	await w.a.engine.sync.export();
	assert.equal(tasksCompared(), afterPush, 'nothing new pulled: not compared again');
	await w.b.engine.tasks.add({ title: 'a teammate’s task', actor });
	await w.b.engine.sync.push();
	assert.ok((await w.a.engine.sync.pull()).newEvents > 0);
	await w.a.engine.sync.export();
	assert.ok(tasksCompared() > afterPush, 'compared again after a pull that brought events');
});

test('the next process on the store does not compare the tables the last one found settled, unless they changed since', async (t) => {
	const w = await enabledWorld(t);
	await w.a.engine.tasks.add({ title: 'keep the parser small', actor });
	await w.a.engine.sync.push();
	assert.ok(fs.existsSync(path.join(w.a.root, '.baton', 'cache', 'records-settled')), 'saved for the next process');
	w.a.engine.close();

	const next = await openTestEngine(t, { root: w.a.root, clock: w.a.clock });
	await startEnd(next, 'working', 'done');
	await next.engine.sync.export();
	assert.equal(next.engine.sync.recordComparisons('tasks'), 0, 'the tasks were found settled by the process before');
	assert.equal(next.engine.sync.recordComparisons('import_records'), 0);
	// A task changed by another process after the save is compared (and becomes its event).
	const other = await openTestEngine(t, { root: w.a.root, clock: w.a.clock });
	const changed = await other.engine.tasks.add({ title: 'changed elsewhere', actor });
	other.engine.close();
	next.engine.close();
	const third = await openTestEngine(t, { root: w.a.root, clock: w.a.clock });
	await third.engine.sync.export();
	assert.equal(third.engine.sync.recordComparisons('tasks'), 1);
	const owed = await third.engine.store.read((db) =>
		db.select({ subject: sharedEvents.subject }).from(sharedEvents).where(eq(sharedEvents.kind, 'task.changed')).all(),
	);
	assert.ok(owed.some((e) => e.subject === changed.id));
	// A pull that brings events forgets what was settled, here and for the next process; one that brings nothing keeps it.
	await third.engine.sync.pull();
	assert.equal(fs.existsSync(path.join(w.a.root, '.baton', 'cache', 'records-settled')), true, 'nothing new pulled');
	await w.b.engine.tasks.add({ title: 'a teammate’s task', actor });
	await w.b.engine.sync.push();
	await third.engine.sync.pull();
	assert.equal(fs.existsSync(path.join(w.a.root, '.baton', 'cache', 'records-settled')), false);
	third.engine.close();
});

test('the first comparison of a process answers between its chunks: a task changed meanwhile is not settled over and becomes its event', async (t) => {
	const w = await enabledWorld(t);
	// More tasks than three chunks of the comparison (1,000 records each), written the way an import writes rows.
	const count = 4_000;
	const at = new Date(w.a.clock.now()).toISOString();
	await w.a.engine.store.write((db) => {
		for (let i = 0; i < count; i += 500) {
			db.insert(tasks)
				.values(
					Array.from({ length: Math.min(500, count - i) }, (_, k) => ({
						id: `T${i + k + 1}`,
						seq: i + k + 1,
						title: `task ${i + k + 1}`,
						type: 'task' as const,
						status: 'pending' as const,
						priority: 'medium' as const,
						createdAt: at,
						updatedAt: at,
					})),
				)
				.run();
		}
	});
	await w.a.engine.sync.export();
	w.a.engine.close();
	fs.rmSync(path.join(w.a.root, '.baton', 'cache', 'records-settled'));

	// A new process (nothing saved): its comparison of the tasks runs a chunk a turn, and a write gets in between.
	const next = await openTestEngine(t, { root: w.a.root, clock: w.a.clock });
	const settling = next.engine.sync.settleRecords();
	await nextTurn();
	const changed = await next.engine.tasks.update({ id: `T${count}`, title: 'renamed while the tasks were compared', actor });
	await settling;
	assert.equal(next.engine.sync.recordComparisons('tasks'), 0, 'the tasks moved while compared: not settled');
	assert.equal(next.engine.sync.recordComparisons('decisions'), 1, 'the tables that did not move are settled');
	await next.engine.sync.export();
	assert.equal(next.engine.sync.recordComparisons('tasks'), 1);
	const events = await next.engine.store.read((db) =>
		db.select({ subject: sharedEvents.subject, body: sharedEvents.body }).from(sharedEvents).where(eq(sharedEvents.kind, 'task.changed')).all(),
	);
	assert.equal(events.length, count + 1);
	const about = events.filter((e) => e.subject === changed.id).map((e) => e.body['title']);
	assert.deepEqual(about.sort(), [`task ${count}`, changed.title].sort(), 'its first event, and the rename’s');
	// A task in the third chunk: the comparison under the lock starts where the one before found it owed, and finds it.
	const third = await next.engine.tasks.update({ id: 'T2500', title: 'renamed in the third chunk', actor });
	await next.engine.sync.export();
	const renamed = await next.engine.store.read((db) =>
		db.select({ body: sharedEvents.body }).from(sharedEvents).where(eq(sharedEvents.subject, third.id)).all(),
	);
	assert.ok(renamed.some((e) => e.body['title'] === third.title));
	next.engine.close();
});
