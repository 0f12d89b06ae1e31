/**
 * What a pull does with batches it cannot take whole: lines that are no event, bodies that do not fit
 * their kind, a batch over the size a batch may hold. The rest of the pull goes in, each refusal is
 * named, and the next pull goes on.
 */
import assert from 'node:assert/strict';
import test from 'node:test';
import { machineIdentity } from '../../../../src/engine/shared/machineIdentity';
import { maxBatchBytes } from '../../../../src/engine/sync/eventRefs';
import { forgeBatch } from './forgeRemote';
import { enabledWorld, startEnd } from './syncWorld';

test('a pulled batch with lines that are no event: the rest of the pull goes in, each bad line is refused by name, and the next pull goes on', async (t) => {
	const w = await enabledWorld(t);
	const first = await startEnd(w.a, 'parser', 'parser done');
	const second = await startEnd(w.a, 'lexer', 'lexer done');
	await w.a.engine.sync.push();
	// A batch written by something broken (a truncated write, another tool) on top of A's ref in the remote.
	const blob = forgeBatch(w, `refs/baton/events/${machineIdentity(w.a.root).id}`, [
		'{"id":"evt_01JQ0000000000000000000000_m1","kind":"session.st',
		'null',
		'42',
	]);
	const pulled = await w.b.engine.sync.pull();
	assert.equal(pulled.sessions.added, 2, 'the good events of the same pull went in');
	assert.equal((await w.b.engine.briefings.get(second.id)).previousSessionId, first.id);
	assert.deepEqual(
		pulled.refused.map((r) => r.id),
		[`${blob.slice(0, 12)}:1`, `${blob.slice(0, 12)}:2`, `${blob.slice(0, 12)}:3`],
	);
	assert.match(pulled.refused[0]?.reason ?? '', /^not JSON: /);
	assert.match(pulled.refused[1]?.reason ?? '', /not a JSON object/);
	const warnings = w.b.log.warnings();
	assert.ok(
		warnings.some((m) => /refused 3 line/.test(m) && m.includes('"origin"') && m.includes(blob.slice(0, 12))),
		warnings.join('\n'),
	);
	// Events are written once: the broken lines stay as they are, and later pulls do not trip on them.
	const again = await w.b.engine.sync.pull();
	assert.deepEqual([again.newEvents, again.refused.length], [0, 0]);
});

test('pulled events whose bodies do not fit their kind are refused; values a newer version may add change nothing; the puller keeps syncing', async (t) => {
	const w = await enabledWorld(t);
	const ended = await startEnd(w.a, 'parser', 'parser done');
	await w.a.engine.sync.push();
	const machine = machineIdentity(w.a.root).id;
	let n = 0;
	const event = (kind: string, subject: string, body: Record<string, unknown>): string =>
		JSON.stringify({
			id: `evt_01KJMZZZZZZZZZZZZZZZZZZZ${String(n++).padStart(2, '0')}_${machine}`,
			kind,
			subject,
			sessionId: ended.id,
			actor: 'agent:x',
			machine,
			at: '2026-03-01T10:00:00.000Z',
			body,
		});
	const wrong = [
		event('checkpoint.recorded', 'cp_forged', { files: 'z', metrics: 3, tags: 5, annotations: 'y' }),
		event('session.started', 'ses_forged', { name: 42, scope: 7 }),
		event('handoff.written', ended.id, { decisions: 'none', openBlockers: [1] }),
		event('task.changed', 'T77', { title: null, createdAt: '2026-03-01T10:00:00.000Z' }),
		event('memory.fact', 'mem_forged', { kind: 'knowledge', fingerprint: 12, text: 'x' }),
	];
	const newer = [
		event('session.status', ended.id, { status: 'paused-for-review', at: '2026-03-01T10:00:00.000Z' }),
		event('session.status', ended.id, {}),
		event('session.started', 'ses_20260301100000_ab12cd', { name: 'milestone work', scope: { type: 'milestone', rootTaskId: 'T1', window: 'Q3' } }),
	];
	forgeBatch(w, `refs/baton/events/${machine}`, [...wrong, ...newer]);

	const pulled = await w.b.engine.sync.pull();
	assert.equal(pulled.sessions.added, 2, 'the good events of the pull went in, a scope type of a newer version too');
	const milestone = await w.b.engine.briefings.get('ses_20260301100000_ab12cd');
	assert.deepEqual([milestone.name, milestone.scopeKey, milestone.status], ['milestone work', 'milestone:T1', 'active']);
	assert.ok(
		w.b.log.warnings().some((m) => m.includes('scope type "milestone" this version does not know')),
		w.b.log.warnings().join('\n'),
	);
	assert.ok((await w.b.engine.briefings.overview()).some((c) => c.scopeKey === 'milestone:T1'));
	assert.deepEqual(
		pulled.refused.map((r) => r.reason.replace(/: .*/, '')),
		[
			'its checkpoint.recorded body does not fit',
			'its session.started body does not fit',
			'its handoff.written body does not fit',
			'its task.changed body does not fit',
			'its memory.fact body does not fit',
		],
	);
	assert.match(pulled.refused[0]?.reason ?? '', /files/);
	assert.equal((await w.b.engine.briefings.get(ended.id)).status, 'ended', 'a status this version does not know leaves the session as it was');
	assert.deepEqual(await w.b.engine.checkpoints.list({ sessionId: ended.id }), []);
	// Nothing of it stops this machine: it exports, pushes and pulls as before.
	await startEnd(w.b, 'lexer', 'lexer done');
	assert.ok((await w.b.engine.sync.push()).every((p) => p.pushed.length > 0));
	assert.equal((await w.a.engine.sync.pull()).sessions.added, 1);
});

test('a pulled batch above the 64 MiB a batch may hold is refused unread by name; the rest of the pull goes in and the next pull goes on', async (t) => {
	const w = await enabledWorld(t);
	const first = await startEnd(w.a, 'parser', 'parser done');
	const second = await startEnd(w.a, 'lexer', 'lexer done');
	await w.a.engine.sync.push();
	const machine = machineIdentity(w.a.root).id;
	// One event a newer version could have written, but padded past the bound: were it read, it would be a session.
	const huge = JSON.stringify({
		id: `evt_01KZZZZZZZZZZZZZZZZZZZZZ99_${machine}`,
		kind: 'session.started',
		subject: 'ses_huge',
		sessionId: 'ses_huge',
		actor: 'agent:x',
		machine,
		at: '2026-03-01T10:00:00.000Z',
		body: { name: 'huge', pad: 'x'.repeat(maxBatchBytes) },
	});
	const blob = forgeBatch(w, `refs/baton/events/${machine}`, [huge]);

	const pulled = await w.b.engine.sync.pull();
	assert.equal(pulled.sessions.added, 2, 'the batches under the bound went in');
	assert.equal((await w.b.engine.briefings.get(second.id)).previousSessionId, first.id);
	assert.deepEqual(
		pulled.refused.map((r) => r.id),
		[blob.slice(0, 12)],
	);
	assert.match(pulled.refused[0]?.reason ?? '', /^a batch of \d+ bytes, more than the 67108864 a batch may hold/);
	assert.equal(
		(await w.b.engine.briefings.list({})).some((s) => s.name === 'huge'),
		false,
	);
	const again = await w.b.engine.sync.pull();
	assert.deepEqual([again.newEvents, again.refused.length], [0, 0]);
});
