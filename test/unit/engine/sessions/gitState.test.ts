import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { createGitStateReader } from '../../../../src/engine/sessions/gitState';
import { snapshotFiles, tempDir } from '../../helpers';

const env = {
	...process.env,
	GIT_CONFIG_GLOBAL: '/dev/null',
	GIT_AUTHOR_NAME: 't',
	GIT_AUTHOR_EMAIL: 't@example.invalid',
	GIT_COMMITTER_NAME: 't',
	GIT_COMMITTER_EMAIL: 't@example.invalid',
};
const git = (cwd: string, args: string[], extra: Record<string, string> = {}) =>
	execFileSync('git', args, { cwd, env: { ...env, ...extra }, encoding: 'utf8' });

void describe('git state for debriefs', () => {
	void it('works with the variables npm and terminals set (EDITOR, PAGER, GIT_DIR)', async (t) => {
		const dir = tempDir(t);
		git(dir, ['init', '-q', '-b', 'main']);
		const saved = { EDITOR: process.env['EDITOR'], PAGER: process.env['PAGER'], GIT_DIR: process.env['GIT_DIR'] };
		Object.assign(process.env, { EDITOR: 'vi', PAGER: 'less', GIT_DIR: '/nonexistent/.git' });
		t.after(() => {
			for (const [key, value] of Object.entries(saved)) {
				if (value === undefined) delete process.env[key];
				else process.env[key] = value;
			}
		});
		assert.equal((await createGitStateReader(dir).read(null))?.branch, 'main');
	});

	void it('is null outside a repository and has no head before the first commit', async (t) => {
		const dir = tempDir(t);
		assert.equal(await createGitStateReader(dir).read(null), null);
		git(dir, ['init', '-q', '-b', 'trunk']);
		fs.writeFileSync(path.join(dir, 'f'), 'x');
		assert.deepEqual(await createGitStateReader(dir).read(null), { branch: 'trunk', head: null, commitCount: 0, uncommittedChanges: 1 });
	});

	void it('counts commits made since the session started, including one in the same second', async (t) => {
		const dir = tempDir(t);
		git(dir, ['init', '-q', '-b', 'main']);
		fs.writeFileSync(path.join(dir, 'f'), '1');
		git(dir, ['add', '.']);
		git(dir, ['commit', '-qm', 'before'], { GIT_COMMITTER_DATE: '@1767261000 +0000', GIT_AUTHOR_DATE: '@1767261000 +0000' });
		fs.writeFileSync(path.join(dir, 'f'), '2');
		git(dir, ['commit', '-qam', 'same second'], { GIT_COMMITTER_DATE: '@1767261600 +0000', GIT_AUTHOR_DATE: '@1767261600 +0000' });
		const started = new Date(1767261600 * 1000 + 700).toISOString(); // 0.7 s into the commit's second
		const state = await createGitStateReader(dir).read(started);
		assert.equal(state?.commitCount, 1);
		assert.equal(state?.head, git(dir, ['rev-parse', 'HEAD']).trim());
	});

	void it('never writes to the repository, even when plain `git status` would refresh the index', async (t) => {
		const dir = tempDir(t);
		git(dir, ['init', '-q']);
		fs.writeFileSync(path.join(dir, 'f'), 'x');
		git(dir, ['add', '.']);
		git(dir, ['commit', '-qm', 'c']);
		// Touch the file without changing it: the index's stat data is now stale.
		const later = new Date(Date.now() + 5_000);
		fs.utimesSync(path.join(dir, 'f'), later, later);
		const before = snapshotFiles(path.join(dir, '.git'));
		assert.equal((await createGitStateReader(dir).read(null))?.uncommittedChanges, 0);
		assert.deepEqual(snapshotFiles(path.join(dir, '.git')), before);
	});
});
