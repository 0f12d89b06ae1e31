/**
 * A link that arrives through a pull: a teammate's checkpoint whose tree has a folder as a symbolic
 * link out of the workspace (Baton snapshots links as links) restores here as a link, and nothing
 * Baton writes afterwards goes through it — the outside folder is never changed.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import test from 'node:test';
import { BatonError } from '../../../../src/engine/errors';
import { actor, tempDir } from '../../helpers';
import { enabledWorld, git } from './syncWorld';

test('a pulled checkpoint that plants a link out of the workspace: restored as a link, and a later rollback below it is refused with nothing outside touched', async (t) => {
	const w = await enabledWorld(t);
	const outside = path.join(tempDir(t, 'baton-outside-'), 'elsewhere');
	fs.mkdirSync(outside);
	fs.writeFileSync(path.join(outside, 'x.txt'), 'not the workspace’s\n');
	const untouched = (): void => {
		assert.deepEqual(fs.readdirSync(outside), ['x.txt'], 'nothing created or removed outside');
		assert.equal(fs.readFileSync(path.join(outside, 'x.txt'), 'utf8'), 'not the workspace’s\n');
	};

	// B's own checkpoint with d/x.txt a real file.
	fs.mkdirSync(path.join(w.b.root, 'd'));
	fs.writeFileSync(path.join(w.b.root, 'd', 'x.txt'), 'inside\n');
	const own = await w.b.engine.checkpoints.create({ message: 'd is a folder', actor });
	// A's checkpoint: d is a link to the folder outside (a careless or hostile teammate).
	fs.symlinkSync(outside, path.join(w.a.root, 'd'));
	// Committed as git commits a link (the link itself): what a shared checkpoint carries is what git tracks.
	git(w.a.root, ['add', 'd']);
	const teammates = await w.a.engine.checkpoints.create({ message: 'd is a link', actor });
	await w.a.engine.sync.push();
	const pulled = await w.b.engine.sync.pull();
	assert.ok(pulled.checkpoints.added >= 1);

	// Restoring the teammate's checkpoint restores the link itself (a tree entry like any other).
	await w.b.engine.checkpoints.rollback(teammates.id, { actor, force: true });
	assert.equal(fs.readlinkSync(path.join(w.b.root, 'd')), outside);
	untouched();

	// Going back to B's own checkpoint would write d/x.txt through the link: refused before anything moves.
	await assert.rejects(
		() => w.b.engine.checkpoints.rollback(own.id, { actor, force: true }),
		(error: Error) => BatonError.is(error) && /symbolic link/.test(error.message) && error.message.includes('"d"'),
	);
	untouched();
	assert.equal(fs.readlinkSync(path.join(w.b.root, 'd')), outside, 'the link is left for the person to remove');
	// Once the person removes the link, the same rollback goes through, inside the workspace.
	fs.unlinkSync(path.join(w.b.root, 'd'));
	await w.b.engine.checkpoints.rollback(own.id, { actor, force: true });
	assert.equal(fs.readFileSync(path.join(w.b.root, 'd', 'x.txt'), 'utf8'), 'inside\n');
	untouched();
});
