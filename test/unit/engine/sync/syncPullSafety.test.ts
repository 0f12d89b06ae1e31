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
import { eventTime, maxClockAheadMs, ulid } from '../../../../src/engine/shared/eventId';
import { refTreeLimits } from '../../../../src/engine/sync/refTrees';
import { maxWireLineChars } from '../../../../src/engine/shared/wireLimits';
import { machineIdentity } from '../../../../src/engine/shared/machineIdentity';
import { sharedEvents } from '../../../../src/engine/storage/schema';
import { actor, type TestEngine } from '../../helpers';
import { eventLine, forgeBatch, inBare } from './forgeRemote';
import { enabledWorld, git, startEnd, type SyncWorld } from './syncWorld';

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
	forgeBatch(w, `refs/baton/events/${machineA}`, [eventLine(pastRange, machineB, 'session.status', first.id, { status: 'ended' })]);
	// On the ref of the machine it names: a machine's events come on its own ref only (eventRefs.ts keepOwnersEvents).
	forgeBatch(w, 'refs/baton/events/0badf00d', [eventLine(yearAhead, '0badf00d', 'x.note', 'n1', {})]);

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

test('a ref at a blob is refused by name while another machine’s good events arrive in the same pull; status and the next pulls go on', async (t) => {
	const w = await enabledWorld(t);
	const first = await startEnd(w.a, 'parser', 'parser done');
	await w.a.engine.sync.push();
	// What `git update-ref` takes from anyone who can push: an events ref and a transcripts ref at a blob.
	const blob = inBare(w, ['hash-object', '-w', '--stdin'], 'not a commit\n');
	inBare(w, ['update-ref', 'refs/baton/events/0badf00d', blob]);
	inBare(w, ['update-ref', 'refs/baton/transcripts/0badf00d', blob]);

	const pulled = await w.b.engine.sync.pull();
	assert.equal(pulled.sessions.added, 1, 'A’s events arrived');
	assert.equal((await w.b.engine.briefings.get(first.id)).status, 'ended');
	assert.deepEqual(
		pulled.refused.map((r) => r.id),
		['refs/baton-remotes/origin/events/0badf00d', 'refs/baton-remotes/origin/transcripts/0badf00d'],
	);
	for (const r of pulled.refused) {
		assert.match(r.reason, new RegExp(`^points at a blob \\(${blob.slice(0, 12)}\\), not a commit`));
	}
	assert.ok(
		w.b.log.warnings().some((m) => m.includes('refused 2 refs pulled from remote "origin"') && m.includes('refs/baton-remotes/origin/events/0badf00d')),
		w.b.log.warnings().join('\n'),
	);
	assert.equal((await w.b.engine.sync.status()).remotes[0]?.lastError, null);

	// Still broken: named again; A's next session arrives all the same.
	const second = await startEnd(w.a, 'lexer', 'lexer done');
	await w.a.engine.sync.push();
	const again = await w.b.engine.sync.pull();
	assert.equal(again.sessions.added, 1);
	assert.equal((await w.b.engine.briefings.get(second.id)).previousSessionId, first.id);
	assert.equal(again.refused.length, 2);
	await bWritesAndSyncs(w);
});

test('a batch tree that fans out far past the bound (one subtree named a thousand times) ends the pull with the ref refused by name; the rest is kept', async (t) => {
	const w = await enabledWorld(t);
	const first = await startEnd(w.a, 'parser', 'parser done');
	await w.a.engine.sync.push();
	// 1,000 folders, each the same tree of 1,000 names of one blob: a million paths from three objects.
	const blob = inBare(w, ['hash-object', '-w', '--stdin'], `${eventLine(`evt_01KJ000000000000000000000_0b0b0b0b`, '0b0b0b0b', 'x.note', 'n1', {})}\n`);
	const names = Array.from({ length: 1_000 }, (_, i) => String(i).padStart(4, '0'));
	const leaf = inBare(w, ['mktree'], names.map((n) => `100644 blob ${blob}\t${n}.jsonl\n`).join(''));
	const fan = inBare(w, ['mktree'], names.map((n) => `040000 tree ${leaf}\t${n}\n`).join(''));
	const root = inBare(w, ['mktree'], `040000 tree ${fan}\tbatches\n`);
	inBare(w, ['update-ref', 'refs/baton/events/0b0b0b0b', inBare(w, ['commit-tree', root, '-m', 'baton events: 1'])]);
	assert.ok(names.length * names.length > 4 * refTreeLimits.maxPaths, 'far past the bound');

	const pulled = await w.b.engine.sync.pull();
	assert.equal(pulled.sessions.added, 1, 'A’s events arrived');
	assert.equal((await w.b.engine.briefings.get(first.id)).status, 'ended');
	assert.deepEqual(
		pulled.refused.map((r) => [r.id, r.reason]),
		[['refs/baton-remotes/origin/events/0b0b0b0b', `its batches holds more than ${refTreeLimits.maxPaths} paths (not read)`]],
	);
	await bWritesAndSyncs(w);
});

