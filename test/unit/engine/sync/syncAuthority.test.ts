/**
 * A remote is input, not authority: events written straight into the shared remote with git
 * plumbing (no Baton involved) by anyone who can push there must not approve this machine's pending
 * checkpoints, nor speak as this machine. docs/sync.md, "Who decides".
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import test from 'node:test';
import { ulid } from '../../../../src/engine/shared/eventId';
import { machineIdentity } from '../../../../src/engine/shared/machineIdentity';
import { actor } from '../../helpers';
import { baton, cliPath } from '../../cli/cliRunner';
import * as rpc from '../../../../src/protocol/rpc';
import { startServer } from '../../server/serverProcess';
import { forgeBatch, inBare } from './forgeRemote';
import { enabledWorld, type SyncWorld } from './syncWorld';

/** A pending checkpoint on B (strict policy), shared; A has pushed too, so A's events ref exists on the remote. */
async function pendingOnB(w: SyncWorld): Promise<{ sessionId: string; checkpointId: string }> {
	const started = await w.b.engine.sessions.start({ name: 'risky change', actor });
	await w.b.engine.checkpoints.configureSession({ sessionId: started.session.id, policy: 'strict', actor });
	fs.writeFileSync(path.join(w.b.root, 'app.ts'), 'export const x = 2;\n');
	const cp = await w.b.engine.checkpoints.create({ sessionId: started.session.id, message: 'needs a person', actor });
	assert.equal(cp.approvalStatus, 'pending');
	const other = await w.a.engine.sessions.start({ name: 'teammate work', actor });
	await w.a.engine.sessions.end({ id: other.session.id, note: 'done', actor });
	await w.a.engine.sync.push();
	await w.b.engine.sync.push();
	await w.b.engine.sync.pull();
	return { sessionId: started.session.id, checkpointId: cp.id };
}

/** A forged event line as a pusher would write it (a valid shape; the id's time is the forger's choice). */
function forged(machine: string, seq: number, kind: string, subject: string, body: Record<string, unknown>, sessionId: string | null = null): string {
	return JSON.stringify({
		// An hour after the clones' clocks (within the day a pulled id may be ahead); a later seq, a later id.
		id: `evt_${ulid(Date.parse('2026-03-01T10:00:00.000Z') + seq)}_${machine}`,
		kind,
		subject,
		sessionId,
		actor: 'user:mallory',
		machine,
		machineName: 'mallorys-laptop',
		author: 'mallory',
		at: '2026-03-01T10:00:00.000Z',
		body,
	});
}

test("a forged approval of this machine's pending checkpoint is kept as a teammate's opinion, never applied — before and after the person decides", async (t) => {
	const w = await enabledWorld(t);
	const { checkpointId } = await pendingOnB(w);
	const teammate = machineIdentity(w.a.root).id;
	forgeBatch(w, `refs/baton/events/${teammate}`, [
		forged(teammate, 1, 'checkpoint.decided', checkpointId, { status: 'approved', by: 'mallory', note: 'lgtm', at: '2026-03-01T10:00:00.000Z' }),
	]);

	const pulled = await w.b.engine.sync.pull();
	assert.equal(pulled.newEvents, 1, 'the event is kept (it travels on, and is shown)');
	assert.equal((await w.b.engine.checkpoints.get(checkpointId)).approvalStatus, 'pending', 'the gate did not open from outside');
	assert.deepEqual(
		pulled.opinions.map((o) => [o.checkpointId, o.status, o.by, o.machine]),
		[[checkpointId, 'approved', 'mallory', teammate]],
	);
	assert.ok(
		w.b.log.warnings().some((m) => m.includes(checkpointId) && m.includes('as an opinion')),
		w.b.log.warnings().join('\n'),
	);
	assert.deepEqual(
		(await w.b.engine.sync.opinions(checkpointId)).map((o) => [o.status, o.author]),
		[['approved', 'mallory']],
	);

	// The person rejects; a second forged approval with a later id changes nothing either.
	await w.b.engine.checkpoints.reject(checkpointId, { actor, reason: 'not what I asked for' });
	forgeBatch(w, `refs/baton/events/${teammate}`, [
		forged(teammate, 2, 'checkpoint.decided', checkpointId, { status: 'approved', by: 'mallory', at: '2026-03-01T11:00:00.000Z' }),
	]);
	const again = await w.b.engine.sync.pull();
	assert.equal(again.newEvents, 1);
	const after = await w.b.engine.checkpoints.get(checkpointId);
	assert.deepEqual([after.approvalStatus, after.approvalUser], ['rejected', actor]);
	assert.equal((await w.b.engine.sync.opinions(checkpointId)).length, 2);

	// This machine's own decisions still travel and count on the teammate's clone.
	await w.b.engine.sync.push();
	await w.a.engine.sync.pull();
	assert.equal((await w.a.engine.checkpoints.get(checkpointId)).approvalStatus, 'rejected');
});

