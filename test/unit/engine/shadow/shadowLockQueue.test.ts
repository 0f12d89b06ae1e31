/**
 * The shadow store's lock within one process (shadowRepo.ts `withLock`): the wait for its turn counts
 * against the lock's timeout, so a hook's timeline capture (a short timeout) gives up instead of
 * waiting behind a checkpoint of the same process that waits for the journal the hook holds.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { ShadowRepo } from '../../../../src/engine/shadow/shadowRepo';
import { tempDir } from '../../helpers';

test('a caller with a short timeout gives up waiting for its turn; the one after it still runs once the holder is done', async (t) => {
	const root = tempDir(t);
	const baton = path.join(root, '.baton');
	let release!: () => void;
	const holding = new Promise<void>((resolve) => (release = resolve));
	const order: string[] = [];
	const holder = new ShadowRepo(root, baton).withLock(async () => {
		order.push('holder');
		await holding;
		order.push('holder done');
	});
	const impatient = new ShadowRepo(root, baton, 200).withLock(async () => void order.push('impatient'));
	await assert.rejects(impatient, (error: Error & { code?: string }) => error.code === 'locked' && /busy in this process/.test(error.message));
	const patient = new ShadowRepo(root, baton).withLock(async () => void order.push('patient'));
	release();
	await holder;
	await patient;
	assert.deepEqual(order, ['holder', 'holder done', 'patient'], 'the one that gave up never ran, and nothing ran beside the holder');
});
