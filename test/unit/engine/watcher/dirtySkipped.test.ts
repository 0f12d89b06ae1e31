/**
 * With the file watcher running, a file the shadow skips (over the size cap) is not listed by git on
 * every sync: an unchanged workspace claims no path at all, the skipped file is still reported, and
 * once the file changes it is looked at again. Real watcher, real git.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { DirtyClaim } from '../../../../src/engine/watcher/dirtyPaths';
import { DirtyTracking } from '../../../../src/engine/watcher/dirtyTracking';
import { syncIndex } from '../../../../src/engine/shadow/indexSync';
import { ShadowRepo } from '../../../../src/engine/shadow/shadowRepo';
import { silentLogger } from '../../../../src/engine/ports';
import { tempDir } from '../../helpers';
import { write } from '../checkpoints/gitFixtures';

void describe('dirty tracking of skipped files', () => {
	void it('reports an unchanged oversized file without listing it again, and looks at it once it changes', { timeout: 60_000 }, async (t) => {
		const root = fs.realpathSync(tempDir(t, 'baton-dirty-skipped-'));
		const batonDir = path.join(root, '.baton');
		write(root, 'src/a.ts', 'export const a = 1;\n');
		write(root, 'big.bin', Buffer.alloc(4096, 1));
		const shadow = new ShadowRepo(root, batonDir);
		const dirty = new DirtyTracking(root, batonDir, silentLogger);
		t.after(await dirty.start());
		// A call, so that one assertion's narrowing does not carry over to the next sync.
		const claim = (): DirtyClaim | undefined => dirty.lastClaim;
		const sync = () =>
			shadow.withLock(async () => {
				await shadow.ensureInit([]);
				return dirty.sync(false, (paths) => syncIndex(shadow, { ...(paths ? { paths } : {}), maxFileSize: 1024, deadline: Date.now() + 30_000 }));
			});
		const indexed = () =>
			execFileSync('git', ['ls-files'], {
				cwd: root,
				env: { ...process.env, GIT_DIR: shadow.gitDir, GIT_WORK_TREE: root, GIT_INDEX_FILE: shadow.indexFile },
				encoding: 'utf8',
			})
				.split('\n')
				.filter(Boolean);

		const first = await sync();
		assert.equal(claim()?.kind, 'full');
		assert.deepEqual(
			first.skipped.map((s) => s.path),
			['big.bin'],
		);

		const unchanged = await sync();
		assert.deepEqual(claim(), { kind: 'paths', paths: [] }, 'nothing changed: nothing to list');
		assert.deepEqual(
			unchanged.skipped.map((s) => s.path),
			['big.bin'],
			'the skipped file is still reported',
		);

		write(root, 'src/a.ts', 'export const a = 2;\n');
		const edited = await sync();
		assert.deepEqual(claim(), { kind: 'paths', paths: ['src/a.ts'] });
		assert.deepEqual(
			edited.skipped.map((s) => s.path),
			['big.bin'],
		);

		fs.writeFileSync(path.join(root, 'big.bin'), 'small now\n');
		const shrunk = await sync();
		const after = claim();
		assert.ok(after?.kind === 'paths' && after.paths.includes('big.bin'), JSON.stringify(after));
		assert.deepEqual(shrunk.skipped, []);
		assert.deepEqual(indexed(), ['big.bin', 'src/a.ts']);
	});
});
