/**
 * A pull of thousands of events (several multi-row inserts per table) lands the same rows in memory
 * and on disk: a second engine opened on the receiving workspace replays the journal and reads
 * exactly the events, sessions and handoffs the pulling engine holds, JSON columns included. Long
 * text goes into SQLite as UTF-8 bytes under a cast (rawInsert.ts): every stored value must still be
 * text, non-ASCII and astral characters included, and read back as the same string.
 */
import assert from 'node:assert/strict';
import test from 'node:test';
import { asc } from 'drizzle-orm';
import { Engine } from '../../../../src/engine/engine';
import { machineIdentity } from '../../../../src/engine/shared/machineIdentity';
import { appendSharedEvent } from '../../../../src/engine/shared/sharedEvents';
import { handoffs, sessions, sharedEvents } from '../../../../src/engine/storage/schema';
import { MemoryLogger } from '../../helpers';
import { syncWorld } from './syncWorld';

test('a pull of 3,600 events derives 1,200 sessions with handoffs, and the journal replays to the same rows', async (t) => {
	const w = await syncWorld(t);
	await w.a.engine.sync.enable('origin');
	await w.b.engine.sync.enable('origin');
	const machine = machineIdentity(w.a.root);
	let ms = Date.parse('2026-03-01T09:00:00Z');
	await w.a.engine.store.write((db) => {
		for (let i = 0; i < 1_200; i++) {
			const id = `ses_bulk_${String(i).padStart(4, '0')}`;
			const at = new Date(ms).toISOString();
			appendSharedEvent(db, machine, ms++, {
				kind: 'session.started',
				subject: id,
				sessionId: id,
				actor: 'cli',
				body: {
					name:
						i % 3 === 0
							? `bulk ${i} ‘quoted’ "and" \\ back — a long name with ünïcödé and 🚀 astral 𝄞 characters`
							: `bulk ${i} ‘quoted’ "and" \\ back`,
					parentId: null,
					previousId: i % 100 === 0 ? null : `ses_bulk_${String(i - 1).padStart(4, '0')}`,
					scope: { type: 'global' },
					scopeKey: `custom:bulk-${i}`,
					agent: 'cli',
					model: null,
					startedAt: at,
				},
			});
			appendSharedEvent(db, machine, ms++, {
				kind: 'handoff.written',
				subject: id,
				sessionId: id,
				actor: 'cli',
				body: {
					lastTask: null,
					tasksCompleted: [],
					tasksCreated: [],
					decisionsRecorded: 0,
					decisions: [],
					nextSuggested: [],
					openBlockers: [],
					openBugs: [],
					note: `part ${i} done`,
					nextAction: `part ${i + 1}`,
				},
			});
			appendSharedEvent(db, machine, ms++, {
				kind: 'session.status',
				subject: id,
				sessionId: id,
				actor: 'cli',
				body: { status: i % 2 ? 'ended' : 'suspended', reason: i % 2 ? `ended ${i}` : null, at },
			});
		}
	});
	await w.a.engine.sync.push();
	const pulled = await w.b.engine.sync.pull();
	assert.equal(pulled.newEvents, 3_600);
	assert.equal(pulled.sessions.added, 1_200);

	const read = (engine: Engine) =>
		engine.store.read((db) => ({
			events: db.select().from(sharedEvents).orderBy(asc(sharedEvents.id)).all(),
			sessions: db.select().from(sessions).orderBy(asc(sessions.id)).all(),
			handoffs: db.select().from(handoffs).orderBy(asc(handoffs.sessionId)).all(),
		}));
	const live = await read(w.b.engine);
	assert.equal(live.sessions.filter((s) => s.id.startsWith('ses_bulk_')).length, 1_200);
	const s7 = live.sessions.find((s) => s.id === 'ses_bulk_0007');
	assert.equal(s7?.status, 'ended');
	assert.equal(s7?.endNote, 'ended 7');
	assert.equal(s7?.name, 'bulk 7 ‘quoted’ "and" \\ back');
	assert.equal(
		live.sessions.find((s) => s.id === 'ses_bulk_0009')?.name,
		'bulk 9 ‘quoted’ "and" \\ back — a long name with ünïcödé and 🚀 astral 𝄞 characters',
	);
	const notText = w.b.engine.store.sqlite.exec(
		"SELECT (SELECT count(*) FROM shared_events WHERE typeof(body_json) <> 'text' OR typeof(id) <> 'text') + (SELECT count(*) FROM sessions WHERE typeof(name) <> 'text' OR typeof(scope_json) <> 'text' OR typeof(stats_json) <> 'text') + (SELECT count(*) FROM handoffs WHERE typeof(handoff_json) <> 'text')",
	)[0]?.values[0]?.[0];
	assert.equal(notText, 0, 'every bulk-inserted text value is stored as text, not as bytes');
	assert.deepEqual(s7?.scope, { type: 'global' });
	assert.equal(live.sessions.find((s) => s.id === 'ses_bulk_0008')?.status, 'suspended');
	// Chains of 100 pulled together: every predecessor arrived in the same pull and is linked.
	const bulk = live.sessions.filter((s) => s.id.startsWith('ses_bulk_'));
	assert.equal(bulk.filter((s) => s.previousSessionId !== null).length, 1_188);
	assert.equal(live.sessions.find((s) => s.id === 'ses_bulk_0101')?.previousSessionId, 'ses_bulk_0100');
	assert.equal(live.sessions.find((s) => s.id === 'ses_bulk_0100')?.previousSessionId, null);
	assert.equal(live.handoffs.find((h) => h.sessionId === 'ses_bulk_0007')?.data.note, 'part 7 done');
	assert.equal(live.events.find((e) => e.subject === 'ses_bulk_0007' && e.kind === 'session.started')?.body['scopeKey'], 'custom:bulk-7');

	const replayed = await Engine.open({ workspaceRoot: w.b.root, log: new MemoryLogger(), create: false });
	t.after(() => replayed.close());
	assert.deepEqual(await read(replayed), live, 'the journal replays to exactly the rows the pull wrote');
});
