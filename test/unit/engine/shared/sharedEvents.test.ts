import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { sql } from 'drizzle-orm';
import { eventMachine, eventTime, isEventId, newEventId, ulid } from '../../../../src/engine/shared/eventId';
import { randomSlice } from '../../../../src/engine/ids';
import { machineIdentity } from '../../../../src/engine/shared/machineIdentity';
import { appendSharedEvent, eventsAbout, heldIdRangeSql, mergeSharedEvents, sessionEvents, toWire } from '../../../../src/engine/shared/sharedEvents';
import { sharedEvents } from '../../../../src/engine/storage/schema';
import { openTestEngine, tempDir } from '../../helpers';

test('event ids sort by time, carry their machine, and never collide across machines', () => {
	const a = newEventId(1_700_000_000_000, '0000000a');
	const b = newEventId(1_700_000_000_001, '0000000b');
	assert.ok(isEventId(a) && isEventId(b));
	assert.ok(a < b, 'a later millisecond sorts later');
	assert.equal(eventMachine(a), '0000000a');
	assert.equal(eventTime(b), 1_700_000_000_001);
	assert.equal(ulid(0, Buffer.alloc(10)), '00000000000000000000000000');
	assert.equal(ulid(2 ** 48 - 1, Buffer.alloc(10, 255)), '7ZZZZZZZZZZZZZZZZZZZZZZZZZ');
	const ids = new Set(Array.from({ length: 5000 }, (_, i) => newEventId(1_700_000_000_000, i % 2 ? '0000000a' : '0000000b')));
	assert.equal(ids.size, 5000);
	assert.throws(() => newEventId(1, 'HOST-1'), /8 hex digits/);
	assert.throws(() => ulid(-1), /between 0 and 2\^48-1/);
});

test('the randomness of ids comes from a pool refilled by the system generator: no two slices, and no two pools, alike', () => {
	// 4096-byte pools of 10-byte slices: 20,000 slices span about 49 refills.
	const seen = new Set<string>();
	for (let i = 0; i < 20_000; i++) {
		seen.add(randomSlice(10).toString('hex'));
	}
	assert.equal(seen.size, 20_000);
	// A slice larger than what is left of the pool starts a fresh one: whole and random.
	const whole = Buffer.from(randomSlice(4096));
	assert.notDeepEqual(Buffer.from(randomSlice(4096)), whole);
	assert.equal(whole.length, 4096);
	// Ids written in one millisecond on one machine differ in their random part.
	const ids = new Set(Array.from({ length: 20_000 }, () => newEventId(1_700_000_000_000, '0000000a').slice(14, 30)));
	assert.equal(ids.size, 20_000);
});

test('the machine id is random, kept in .baton/machine.json, and shared by every process of the workspace', (t) => {
	const root = tempDir(t);
	fs.mkdirSync(path.join(root, '.baton'));
	const script = `const {machineIdentity}=require(${JSON.stringify(path.resolve('src/engine/shared/machineIdentity.ts'))});process.stdout.write(machineIdentity(${JSON.stringify(root)}).id)`;
	const runs = Array.from({ length: 4 }, () =>
		spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { encoding: 'utf8', env: { ...process.env, BATON_MACHINE_NAME: 'ci-runner-7' } }),
	);
	const ids = new Set(runs.map((r) => r.stdout));
	assert.equal(ids.size, 1, runs.map((r) => r.stderr).join('\n'));
	const [id] = [...ids];
	assert.match(id ?? '', /^[0-9a-f]{8}$/);
	assert.equal((JSON.parse(fs.readFileSync(path.join(root, '.baton', 'machine.json'), 'utf8')) as { id: string }).id, id);
	assert.equal(machineIdentity(root, { BATON_MACHINE_NAME: 'laptop\u0007', BATON_AUTHOR: 'Ada' }).name, 'laptop');
});

test("the author is the repository's git user.name, read when first asked for and kept in what is written", (t) => {
	const root = tempDir(t);
	spawnSync('git', ['init', '-q', root]);
	spawnSync('git', ['config', 'user.name', 'Grace\u0007 Hopper'], { cwd: root });
	const identity = machineIdentity(root, {});
	spawnSync('git', ['config', 'user.name', 'Later Name'], { cwd: root });
	// Read after the change: the first read is what counts, and once read it stays for the process.
	assert.equal(identity.author, 'Later Name');
	spawnSync('git', ['config', 'user.name', 'Third'], { cwd: root });
	assert.equal(identity.author, 'Later Name');
	assert.deepEqual(JSON.parse(JSON.stringify(identity)), { id: identity.id, name: identity.name, author: 'Later Name' });
	assert.equal({ ...identity }.author, 'Later Name');
});

