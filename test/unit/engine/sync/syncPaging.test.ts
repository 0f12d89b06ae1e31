/**
 * A long history is pushed and pulled a page at a time (exportMark.ts, syncMerge.ts): at 100,000
 * sessions one string of every event ran sql.js out of memory on the push, and one journal record of
 * the whole merge passed V8's longest string on the pull. Here pages of three events: what a clone
 * derives from a history pulled in pages is what its author holds — sessions and their chains,
 * handoffs, checkpoints, decisions, tasks — and a teammate's retraction pulled with it still applies.
 */
import assert from 'node:assert/strict';
import test from 'node:test';
import { sql } from 'drizzle-orm';
import type { BatonDb } from '../../../../src/engine/storage/journalStore';
import type { TestEngine } from '../../helpers';
import { startEnd, syncWorld } from './syncWorld';

/** What a clone shows of the shared history, in a form both clones can be compared by. */
async function derived(side: TestEngine): Promise<Record<string, unknown[]>> {
	return side.engine.store.read((db) => ({
		sessions: db.all(sql`SELECT id, name, status, scope_key, previous_session_id, ended_at FROM sessions ORDER BY id`),
		handoffs: db.all(sql`SELECT session_id, json_extract(handoff_json, '$.summary') AS summary FROM handoffs ORDER BY session_id`),
		checkpoints: db.all(sql`SELECT id, session_id, message FROM checkpoints ORDER BY id`),
		decisions: db.all(sql`SELECT id, session_id, text FROM decisions ORDER BY id`),
		tasks: db.all(sql`SELECT id, title, status FROM tasks ORDER BY id`),
	}));
}

test('a history pulled three events a write derives what its author holds, and a retraction holds through a pull killed between pages', async (t) => {
	const w = await syncWorld(t, { syncPageEvents: 3 });
	await w.a.engine.sync.enable('origin');
	await w.b.engine.sync.enable('origin');
	const task = await w.a.engine.tasks.add({ title: 'the parser', actor: 'test' });
	let previous = null as string | null;
	for (let i = 0; i < 6; i++) {
		if (i === 2) {
			// A session that decides something on the way.
			const started = await w.a.engine.sessions.start({ name: `part ${i}`, scope: `task:${task.id}`, actor: 'test' });
			await w.a.engine.sessions.recordDecision({ text: `decided in part ${i}`, taskId: task.id, actor: 'test' });
			await w.a.engine.sessions.end({ id: started.session.id, note: `part ${i} done`, actor: 'test' });
			previous = started.session.id;
			continue;
		}
		const s = await startEnd(w.a, `part ${i}`, `part ${i} done`, { scope: `task:${task.id}`, checkpoint: i % 2 === 0 });
		assert.equal(s.handoffFrom, previous);
		previous = s.id;
	}
	await w.a.engine.tasks.update({ id: task.id, status: 'done', actor: 'test' });
	const pushed = await w.a.engine.sync.export();
	assert.ok(pushed.events > 12, `a history of several pages (${pushed.events} events)`);
	await w.a.engine.sync.push();

	const writesBefore = w.b.engine.store.dataVersion;
	const pulled = await w.b.engine.sync.pull();
	assert.equal(pulled.newEvents, pushed.events);
	assert.ok(w.b.engine.store.dataVersion - writesBefore >= Math.ceil(pushed.events / 3), 'a write per page of three');
	const mine = await derived(w.a);
	const theirs = await derived(w.b);
	assert.equal(theirs.sessions?.length, 6);
	for (const table of Object.keys(mine)) {
		assert.deepEqual(theirs[table], mine[table], table);
	}

	// The author takes a session back and works on; the clone's pull is killed on the first write after
	// the page that brought the tombstone. The tombstone applied in its own page: once merged it is never
	// new again, so a retraction left for the last write would be lost with that write.
	const [first] = mine.sessions as { id: string }[];
	const taken = first?.id as string;
	await w.a.engine.sync.retract({ session: taken }, 'test');
	for (let i = 6; i < 9; i++) await startEnd(w.a, `part ${i}`, `part ${i} done`, { scope: `task:${task.id}` });
	await w.a.engine.sync.push();
	const store = w.b.engine.store;
	const write = store.write.bind(store);
	const still = (): boolean => Number(store.sqlite.exec('SELECT count(*) FROM sessions WHERE id = ?', [taken])[0]?.values[0]?.[0]) > 0;
	store.write = <T>(fn: (db: BatonDb) => T): Promise<T> => (still() ? write(fn) : Promise.reject(new Error('killed mid-pull')));
	try {
		await assert.rejects(w.b.engine.sync.pull(), /killed mid-pull/, 'the tombstone was not in the last page');
	} finally {
		store.write = write;
	}
	assert.equal(still(), false, 'the taken-back session is gone with the page that brought its tombstone');
	await w.b.engine.sync.pull();
	const after = await derived(w.b);
	const author = await derived(w.a);
	assert.deepEqual(
		(after.sessions as { id: string }[]).map((s) => s.id),
		(author.sessions as { id: string }[]).map((s) => s.id).filter((id) => id !== taken),
	);
	assert.equal(after.sessions?.length, 8);
});

