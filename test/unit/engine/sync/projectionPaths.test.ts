/**
 * The projection's fast paths give exactly the slow path's rows. A pulled handoff whose body already
 * is its row is copied inside SQLite, and the older events of the pulled records are found below the
 * merge's rowid boundary instead of by naming every new event; here a randomised set of events
 * (seeded, so a failure reproduces) with bodies of every shape — keys out of order or missing,
 * extra keys, nulls, quotes, control, non-ASCII and astral characters, chains pointing forwards and
 * backwards, statuses this version does not know, several handoffs per session, consumptions — is
 * pulled in random batches by two real workspaces, one through each path, and every derived row,
 * the JSON columns' stored text included, must be the same; the fast one's journal must replay to it.
 */
import assert from 'node:assert/strict';
import test from 'node:test';
import { asc } from 'drizzle-orm';
import type { Engine } from '../../../../src/engine/engine';
import { newEventId } from '../../../../src/engine/shared/eventId';
import type { WireEvent } from '../../../../src/engine/shared/sharedEvents';
import { handoffs, sessions, sharedEvents, tasks } from '../../../../src/engine/storage/schema';
import { mergeWireEvents } from '../../../../src/engine/sync/mergeWire';
import { projectEvents, type ProjectionOptions } from '../../../../src/engine/sync/projection';
import { openTestEngine } from '../../helpers';

const own = '0000000a';
const machines = [own, '0000000b', '0000000c'];

