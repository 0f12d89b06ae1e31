/**
 * A rollback never writes, moves or removes a file through a folder that is a symbolic link: the
 * link could lead out of the workspace. A link itself (a tree entry of mode 120000) is restored as
 * a link; what lies below one is refused while verifying, before anything is moved or written.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { eq } from 'drizzle-orm';
import { BatonError } from '../../../../src/engine/errors';
import { checkpoints } from '../../../../src/engine/storage/schema';
import { actor, tempDir } from '../../helpers';
import { fingerprint, openCheckpointEngine, read, write } from './gitFixtures';

const outsideBaton = ['.baton'];

/** A folder outside the workspace holding x.txt. */
function outsideFolder(t: TestContext): string {
	const dir = path.join(tempDir(t, 'baton-outside-'), 'elsewhere');
	fs.mkdirSync(dir);
	fs.writeFileSync(path.join(dir, 'x.txt'), 'not the workspace’s\n');
	return dir;
}

function assertOutsideUntouched(dir: string): void {
	assert.deepEqual(fs.readdirSync(dir), ['x.txt'], 'nothing created or removed outside');
	assert.equal(fs.readFileSync(path.join(dir, 'x.txt'), 'utf8'), 'not the workspace’s\n', 'the file outside is unchanged');
}

void describe('rollback and links', () => {
	void it('restores a link from a checkpoint made elsewhere, then refuses to write below it', async (t) => {
		const { engine, root, clock } = await openCheckpointEngine(t);
		write(root, 'd/x.txt', 'inside\n');
		const before = await engine.checkpoints.create({ actor });
		clock.advance(1_000);
		write(root, 'later.txt', 'later\n');
		const forged = await engine.checkpoints.create({ actor });
		// A checkpoint (as a pulled ref could bring it) whose tree has `d` as a link out of the workspace.
		const outside = outsideFolder(t);
		const shadow = path.join(root, '.baton', 'shadow.git');
		const inShadow = (args: string[], input?: string): string =>
			execFileSync('git', args, {
				input,
				encoding: 'utf8',
				env: {
					PATH: process.env['PATH'],
					GIT_DIR: shadow,
					GIT_AUTHOR_NAME: 't',
					GIT_AUTHOR_EMAIL: 't@t',
					GIT_COMMITTER_NAME: 't',
					GIT_COMMITTER_EMAIL: 't@t',
				},
			}).trim();
		const link = inShadow(['hash-object', '-w', '--stdin'], outside);
		const entries = inShadow(['ls-tree', forged.treeSha])
			.split('\n')
			.filter((line) => !line.endsWith('\td'));
		const tree = inShadow(['mktree'], `${[...entries, `120000 blob ${link}\td`].join('\n')}\n`);
		const commit = inShadow(['commit-tree', tree, '-p', before.commitSha, '-m', 'forged']);
		await engine.store.write((db) => db.update(checkpoints).set({ commitSha: commit, treeSha: tree }).where(eq(checkpoints.id, forged.id)).run());
		await engine.checkpoints.reject(forged.id, { actor: 'reviewer', reason: 'pulled, unknown' });

		// Restoring the link itself is allowed: it is a tree entry like any other. The folder standing
		// there (its tracked file, and what no snapshot holds) is moved aside first.
		write(root, 'd/notes.tmp', 'ignored, in no snapshot\n');
		// A failure after git wrote the link puts the folder back as it was.
		const folder = fingerprint(root, outsideBaton);
		engine.checkpoints.faults.afterRestore = () => {
			assert.equal(fs.readlinkSync(path.join(root, 'd')), outside);
			throw new Error('injected fault');
		};
		await assert.rejects(
			engine.checkpoints.rollback(forged.id, { actor, force: true }),
			(e) => BatonError.is(e, 'rollbackFailed') && e.details?.['recovered'] === true,
		);
		delete engine.checkpoints.faults.afterRestore;
		assert.deepEqual(fingerprint(root, outsideBaton), folder, 'the folder is back, with what no snapshot holds');
		assertOutsideUntouched(outside);
		clock.advance(1_000);
		const replaced = await engine.checkpoints.rollback(forged.id, { actor, force: true });
		assert.equal(fs.readlinkSync(path.join(root, 'd')), outside);
		assertOutsideUntouched(outside);
		assert.deepEqual(replaced.preserved, ['d', 'd/x.txt']);
		assert.equal(read(root, path.join(replaced.preservedDir as string, 'd/x.txt')), 'inside\n');
		assert.equal(read(root, path.join(replaced.preservedDir as string, 'd/notes.tmp')), 'ignored, in no snapshot\n');

		// Back to the checkpoint with d/x.txt: that file would be written (or what stands there moved aside) through the link.
		clock.advance(1_000);
		const workspace = fingerprint(root, outsideBaton);
		const error = await engine.checkpoints.rollback(before.id, { actor }).then(
			() => null,
			(e: unknown) => e,
		);
		assert.ok(BatonError.is(error, 'rollbackFailed'), String(error));
		assert.ok(error.message.includes('"d/x.txt"') && error.message.includes('"d" is a symbolic link') && error.message.includes(outside), error.message);
		assert.match(error.message, /Nothing was changed/);
		assertOutsideUntouched(outside);
		assert.deepEqual(fingerprint(root, outsideBaton), workspace, 'the workspace is as it was');
		const [record] = await engine.checkpoints.rollbacks();
		assert.deepEqual(
			record?.phases.map((p) => p.phase),
			['safety_checkpoint', 'failed'],
		);
		assert.equal(record?.preservedDir, null, 'nothing was moved aside');
	});

	void it('refuses, before any file moves, a rollback that writes below a folder the person replaced with a link', async (t) => {
		const { engine, root, clock } = await openCheckpointEngine(t);
		write(root, 'a/b/x.txt', 'inside\n');
		write(root, 'local.cache', 'in the snapshot when the target was taken\n');
		const target = await engine.checkpoints.create({ actor });
		clock.advance(1_000);
		// An ignored file now stands where the target puts one: it would be moved aside first.
		fs.rmSync(path.join(root, 'local.cache'));
		write(root, '.gitignore', 'logs/\n*.tmp\n*.cache\n');
		await engine.checkpoints.create({ actor });
		write(root, 'local.cache', 'precious local cache\n');
		const outside = outsideFolder(t);
		fs.rmSync(path.join(root, 'a/b'), { recursive: true });
		fs.symlinkSync(outside, path.join(root, 'a/b'));
		const workspace = fingerprint(root, outsideBaton);

		await assert.rejects(
			engine.checkpoints.rollback(target.id, { actor }),
			(error: Error) => error.message.includes('"a/b/x.txt"') && error.message.includes('"a/b" is a symbolic link'),
		);
		assertOutsideUntouched(outside);
		assert.deepEqual(fingerprint(root, outsideBaton), workspace, 'the workspace is as it was');
		assert.equal(read(root, 'local.cache'), 'precious local cache\n', 'not moved aside');
		assert.ok(!fs.existsSync(path.join(root, '.baton', 'rollbacks')), 'no preserved folder');

		// With the link gone, the same rollback goes through.
		fs.rmSync(path.join(root, 'a/b'));
		await engine.checkpoints.rollback(target.id, { actor });
		assert.equal(read(root, 'a/b/x.txt'), 'inside\n');
		assertOutsideUntouched(outside);
	});
});
