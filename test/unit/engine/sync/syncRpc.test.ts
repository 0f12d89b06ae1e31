/**
 * The editor's sync requests through the real backend process (dist/server.js): status, Sync Now
 * (pull, then push), who and where a session ran, and a remote's refusal as a clear error.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import test from 'node:test';
import { ResponseError } from 'vscode-jsonrpc/node';
import * as syncRpc from '../../../../src/protocol/syncRpc';
import { machineIdentity } from '../../../../src/engine/shared/machineIdentity';
import { startServer } from '../../server/serverProcess';
import { git, remoteRefs, startEnd, syncWorld } from './syncWorld';

test('sync over JSON-RPC: status, Sync Now, origins, and a refusal', async (t) => {
	const w = await syncWorld(t);
	await w.a.engine.sync.enable('origin');
	const first = await startEnd(w.a, 'from A', 'over to the editor');
	await w.a.engine.sync.push();
	const { connection } = startServer(t, w.b.root);
	assert.deepEqual((await connection.sendRequest(syncRpc.syncStatus, undefined)).remotes, []);
	// Off until enabled: Sync Now does nothing and sends nothing.
	const off = await connection.sendRequest(syncRpc.syncNow, undefined);
	assert.deepEqual([off.newEvents, off.pushed.length], [0, 0]);
	await w.b.engine.sync.enable('origin');
	const now = await connection.sendRequest(syncRpc.syncNow, undefined);
	assert.ok(now.newEvents >= 3);
	assert.equal(now.sessions.added, 1);
	const [origin] = (await connection.sendRequest(syncRpc.syncOrigins, { sessionIds: [first.id] })).origins;
	assert.equal(origin?.local, false);
	assert.equal(origin?.machineName, machineIdentity(w.a.root).name);
	const [remote] = (await connection.sendRequest(syncRpc.syncStatus, undefined)).remotes;
	assert.equal(remote?.enabled, true);
	assert.ok(remote?.lastPull);
	// A remote that cannot be reached: a clear error naming it, remembered for the status bar.
	git(w.b.root, ['remote', 'set-url', 'origin', `file://${path.join(w.dir, 'gone.git')}`]);
	await assert.rejects(
		() => connection.sendRequest(syncRpc.syncNow, undefined),
		(error: unknown) => error instanceof ResponseError && /could not fetch from remote "origin"/.test(error.message),
	);
	assert.match((await connection.sendRequest(syncRpc.syncStatus, undefined)).remotes[0]?.lastError ?? '', /could not fetch/);
	assert.ok(remoteRefs(w.bare).some((r) => r.startsWith('refs/baton/events/')));
});
