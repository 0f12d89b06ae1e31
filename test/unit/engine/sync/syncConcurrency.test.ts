/**
 * Two machines writing at the same time and syncing in a loop through one bare remote: no push is
 * ever refused (each machine writes only its own refs), no event is lost, and both derive the same
 * sessions and handoffs from the same events.
 */
import assert from 'node:assert/strict';
import test from 'node:test';
import { asc } from 'drizzle-orm';
import { machineIdentity } from '../../../../src/engine/shared/machineIdentity';
import { appendSharedEvent } from '../../../../src/engine/shared/sharedEvents';
import { handoffs, sessions, sharedEvents } from '../../../../src/engine/storage/schema';
import type { TestEngine } from '../../helpers';
import { startEnd, syncWorld } from './syncWorld';

const rounds = 10;
const perRound = 50;

async function writeRound(side: TestEngine, scope: string, round: number): Promise<void> {
	await startEnd(side, `${scope} round ${round}`, `handoff ${round} of ${scope}`, { scope });
	const before = await side.engine.store.read((db) => db.select({ id: sharedEvents.id }).from(sharedEvents).all().length);
	const machine = machineIdentity(side.root);
	await side.engine.store.write((db) => {
		const mine = db.select({ id: sharedEvents.id }).from(sharedEvents).all().length - before;
		for (let i = mine; i < perRound - 4; i++) {
			side.clock.advance(1);
			appendSharedEvent(db, machine, side.clock.now(), {
				kind: 'decision.recorded',
				subject: `dec_${scope.replace(':', '')}_${round}_${i}`,
				actor: 'test',
				body: { text: `decision ${i} of round ${round}` },
			});
		}
	});
}

test('both machines write 500 events concurrently and sync in a loop: 0 conflicts, 0 lost, identical derived state', async (t) => {
	const w = await syncWorld(t);
	await w.a.engine.sync.enable('origin');
	await w.b.engine.sync.enable('origin');
	const run = async (side: TestEngine, scope: string): Promise<void> => {
		for (let round = 0; round < rounds; round++) {
			await writeRound(side, scope, round);
			await side.engine.sync.push();
			await side.engine.sync.pull();
		}
	};
	// Tasks are not shared: each machine scopes its chain to a task of its own (A's T1, B's T2).
	await w.a.engine.tasks.add({ title: 'alpha', actor: 'test' });
	await w.b.engine.tasks.add({ title: 'unused', actor: 'test' });
	await w.b.engine.tasks.add({ title: 'beta', actor: 'test' });
	await Promise.all([run(w.a, 'task:T1'), run(w.b, 'task:T2')]);
	for (let i = 0; i < 2; i++) {
		await w.a.engine.sync.push();
		await w.b.engine.sync.push();
		await w.a.engine.sync.pull();
		await w.b.engine.sync.pull();
	}
	const snapshot = (side: TestEngine) =>
		side.engine.store.read((db) => ({
			events: db
				.select({ id: sharedEvents.id })
				.from(sharedEvents)
				.orderBy(asc(sharedEvents.id))
				.all()
				.map((e) => e.id),
			sessions: db
				.select({
					id: sessions.id,
					status: sessions.status,
					scopeKey: sessions.scopeKey,
					previous: sessions.previousSessionId,
					next: sessions.nextSessionId,
					consumedBy: sessions.handoffConsumedBy,
				})
				.from(sessions)
				.orderBy(asc(sessions.id))
				.all(),
			handoffs: db
				.select({ id: handoffs.sessionId, note: handoffs.data })
				.from(handoffs)
				.orderBy(asc(handoffs.sessionId))
				.all()
				.map((h) => [h.id, h.note.note]),
		}));
	const [a, b] = [await snapshot(w.a), await snapshot(w.b)];
	const local = (side: TestEngine, events: string[]) => events.filter((id) => id.endsWith(machineIdentity(side.root).id)).length;
	assert.ok(local(w.a, a.events) >= rounds * perRound, `A wrote ${local(w.a, a.events)} events`);
	assert.ok(local(w.b, b.events) >= rounds * perRound, `B wrote ${local(w.b, b.events)} events`);
	assert.deepEqual(a.events, b.events, 'both machines hold exactly the same events');
	assert.equal(a.sessions.length, rounds * 2);
	assert.deepEqual(a.sessions, b.sessions, 'both machines derive the same sessions and chains');
	assert.deepEqual(a.handoffs, b.handoffs);
	for (const side of [w.a, w.b]) {
		const status = await side.engine.sync.status();
		assert.deepEqual(
			status.remotes.map((r) => [r.ahead, r.behind, r.queued, r.lastError]),
			[[0, 0, 0, null]],
		);
	}
});
