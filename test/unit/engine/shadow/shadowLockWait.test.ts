/**
 * The shadow's lock bounds the whole wait, this process's queue included: in the daemon a hook's
 * capture behind a long checkpoint of the same process gives up at its budget (and never runs late),
 * instead of waiting for the checkpoint to end. Real lock files in a real workspace.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { BatonError } from '../../../../src/engine/errors';
import { ShadowRepo } from '../../../../src/engine/shadow/shadowRepo';
import { tempDir } from '../../helpers';
import { makeWorkspace } from '../checkpoints/gitFixtures';

test("a wait for the shadow's lock behind this process's own long holder ends at the lock's bound; the holder and later callers are untouched", async (t) => {
	const root = tempDir(t);
	makeWorkspace(root);
	const long = new ShadowRepo(root, path.join(root, '.baton'));
	let finishLong: () => void = () => undefined;
	const holding = new Promise<void>((resolve) => (finishLong = resolve));
	const order: string[] = [];
	const holder = long.withLock(async () => {
		order.push('long began');
		await holding;
		order.push('long ended');
		return 'long';
	});
	// A hook's capture: its own ShadowRepo, bounded by a short budget.
	const hook = new ShadowRepo(root, path.join(root, '.baton'), 200);
	let ranLate = false;
	await assert.rejects(
		hook.withLock(async () => {
			ranLate = true;
		}),
		(error: unknown) =>
			BatonError.is(error, 'locked') &&
			/the checkpoint store is busy in this process .*gave up after waiting \d+ ms \(limit 200 ms\); nothing was written/.test((error as Error).message),
	);
	assert.deepEqual(order, ['long began'], 'it gave up while the holder still held the lock');
	finishLong();
	assert.equal(await holder, 'long');
	// The next caller gets its turn; the one that gave up never ran.
	assert.equal(await new ShadowRepo(root, path.join(root, '.baton'), 200).withLock(async () => 'next'), 'next');
	assert.equal(ranLate, false);
	assert.deepEqual(order, ['long began', 'long ended']);
});
