/**
 * The git room's parsers on what real git prints (docs/architecture.md, "Git in one room"): the object
 * reader's `cat-file --batch` and `--batch-check` answers (present, missing, ambiguous, of another type,
 * names with spaces, specs still being computed), and the user's repository state from `status
 * --porcelain=v2` (changed, renamed, untracked, unmerged, detached, no commits yet) and `rev-list --count`.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import test from 'node:test';
import { userRepoReadEnv } from '../../../../src/engine/git/gitEnv';
import { runGit } from '../../../../src/engine/git/gitRunner';
import { batchCheck, catBatch, type GitRun } from '../../../../src/engine/git/objectReader';
import { commitsSince, insideGitRepo, readUserRepoStatus } from '../../../../src/engine/git/userRepoState';
import { tempDir } from '../../helpers';

const env = {
	PATH: process.env['PATH'] ?? '',
	GIT_CONFIG_NOSYSTEM: '1',
	HOME: '/nonexistent',
	LC_ALL: 'C',
	GIT_AUTHOR_NAME: 'T',
	GIT_AUTHOR_EMAIL: 't@example.com',
	GIT_COMMITTER_NAME: 'T',
	GIT_COMMITTER_EMAIL: 't@example.com',
};

function git(cwd: string, args: string[], input?: string): string {
	return execFileSync('git', args, { cwd, env, encoding: 'utf8', ...(input !== undefined ? { input } : {}) }).trim();
}

function repo(t: test.TestContext): { cwd: string; run: GitRun; calls: string[][] } {
	const cwd = tempDir(t, 'baton-gitparse-');
	git(cwd, ['init', '-q', '-b', 'main']);
	const calls: string[][] = [];
	const run: GitRun = async (args, input) => {
		calls.push([...args]);
		return (await runGit(args, { cwd, env, ...(input !== undefined ? { input } : {}) })).stdout;
	};
	return { cwd, run, calls };
}

test('batchCheck: each spec its oid, type and size in order; missing, ambiguous and spaced names are null; one git call for all', async (t) => {
	const { cwd, run, calls } = repo(t);
	fs.writeFileSync(path.join(cwd, 'a file.txt'), 'hello\n');
	git(cwd, ['add', '.']);
	git(cwd, ['commit', '-q', '-m', 'one']);
	const blob = git(cwd, ['rev-parse', 'HEAD:a file.txt']);
	const head = git(cwd, ['rev-parse', 'HEAD']);
	const specs = ['HEAD:a file.txt', 'HEAD:no such file', head, 'HEAD^{tree}', '0'.repeat(40), 'not a name at all'];
	const found = await batchCheck(run, specs);
	assert.equal(calls.length, 1);
	assert.deepEqual(found, [
		{ oid: blob, type: 'blob', size: 6 },
		null,
		{ oid: head, type: 'commit', size: found[2]?.size },
		{ oid: git(cwd, ['rev-parse', 'HEAD^{tree}']), type: 'tree', size: found[3]?.size },
		null,
		null,
	]);
	assert.ok((found[2]?.size ?? 0) > 0);
	// Specs still being computed: git starts first, the answer still lines up with them.
	const later = await batchCheck(run, new Promise<readonly string[]>((resolve) => setTimeout(() => resolve([blob, 'missing']), 50)));
	assert.deepEqual(later, [{ oid: blob, type: 'blob', size: 6 }, null]);
	assert.deepEqual(await batchCheck(run, []), []);
	await assert.rejects(batchCheck(run, ['a\nb']), /line break/);
});

test('catBatch: contents in order, null for what git does not hold or is not of the asked type; binary content byte for byte', async (t) => {
	const { cwd, run } = repo(t);
	const binary = Buffer.from([0, 1, 2, 10, 255, 10, 0]);
	fs.writeFileSync(path.join(cwd, 'bin.dat'), binary);
	fs.writeFileSync(path.join(cwd, 'text.txt'), 'line\n');
	git(cwd, ['add', '.']);
	git(cwd, ['commit', '-q', '-m', 'one']);
	const any = await catBatch(run, ['HEAD:bin.dat', 'HEAD:gone', 'HEAD^{tree}', 'HEAD:text.txt']);
	assert.deepEqual(any[0]?.content, binary);
	assert.equal(any[0]?.type, 'blob');
	assert.equal(any[1], null);
	assert.equal(any[2]?.type, 'tree');
	assert.equal(any[3]?.content.toString(), 'line\n');
	const blobs = await catBatch(run, ['HEAD^{tree}', 'HEAD:text.txt'], 'blob');
	assert.equal(blobs[0], null, 'a tree where a blob was asked');
	assert.equal(blobs[1]?.content.toString(), 'line\n');
});

test('the user repository state: branch, HEAD, changed (renames and unmerged paths once each) and untracked counts; detached; no commits yet', async (t) => {
	const { cwd } = repo(t);
	const readEnv = { ...userRepoReadEnv(), HOME: '/nonexistent', GIT_CONFIG_NOSYSTEM: '1' };
	const deadline = (): number => Date.now() + 30_000;
	// No commits yet: no HEAD, the branch named, the untracked file counted.
	fs.writeFileSync(path.join(cwd, 'new.txt'), 'x\n');
	assert.deepEqual(await readUserRepoStatus(cwd, readEnv, deadline()), { branch: 'main', head: null, changedFiles: 0, untrackedFiles: 1 });
	assert.equal(await commitsSince(cwd, readEnv, null, 30_000), 0);
	fs.writeFileSync(path.join(cwd, 'a.txt'), 'a\n');
	fs.writeFileSync(path.join(cwd, 'b.txt'), 'b\n');
	git(cwd, ['add', 'a.txt', 'b.txt']);
	git(cwd, ['commit', '-q', '-m', 'one']);
	const head = git(cwd, ['rev-parse', 'HEAD']);
	// A modification, a staged rename (two NUL fields, one change), one untracked file with a space in its name.
	fs.writeFileSync(path.join(cwd, 'a.txt'), 'a2\n');
	git(cwd, ['mv', 'b.txt', 'c d.txt']);
	assert.deepEqual(await readUserRepoStatus(cwd, readEnv, deadline()), { branch: 'main', head, changedFiles: 2, untrackedFiles: 1 });
	git(cwd, ['checkout', '-q', '--detach']);
	assert.deepEqual(await readUserRepoStatus(cwd, readEnv, deadline()), { branch: null, head, changedFiles: 2, untrackedFiles: 1 });
	assert.equal(await commitsSince(cwd, readEnv, null, 30_000), 1);
	assert.equal(await commitsSince(cwd, readEnv, new Date(Date.now() + 3_600_000).toISOString(), 30_000), 0, 'nothing committed in the future');
	// Outside any repository: no state, not an error.
	const outside = tempDir(t, 'baton-norepo-');
	assert.equal(insideGitRepo(outside) ? 'inside' : await readUserRepoStatus(outside, readEnv, deadline()), null);
});

test('an unmerged path counts once as changed', async (t) => {
	const { cwd } = repo(t);
	const readEnv = { ...userRepoReadEnv(), HOME: '/nonexistent', GIT_CONFIG_NOSYSTEM: '1' };
	fs.writeFileSync(path.join(cwd, 'f.txt'), 'base\n');
	git(cwd, ['add', '.']);
	git(cwd, ['commit', '-q', '-m', 'base']);
	git(cwd, ['checkout', '-q', '-b', 'other']);
	fs.writeFileSync(path.join(cwd, 'f.txt'), 'other\n');
	git(cwd, ['commit', '-q', '-am', 'other']);
	git(cwd, ['checkout', '-q', 'main']);
	fs.writeFileSync(path.join(cwd, 'f.txt'), 'main\n');
	git(cwd, ['commit', '-q', '-am', 'main']);
	assert.throws(() => git(cwd, ['merge', '-q', 'other']));
	const state = await readUserRepoStatus(cwd, readEnv, Date.now() + 30_000);
	assert.equal(state?.changedFiles, 1);
	assert.equal(state?.untrackedFiles, 0);
	assert.equal(state?.branch, 'main');
});
