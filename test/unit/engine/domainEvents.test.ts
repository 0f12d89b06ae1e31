import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'drizzle-orm';
import type { DomainEvent } from '../../../src/engine/events';
import { listSessions } from '../../../src/engine/sessions/sessionQueries';
import { settings } from '../../../src/engine/storage/schema';
import { openTestEngine } from '../helpers';

test('subscribers hear session events inside the write, and their rows commit with it', async (t) => {
	const { engine } = await openTestEngine(t);
	const heard: DomainEvent['type'][] = [];
	engine.ctx.events.on((event, db) => {
		heard.push(event.type);
		if (event.type === 'session.ended') {
			db.insert(settings)
				.values({ key: `ended:${event.session.id}`, value: event.handoff.note, updatedAt: event.session.updatedAt })
				.run();
		}
	});
	const { session } = await engine.sessions.start({ name: 'events', actor: 'test' });
	await engine.sessions.suspend({ id: session.id, actor: 'test' });
	await engine.sessions.resume({ id: session.id, actor: 'test' });
	await engine.sessions.end({ id: session.id, note: 'done here', actor: 'test' });
	assert.deepEqual(heard, ['session.started', 'session.suspended', 'session.resumed', 'session.ended']);
	const row = await engine.store.read((db) =>
		db
			.select()
			.from(settings)
			.where(sql`${settings.key} = ${`ended:${session.id}`}`)
			.get(),
	);
	assert.equal(row?.value, 'done here');
});

test('a subscriber that throws aborts the write: nothing of it is kept', async (t) => {
	const { engine } = await openTestEngine(t);
	const off = engine.ctx.events.on((event) => {
		if (event.type === 'session.started') {
			throw new Error('subscriber refused');
		}
	});
	await assert.rejects(engine.sessions.start({ name: 'refused', actor: 'test' }), /subscriber refused/);
	off();
	assert.equal((await engine.store.read((db) => listSessions(db, {}))).length, 0);
	await engine.sessions.start({ name: 'accepted', actor: 'test' });
	assert.equal((await engine.store.read((db) => listSessions(db, {}))).length, 1);
});
