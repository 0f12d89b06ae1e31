/**
 * Records travel on their own (sync/autoPush.ts): with sharing on, a session's end and a decision
 * are pushed without anyone running a push; a push while the remote cannot be reached fails, waits,
 * and goes through once it can, the records queued meanwhile; and the real backend (the daemon the CLI
 * starts) does it by itself after a session ended through the CLI.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import { sql } from 'drizzle-orm';
import { AutoPush, pushWorthy } from '../../../../src/engine/sync/autoPush';
import { machineIdentity } from '../../../../src/engine/shared/machineIdentity';
import { silentLogger } from '../../../../src/engine/ports';
import { batonAsync } from '../../cli/cliRunner';
import { actor } from '../../helpers';
import { EngineHost } from '../../../../src/server/engineHost';
import { enabledWorld, remoteRefs, startEnd } from './syncWorld';

test('a session’s end and a decision are pushed on their own; an unreachable remote is retried after a wait, nothing lost', async (t) => {
	const w = await enabledWorld(t);
	let now = 1_000_000;
	const auto = new AutoPush(w.a.engine.sync.autoPushTarget(), silentLogger, () => now);
	assert.equal(await auto.tick(), 'nothing', 'nothing worth a push yet');

	const ended = await startEnd(w.a, 'parser', 'parser done');
	assert.equal(await auto.tick(), 'pushed');
	const machineA = machineIdentity(w.a.root).id;
	assert.ok(remoteRefs(w.bare).includes(`refs/baton/events/${machineA}`), 'the session’s records reached the remote');
	assert.equal(await auto.tick(), 'nothing', 'pushed once');

	// The network goes away: the remote cannot be reached.
	const away = `${w.bare}.away`;
	fs.renameSync(w.bare, away);
	const deciding = (await w.a.engine.sessions.start({ name: 'deciding', actor })).session;
	await w.a.engine.sessions.recordDecision({ text: 'keep the parser streaming', sessionId: deciding.id, actor });
	assert.equal((await w.a.engine.store.read((db) => pushWorthy(db))).pendingDecision, true, 'a decision with no event of its own yet is worth a push');
	assert.equal(await auto.tick(), 'failed');
	assert.equal(await auto.tick(), 'waiting', 'no retry before the wait is over');
	now += 15_000;
	assert.equal(await auto.tick(), 'failed', 'still unreachable: the wait doubles');
	now += 15_000;
	assert.equal(await auto.tick(), 'waiting');
	fs.renameSync(away, w.bare);
	now += 15_000;
	assert.equal(await auto.tick(), 'pushed', 'the network is back: the queued records go');
	assert.equal((await w.a.engine.store.read((db) => pushWorthy(db))).pendingDecision, false, 'the push made the decision an event');

	await w.b.engine.sync.pull();
	const decisions = await w.b.engine.store.read((db) =>
		db.all<{ text: string }>(sql`SELECT json_extract(body_json, '$.text') AS text FROM shared_events WHERE kind = 'decision.recorded'`),
	);
	assert.ok(
		decisions.some((d) => d.text === 'keep the parser streaming'),
		'the decision reached the teammate',
	);
	assert.ok(ended.id);

	// Sharing off: nothing is pushed.
	await w.a.engine.sessions.end({ id: deciding.id, note: 'decided', actor });
	await w.a.engine.sync.disable('origin');
	await startEnd(w.a, 'after', 'not shared');
	assert.equal(await auto.tick(), 'off');
});

test('the backend pushes a session ended through the CLI by itself', async (t) => {
	const w = await enabledWorld(t);
	w.a.engine.close();
	const env = { BATON_DAEMON_IDLE_MS: '60000', BATON_MACHINE_NAME: 'laptop' };
	const start = await batonAsync(w.a.root, ['session', 'start', '--name', 'CLI work', '--json'], { env });
	assert.equal(start.code, 0, start.stderr);
	const end = await batonAsync(w.a.root, ['session', 'end', '--note', 'done from the terminal', '--json'], { env });
	assert.equal(end.code, 0, end.stderr);
	const machineA = machineIdentity(w.a.root).id;
	let waited = 0;
	while (!remoteRefs(w.bare).includes(`refs/baton/events/${machineA}`)) {
		assert.ok(waited < 30_000, 'the backend never pushed the ended session');
		await sleep(250);
		waited += 250;
	}
	// What reached the remote is the session's end: B (its own process, its own clock) sees it ended.
	w.b.engine.close();
	const pulled = await batonAsync(w.b.root, ['sync', 'pull', '--json'], { env });
	assert.equal(pulled.code, 0, pulled.stderr);
	const id = start.json['session']?.['id'] as string;
	const shown = await batonAsync(w.b.root, ['session', 'show', id, '--json'], { env });
	assert.equal(shown.code, 0, shown.stderr);
	assert.equal(shown.json['session']?.['status'] ?? shown.json['status'], 'ended');
	await batonAsync(w.b.root, ['daemon', 'stop'], { env });
	await batonAsync(w.a.root, ['daemon', 'stop'], { env });
});

test('the backend begins no background push while a command works with its engine, and pushes once it has ended', async (t) => {
	const w = await enabledWorld(t);
	await startEnd(w.a, 'parser', 'parser done');
	const root = w.a.root;
	w.a.engine.close();
	const host = new EngineHost({
		workspaceRoot: root,
		config: {},
		log: silentLogger,
		readOnly: false,
		onDidChange: () => undefined,
		pollMs: 50,
		autoPushQuietMs: 100,
	});
	t.after(() => host.dispose());
	// A command (a briefing in a fresh daemon, say) holds the engine from before the quiet wait is over.
	host.workBegan();
	await host.get();
	const machineA = machineIdentity(root).id;
	await sleep(1_500);
	assert.ok(!remoteRefs(w.bare).includes(`refs/baton/events/${machineA}`), 'no push began under the command');
	host.workEnded();
	for (let waited = 0; !remoteRefs(w.bare).includes(`refs/baton/events/${machineA}`); waited += 100) {
		assert.ok(waited < 20_000, 'the backend never pushed once the command ended');
		await sleep(100);
	}
});