test("events that claim this machine's identity are refused by name: no session shown as local, no decision applied", async (t) => {
	const w = await enabledWorld(t);
	const { sessionId, checkpointId } = await pendingOnB(w);
	const victim = machineIdentity(w.b.root).id;
	const teammate = machineIdentity(w.a.root).id;
	const claims = [
		forged(victim, 1, 'checkpoint.decided', checkpointId, { status: 'approved', by: 'vscode:user', at: '2026-03-01T10:00:00.000Z' }),
		forged(victim, 2, 'session.started', 'ses_20260301100000_f0f0f0', { name: 'looks like mine', scope: { type: 'global' }, agent: 'claude-code' }),
		forged(victim, 3, 'session.status', sessionId, { status: 'ended', at: '2026-03-01T10:00:00.000Z' }),
	];
	// In the teammate's ref (where a pusher can write), and one with the victim's machine name but a teammate's id suffix.
	const mixed = JSON.stringify({ ...JSON.parse(forged(teammate, 4, 'checkpoint.decided', checkpointId, { status: 'approved', by: 'x' })), machine: victim });
	forgeBatch(w, `refs/baton/events/${teammate}`, [...claims, mixed]);

	const pulled = await w.b.engine.sync.pull();
	assert.equal(pulled.newEvents, 0);
	assert.equal(pulled.refused.length, 4);
	for (const r of pulled.refused) {
		assert.match(r.reason, /claims to be written by this machine/);
	}
	assert.deepEqual(
		pulled.refused.slice(0, 3).map((r) => r.id),
		claims.map((line) => (JSON.parse(line) as { id: string }).id),
	);
	assert.equal((await w.b.engine.checkpoints.get(checkpointId)).approvalStatus, 'pending');
	assert.equal((await w.b.engine.briefings.get(sessionId)).status, 'active', 'this machine’s own session was not ended from outside');
	await assert.rejects(w.b.engine.briefings.get('ses_20260301100000_f0f0f0'));
	// Nothing of it stops this machine.
	await w.b.engine.sessions.end({ id: sessionId, note: 'done', actor });
	assert.ok((await w.b.engine.sync.push()).every((p) => p.pushed.length > 0));
});