test('a pull reads the fetched batches a group at a time, each merged before the next is read (none read ahead), and derives what its author holds', async (t) => {
	// Pages of three events push a batch file each; groups of one byte read each batch file alone.
	const w = await syncWorld(t, { syncPageEvents: 3, syncGroupBytes: 1 });
	await w.a.engine.sync.enable('origin');
	await w.b.engine.sync.enable('origin');
	const task = await w.a.engine.tasks.add({ title: 'the lexer', actor: 'test' });
	for (let i = 0; i < 4; i++) await startEnd(w.a, `part ${i}`, `part ${i} done`, { scope: `task:${task.id}`, checkpoint: i === 1 });
	const pushed = await w.a.engine.sync.export();
	await w.a.engine.sync.push();

	// What the pull does, in order: batch files read (`cat-file --batch`) and writes to the store.
	const steps: string[] = [];
	const shadow = w.b.engine.checkpoints.shadow;
	const git = shadow.git.bind(shadow);
	shadow.git = (async (args: readonly string[], options?: object) => {
		if (args[0] === 'cat-file' && args[1] === '--batch') steps.push('read');
		return git(args as string[], options as never);
	}) as typeof shadow.git;
	const store = w.b.engine.store;
	const write = store.write.bind(store);
	store.write = <T>(fn: (db: BatonDb) => T): Promise<T> => {
		steps.push('write');
		return write(fn);
	};
	let pulled;
	try {
		pulled = await w.b.engine.sync.pull();
	} finally {
		shadow.git = git;
		store.write = write;
	}
	assert.equal(pulled.newEvents, pushed.events);
	const reads = steps.filter((s) => s === 'read').length;
	assert.ok(reads >= Math.ceil(pushed.events / 3), `a read per batch file (${reads} for ${pushed.events} events)`);
	// Past the first read (the one that found everything too large to read at once), each later read
	// comes after the writes of the group before it: the merge does not wait for every batch.
	const firstWrite = steps.indexOf('write');
	assert.ok(firstWrite > 0 && steps.lastIndexOf('read') > firstWrite, `reads and writes interleave: ${steps.join(' ')}`);
	// And no group is read ahead of the write of the one before (to learn whether that was the last):
	// from the first write on, each write follows its own group's read — the last included.
	const merged = steps.slice(firstWrite).join(' ');
	assert.ok(!merged.includes('write write') && merged.endsWith('read write'), `one group held at a time: ${steps.join(' ')}`);
	const mine = await derived(w.a);
	const theirs = await derived(w.b);
	for (const table of Object.keys(mine)) assert.deepEqual(theirs[table], mine[table], table);
	assert.equal(theirs.sessions?.length, 4);
});

test('the records a sync owes the log become events a page a write', async (t) => {
	const w = await syncWorld(t, { syncPageEvents: 3 });
	await w.a.engine.sync.enable('origin');
	await w.b.engine.sync.enable('origin');
	for (let i = 0; i < 10; i++) await w.a.engine.tasks.add({ title: `task ${i}`, actor: 'test' });
	const store = w.a.engine.store;
	const count = (): number => Number(store.sqlite.exec("SELECT count(*) FROM shared_events WHERE kind = 'task.changed'")[0]?.values[0]?.[0]);
	const before = count();
	const write = store.write.bind(store);
	const added: number[] = [];
	store.write = <T>(fn: (db: BatonDb) => T): Promise<T> =>
		write((db) => {
			const at = count();
			const result = fn(db);
			added.push(count() - at);
			return result;
		});
	try {
		await w.a.engine.sync.export();
	} finally {
		store.write = write;
	}
	assert.equal(count() - before, 10, 'every task owed its event');
	assert.deepEqual(
		added.filter((n) => n > 0),
		[3, 3, 3, 1],
		'three events a write',
	);
	await w.a.engine.sync.push();
	await w.b.engine.sync.pull();
	assert.deepEqual((await derived(w.b)).tasks, (await derived(w.a)).tasks);
});
