import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { actor, snapshotFiles } from '../../helpers';
import { exists, openCheckpointEngine, userGit, write } from './gitFixtures';

void describe('checkpoint snapshots (shadow git store)', () => {
	void it('hold the whole workspace: untracked work, nested repository files, .gitignore and Baton excludes respected', async (t) => {
		const { engine, root } = await openCheckpointEngine(t);
		write(root, 'node_modules/dep/index.js', 'module.exports = 1;\n');
		write(root, 'dist/out.js', 'built\n');
		write(root, 'pkg/build/gen.txt', 'build output\n');
		const cp = await engine.checkpoints.create({ actor });
		const files = userGitShadow(engine.checkpoints.shadow.gitDir, root, 'ls-tree', '-r', '--name-only', cp.commitSha).trim().split('\n').sort();
		assert.deepEqual(files, [
			'.gitattributes',
			'.gitignore',
			'docs/win.txt',
			'notes/untracked.md',
			'scripts/link.ts',
			'scripts/run.sh',
			'src/app.ts',
			'src/util.ts',
			'vendor/lib/.gitignore',
			'vendor/lib/lib.c',
			'vendor/lib/untracked-in-nested.c',
		]);
		assert.deepEqual(cp.fileStats.nestedRepos, ['vendor/lib']);
		assert.equal(cp.fileStats.totalFiles, 11);
		assert.equal(cp.fileStats.added, 11);
		assert.equal(cp.fileStats.degraded, false);
		assert.ok(fs.existsSync(path.join(root, '.baton', 'shadow.git', 'HEAD')), 'the shadow lives in .baton/shadow.git');
		assert.equal(fs.readFileSync(path.join(root, '.baton', 'shadow.git', 'info', 'attributes'), 'utf8'), '* -text -filter -ident -working-tree-encoding\n');
	});

	void it('follow changes inside a nested repository on every snapshot, never writing its .git or the user’s', async (t) => {
		const { engine, root, clock } = await openCheckpointEngine(t);
		const userGitDir = snapshotFiles(path.join(root, '.git'));
		const nestedGitDir = snapshotFiles(path.join(root, 'vendor/lib/.git'));
		const first = await engine.checkpoints.create({ actor });
		clock.advance(60_000);
		write(root, 'vendor/lib/lib.c', 'int lib(void) { return 2; }\n');
		write(root, 'vendor/lib/extra.c', 'int extra;\n');
		fs.rmSync(path.join(root, 'vendor/lib/untracked-in-nested.c'));
		const second = await engine.checkpoints.create({ actor });
		assert.deepEqual(
			(await engine.checkpoints.diff(first.id, second.id)).files.map((f) => [f.path, f.change]),
			[
				['vendor/lib/extra.c', 'added'],
				['vendor/lib/lib.c', 'modified'],
				['vendor/lib/untracked-in-nested.c', 'deleted'],
			],
		);
		assert.equal((await engine.checkpoints.fileAt(second.id, 'vendor/lib/lib.c'))?.toString(), 'int lib(void) { return 2; }\n');
		await engine.checkpoints.diff(first.id);
		assert.deepEqual(snapshotFiles(path.join(root, 'vendor/lib/.git')), nestedGitDir, 'nested .git byte-identical');
		assert.deepEqual(snapshotFiles(path.join(root, '.git')), userGitDir, 'user .git byte-identical');
		const nestedStatus = userGit(path.join(root, 'vendor/lib'), 'status', '--porcelain');
		assert.match(nestedStatus, /^ M lib\.c$/m, 'the nested repository still sees its own changes');
		assert.match(nestedStatus, /^\?\? extra\.c$/m);
	});

	void it('store CRLF bytes, executable bits and symlinks exactly, whatever .gitattributes says', async (t) => {
		const { engine, root } = await openCheckpointEngine(t);
		write(root, 'assets/data.bin', Buffer.from([0, 1, 2, 13, 10, 255]));
		const cp = await engine.checkpoints.create({ actor });
		assert.deepEqual(await engine.checkpoints.fileAt(cp.id, 'docs/win.txt'), Buffer.from('line one\r\nline two\r\n'));
		assert.deepEqual(await engine.checkpoints.fileAt(cp.id, 'assets/data.bin'), Buffer.from([0, 1, 2, 13, 10, 255]), 'no LFS filter ran');
		const modes = userGitShadow(engine.checkpoints.shadow.gitDir, root, 'ls-tree', '-r', cp.commitSha);
		assert.match(modes, /^100755 blob \w+\tscripts\/run\.sh$/m);
		assert.match(modes, /^120000 blob \w+\tscripts\/link\.ts$/m);
		assert.equal((await engine.checkpoints.fileAt(cp.id, 'scripts/link.ts'))?.toString(), '../src/app.ts');
	});

	void it('leave out files over the size cap and list them on the checkpoint, also when a file grows past it', async (t) => {
		const { engine, root, clock } = await openCheckpointEngine(t, { config: { checkpoints: { maxFileSize: 1_000 } } });
		write(root, 'big/video.bin', Buffer.alloc(5_000, 7));
		write(root, 'grows.txt', 'small\n');
		const first = await engine.checkpoints.create({ actor });
		assert.deepEqual(first.fileStats.skipped, [{ path: 'big/video.bin', size: 5_000, reason: 'larger than the 1000 bytes limit' }]);
		assert.equal(first.fileStats.skippedTotal, 1);
		assert.equal(await engine.checkpoints.fileAt(first.id, 'big/video.bin'), null);
		assert.equal((await engine.checkpoints.fileAt(first.id, 'grows.txt'))?.toString(), 'small\n');
		clock.advance(1_000);
		write(root, 'grows.txt', 'x'.repeat(2_000));
		const second = await engine.checkpoints.create({ actor });
		assert.deepEqual(second.fileStats.skipped.map((s) => s.path).sort(), ['big/video.bin', 'grows.txt']);
		assert.equal(await engine.checkpoints.fileAt(second.id, 'grows.txt'), null, 'no stale copy of a file that outgrew the cap');
		clock.advance(1_000);
		write(root, 'grows.txt', 'small again\n');
		const third = await engine.checkpoints.create({ actor });
		assert.equal((await engine.checkpoints.fileAt(third.id, 'grows.txt'))?.toString(), 'small again\n');
		assert.deepEqual(
			third.fileStats.skipped.map((s) => s.path),
			['big/video.bin'],
		);
	});

	void it('record a degraded checkpoint with a clear message when the time budget runs out, and catch up next time', async (t) => {
		const { engine, root, clock } = await openCheckpointEngine(t);
		for (let i = 0; i < 30; i++) write(root, `many/f${i}.txt`, `file ${i}\n`);
		engine.config.checkpoints.timeBudget = 0;
		const progress: string[] = [];
		const partial = await engine.checkpoints.create({ actor, onProgress: (p) => progress.push(p.phase) });
		assert.equal(partial.fileStats.degraded, true);
		assert.match(
			partial.fileStats.degradedReason ?? '',
			/41 of 41 changed files not yet captured when the time budget ran out .* the next checkpoint continues/,
		);
		assert.equal(partial.fileStats.totalFiles, 0);
		assert.deepEqual(progress, ['listing', 'committing']);

		engine.config.checkpoints.timeBudget = 30_000;
		engine.checkpoints.faults.batchFiles = 10;
		const seen: [number, number][] = [];
		clock.advance(1_000);
		const full = await engine.checkpoints.create({ actor, onProgress: (p) => p.phase === 'hashing' && seen.push([p.done, p.total]) });
		assert.equal(full.fileStats.degraded, false);
		assert.equal(full.fileStats.totalFiles, 41);
		assert.deepEqual(seen, [
			[10, 41],
			[20, 41],
			[30, 41],
			[40, 41],
			[41, 41],
		]);
	});

	void it('pack loose objects when asked, keeping every checkpoint readable', async (t) => {
		const { engine, root } = await openCheckpointEngine(t);
		assert.deepEqual(await engine.checkpoints.maintain(), { looseObjects: 0, packs: 0, packed: false }, 'nothing to do before checkpoints are in use');
		const cp = await engine.checkpoints.create({ actor });
		const before = await engine.checkpoints.maintain();
		assert.equal(before.packed, false);
		assert.ok(before.looseObjects > 10);
		assert.equal((await engine.checkpoints.maintain({ force: true })).packed, true);
		assert.equal((await engine.checkpoints.maintain()).looseObjects, 0);
		assert.equal((await engine.checkpoints.fileAt(cp.id, 'src/app.ts'))?.toString(), 'export const app = 1;\n');
		write(root, 'src/app.ts', 'after packing\n');
		assert.equal((await engine.checkpoints.create({ actor })).fileStats.modified, 1);
	});

	void it('finishes a shadow store whose creation was killed after git wrote HEAD', async (t) => {
		const { engine, root } = await openCheckpointEngine(t);
		// What `git init` leaves when killed early: HEAD, no objects or refs, no Baton marker yet.
		const gitDir = path.join(root, '.baton', 'shadow.git');
		fs.mkdirSync(gitDir, { recursive: true });
		fs.writeFileSync(path.join(gitDir, 'HEAD'), 'ref: refs/heads/main\n');
		const cp = await engine.checkpoints.create({ actor });
		assert.ok(cp.fileStats.added > 0, 'the snapshot holds the workspace');
		assert.ok(exists(root, '.baton/shadow.git/objects') && exists(root, '.baton/shadow.git/baton-shadow.json'));
	});

	void it('recovers from a stale index.lock left by a killed git', async (t) => {
		const { engine, root } = await openCheckpointEngine(t);
		await engine.checkpoints.create({ actor });
		const lock = path.join(root, '.baton', 'shadow.git', 'index.lock');
		fs.writeFileSync(lock, 'left by a crash');
		const old = new Date(Date.now() - 60_000);
		fs.utimesSync(lock, old, old);
		write(root, 'src/app.ts', 'changed\n');
		const cp = await engine.checkpoints.create({ actor });
		assert.equal(cp.fileStats.modified, 1);
		assert.equal(exists(root, '.baton/shadow.git/index.lock'), false);
	});

	void it('serialize snapshots taken at once, keeping a linear provenance', async (t) => {
		const { engine, root } = await openCheckpointEngine(t);
		const made = await Promise.all(
			Array.from({ length: 4 }, (_, i) => {
				write(root, `parallel/${i}.txt`, `${i}\n`);
				return engine.checkpoints.create({ actor, message: `n${i}` });
			}),
		);
		const bySeq = [...made].sort((a, b) => a.seq - b.seq);
		assert.equal(bySeq[0]?.parentCheckpointId, null);
		for (let i = 1; i < bySeq.length; i++) {
			assert.equal(bySeq[i]?.parentCheckpointId, bySeq[i - 1]?.id, 'each checkpoint’s parent is the one before it');
		}
	});

	void it('takes no periodic checkpoint before the interval or without changes, then one when both hold', async (t) => {
		const { engine, root, clock } = await openCheckpointEngine(t, { config: { checkpoints: { periodicInterval: '10m' } } });
		assert.deepEqual(await engine.checkpoints.maybePeriodic({ actor }), { checkpoint: null, reason: 'not active' });
		await engine.sessions.start({ name: 's', actor });
		assert.equal((await engine.checkpoints.maybePeriodic({ actor })).reason, 'not due');
		clock.advance(10 * 60_000);
		const first = await engine.checkpoints.maybePeriodic({ actor });
		assert.equal(first.checkpoint?.trigger, 'periodic');
		assert.equal(first.checkpoint?.approvalStatus, 'auto_approved');
		clock.advance(10 * 60_000);
		assert.equal((await engine.checkpoints.maybePeriodic({ actor })).reason, 'no changes');
		write(root, 'src/app.ts', 'edited\n');
		assert.equal((await engine.checkpoints.maybePeriodic({ actor })).checkpoint?.fileStats.modified, 1);
	});

	void it('takes a complete checkpoint when a session ends, once checkpoints are in use in the workspace', async (t) => {
		const { engine } = await openCheckpointEngine(t);
		await engine.sessions.start({ name: 'not yet', actor });
		await engine.sessions.end({ actor });
		assert.equal((await engine.checkpoints.list()).length, 0, 'no shadow store yet: ending a session does not start one');
		await engine.checkpoints.prepare();
		const s = await engine.sessions.start({ name: 'in use', agent: 'claude-code', actor });
		const ended = await engine.sessions.end({ actor: 'hook:claude-code' });
		assert.deepEqual(ended.warnings, []);
		const [complete] = await engine.checkpoints.list({ sessionId: s.session.id });
		assert.equal(complete?.trigger, 'complete');
		assert.equal(complete?.approvalStatus, 'pending', 'an agent’s complete checkpoint needs review under the auto policy');
		// A person's own session, ended by them: nothing for them to review.
		fs.writeFileSync(path.join(engine.ctx.workspaceRoot, 'notes.md'), 'my own work\n');
		const own = await engine.sessions.start({ name: 'my own', actor });
		await engine.sessions.end({ actor });
		const [mine] = await engine.checkpoints.list({ sessionId: own.session.id });
		assert.equal(mine?.trigger, 'complete');
		assert.equal(mine?.approvalStatus, 'auto_approved');
		assert.match(mine?.approvalReason ?? '', /a person ended their own session/);
	});
});

/** git in the shadow store, as a test reads it (the shadow's own environment). */
function userGitShadow(gitDir: string, root: string, ...args: string[]): string {
	return userGit(root, `--git-dir=${gitDir}`, `--work-tree=${root}`, ...args);
}
