/**
 * `baton sync retract` (retraction.ts): a checkpoint, a session or everything since a time taken
 * back — Baton's refs rewritten without it and force-pushed, nothing on the remote reaching it (after
 * the remote's own garbage collection, nothing of it left there), the teammate dropping it on the next
 * pull, this machine keeping it and never sending it again; and the built CLI's answers.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { BatonError } from '../../../../src/engine/errors';
import type { Engine } from '../../../../src/engine/engine';
import { sessions } from '../../../../src/engine/storage/schema';
import { baton } from '../../cli/cliRunner';
import { actor } from '../../helpers';
import { allObjects, git, remoteRefs, syncWorld } from './syncWorld';

const internal = 'https://billing.internal.example.corp/v2/private-ledger';

/** The session rows a store holds. */
const sessionIds = (engine: Engine): Promise<string[]> =>
	engine.store.read((db) =>
		db
			.select({ id: sessions.id })
			.from(sessions)
			.all()
			.map((r) => r.id),
	);

test('a retracted checkpoint leaves the remote and the teammate; the session retracted since a time goes too; this machine keeps both and never sends them again', async (t) => {
	const w = await syncWorld(t);
	const a = w.a.root;
	await w.a.engine.sync.enable('origin');
	await w.b.engine.sync.enable('origin');
	// A tracked file with something the credential scan cannot know is private.
	fs.writeFileSync(path.join(a, 'endpoints.ts'), `export const ledger = '${internal}';\n`);
	git(a, ['add', 'endpoints.ts']);
	const mistake = await w.a.engine.checkpoints.create({ message: 'oops: the internal endpoint', actor });
	fs.writeFileSync(path.join(a, 'endpoints.ts'), 'export const ledger = process.env.LEDGER_URL;\n');
	w.a.clock.advance(60_000);
	const fine = await w.a.engine.checkpoints.create({ message: 'endpoint from the environment', actor });
	await w.a.engine.sync.push();
	await w.b.engine.sync.pull();
	assert.ok(allObjects(w.bare).includes(internal), 'shared before the retraction');
	assert.deepEqual((await w.b.engine.checkpoints.list({})).map((c) => c.id).sort(), [mistake.id, fine.id].sort());

	const result = await w.a.engine.sync.retract({ checkpoint: mistake.id }, actor);
	assert.equal(result.events >= 1, true);
	assert.deepEqual(result.checkpoints, [mistake.id]);
	assert.deepEqual(
		[...new Set(result.pushed.map((p) => p.ref))].sort(),
		remoteRefs(w.bare)
			.filter((r) => r.startsWith('refs/baton/'))
			.sort(),
		'both of A’s refs were rewritten on the remote',
	);
	assert.deepEqual(result.unreached, []);
	assert.ok(result.cannotUndo.some((line) => line.includes('garbage collection')));
	// Nothing on the remote reaches it any more: its own garbage collection removes it.
	git(w.bare, ['reflog', 'expire', '--expire=now', '--all'], { GIT_DIR: w.bare });
	git(w.bare, ['gc', '-q', '--prune=now'], { GIT_DIR: w.bare });
	assert.ok(!allObjects(w.bare).includes(internal), 'the remote still reaches the retracted file');

	// The teammate drops it on the next pull; the other checkpoint stays.
	const pulled = await w.b.engine.sync.pull();
	assert.ok((pulled.retracted ?? 0) >= 1);
	assert.deepEqual(
		(await w.b.engine.checkpoints.list({})).map((c) => c.id),
		[fine.id],
	);
	assert.equal((await w.b.engine.checkpoints.fileAt(fine.id, 'endpoints.ts'))?.toString(), 'export const ledger = process.env.LEDGER_URL;\n');

	// This machine keeps it, and a later push does not send it again.
	assert.equal((await w.a.engine.checkpoints.get(mistake.id)).id, mistake.id);
	w.a.clock.advance(60_000);
	await w.a.engine.checkpoints.create({ message: 'later work', actor });
	await w.a.engine.sync.push();
	git(w.bare, ['gc', '-q', '--prune=now'], { GIT_DIR: w.bare });
	assert.ok(!allObjects(w.bare).includes(internal), 'a later push sent the retracted checkpoint again');
	await w.b.engine.sync.pull();
	assert.ok(!(await w.b.engine.checkpoints.list({})).some((c) => c.id === mistake.id));

	// Everything since a time: a session and its checkpoint, started after it.
	w.a.clock.advance(60_000);
	const cut = new Date(w.a.clock.now()).toISOString();
	w.a.clock.advance(1_000);
	const session = (await w.a.engine.sessions.start({ name: 'late night experiment', actor })).session;
	await w.a.engine.checkpoints.create({ sessionId: session.id, message: 'experiment', actor });
	await w.a.engine.sessions.end({ id: session.id, note: 'nothing to keep', actor });
	await w.a.engine.sync.push();
	await w.b.engine.sync.pull();
	assert.ok((await sessionIds(w.b.engine)).includes(session.id));
	const since = await w.a.engine.sync.retract({ since: cut }, actor);
	assert.deepEqual(since.sessions, []);
	assert.ok(since.checkpoints.length >= 1, 'the session’s checkpoints (the one made, the one its end made)');
	await w.b.engine.sync.pull();
	assert.ok(!(await sessionIds(w.b.engine)).includes(session.id), 'the teammate dropped the session');
	assert.ok((await sessionIds(w.a.engine)).includes(session.id), 'this machine keeps it');

	// Only this machine's own records can be taken back; a name that matches nothing changes nothing.
	const bSession = (await w.b.engine.sessions.start({ name: 'on B', actor })).session;
	await w.b.engine.sync.push();
	await w.a.engine.sync.pull();
	await assert.rejects(
		() => w.a.engine.sync.retract({ session: bSession.id }, actor),
		(error: Error) => BatonError.is(error) && /recorded on another machine/.test(error.message),
	);
	await assert.rejects(
		() => w.a.engine.sync.retract({ checkpoint: 'cp_20260301000000_abcdef' }, actor),
		(error: Error) => BatonError.is(error) && error.code === 'notFound',
	);
});

