import assert from 'node:assert/strict';
import { test } from 'node:test';
import { enqueue, firstLiveWithKey, liveCountAfter, OutboxDispatcher } from '../../../../src/engine/outbox/outbox';
import { notificationOutbox } from '../../../../src/engine/storage/schema';
import { openTestEngine } from '../../helpers';

test('delivers due rows once, retries failures with backoff, then gives up', async (t) => {
	const { engine, clock } = await openTestEngine(t);
	await engine.store.write((db) => {
		enqueue(db, clock.now(), { event: 'test', priority: 'warning', channel: 'ok', dedupKey: 'a', message: { text: 'one' } });
		enqueue(db, clock.now(), { event: 'test', priority: 'warning', channel: 'broken', dedupKey: 'b', message: { text: 'two' } });
		enqueue(db, clock.now(), { event: 'test', priority: 'warning', channel: 'tracker:github', dedupKey: 'c', message: { text: 'three' } });
		enqueue(db, clock.now(), { event: 'test', priority: 'info', channel: 'ok', dedupKey: 'd', message: {}, status: 'suppressed', note: 'duplicate' });
	});
	const delivered: string[] = [];
	const outbox = new OutboxDispatcher(engine.ctx, { maxAttempts: 2, backoffMs: 1_000 });
	outbox.register('ok', async (row) => void delivered.push(String(row.message['text'])));
	outbox.register('broken', async () => {
		throw new Error('HTTP 500 from 127.0.0.1');
	});
	outbox.register('tracker:', async (row) => void delivered.push(`${row.channel}:${String(row.message['text'])}`));

	const first = await outbox.deliverDue();
	assert.deepEqual(first.map((o) => `${o.channel}=${o.status}`).sort(), ['broken=retry', 'ok=sent', 'tracker:github=sent']);
	assert.deepEqual(delivered.sort(), ['one', 'tracker:github:three']);
	// Not due yet: the failed row waits for its backoff; sent rows never go again.
	assert.deepEqual(await outbox.deliverDue(), []);
	clock.advance(1_000);
	const second = await outbox.deliverDue();
	assert.deepEqual(
		second.map((o) => `${o.channel}=${o.status}`),
		['broken=failed'],
	);
	const rows = await engine.store.read((db) => db.select().from(notificationOutbox).all());
	const broken = rows.find((r) => r.channel === 'broken');
	assert.equal(broken?.status, 'failed');
	assert.equal(broken?.attempts, 2);
	assert.match(broken?.lastError ?? '', /HTTP 500/);
	assert.equal(rows.find((r) => r.dedupKey === 'd')?.status, 'suppressed');
	assert.equal(await outbox.nextDueAt(), null);
	// What de-duplication and the rate limit read: suppressed rows neither de-duplicate nor count.
	const epoch = new Date(0).toISOString();
	assert.equal(await engine.store.read((db) => liveCountAfter(db, 'ok', epoch)), 1);
	assert.equal(await engine.store.read((db) => liveCountAfter(db, 'ok', new Date(clock.now()).toISOString())), 0);
	assert.equal(await engine.store.read((db) => firstLiveWithKey(db, 'ok', 'a', epoch)), rows.find((r) => r.dedupKey === 'a')?.id);
	assert.equal(await engine.store.read((db) => firstLiveWithKey(db, 'ok', 'd', epoch)), undefined);
	assert.equal(await engine.store.read((db) => firstLiveWithKey(db, 'broken', 'a', epoch)), undefined);
});

test('a leased row is not delivered by a second dispatcher until the lease expires', async (t) => {
	const { engine, clock } = await openTestEngine(t);
	await engine.store.write((db) => void enqueue(db, clock.now(), { event: 'test', priority: 'critical', channel: 'slack', dedupKey: 'x', message: {} }));
	let release!: () => void;
	const gate = new Promise<void>((resolve) => (release = resolve));
	const a = new OutboxDispatcher(engine.ctx, { leaseMs: 10_000 });
	const b = new OutboxDispatcher(engine.ctx, { leaseMs: 10_000 });
	let sends = 0;
	a.register('slack', async () => {
		sends++;
		await gate;
	});
	b.register('slack', async () => void sends++);
	const running = a.deliverDue();
	await new Promise((r) => setTimeout(r, 50));
	assert.deepEqual(await b.deliverDue(), []);
	release();
	assert.equal((await running)[0]?.status, 'sent');
	assert.equal(sends, 1);
});

test('prune expires what nobody delivered for a week and removes finished rows after a month', async (t) => {
	const { engine, clock } = await openTestEngine(t);
	await engine.store.write((db) => {
		enqueue(db, clock.now(), { event: 'old', priority: 'notice', channel: 'editor', dedupKey: 'a', message: {} });
		enqueue(db, clock.now(), { event: 'old', priority: 'info', channel: 'slack', dedupKey: 'b', message: {}, status: 'suppressed' });
	});
	const outbox = new OutboxDispatcher(engine.ctx);
	assert.deepEqual(await outbox.prune(), { expired: 0, deleted: 0 }, 'nothing is old yet');
	clock.advance(8 * 86_400_000);
	await engine.store.write((db) => void enqueue(db, clock.now(), { event: 'new', priority: 'notice', channel: 'editor', dedupKey: 'c', message: {} }));
	assert.deepEqual(await outbox.prune(), { expired: 1, deleted: 0 });
	let rows = await engine.store.read((db) => db.select().from(notificationOutbox).all());
	assert.deepEqual(rows.map((r) => `${r.event}:${r.status}`).sort(), ['new:pending', 'old:failed', 'old:suppressed']);
	assert.match(rows.find((r) => r.status === 'failed')?.lastError ?? '', /^expired/);
	clock.advance(30 * 86_400_000);
	assert.deepEqual(await outbox.prune(), { expired: 1, deleted: 2 });
	rows = await engine.store.read((db) => db.select().from(notificationOutbox).all());
	assert.deepEqual(
		rows.map((r) => `${r.event}:${r.status}`),
		['new:failed'],
	);
});
