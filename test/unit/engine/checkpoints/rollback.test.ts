import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { eq } from 'drizzle-orm';
import { BatonError } from '../../../../src/engine/errors';
import { checkpoints } from '../../../../src/engine/storage/schema';
import { actor, snapshotFiles } from '../../helpers';
import { createSettled, exists, fingerprint, freeze, openCheckpointEngine, read, thaw, userGit, write } from './gitFixtures';

const outsideBaton = ['.baton'];

void describe('rollback', () => {
	void it('restores exactly the target’s files, nested repository included, with both .git folders byte-identical', async (t) => {
		const { engine, root, clock } = await openCheckpointEngine(t);
		const userGitDir = snapshotFiles(path.join(root, '.git'));
		const nestedGitDir = snapshotFiles(path.join(root, 'vendor/lib/.git'));
		const userHead = userGit(root, 'rev-parse', 'HEAD');
		const atTarget = fingerprint(root, outsideBaton);
		const target = await engine.checkpoints.create({ actor });

		clock.advance(60_000);
		write(root, 'src/app.ts', 'rewritten by the agent\n');
		write(root, 'docs/win.txt', 'now lf\n');
		fs.rmSync(path.join(root, 'src/util.ts'));
		fs.chmodSync(path.join(root, 'scripts/run.sh'), 0o644);
		fs.rmSync(path.join(root, 'scripts/link.ts'));
		fs.symlinkSync('elsewhere', path.join(root, 'scripts/link.ts'));
		write(root, 'vendor/lib/lib.c', 'broken\n');
		write(root, 'src/generated.ts', 'by the agent\n');
		await engine.checkpoints.create({ actor, trigger: 'periodic' });
		clock.advance(60_000);

		const result = await engine.checkpoints.rollback(target.id, { actor });
		assert.deepEqual(fingerprint(root, outsideBaton), atTarget, 'every byte, mode and link as at the target');
		assert.deepEqual(result.removed, ['src/generated.ts']);
		assert.deepEqual(result.restored.sort(), ['docs/win.txt', 'scripts/link.ts', 'scripts/run.sh', 'src/app.ts', 'src/util.ts', 'vendor/lib/lib.c']);
		assert.equal(read(root, 'docs/win.txt'), 'line one\r\nline two\r\n');
		assert.equal(fs.statSync(path.join(root, 'scripts/run.sh')).mode & 0o777, 0o755);
		assert.equal(fs.readlinkSync(path.join(root, 'scripts/link.ts')), '../src/app.ts');
		assert.deepEqual(snapshotFiles(path.join(root, '.git')), userGitDir, 'user .git byte-identical');
		assert.deepEqual(snapshotFiles(path.join(root, 'vendor/lib/.git')), nestedGitDir, 'nested .git byte-identical');
		assert.equal(userGit(root, 'rev-parse', 'HEAD'), userHead, 'git history untouched');

		const [record] = await engine.checkpoints.rollbacks();
		assert.equal(record?.status, 'done');
		assert.deepEqual(
			record?.phases.map((p) => p.phase),
			['safety_checkpoint', 'verify_target', 'restore', 'done'],
		);
		const safety = await engine.checkpoints.get(result.safetyCheckpointId);
		assert.equal(safety.trigger, 'pre-rollback');
		assert.equal(
			(await engine.checkpoints.fileAt(safety.id, 'src/generated.ts'))?.toString(),
			'by the agent\n',
			'what was removed is in the safety checkpoint',
		);
	});

	void it('refuses to restore or compare a checkpoint whose tree holds a path outside the workspace (made elsewhere, as a pulled ref could bring it), touching nothing', async (t) => {
		const { engine, root, clock } = await openCheckpointEngine(t);
		const target = await engine.checkpoints.create({ actor });
		clock.advance(1_000);
		write(root, 'src/agent.ts', 'agent output\n');
		const outside = path.join(root, '..', `outside-${path.basename(root)}.txt`);
		fs.writeFileSync(outside, 'not the workspace’s\n');
		t.after(() => fs.rmSync(outside, { force: true }));
		// The target's tree, plus `../outside-….txt`, `.git/config` and `.baton/machine.json` entries (git mktree takes any name).
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
		const blob = inShadow(['hash-object', '-w', '--stdin'], 'forged\n');
		for (const [name, entries] of [
			['..', `100644 blob ${blob}\t${path.basename(outside)}\n`],
			['.git', `100644 blob ${blob}\tconfig\n`],
			// A teammate's tree holding Baton's own files: restored, the clone would take another machine's id and push over its history.
			['.baton', `100644 blob ${blob}\tmachine.json\n`],
		] as const) {
			const machine = (): string | null => (fs.existsSync(path.join(root, '.baton', 'machine.json')) ? read(root, '.baton/machine.json') : null);
			const machineBefore = machine();
			const sub = inShadow(['mktree'], entries);
			const top = inShadow(['mktree'], `${inShadow(['ls-tree', target.treeSha])}\n040000 tree ${sub}\t${name}\n`);
			const commit = inShadow(['commit-tree', top, '-m', 'forged']);
			await engine.store.write((db) => db.update(checkpoints).set({ commitSha: commit, treeSha: top }).where(eq(checkpoints.id, target.id)).run());
			// Compared with the working tree, or reviewed, it is refused too: the Compare panel would open `../…` beside the workspace.
			for (const compare of [() => engine.checkpoints.diff(target.id), () => engine.checkpoints.changes(target.id)]) {
				await assert.rejects(compare(), /which is no path inside the workspace/);
			}
			const before = fingerprint(root, outsideBaton);
			await assert.rejects(
				engine.checkpoints.rollback(target.id, { actor }),
				(error: Error) =>
					/which is no path inside the workspace/.test(error.message) &&
					error.message.includes({ '..': '"../outside-', '.git': '".git/config"', '.baton': '".baton/machine.json"' }[name]),
			);
			assert.equal(machine(), machineBefore, "Baton's own files are as they were");
			assert.deepEqual(fingerprint(root, outsideBaton), before, 'the workspace is as it was');
			assert.equal(fs.readFileSync(outside, 'utf8'), 'not the workspace’s\n', 'the file outside it too');
			assert.equal(read(root, 'src/agent.ts'), 'agent output\n');
		}
		const failed = await engine.checkpoints.rollbacks();
		assert.deepEqual(
			failed.map((r) => r.status),
			['failed', 'failed', 'failed'],
		);
		// Refused while verifying the target: no file was moved aside or written, inside or outside.
		assert.deepEqual(
			failed.map((r) => r.phases.map((p) => p.phase)),
			[
				['safety_checkpoint', 'failed'],
				['safety_checkpoint', 'failed'],
				['safety_checkpoint', 'failed'],
			],
		);
	});

	void it('never removes files no snapshot saw before the rollback, nor ignored ones', async (t) => {
		const { engine, root, clock } = await openCheckpointEngine(t);
		const target = await engine.checkpoints.create({ actor });
		clock.advance(1_000);
		write(root, 'src/agent.ts', 'agent output\n');
		await engine.checkpoints.create({ actor });
		clock.advance(1_000);
		write(root, 'mine/draft.md', 'written after the last checkpoint\n');
		write(root, 'logs/today.log', 'ignored\n');
		const result = await engine.checkpoints.rollback(target.id, { actor });
		assert.deepEqual(result.removed, ['src/agent.ts']);
		assert.deepEqual(result.kept, ['mine/draft.md']);
		assert.equal(read(root, 'mine/draft.md'), 'written after the last checkpoint\n');
		assert.equal(read(root, 'logs/today.log'), 'ignored\n');
		assert.equal(read(root, 'notes/untracked.md'), 'my untracked notes\n');

		// A second rollback does not take the first one's safety checkpoint as proof against the draft.
		clock.advance(1_000);
		const again = await engine.checkpoints.rollback(target.id, { actor });
		assert.deepEqual(again.removed, []);
		assert.equal(read(root, 'mine/draft.md'), 'written after the last checkpoint\n');
	});

	void it('moves aside, never overwrites, ignored content standing where the target puts a file', async (t) => {
		const { engine, root, clock } = await openCheckpointEngine(t);
		write(root, 'local.cache', 'in the snapshot when the target was taken\n');
		const target = await engine.checkpoints.create({ actor });
		clock.advance(1_000);
		fs.rmSync(path.join(root, 'local.cache'));
		write(root, '.gitignore', 'logs/\n*.tmp\n*.cache\n');
		await engine.checkpoints.create({ actor });
		// Now ignored, so in no snapshot, and different: the rollback must not lose it.
		write(root, 'local.cache', 'precious local cache\n');
		const result = await engine.checkpoints.rollback(target.id, { actor });
		assert.equal(read(root, 'local.cache'), 'in the snapshot when the target was taken\n');
		assert.deepEqual(result.preserved, ['local.cache']);
		assert.equal(read(root, path.join(result.preservedDir as string, 'local.cache')), 'precious local cache\n');
	});

	void it('refuses a rejected target unless overridden', async (t) => {
		const { engine, root } = await openCheckpointEngine(t);
		const target = await engine.checkpoints.create({ actor });
		await engine.checkpoints.reject(target.id, { actor: 'reviewer', reason: 'broke the build' });
		write(root, 'src/app.ts', 'later\n');
		await assert.rejects(engine.checkpoints.rollback(target.id, { actor }), (e) => BatonError.is(e, 'checkpointRejected'));
		assert.equal(read(root, 'src/app.ts'), 'later\n');
		assert.equal((await engine.checkpoints.list()).length, 1, 'no safety checkpoint either: nothing happened');
		await engine.checkpoints.rollback(target.id, { actor, force: true });
		assert.equal(read(root, 'src/app.ts'), 'export const app = 1;\n');
	});

	void it('makes the target the parent of the next checkpoint (provenance)', async (t) => {
		const { engine, root, clock } = await openCheckpointEngine(t);
		const target = await engine.checkpoints.create({ actor });
		clock.advance(1_000);
		write(root, 'src/app.ts', 'v2\n');
		await engine.checkpoints.create({ actor });
		await engine.checkpoints.rollback(target.id, { actor });
		clock.advance(1_000);
		write(root, 'src/app.ts', 'v3\n');
		const next = await engine.checkpoints.create({ actor });
		assert.equal(next.parentCheckpointId, target.id);
		assert.deepEqual([next.fileStats.added, next.fileStats.modified, next.fileStats.deleted], [0, 1, 0]);
	});

	void it('puts everything back when the restore fails half-way (a folder that cannot be written)', async (t) => {
		const { engine, root, clock } = await openCheckpointEngine(t);
		write(root, 'a/first.txt', 'a1\n');
		write(root, 'm/middle.txt', 'm1\n');
		write(root, 'z/last.txt', 'z1\n');
		const target = await engine.checkpoints.create({ actor });
		clock.advance(1_000);
		write(root, 'a/first.txt', 'a2\n');
		write(root, 'm/middle.txt', 'm2\n');
		write(root, 'm/added.txt', 'new\n');
		write(root, 'z/last.txt', 'z2\n');
		fs.rmSync(path.join(root, 'src/util.ts'));
		await engine.checkpoints.create({ actor });
		write(root, 'mine/draft.md', 'untracked, never snapshotted\n');
		const before = fingerprint(root, outsideBaton);
		if (!freeze(path.join(root, 'm'))) {
			t.skip('cannot make a folder unwritable here');
			return;
		}
		t.after(() => thaw(path.join(root, 'm')));
		const error = await engine.checkpoints.rollback(target.id, { actor }).then(
			() => null,
			(e: unknown) => e,
		);
		thaw(path.join(root, 'm'));
		assert.ok(BatonError.is(error, 'rollbackFailed'), String(error));
		assert.equal(error.details?.['recovered'], true);
		assert.deepEqual(fingerprint(root, outsideBaton), before, 'exactly the pre-rollback state');
		const [record] = await engine.checkpoints.rollbacks();
		assert.equal(record?.status, 'recovered');
		assert.deepEqual(
			record?.phases.map((p) => p.phase),
			['safety_checkpoint', 'verify_target', 'failed', 'recovered'],
		);
		assert.match(record?.error ?? '', /read-tree/);
	});

	void it('puts everything back when anything fails after git restored the files (injected fault)', async (t) => {
		const { engine, root, clock } = await openCheckpointEngine(t);
		write(root, 'local.cache', 'in the target\n');
		write(root, 'old/dir/gone.txt', 'only the target has this folder\n');
		const target = await engine.checkpoints.create({ actor });
		fs.rmSync(path.join(root, 'old'), { recursive: true });
		clock.advance(1_000);
		write(root, 'src/app.ts', 'agent edit\n');
		write(root, 'src/added.ts', 'agent file\n');
		write(root, 'deep/new/dir/file.ts', 'in new folders\n');
		fs.rmSync(path.join(root, 'local.cache'));
		write(root, '.gitignore', 'logs/\n*.tmp\n*.cache\n');
		await engine.checkpoints.create({ actor });
		write(root, 'local.cache', 'ignored now, must come back\n');
		write(root, 'deep/keep.txt', 'the folder deep/ existed before\n');
		const before = fingerprint(root, outsideBaton);
		let restoredWhenFault = '';
		let preservedWhenFault = '';
		engine.checkpoints.faults.afterRestore = () => {
			restoredWhenFault = read(root, 'src/app.ts');
			preservedWhenFault = read(root, 'local.cache');
			throw new Error('injected fault');
		};
		await assert.rejects(engine.checkpoints.rollback(target.id, { actor }), (e) => BatonError.is(e, 'rollbackFailed') && e.details?.['recovered'] === true);
		assert.equal(restoredWhenFault, 'export const app = 1;\n', 'the fault hit after the restore wrote the target');
		assert.equal(preservedWhenFault, 'in the target\n', 'the ignored file had been moved aside');
		assert.equal(exists(root, 'old'), false, 'folders the failed restore created are gone');
		assert.deepEqual(fingerprint(root, outsideBaton), before);
		assert.equal((await engine.checkpoints.head())?.id, (await engine.checkpoints.list())[0]?.id, 'the head did not move to the target');
	});

	void it('handles names with spaces, quotes, backslashes, newlines and non-ASCII characters, in a folder that is no git repository', async (t) => {
		const { engine, root, clock } = await openCheckpointEngine(t, { workspace: false });
		const names = ['with space.txt', 'quote"and\\backslash.txt', 'new\nline.txt', 'ünïcødé/文件.md', '-dash-first.txt', 'tab\there.txt'];
		names.forEach((name, i) => write(root, name, `${i}\n`));
		const target = await createSettled(engine, { actor });
		assert.equal(target.environment?.pending, undefined);
		assert.equal(target.environment?.git, null, 'no git repository: no git state');
		assert.equal(target.fileStats.totalFiles, names.length);
		const before = fingerprint(root, outsideBaton);
		clock.advance(1_000);
		names.forEach((name) => write(root, name, 'changed\n'));
		write(root, 'later "one".txt', 'added\n');
		await engine.checkpoints.create({ actor });
		const comparison = await engine.checkpoints.diff(target.id);
		assert.deepEqual(comparison.files.map((f) => f.path).sort(), [...names, 'later "one".txt'].sort());
		assert.equal((await engine.checkpoints.fileAt(target.id, 'new\nline.txt'))?.toString(), '2\n');
		const result = await engine.checkpoints.rollback(target.id, { actor });
		assert.deepEqual(result.removed, ['later "one".txt']);
		assert.deepEqual(fingerprint(root, outsideBaton), before);
	});

	void it('keeps edits made while a failing rollback ran: untouched files as they are, restored ones as a copy', async (t) => {
		const { engine, root, clock } = await openCheckpointEngine(t);
		const target = await engine.checkpoints.create({ actor });
		clock.advance(1_000);
		write(root, 'src/app.ts', 'agent edit\n');
		await engine.checkpoints.create({ actor });
		engine.checkpoints.faults.afterRestore = () => {
			write(root, 'src/app.ts', 'typed during the rollback\n');
			write(root, 'src/util.ts', 'also typed during the rollback\n');
			throw new Error('injected fault');
		};
		await assert.rejects(engine.checkpoints.rollback(target.id, { actor }), (e) => BatonError.is(e, 'rollbackFailed') && e.details?.['recovered'] === true);
		assert.equal(read(root, 'src/app.ts'), 'agent edit\n', 'the restored file is back as it was before the rollback');
		assert.equal(read(root, 'src/util.ts'), 'also typed during the rollback\n', 'a file the rollback never touched keeps the edit');
		const [record] = await engine.checkpoints.rollbacks();
		assert.equal(record?.status, 'recovered');
		assert.deepEqual(record?.preservedPaths, ['src/app.ts']);
		assert.equal(read(root, path.join(record?.preservedDir as string, 'edited-during-rollback/src/app.ts')), 'typed during the rollback\n');
	});

	void it('refuses to overwrite what changed between the safety checkpoint and git’s write, and recovers', async (t) => {
		const { engine, root, clock } = await openCheckpointEngine(t);
		const target = await engine.checkpoints.create({ actor });
		clock.advance(1_000);
		write(root, 'src/app.ts', 'agent edit\n');
		fs.rmSync(path.join(root, 'src/util.ts'));
		await engine.checkpoints.create({ actor });
		engine.checkpoints.faults.beforeRestore = () => {
			// After the plan, before git writes: an editor saves a file the restore overwrites, and a
			// tool recreates a file where the restore puts the target's.
			write(root, 'src/app.ts', 'saved at the last moment\n');
			write(root, 'src/util.ts', 'recreated at the last moment\n');
		};
		await assert.rejects(engine.checkpoints.rollback(target.id, { actor }), (e) => BatonError.is(e, 'rollbackFailed') && e.details?.['recovered'] === true);
		const [record] = await engine.checkpoints.rollbacks();
		assert.equal(record?.status, 'recovered');
		assert.match(record?.error ?? '', /not uptodate|would be overwritten/, 'git itself refused before writing anything');
		// Recovery puts the workspace back as the safety checkpoint holds it, keeping the late content as copies.
		assert.equal(read(root, 'src/app.ts'), 'agent edit\n');
		assert.equal(exists(root, 'src/util.ts'), false);
		const rescued = path.join(record?.preservedDir as string, 'edited-during-rollback');
		assert.equal(read(root, path.join(rescued, 'src/app.ts')), 'saved at the last moment\n');
		assert.equal(read(root, path.join(rescued, 'src/util.ts')), 'recreated at the last moment\n');
	});

	void it('keeps a file that was ignored at the target and became visible later: no proof it is newer', async (t) => {
		const { engine, root, clock } = await openCheckpointEngine(t);
		write(root, 'logs/notes.txt', 'ignored when the target was taken\n');
		const target = await engine.checkpoints.create({ actor });
		clock.advance(1_000);
		write(root, '.gitignore', '*.tmp\n'); // `logs/` no longer ignored: the next checkpoint holds logs/notes.txt
		write(root, 'src/agent.ts', 'agent output\n');
		await engine.checkpoints.create({ actor });
		clock.advance(1_000);
		const result = await engine.checkpoints.rollback(target.id, { actor });
		assert.equal(read(root, 'logs/notes.txt'), 'ignored when the target was taken\n');
		assert.ok(result.kept.includes('logs/notes.txt'));
		assert.ok(result.kept.includes('src/agent.ts'), 'the root .gitignore lost a rule: nothing below it is proven');
		assert.equal(read(root, '.gitignore'), 'logs/\n*.tmp\n');
	});

	void it('still proves files newer when .gitignore only ignores more', async (t) => {
		const { engine, root, clock } = await openCheckpointEngine(t);
		const target = await engine.checkpoints.create({ actor });
		clock.advance(1_000);
		write(root, '.gitignore', 'logs/\n*.tmp\n# build output\ndist/\n');
		write(root, 'src/agent.ts', 'agent output\n');
		await engine.checkpoints.create({ actor });
		clock.advance(1_000);
		const result = await engine.checkpoints.rollback(target.id, { actor });
		assert.deepEqual(result.removed, ['src/agent.ts']);
		assert.equal(exists(root, 'src/agent.ts'), false);
	});

	void it('leaves the workspace alone when the target is damaged', async (t) => {
		const { engine, root, clock } = await openCheckpointEngine(t);
		write(root, 'only-in-target.txt', 'unique content 12345\n');
		const target = await engine.checkpoints.create({ actor });
		clock.advance(1_000);
		fs.rmSync(path.join(root, 'only-in-target.txt'));
		await engine.checkpoints.create({ actor });
		const blob = userGit(root, `--git-dir=${engine.checkpoints.shadow.gitDir}`, 'rev-parse', `${target.commitSha}:only-in-target.txt`).trim();
		fs.rmSync(path.join(engine.checkpoints.shadow.gitDir, 'objects', blob.slice(0, 2), blob.slice(2)));
		const before = fingerprint(root, outsideBaton);
		await assert.rejects(engine.checkpoints.rollback(target.id, { actor }), /damaged/);
		assert.deepEqual(fingerprint(root, outsideBaton), before);
		assert.equal(exists(root, 'only-in-target.txt'), false);
	});
});
