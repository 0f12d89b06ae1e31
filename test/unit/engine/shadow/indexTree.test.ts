import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { defaultCheckpointExcludes } from '../../../../src/engine/config';
import { ShadowRepo } from '../../../../src/engine/shadow/shadowRepo';
import { captureTree } from '../../../../src/engine/timeline/treeCapture';
import { tempDir } from '../../helpers';
import { makeWorkspace, write } from '../checkpoints/gitFixtures';

/** A capture as a hook process takes it: a new ShadowRepo each time. */
async function capture(root: string): Promise<string> {
	const shadow = new ShadowRepo(root, path.join(root, '.baton'));
	const result = await shadow.withLock(() => captureTree(shadow, { excludes: defaultCheckpointExcludes, maxFileSize: 1024, deadline: Date.now() + 60_000 }));
	assert.ok(result.tree, result.reason);
	return result.tree;
}

/** The tree `write-tree` gives for the shadow index now. */
async function writeTree(root: string): Promise<string> {
	return new ShadowRepo(root, path.join(root, '.baton')).gitText(['write-tree']);
}

void describe('captures that reuse the last tree', () => {
	void it('reuse it only while the index file is the one that tree was written from', { timeout: 120_000 }, async (t) => {
		const root = tempDir(t);
		makeWorkspace(root);
		// Larger than the 1 KB cap and never in the index: skipped each time, without rewriting the index.
		write(root, 'big/blob.bin', Buffer.alloc(4096, 1));
		const first = await capture(root);
		// Files and folders changed within moments of an index write are racy for git (its stat and
		// untracked caches cannot vouch for them), so it re-reads them and writes the index again; a
		// capture a little later settles that, and from then on nothing rewrites the index.
		await sleep(1_500);
		assert.equal(await capture(root), first);
		const index = path.join(root, '.baton', 'shadow.git', 'index');
		const stamp = fs.statSync(index, { bigint: true });
		assert.equal(await capture(root), first);
		const again = fs.statSync(index, { bigint: true });
		assert.deepEqual([again.ino, again.mtimeNs, again.size], [stamp.ino, stamp.mtimeNs, stamp.size], 'an unchanged workspace leaves the index file alone');

		fs.appendFileSync(path.join(root, 'src/app.ts'), '// changed\n');
		const changed = await capture(root);
		assert.notEqual(changed, first);
		assert.equal(changed, await writeTree(root));

		// Another writer changes the index behind the capture's back: its tree is not reused.
		const shadow = new ShadowRepo(root, path.join(root, '.baton'));
		await shadow.git(['update-index', '--force-remove', '--', 'src/util.ts']);
		const afterRemoval = await writeTree(root);
		assert.notEqual(afterRemoval, changed);
		// The capture adds the file back (it is in the workspace), which gives the earlier tree again.
		assert.equal(await capture(root), changed);

		// A damaged record is not trusted.
		fs.writeFileSync(path.join(root, '.baton', 'shadow.git', 'baton-index-tree.json'), '{"stamp":"x","tree":"nonsense"}');
		assert.equal(await capture(root), changed);
	});
});