test('baton sync retract through the built CLI: one of a checkpoint, a session or --since; what it cannot undo is said', async (t) => {
	const w = await syncWorld(t);
	await w.a.engine.sync.enable('origin');
	fs.writeFileSync(path.join(w.a.root, 'notes.ts'), 'export const n = 1;\n');
	git(w.a.root, ['add', 'notes.ts']);
	const cp = await w.a.engine.checkpoints.create({ message: 'to take back', actor });
	await w.a.engine.sync.push();
	w.a.engine.close();

	assert.equal(baton(w.a.root, 'sync', 'retract', '--json').code, 2, 'neither named');
	assert.equal(baton(w.a.root, 'sync', 'retract', cp.id, '--since', '2026-01-01', '--json').code, 2, 'both named');
	const badTime = baton(w.a.root, 'sync', 'retract', '--since', 'yesterday-ish');
	assert.equal(badTime.code, 2);
	assert.match(badTime.stderr, /--since takes a time/);
	const notAnId = baton(w.a.root, 'sync', 'retract', 'HEAD');
	assert.equal(notAnId.code, 2);
	assert.match(notAnId.stderr, /neither a checkpoint id/);

	const done = baton(w.a.root, 'sync', 'retract', cp.id, '--json');
	assert.equal(done.code, 0, done.stderr);
	assert.deepEqual(done.json['checkpoints'], [cp.id]);
	assert.ok((done.json['pushed'] as unknown[]).length >= 1);
	assert.ok((done.json['cannotUndo'] as string[]).length === 2);
	const text = baton(w.a.root, 'sync', 'retract', cp.id);
	assert.equal(text.code, 1, 'a second retraction of the same checkpoint finds nothing left to take back');
	assert.match(text.stderr, /shared nothing that matches/);
});