test('checkpoint show and sync pull print a teammate’s opinion as one, through the built CLI', async (t) => {
	const w = await enabledWorld(t);
	const { checkpointId } = await pendingOnB(w);
	const teammate = machineIdentity(w.a.root).id;
	forgeBatch(w, `refs/baton/events/${teammate}`, [
		forged(teammate, 1, 'checkpoint.decided', checkpointId, { status: 'approved', by: 'mallory', at: '2026-03-01T10:00:00.000Z' }),
	]);
	await w.b.engine.close();
	const pull = baton(w.b.root, 'sync', 'pull');
	assert.equal(pull.code, 0, pull.stderr);
	assert.match(pull.stdout, new RegExp(`opinion ${checkpointId}: approved by mallory on mallorys-laptop \\(not applied`));
	const show = baton(w.b.root, 'checkpoint', 'show', checkpointId);
	assert.equal(show.code, 0, show.stderr);
	assert.match(show.stdout, /approval {3}pending/);
	assert.match(show.stdout, /opinion {4}approved by mallory on mallorys-laptop .*\(a teammate's; not applied\)/);
	const { json } = baton(w.b.root, 'checkpoint', 'show', checkpointId, '--json');
	assert.deepEqual([json['checkpoint'].approvalStatus, json['opinions'].map((o: { status: string }) => o.status)], ['pending', ['approved']]);
});

test("the editor's lists carry a teammate's opinion beside this machine's checkpoint (Pending Approvals, Checkpoints), through the real backend", async (t) => {
	const w = await enabledWorld(t);
	const { checkpointId } = await pendingOnB(w);
	const teammate = machineIdentity(w.a.root).id;
	forgeBatch(w, `refs/baton/events/${teammate}`, [
		forged(teammate, 1, 'checkpoint.decided', checkpointId, { status: 'approved', by: 'mallory', note: 'ship it', at: '2026-03-01T10:00:00.000Z' }),
	]);
	await w.b.engine.sync.pull();
	await w.b.engine.close();
	const { connection } = startServer(t, w.b.root);
	const status = await connection.sendRequest(rpc.workspaceStatus, undefined);
	const pending = status.pendingCheckpoints.find((c) => c.id === checkpointId);
	assert.equal(pending?.approvalStatus, 'pending');
	assert.deepEqual(
		pending?.opinions?.map((o) => [o.status, o.author, o.machineName, o.note]),
		[['approved', 'mallory', 'mallorys-laptop', 'ship it']],
	);
	const { checkpoints } = await connection.sendRequest(rpc.checkpointList, {});
	assert.equal(checkpoints.find((c) => c.id === checkpointId)?.opinions?.length, 1);
	// A teammate's own checkpoint carries none: their decisions about it are theirs to make.
	assert.ok(checkpoints.filter((c) => c.id !== checkpointId).every((c) => c.opinions === undefined));
});

test("a teammate's event copied onto another machine's ref, its content changed, is refused there: every clone keeps the one from the teammate's own ref", async (t) => {
	const w = await enabledWorld(t);
	const teammate = machineIdentity(w.a.root).id;
	const started = await w.a.engine.sessions.start({ name: 'alpha work', actor });
	await w.a.engine.sync.push();
	// A's session.started as A pushed it, renamed, on a ref of a machine that never pushed.
	const batches = inBare(w, ['ls-tree', '--name-only', '-r', `refs/baton/events/${teammate}`]).split('\n');
	const lines = batches.flatMap((b) => inBare(w, ['cat-file', 'blob', `refs/baton/events/${teammate}:${b}`]).split('\n'));
	const original = lines.find((l) => l.includes('"kind":"session.started"') && l.includes(started.session.id));
	assert.ok(original);
	const copy = JSON.stringify({ ...(JSON.parse(original) as Record<string, unknown>), body: { name: 'HACKED alpha', scope: { type: 'global' } } });
	forgeBatch(w, 'refs/baton/events/0000aaaa', [copy]);

	const pulled = await w.b.engine.sync.pull();
	assert.equal((await w.b.engine.briefings.get(started.session.id)).name, 'alpha work');
	const refused = pulled.refused.find((r) => r.id === (JSON.parse(copy) as { id: string }).id);
	assert.match(refused?.reason ?? '', new RegExp(`names machine "${teammate}" but came on refs/baton/events/0000aaaa`));
});

test("this machine's ref rewritten on the remote by someone else is queued again at the next pull and pushed back, though nothing new was recorded", async (t) => {
	const w = await enabledWorld(t);
	const mine = machineIdentity(w.a.root).id;
	const started = await w.a.engine.sessions.start({ name: 'alpha work', actor });
	await w.a.engine.sync.push();
	// A parentless commit holding one forged batch, over A's events ref.
	const forged1 = forged(
		mine,
		1,
		'session.started',
		'ses_20260301100000_abcdef',
		{ name: 'rewritten', scope: { type: 'global' } },
		'ses_20260301100000_abcdef',
	);
	const blob = inBare(w, ['hash-object', '-w', '--stdin'], `${forged1}\n`);
	inBare(w, ['read-tree', '--empty']);
	inBare(w, ['update-index', '--add', '--cacheinfo', `100644,${blob},batches/forged.jsonl`]);
	inBare(w, ['update-ref', `refs/baton/events/${mine}`, inBare(w, ['commit-tree', inBare(w, ['write-tree']), '-m', 'baton events: 1'])]);

	await w.a.engine.sync.pull();
	const status = (await w.a.engine.sync.status()).remotes.find((r) => r.name === 'origin');
	assert.ok(status && status.queued > 0, `the rewritten ref is queued again: ${JSON.stringify(status)}`);
	const [pushed] = await w.a.engine.sync.push();
	assert.ok(
		pushed?.pushed.some((p) => p.ref === `refs/baton/events/${mine}`),
		'and pushed back',
	);
	await w.b.engine.sync.pull();
	assert.equal((await w.b.engine.briefings.get(started.session.id)).name, 'alpha work', "a teammate's pull sees this machine's history");
	await assert.rejects(w.b.engine.briefings.get('ses_20260301100000_abcdef'));
});

test('a warning quoting what a teammate wrote (an event kind with control characters) shows them escaped, with the daemon and without', async (t) => {
	const w = await enabledWorld(t);
	const teammate = machineIdentity(w.a.root).id;
	await w.b.engine.close();
	const pulled = (seq: number, run: (...args: string[]) => { code: number; stderr: string }): string => {
		forgeBatch(w, `refs/baton/events/${teammate}`, [forged(teammate, seq, `x.\u001b]0;pwned\u0007kind${seq}`, `n${seq}`, {})]);
		const pull = run('sync', 'pull');
		assert.equal(pull.code, 0, pull.stderr);
		return pull.stderr;
	};
	const alone = pulled(1, (...args) => {
		const r = spawnSync(process.execPath, [cliPath, ...args], { cwd: w.b.root, encoding: 'utf8', env: { ...process.env, BATON_NO_DAEMON: '1' } });
		return { code: r.status ?? -1, stderr: r.stderr };
	});
	const throughDaemon = pulled(2, (...args) => baton(w.b.root, ...args));
	for (const [stderr, seq] of [
		[alone, 1],
		[throughDaemon, 2],
	] as const) {
		assert.ok(stderr.includes(`kind "x.\\x1b]0;pwned\\x07kind${seq}"`), stderr);
		assert.ok(!stderr.includes('\u001b') && !stderr.includes('\u0007'), 'no control character reaches the terminal');
	}
});
