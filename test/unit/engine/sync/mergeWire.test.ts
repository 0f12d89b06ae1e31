/**
 * The pull's merge inserts events through a statement of its own (mergeWire.ts): the rows it stores
 * must be exactly the ones the ORM's insert stores (`mergeSharedEvents`), every value's SQLite type
 * included, whatever the wire leaves out; ids below, inside and above the range the store already
 * holds must each be merged once; and the journal must replay to the same rows.
 */
import assert from 'node:assert/strict';
import test from 'node:test';
import { asc } from 'drizzle-orm';
import type { Engine } from '../../../../src/engine/engine';
import { newEventId } from '../../../../src/engine/shared/eventId';
import { mergeSharedEvents, type WireEvent } from '../../../../src/engine/shared/sharedEvents';
import { sharedEvents } from '../../../../src/engine/storage/schema';
import { mergeWireEvents } from '../../../../src/engine/sync/mergeWire';
import { openTestEngine } from '../../helpers';

const base = Date.parse('2026-05-01T00:00:00Z');

function wire(n: number, ms: number, machine = '0000000b'): WireEvent {
	const id = newEventId(ms, machine, null);
	const event: WireEvent = {
		id,
		kind: n % 3 === 0 ? 'session.started' : n % 3 === 1 ? 'handoff.written' : 'x.unknown',
		subject: `ses_m_${Math.floor(n / 3)}`,
		sessionId: `ses_m_${Math.floor(n / 3)}`,
		actor: 'agent:test',
		machine,
		machineName: 'laptop ü',
		author: 'Ada 🚀',
		at: new Date(ms).toISOString(),
		// Short bodies bind as strings, long ones as bytes: both must store the same text.
		body: n % 2 === 0 ? { a: n } : { note: `long ${'z'.repeat(60)} "quoted" \\ \u2028 ünï 𝄞 ${n}`, list: [n, null, true], nested: { k: 'v' } },
	};
	// What the wire may leave out is stored as NULL.
	if (n % 4 === 1) {
		delete (event as Partial<WireEvent>).sessionId;
	}
	if (n % 5 === 2) {
		delete (event as Partial<WireEvent>).machineName;
		delete (event as Partial<WireEvent>).author;
	}
	return event;
}

async function stored(engine: Engine): Promise<unknown> {
	const rows = await engine.store.read((db) => db.select().from(sharedEvents).orderBy(asc(sharedEvents.id)).all());
	const types =
		engine.store.sqlite.exec(
			'SELECT id, typeof(kind), typeof(subject), typeof(session_id), typeof(machine_name), typeof(author), typeof(body_json), body_json FROM shared_events ORDER BY id',
		)[0]?.values ?? [];
	return { rows, types };
}

test('the merge stores exactly what the ORM insert stores, merges ids below, inside and above the held range once, and replays', async (t) => {
	const first = Array.from({ length: 40 }, (_, n) => wire(n, base + 1_000 + n * 10));
	// Below, between and above the first batch's ids, plus some of the first batch again.
	const second = [
		...Array.from({ length: 10 }, (_, n) => wire(100 + n, base + n)),
		...Array.from({ length: 10 }, (_, n) => wire(200 + n, base + 1_005 + n * 10)),
		...Array.from({ length: 10 }, (_, n) => wire(300 + n, base + 5_000 + n)),
		...first.slice(5, 15),
		{ ...wire(400, base + 9_000), id: 'not-an-id' },
	];
	const { engine: fast, root } = await openTestEngine(t);
	const { engine: orm } = await openTestEngine(t);
	const at = base + 60_000;
	const results: { added: number; refused: number }[] = [];
	for (const batch of [first, second]) {
		const merged = await fast.store.write((db) => mergeWireEvents(db, batch, 'origin', at));
		const expected = await orm.store.write((db) => mergeSharedEvents(db, batch, 'origin', at));
		assert.deepStrictEqual(merged.added, expected.added);
		assert.deepStrictEqual(merged.refused, expected.refused);
		assert.deepStrictEqual(
			merged.events.map((e) => e.id),
			merged.added,
		);
		results.push({ added: merged.added.length, refused: merged.refused.length });
	}
	assert.deepStrictEqual(results, [
		{ added: 40, refused: 0 },
		{ added: 30, refused: 1 },
	]);
	const rows = await stored(fast);
	assert.deepStrictEqual(rows, await stored(orm));
	const types = (rows as { types: unknown[][] }).types;
	assert.ok(types.some((r) => r[3] === 'null') && types.some((r) => r[4] === 'null'));
	assert.ok(types.every((r) => r[1] === 'text' && r[2] === 'text' && r[6] === 'text'));
	fast.close();
	const { engine: reopened } = await openTestEngine(t, { root });
	assert.deepStrictEqual(await stored(reopened), rows);
});
