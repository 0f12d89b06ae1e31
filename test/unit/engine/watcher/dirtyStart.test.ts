/**
 * A backend starts its file watcher as the engine opens, so the first capture can arrive while the
 * watcher still walks the folders. That capture waits for the watcher, so its full scan counts as the
 * one "since the watcher started" and the next capture reads only the changed path. (Seen under load:
 * the first scan ran before the watcher watched, and the next capture scanned everything again.)
 * Real watcher, real git.
 */
import assert from 'node:assert/strict';
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

void describe('dirty tracking while the watcher starts', () => {
	void it('a sync that arrives while the watcher starts waits for it; the next sync reads the changed path only', { timeout: 60_000 }, async (t) => {
		const root = fs.realpathSync(tempDir(t, 'baton-dirty-start-'));
		const batonDir = path.join(root, '.baton');
		// Enough folders that the watcher's walk takes a while.
		for (let i = 0; i < 300; i++) {
			write(root, `pkg${i}/src/deep/file${i}.ts`, `export const v${i} = ${i};\n`);
		}
		const shadow = new ShadowRepo(root, batonDir);
		const dirty = new DirtyTracking(root, batonDir, silentLogger);
		const claim = (): DirtyClaim | undefined => dirty.lastClaim;
		const sync = () =>
			shadow.withLock(async () => {
				await shadow.ensureInit([]);
				return dirty.sync(false, (paths) =>
					syncIndex(shadow, { ...(paths ? { paths } : {}), maxFileSize: 1024 * 1024, deadline: Date.now() + 30_000 }),
				);
			});
		const starting = dirty.start();
		t.after(async () => (await starting)());
		assert.equal(dirty.watching, false, 'the watcher is still walking the folders');
		await sync();
		assert.deepEqual(claim(), { kind: 'full', reason: 'no full scan since the watcher started' });
		write(root, 'pkg7/src/deep/file7.ts', 'export const v7 = 70;\n');
		await sync();
		assert.deepEqual(claim(), { kind: 'paths', paths: ['pkg7/src/deep/file7.ts'] });
	});
});