test('a pulled 1 MB session name, a 10,000-character one, a 5,000-character author and a line past the body limit are refused by name; nothing of them is stored or shown, the rest arrives', async (t) => {
	const w = await enabledWorld(t);
	const first = await startEnd(w.a, 'parser', 'parser done');
	await w.a.engine.sync.push();
	const machineA = machineIdentity(w.a.root).id;
	const id = (n: number): string => `evt_${ulid(w.b.clock.now(), Buffer.alloc(10, n))}_${machineA}`;
	const started = (n: number, name: string): string =>
		eventLine(id(n), machineA, 'session.started', `ses_20260301100000_${String(n).repeat(6)}`, { name, scope: { type: 'global' } });
	const longAuthor = JSON.stringify({ ...JSON.parse(started(3, 'fine')), author: 'a'.repeat(5_000) });
	const longLine = eventLine(id(4), machineA, 'x.newer', 'n1', { pad: 'p'.repeat(maxWireLineChars) });
	const lines = [started(1, 'n'.repeat(1024 * 1024)), started(2, 'n'.repeat(10_000)), longAuthor, longLine, started(5, 'kept')];
	const blob = forgeBatch(w, `refs/baton/events/${machineA}`, lines);

	const pulled = await w.b.engine.sync.pull();
	assert.deepEqual(
		pulled.refused.map((r) => [r.id, r.reason]),
		[
			[`${blob.slice(0, 12)}:1`, `a line of ${(lines[0] as string).length} characters, more than the ${maxWireLineChars} an event may take (not parsed)`],
			[`${blob.slice(0, 12)}:4`, `a line of ${longLine.length} characters, more than the ${maxWireLineChars} an event may take (not parsed)`],
			[id(2), 'body.name has 10000 characters, more than the 200 local input takes'],
			[id(3), 'author has 5000 characters, more than the 1000 local input takes'],
		],
	);
	assert.equal(pulled.sessions.added, 2, 'A’s session and the well-sized forged one went in');
	assert.equal((await w.b.engine.briefings.get(first.id)).status, 'ended');
	const names = (await w.b.engine.briefings.list({})).map((s) => s.name).sort();
	assert.deepEqual(names, ['kept', 'parser']);
	const held = await w.b.engine.store.read((db) => db.select({ id: sharedEvents.id }).from(sharedEvents).all());
	assert.ok(!held.some((e) => [id(1), id(2), id(3), id(4)].includes(e.id)), 'none of them was stored');
	await bWritesAndSyncs(w);
});

test("a commit someone else added on top of this machine's ref in the remote does not stop its pushes: the next push puts its own history back", async (t) => {
	const w = await enabledWorld(t);
	await startEnd(w.a, 'first', 'first done');
	await w.a.engine.sync.push();
	const ref = `refs/baton/events/${machineIdentity(w.a.root).id}`;
	// Anyone who can push adds a batch on top of A's ref (a fast-forward for them).
	const forged = forgeBatch(w, ref, ['{"not":"an event"}']);
	await startEnd(w.a, 'second', 'second done');
	const pushed = await w.a.engine.sync.push();
	assert.ok(
		(pushed[0]?.pushed ?? []).some((p) => p.ref === ref),
		`A’s push went through: ${JSON.stringify(pushed)}`,
	);
	const tip = git(w.dir, ['rev-parse', ref], { GIT_DIR: w.bare });
	assert.equal(
		git(w.dir, ['ls-tree', '-r', '--name-only', tip], { GIT_DIR: w.bare }).includes(forged.slice(0, 8)),
		false,
		'the forged batch is gone from A’s ref',
	);
	// B, which had not pulled the forged commit, gets both of A's sessions and nothing refused.
	const pulled = await w.b.engine.sync.pull();
	assert.equal(pulled.sessions.added, 2);
	assert.deepEqual(pulled.refused, []);
});

test('pulled lines Baton would not write — the body twice, space around it, a body key inside an earlier field — store a body that reads back as the line’s own and derive from it', async (t) => {
	const w = await enabledWorld(t);
	await startEnd(w.a, 'plain', 'plain done');
	await w.a.engine.sync.push();
	const machineA = machineIdentity(w.a.root).id;
	const id = (n: number): string => `evt_${ulid(w.b.clock.now(), Buffer.alloc(10, n))}_${machineA}`;
	const subject = (n: number): string => `ses_20260301100000_${String(n).repeat(6)}`;
	const started = (n: number, name: string): string => eventLine(id(n), machineA, 'session.started', subject(n), { name, scope: { type: 'global' } });
	const twice = started(1, 'first').replace(/\}\}$/, `},"body":${JSON.stringify({ name: 'second', scope: { type: 'global' } })}}`);
	const spaced = started(2, 'spaced').replace('"body":{"name":"spaced"', '"body": {"name" :  "spaced"');
	const nested = started(3, 'nested').replace('"actor":"agent:x"', '"actor":"agent:x","extra":{"a":1,"body":{"name":"not this"}}');
	const lines = [twice, spaced, nested];
	forgeBatch(w, `refs/baton/events/${machineA}`, lines);

	const pulled = await w.b.engine.sync.pull();
	assert.deepEqual(pulled.refused, []);
	const names = (await w.b.engine.briefings.list({})).map((s) => s.name).sort();
	assert.deepEqual(names, ['nested', 'plain', 'second', 'spaced']);
	for (const [n, line] of lines.entries()) {
		const row = await w.b.engine.store.read((db) =>
			db
				.select({ body: sharedEvents.body })
				.from(sharedEvents)
				.where(eq(sharedEvents.id, id(n + 1)))
				.get(),
		);
		assert.deepStrictEqual(row?.body, (JSON.parse(line) as { body: unknown }).body, `line ${n + 1}`);
	}
	await bWritesAndSyncs(w);
});