test('events are redacted when written, merged as a union, and read in the shared order', async (t) => {
	const { engine, root } = await openTestEngine(t);
	const here = { id: '1234abcd', name: 'here', author: 'Ada' };
	const written = await engine.store.write((db) => [
		appendSharedEvent(db, here, 1_700_000_000_000, {
			kind: 'decision.recorded',
			subject: 'dec_1',
			sessionId: 'ses_1',
			actor: 'human',
			body: { text: 'use the key sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789', files: ['src/a.ts'] },
		}),
		appendSharedEvent(db, here, 1_700_000_000_005, {
			kind: 'timeline.step',
			subject: 'ses_1',
			sessionId: 'ses_1',
			actor: 'agent:claude-code',
			body: { step: 1 },
		}),
	]);
	assert.doesNotMatch(JSON.stringify(written[0]?.body), /sk-ant-api03-abc/);
	assert.match(JSON.stringify(written[0]?.body), /REDACTED/);
	// Another machine's events, one of them a duplicate and one malformed, arrive out of order.
	const there = [
		{ ...toWire(written[1]!), id: newEventId(1_700_000_000_003, '9999ffff'), machine: '9999ffff' },
		{ ...toWire(written[1]!), id: newEventId(1_700_000_000_001, '9999ffff'), machine: '9999ffff' },
		toWire(written[0]!),
		{ ...toWire(written[1]!), id: newEventId(1_700_000_000_002, '9999ffff'), machine: '12345678' },
	];
	const merged = await engine.store.write((db) => mergeSharedEvents(db, there, 'origin', 1_700_000_001_000));
	assert.equal(merged.added.length, 2);
	assert.equal(merged.refused.length, 1);
	assert.match(merged.refused[0]?.reason ?? '', /machine suffix/);
	const again = await engine.store.write((db) => mergeSharedEvents(db, there, 'origin', 1_700_000_002_000));
	assert.deepEqual(again.added, []);
	const steps = await engine.store.read((db) => sessionEvents(db, 'ses_1', ['timeline.step']));
	assert.deepEqual(
		steps.map((s) => s.id),
		[...steps.map((s) => s.id)].sort(),
	);
	assert.deepEqual(
		steps.map((s) => s.source),
		['origin', 'origin', 'local'],
	);
	assert.equal((await engine.store.read((db) => eventsAbout(db, 'decision.recorded', 'dec_1'))).length, 1);
	assert.ok(root);
});

test('a merge finds the range of ids held from the primary key at once, never by scanning every event held', async (t) => {
	const { engine } = await openTestEngine(t);
	const here = { id: '1234abcd', name: 'here', author: 'Ada' };
	const { range, plan } = await engine.store.write((db) => {
		for (let i = 0; i < 3; i++) {
			appendSharedEvent(db, here, 1_700_000_000_000 + i, {
				kind: 'timeline.step',
				subject: 'ses_1',
				sessionId: 'ses_1',
				actor: 'test',
				body: { step: i },
			});
		}
		return {
			range: db.get<{ low: string; high: string }>(heldIdRangeSql),
			plan: db.all<{ detail: string }>(sql`EXPLAIN QUERY PLAN ${heldIdRangeSql}`).map((r) => r.detail),
		};
	});
	const ids = await engine.store.read((db) => sessionEvents(db, 'ses_1').map((e) => e.id));
	assert.deepEqual([range?.low, range?.high], [ids[0], ids[2]]);
	// `SELECT min(id), max(id)` in one query is a SCAN of the whole index, run at every page a pull merges.
	assert.ok(
		plan.every((d) => !d.startsWith('SCAN shared_events')),
		plan.join('; '),
	);
	assert.equal(plan.filter((d) => d.startsWith('SEARCH shared_events')).length, 2, plan.join('; '));
});

test('events written within one millisecond, or after a remote event ahead of this clock, sort in the order they were written', async (t) => {
	const { engine } = await openTestEngine(t);
	const here = { id: '1234abcd', name: 'here', author: 'Ada' };
	const now = 1_700_000_000_000;
	const ids = await engine.store.write((db) =>
		Array.from(
			{ length: 200 },
			(_, i) =>
				appendSharedEvent(db, here, now, {
					kind: 'timeline.step',
					subject: 'ses_1',
					sessionId: 'ses_1',
					actor: 'agent:claude-code',
					body: { step: i + 1 },
				}).id,
		),
	);
	assert.deepEqual([...ids].sort(), ids, 'the same order as written');
	assert.ok(ids.every((id) => eventTime(id) === now));
	// A remote event from a clock a minute ahead: what is written after it (having seen it) sorts after it.
	const ahead = newEventId(now + 60_000, '9999ffff');
	await engine.store.write((db) =>
		mergeSharedEvents(db, [{ ...toWire({ ...(sessionEvents(db, 'ses_1')[0] as any) }), id: ahead, machine: '9999ffff' }], 'origin', now),
	);
	const next = await engine.store.write(
		(db) =>
			appendSharedEvent(db, here, now + 1, {
				kind: 'timeline.step',
				subject: 'ses_1',
				sessionId: 'ses_1',
				actor: 'agent:claude-code',
				body: { step: 201 },
			}).id,
	);
	assert.ok(next > ahead);
	// One a year ahead (a broken clock) is refused by the merge; one an older version merged anyway is not followed, and the order of this machine's own events holds.
	const broken = newEventId(now + 365 * 86_400_000, '9999ffff');
	const refused = await engine.store.write(
		(db) => mergeSharedEvents(db, [{ ...toWire({ ...(sessionEvents(db, 'ses_1')[0] as any) }), id: broken, machine: '9999ffff' }], 'origin', now).refused,
	);
	assert.deepEqual(
		refused.map((r) => r.id),
		[broken],
	);
	await engine.store.write((db) =>
		db
			.insert(sharedEvents)
			.values({ ...(sessionEvents(db, 'ses_1')[0] as any), id: broken, machine: '9999ffff', source: 'origin' })
			.run(),
	);
	const after = await engine.store.write(
		(db) =>
			appendSharedEvent(db, here, now + 2, {
				kind: 'timeline.step',
				subject: 'ses_1',
				sessionId: 'ses_1',
				actor: 'agent:claude-code',
				body: { step: 202 },
			}).id,
	);
	assert.ok(after > next && eventTime(after) < now + 86_400_000, after);
});
