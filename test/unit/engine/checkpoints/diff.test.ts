import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { actor, snapshotFiles } from '../../helpers';
import { openCheckpointEngine, write } from './gitFixtures';

void describe('checkpoint comparison', () => {
	void it('lists files added, modified and deleted between two checkpoints, with line counts and binary files marked', async (t) => {
		const { engine, root, clock } = await openCheckpointEngine(t);
		write(root, 'img/logo.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]));
		const a = await engine.checkpoints.create({ actor });
		clock.advance(1_000);
		write(root, 'src/app.ts', 'export const app = 2;\nexport const more = 3;\n');
		write(root, 'src/new.ts', 'a\nb\nc\n');
		write(root, 'img/logo.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 9, 9, 9]));
		fs.rmSync(path.join(root, 'src/util.ts'));
		fs.chmodSync(path.join(root, 'scripts/run.sh'), 0o644);
		const b = await engine.checkpoints.create({ actor, trigger: 'periodic' });
		const comparison = await engine.checkpoints.diff(a.id, b.id);
		assert.deepEqual(
			comparison.files.map((f) => [f.path, f.change, f.additions, f.deletions, f.binary]),
			[
				['img/logo.png', 'modified', null, null, true],
				['scripts/run.sh', 'modified', 0, 0, false],
				['src/app.ts', 'modified', 2, 1, false],
				['src/new.ts', 'added', 3, 0, false],
				['src/util.ts', 'deleted', 0, 1, false],
			],
		);
		assert.deepEqual([comparison.files[1]?.oldMode, comparison.files[1]?.newMode], ['100755', '100644']);
		assert.deepEqual(comparison.approval, {
			from: { status: 'auto_approved', user: 'baton', at: a.createdAt, reason: 'manual checkpoints are approved automatically under the auto policy' },
			to: { status: 'auto_approved', user: 'baton', at: b.createdAt, reason: 'periodic checkpoints are approved automatically under the auto policy' },
		});
		assert.deepEqual([b.fileStats.added, b.fileStats.modified, b.fileStats.deleted, b.fileStats.linesAdded, b.fileStats.linesRemoved], [1, 3, 1, 5, 2]);
	});

	void it('compares a checkpoint with the working tree without writing the user’s repository', async (t) => {
		const { engine, root } = await openCheckpointEngine(t);
		const a = await engine.checkpoints.create({ actor });
		const userGitDir = snapshotFiles(path.join(root, '.git'));
		write(root, 'src/app.ts', 'changed in the editor\n');
		write(root, 'fresh.txt', 'one\ntwo\n');
		write(root, 'logs/ignored.log', 'not part of the workspace state\n');
		const comparison = await engine.checkpoints.diff(a.id);
		assert.equal(comparison.to, null);
		assert.deepEqual(
			comparison.files.map((f) => [f.path, f.change, f.additions, f.deletions]),
			[
				['fresh.txt', 'added', 2, 0],
				['src/app.ts', 'modified', 1, 1],
			],
		);
		assert.deepEqual(snapshotFiles(path.join(root, '.git')), userGitDir);
		assert.equal((await engine.checkpoints.list()).length, 1, 'comparing creates no checkpoint');
	});

	void it('gives a file’s content at a checkpoint, or null when the checkpoint does not hold it', async (t) => {
		const { engine, root } = await openCheckpointEngine(t);
		const a = await engine.checkpoints.create({ actor });
		write(root, 'src/app.ts', 'later\n');
		assert.equal((await engine.checkpoints.fileAt(a.id, 'src/app.ts'))?.toString(), 'export const app = 1;\n');
		assert.equal((await engine.checkpoints.fileAt(a.id, './src/app.ts'))?.toString(), 'export const app = 1;\n');
		assert.equal(await engine.checkpoints.fileAt(a.id, 'src/missing.ts'), null);
		assert.equal(await engine.checkpoints.fileAt(a.id, 'logs/debug.log'), null);
	});
});
