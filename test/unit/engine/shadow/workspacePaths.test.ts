/**
 * Paths from trees are joined to the workspace folder only when each part is a plain name: a tree
 * made elsewhere (git mktree takes any name) must not reach a file outside the workspace, or `.git`.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import test from 'node:test';
import { ShadowRepo } from '../../../../src/engine/shadow/shadowRepo';
import { assertRealFolders, folderProblem, workspaceFile, workspacePathProblem } from '../../../../src/engine/shadow/workspacePaths';
import { blobId, filesNow, revertStep } from '../../../../src/engine/timeline/stepRevert';
import { tempDir } from '../../helpers';

test('plain names pass; empty, dot, dot-dot, .git and .baton parts do not', () => {
	for (const ok of ['a.txt', 'src/app.ts', '.github/workflows/ci.yml', '.gitignore', 'a/..b/c', 'x/.git-keep', '.batonrc', 'x/.baton-notes']) {
		assert.equal(workspacePathProblem(ok), null, ok);
	}
	for (const bad of [
		'',
		'..',
		'../x',
		'a/../../x',
		'./a',
		'a//b',
		'a/',
		'/etc/passwd',
		'.git/config',
		'sub/.GIT/hooks/pre-commit',
		'a\0b',
		'.baton/machine.json',
		'.BATON/machine.json',
		'sub/.baton/x',
	]) {
		assert.notEqual(workspacePathProblem(bad), null, JSON.stringify(bad));
	}
});

test('a step whose files name a path outside the workspace is refused before any file is touched', async (t) => {
	const dir = tempDir(t, 'baton-paths-');
	const root = path.join(dir, 'project');
	fs.mkdirSync(root);
	const outside = path.join(dir, 'outside.txt');
	fs.writeFileSync(outside, 'added by the step\n');
	fs.writeFileSync(path.join(root, 'inside.txt'), 'added by the step\n');
	const shadow = new ShadowRepo(root, path.join(root, '.baton'));
	await shadow.withLock(() => shadow.ensureInit([]));
	const sha = blobId(Buffer.from('added by the step\n'), '0'.repeat(40));
	const added = (p: string) => ({
		path: p,
		change: 'added' as const,
		additions: 1,
		deletions: 0,
		binary: false,
		oldMode: null,
		newMode: '100644',
		oldSha: null,
		newSha: sha,
	});
	// Both files hold what the step "added": without the check, a revert deletes both.
	await assert.rejects(
		revertStep(shadow, [added('inside.txt'), added('../outside.txt')], { dryRun: false }),
		/"\.\.\/outside\.txt", which is no path inside the workspace/,
	);
	assert.ok(fs.existsSync(outside), 'the file outside is there');
	assert.ok(fs.existsSync(path.join(root, 'inside.txt')), 'and nothing inside was reverted either');
	// Showing where the step's files stand reads nothing outside: the forged one reads as absent.
	assert.deepEqual(
		filesNow(shadow, [added('inside.txt'), added('../outside.txt')]).map((f) => f.now),
		['unchanged', 'deleted'],
	);
});

test('a path below a folder that is a link (or a file) is refused; a link itself, or folders still to create, are not', (t) => {
	const dir = tempDir(t, 'baton-paths-');
	const root = path.join(dir, 'project');
	fs.mkdirSync(path.join(root, 'real', 'deeper'), { recursive: true });
	fs.mkdirSync(path.join(dir, 'elsewhere'));
	fs.symlinkSync(path.join(dir, 'elsewhere'), path.join(root, 'real', 'linked'));
	fs.writeFileSync(path.join(root, 'plain.txt'), 'a file\n');
	for (const ok of ['top.txt', 'real/deeper/x.txt', 'real/linked', 'new/folders/x.txt', 'real/new/x.txt']) {
		assert.equal(folderProblem(root, ok), null, ok);
		assert.equal(workspaceFile(root, ok), path.join(root, ...ok.split('/')));
	}
	assert.match(folderProblem(root, 'real/linked/x.txt') ?? '', /^its folder "real\/linked" is a symbolic link \(to ".*elsewhere"\)/);
	assert.match(folderProblem(root, 'real/linked/a/b/x.txt') ?? '', /"real\/linked" is a symbolic link/);
	assert.match(folderProblem(root, 'plain.txt/x') ?? '', /"plain.txt" is a file, not a folder/);
	assert.equal(folderProblem(root, 'plain.txt/x', { filesInTheWay: true }), null, 'a restore moves the file aside first');
	assert.throws(() => workspaceFile(root, 'real/linked/x.txt'), /stopped before writing "real\/linked\/x.txt": its folder "real\/linked" is a symbolic link/);
	// All paths are checked before any is written: the first one below a link is named.
	assert.throws(
		() => assertRealFolders(root, ['top.txt', 'real/linked/x.txt', 'plain.txt/y'], 'the step'),
		/^BatonError: the step changes "real\/linked\/x.txt", but its folder "real\/linked" is a symbolic link.*Nothing was changed/,
	);
	assert.deepEqual(fs.readdirSync(path.join(dir, 'elsewhere')), [], 'nothing was written outside');
});
