/**
 * The daemon's start lock (`.baton/daemon.lock`): one winner among racing starters, also when a rival
 * reads the lock in the instant between its creation and its content (two daemons once served one
 * workspace that way: the empty lock was judged stale and removed).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { acquireStartLock, releaseStartLock, startLockFile } from '../../../src/server/daemonEndpoint';
import { tempDir } from '../helpers';

function workspace(t: Parameters<typeof tempDir>[0]): string {
	const root = tempDir(t, 'baton-start-lock-');
	fs.mkdirSync(path.join(root, '.baton'));
	return root;
}

test('a lock that exists but is not readable yet is held, not stale', async (t) => {
	const root = workspace(t);
	fs.writeFileSync(startLockFile(root), '');
	assert.equal(await acquireStartLock(root, 'rival'), false);
	assert.equal(fs.readFileSync(startLockFile(root), 'utf8'), '', 'the other starter’s lock is left alone');
});

test('a lock whose holder is dead is taken over; the winner’s lock names it from the start', async (t) => {
	const root = workspace(t);
	fs.writeFileSync(startLockFile(root), JSON.stringify({ pid: 2 ** 22 + 12345, instance: 'gone', at: Date.now() }));
	assert.equal(await acquireStartLock(root, 'me'), true);
	assert.equal(JSON.parse(fs.readFileSync(startLockFile(root), 'utf8')).instance, 'me');
	assert.deepEqual(fs.readdirSync(path.join(root, '.baton')), ['daemon.lock'], 'no temporary file is left');
	releaseStartLock(root, 'me');
	assert.equal(fs.existsSync(startLockFile(root)), false);
});

test('of many starters at once in one process, exactly one wins', async (t) => {
	const root = workspace(t);
	const won = await Promise.all(Array.from({ length: 16 }, (_, i) => acquireStartLock(root, `starter-${i}`)));
	assert.equal(won.filter(Boolean).length, 1);
});
