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

	void it('tells what a checkpoint changed: the one before it → it; after a rollback, the restored one → it; the first, nothing → it', async (t) => {
		const { engine, root, clock } = await openCheckpointEngine(t);
		const first = await engine.checkpoints.create({ actor });
		const firstChanges = await engine.checkpoints.changes(first.id);
		assert.equal(firstChanges.from, null, 'nothing comes before the first checkpoint');
		assert.equal(firstChanges.approval.from, null);
		assert.equal(firstChanges.to?.id, first.id);
		assert.ok(firstChanges.files.length > 0 && firstChanges.files.every((f) => f.change === 'added'), 'every file it holds is added to an empty workspace');
		assert.equal(firstChanges.files.length, first.fileStats.added, 'the files its own counts were taken from');
		assert.match(firstChanges.environment.note ?? '', /before the first checkpoint/);
		clock.advance(1_000);
		write(root, 'src/app.ts', 'export const app = 2;\n');
		const second = await engine.checkpoints.create({ actor, trigger: 'complete' });
		clock.advance(1_000);
		write(root, 'src/more.ts', 'more\n');
		const third = await engine.checkpoints.create({ actor, trigger: 'complete' });
		const changes = await engine.checkpoints.changes(third.id);
		assert.equal(changes.from?.id, second.id, 'the checkpoint before it');
		assert.deepEqual(
			changes.files.map((f) => [f.path, f.change]),
			[['src/more.ts', 'added']],
		);
		assert.equal(changes.approval.to?.status, 'pending');
		clock.advance(1_000);
		await engine.checkpoints.rollback(first.id, { actor });
		clock.advance(1_000);
		write(root, 'src/after.ts', 'after\n');
		const afterRollback = await engine.checkpoints.create({ actor, trigger: 'complete' });
		const sinceRestored = await engine.checkpoints.changes(afterRollback.id);
		assert.equal(sinceRestored.from?.id, first.id, 'what it changed since the state the rollback restored');
		assert.deepEqual(
			sinceRestored.files.map((f) => [f.path, f.change]),
			[['src/after.ts', 'added']],
		);
		await assert.rejects(engine.checkpoints.changes('cp_missing'), /does not exist/);
	});
});