function random(seed: number): () => number {
	let s = seed >>> 0;
	return () => {
		s = (s + 0x6d2b79f5) >>> 0;
		let t = s;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

function events(seed: number, count: number): WireEvent[] {
	const r = random(seed);
	const pick = <T>(list: readonly T[]): T => list[Math.floor(r() * list.length)] as T;
	const texts = ['plain', 'with "quotes" and \\ back', 'tab\tnew\nline\u0001', 'ünïcödé — ‘curly’', 'astral 🚀 𝄞', '\u2028sep', '', 'z'.repeat(90)];
	const ids = Array.from({ length: count }, (_, i) => `ses_rand_${seed}_${i}`);
	const out: WireEvent[] = [];
	let ms = Date.parse('2026-04-01T08:00:00Z');
	const at = (): string => pick([new Date(ms).toISOString(), new Date(ms - 3_600_000).toISOString(), 'not a time', '2026-04-01T08:00:00.000Zé']);
	const add = (kind: string, subject: string, machine: string, body: Record<string, unknown>): void => {
		ms += 1 + Math.floor(r() * 3);
		out.push({
			id: newEventId(ms, machine),
			kind,
			subject,
			sessionId: subject,
			actor: 'test',
			machine,
			machineName: null,
			author: null,
			at: new Date(ms).toISOString(),
			body,
		});
	};
	const handoffBodies: (() => Record<string, unknown>)[] = [
		() => ({
			lastTask: null,
			tasksCompleted: [],
			tasksCreated: [],
			decisionsRecorded: 1,
			decisions: [{ id: 'd', text: pick(texts), rationale: null }],
			nextSuggested: [],
			openBlockers: [],
			openBugs: [],
			note: pick(texts),
			nextAction: pick(texts),
		}),
		() => ({
			lastTask: { id: 'T1', title: pick(texts) },
			tasksCompleted: [],
			tasksCreated: [],
			decisionsRecorded: 0,
			decisions: [],
			nextSuggested: [],
			openBlockers: [pick(texts)],
			openBugs: [],
			note: null,
			nextAction: null,
			extra: { nested: [1, 2.5, true, null] },
		}),
		() => ({ note: pick(texts), lastTask: null }),
		() => ({
			nextAction: pick(texts),
			tasksCompleted: [],
			lastTask: null,
			tasksCreated: [],
			decisionsRecorded: 2,
			decisions: [],
			nextSuggested: [],
			openBlockers: [],
			openBugs: [],
			note: 'out of order',
		}),
		() => ({}),
		() => ({
			lastTask: null,
			tasksCompleted: [],
			tasksCreated: [],
			decisionsRecorded: 0,
			decisions: [],
			nextSuggested: [],
			openBlockers: [],
			openBugs: [],
			note: null,
		}),
		() => ({
			'7': 'an index key sorts first',
			lastTask: null,
			tasksCompleted: [],
			tasksCreated: [],
			decisionsRecorded: 0,
			decisions: [],
			nextSuggested: [],
			openBlockers: [],
			openBugs: [],
			note: null,
			nextAction: null,
		}),
	];
	const scopes = [
		undefined,
		null,
		{ type: 'global' },
		{ type: 'epic', rootTaskId: 'T1' },
		{ type: 'epicPhase', rootTaskId: 'T2', phaseFilter: 'core' },
		{ type: 'custom', explicitTaskIds: ['T3', 'T4'] },
		{ type: 'task' },
	];
	for (const [i, id] of ids.entries()) {
		const machine = pick(machines);
		const start: Record<string, unknown> = {
			name: r() < 0.9 ? `${pick(texts)} ${i}` : 7,
			parentId: r() < 0.2 ? pick(ids) : null,
			previousId: r() < 0.5 ? pick(ids) : r() < 0.1 ? '' : null,
			agent: r() < 0.7 ? 'claude-code' : null,
			model: null,
			startedAt: at(),
		};
		const scope = pick(scopes);
		if (scope !== undefined) {
			start['scope'] = scope;
		}
		add('session.started', id, machine, start);
		if (r() < 0.1) {
			add('session.started', id, pick(machines), { name: 'a second start, which loses to the first' });
		}
		for (let n = Math.floor(r() * 3); n > 0; n--) {
			add('session.status', id, machine, {
				status: pick(['ended', 'suspended', 'resumed', 'orphaned', 'bogus', 'constructor', 5]),
				reason: r() < 0.5 ? pick(texts) : null,
				at: at(),
			});
		}
		for (let n = Math.floor(r() * 2.4); n > 0; n--) {
			add('handoff.written', id, machine, pick(handoffBodies)());
		}
		if (r() < 0.3) {
			add('handoff.consumed', id, pick(machines), { bySessionId: pick(ids), at: at() });
		}
		// Tasks (shared records, recordProjection.ts): a few subjects changed by many sessions, so a
		// task's events are split over the pulls, its creation sometimes arriving after a change.
		if (r() < 0.5) {
			const task = `T${1 + Math.floor(r() * 25)}`;
			const fields = pick<Record<string, unknown>>([
				{ title: pick(texts), createdAt: at(), status: 'pending' },
				{ status: pick(['done', 'in-progress', 'bogus']), updatedAt: at() },
				{ title: `${pick(texts)} again`, priority: pick(['high', 'low', 'urgent!']) },
				{ description: pick(texts), completedBySession: id },
			]);
			add('task.changed', task, pick(machines), fields);
		}
	}
	return out;
}

/** Pulls the events in the given batches into a fresh workspace, each batch one write as a sync does. */
async function pullInto(t: test.TestContext, batches: readonly WireEvent[][], options: (before: number) => ProjectionOptions): Promise<Engine> {
	const { engine } = await openTestEngine(t);
	for (const batch of batches) {
		await engine.store.write((db) => {
			const merged = mergeWireEvents(db, batch, 'origin', Date.parse('2026-06-01T00:00:00Z'));
			const added = new Set(merged.added);
			projectEvents(
				db,
				batch.filter((e) => added.has(e.id)).map((e) => ({ ...e, source: 'origin', receivedAt: e.at })),
				own,
				engine.store,
				options(merged.before),
			);
		});
	}
	return engine;
}

async function derived(engine: Engine): Promise<unknown> {
	const rows = await engine.store.read((db) => ({
		sessions: db.select().from(sessions).orderBy(asc(sessions.id)).all(),
		handoffs: db.select().from(handoffs).orderBy(asc(handoffs.sessionId)).all(),
		tasks: db.select().from(tasks).orderBy(asc(tasks.id)).all(),
		events: db.select({ id: sharedEvents.id }).from(sharedEvents).orderBy(asc(sharedEvents.id)).all().length,
	}));
	const text = engine.store.sqlite.exec('SELECT session_id, handoff_json, typeof(handoff_json) FROM handoffs ORDER BY session_id')[0]?.values ?? [];
	const scopes = engine.store.sqlite.exec('SELECT id, scope_json, stats_json FROM sessions ORDER BY id')[0]?.values ?? [];
	return { ...rows, text, scopes };
}

for (const seed of [1, 2, 3]) {
	test(`randomised pull (seed ${seed}): the fast paths derive exactly the slow path's rows, and the journal replays them`, async (t) => {
		const all = events(seed, 160);
		const r = random(seed * 7919);
		// Random arrival order, in a few pulls: late starts, handoffs before their session, older events found later.
		const shuffled = [...all].sort(() => r() - 0.5);
		const cuts = [0, 0.2, 0.5, 0.75, 1].map((f) => Math.floor(f * shuffled.length));
		const batches = cuts.slice(1).map((end, i) => shuffled.slice(cuts[i], end));
		// A batch repeated: what is already held adds nothing on either path.
		batches.push(batches[1] ?? []);
		const fast = await pullInto(t, batches, (before) => ({ mergedAfter: before }));
		const slow = await pullInto(t, batches, () => ({ copyHandoffs: false }));
		const fastRows = (await derived(fast)) as { sessions: unknown[]; handoffs: unknown[]; tasks: unknown[] };
		assert.ok(fastRows.sessions.length > 60, `sessions derived: ${fastRows.sessions.length}`);
		assert.ok(fastRows.handoffs.length > 30, `handoffs derived: ${fastRows.handoffs.length}`);
		assert.ok(fastRows.tasks.length > 10, `tasks derived: ${fastRows.tasks.length}`);
		assert.deepStrictEqual(fastRows, await derived(slow));
		// The copied rows are in the journal as a statement: a second process replays it to the same rows.
		const root = fast.ctx.workspaceRoot;
		fast.close();
		const { engine: reopened } = await openTestEngine(t, { root });
		assert.deepStrictEqual(await derived(reopened), fastRows);
	});
}

test('a pull into a workspace that already holds older events of the pulled sessions finds them below the boundary, by scan or by index', async (t) => {
	const all = events(11, 120);
	const few = new Set([...new Set(all.map((e) => e.subject))].slice(0, 6));
	const ofFew = all.filter((e) => few.has(e.subject));
	const rest = all.filter((e) => !few.has(e.subject));
	// A session whose last status is held (the boundary row itself) and an earlier one pulled: the
	// derived status is the held one's.
	const edge = (kind: string, ms: number, body: Record<string, unknown>): WireEvent => ({
		id: newEventId(ms, '0000000b'),
		kind,
		subject: 'ses_edge',
		sessionId: 'ses_edge',
		actor: 'test',
		machine: '0000000b',
		machineName: null,
		author: null,
		at: new Date(ms).toISOString(),
		body,
	});
	const t0 = Date.parse('2026-05-01T00:00:00Z');
	const [started, suspended, ended] = [
		edge('session.started', t0, { name: 'edge' }),
		edge('session.status', t0 + 1, { status: 'suspended', at: '2026-05-01T00:00:01Z' }),
		edge('session.status', t0 + 2, { status: 'ended', reason: 'done', at: '2026-05-01T00:00:02Z' }),
	];
	const [early, late] = [
		[...ofFew.filter((_, i) => i % 2 === 0), started, ended],
		[...ofFew.filter((_, i) => i % 2 === 1), suspended],
	];
	// Many rows held, few records pulled: the index is probed. Few rows held, many records pulled: the
	// rows below the boundary are scanned. Either way the held half of each record's events counts.
	for (const batches of [
		[[...rest, ...early], late],
		[early, [...late, ...rest]],
	]) {
		const fast = await pullInto(t, batches, (before) => ({ mergedAfter: before }));
		const slow = await pullInto(t, batches, () => ({}));
		assert.deepStrictEqual(await derived(fast), await derived(slow));
		assert.equal((await fast.store.read((db) => db.select().from(sessions).all())).find((r) => r.id === 'ses_edge')?.status, 'ended');
	}
});
