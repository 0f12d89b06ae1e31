/**
 * A remote cannot break a machine (docs/sync.md "How it travels"): whatever anyone who can push
 * writes into the shared refs with git plumbing, a pull refuses what is broken by name, keeps the
 * rest, ends, and leaves every local write working.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import test from 'node:test';
import { eq } from 'drizzle-orm';
import { eventTime, maxClockAheadMs, ulid } from '../../../src/engine/shared/eventId';
import { machineIdentity } from '../../../src/engine/shared/machineIdentity';
import { sharedEvents } from '../../../src/engine/storage/schema';
import { actor, type TestEngine } from '../helpers';
import { eventLine, forgeBatch } from './forgeRemote';
import { startEnd, syncWorld, type SyncWorld } from './syncWorld';

async function enabledWorld(t: test.TestContext): Promise<SyncWorld> {
	const w = await syncWorld(t);
	await w.a.engine.sync.enable('origin');
	await w.b.engine.sync.enable('origin');
	return w;
}

/** Every write the security review saw fail on B (session start, checkpoint create, push, pull), then A receives B's work. */
async function bWritesAndSyncs(w: SyncWorld): Promise<void> {
	const started = await w.b.engine.sessions.start({ name: 'lexer on B', actor });
	fs.writeFileSync(path.join(w.b.root, 'lexer.ts'), 'export const lexer = 1;\n');
	const cp = await w.b.engine.checkpoints.create({ sessionId: started.session.id, message: 'lexer', actor });
	await w.b.engine.sessions.end({ id: started.session.id, note: 'lexer done', actor });
	const pushed = await w.b.engine.sync.push();
	assert.ok(pushed[0] && pushed[0].pushed.length > 0, 'B pushed');
	await w.b.engine.sync.pull();
	const onA = await w.a.engine.sync.pull();
	assert.equal(onA.sessions.added, 1, 'A received B’s session');
	assert.equal((await w.a.engine.briefings.get(started.session.id)).status, 'ended');
	assert.ok((await w.a.engine.checkpoints.list({ sessionId: started.session.id })).some((c) => c.id === cp.id));
	await ownIdsInThePresent(w.b);
}

/** B's own ids stay at B's clock: none followed an id from the future. */
async function ownIdsInThePresent(e: TestEngine): Promise<void> {
	const own = await e.engine.store.read((db) => db.select({ id: sharedEvents.id }).from(sharedEvents).where(eq(sharedEvents.source, 'local')).all());
	assert.ok(own.length > 0);
	for (const { id } of own) {
		assert.ok(eventTime(id) <= e.clock.now() + maxClockAheadMs, `${id} is in the future`);
	}
}

test('a pulled id with this machine’s suffix and a time past the ULID range, and one a year ahead, are refused by name; the good events arrive and every local write still works', async (t) => {
	const w = await enabledWorld(t);
	const first = await startEnd(w.a, 'parser', 'parser done');
	await w.a.engine.sync.push();
	const machineA = machineIdentity(w.a.root).id;
	const machineB = machineIdentity(w.b.root).id;
	const pastRange = `evt_ZZZZZZZZZZ0000000000000000_${machineB}`;
	const yearAhead = `evt_${ulid(w.b.clock.now() + 365 * 86_400_000, Buffer.alloc(10))}_0badf00d`;
	forgeBatch(w, `refs/baton/events/${machineA}`, [eventLine(pastRange, machineB, 'session.status', first.id, { status: 'ended' }), eventLine(yearAhead, '0badf00d', 'x.note', 'n1', {})]);

	const pulled = await w.b.engine.sync.pull();
	assert.equal(pulled.sessions.added, 1, 'A’s good events of the same pull went in');
	assert.equal((await w.b.engine.briefings.get(first.id)).status, 'ended');
	assert.deepEqual(pulled.refused.map((r) => r.id).sort(), [pastRange, yearAhead].sort());
	assert.match(pulled.refused.find((r) => r.id === yearAhead)?.reason ?? '', /more than a day ahead of this machine's clock/);
	const held = await w.b.engine.store.read((db) => db.select({ id: sharedEvents.id }).from(sharedEvents).all());
	assert.ok(!held.some((e) => e.id === pastRange || e.id === yearAhead), 'neither was stored');

	await bWritesAndSyncs(w);
});

test('a store that already holds ids of this machine past the ULID range or a year ahead (merged by an older version) still writes, with ids at its own clock', async (t) => {
	const w = await enabledWorld(t);
	const machineB = machineIdentity(w.b.root).id;
	const now = w.b.clock.now();
	const row = (id: string) => ({
		id,
		kind: 'x.note',
		subject: 'n1',
		sessionId: null,
		actor: 'agent:x',
		machine: machineB,
		machineName: null,
		author: null,
		at: new Date(now).toISOString(),
		body: {},
		source: 'origin',
		receivedAt: new Date(now).toISOString(),
	});
	await w.b.engine.store.write((db) => {
		db.insert(sharedEvents)
			.values([row(`evt_ZZZZZZZZZZ0000000000000000_${machineB}`), row(`evt_${ulid(now + 365 * 86_400_000, Buffer.alloc(10))}_${machineB}`)])
			.run();
	});
	await bWritesAndSyncs(w);
});
