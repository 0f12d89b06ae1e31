/**
 * The `trackers` configuration block (non-secret values only, merged key by key over host
 * overrides) and the repository facts auto-linking reads from `.git` (branch, origin).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { resolveConfig } from '../../../../src/engine/config';
import { mergeConfig } from '../../../../src/engine/engine';
import { BatonError } from '../../../../src/engine/errors';
import { currentBranch, originUrl, parseGithubRemote } from '../../../../src/engine/trackers/repoFiles';
import { userGit } from '../checkpoints/gitFixtures';
import { tempDir } from '../../helpers';

void describe('trackers configuration', () => {
	void it('defaults to nothing enabled and every opt-in off', () => {
		const { trackers } = resolveConfig({}, 'test');
		assert.deepEqual(trackers.enabled, []);
		assert.equal(trackers.autoLink, true);
		assert.deepEqual([trackers.closeOnApprovedComplete, trackers.openOnError, trackers.openOnEscalation], [false, false, false]);
		assert.deepEqual(trackers.commentOn, ['manual', 'complete', 'error']);
		assert.equal(trackers.github.apiUrl, 'https://api.github.com');
		assert.equal(trackers.linear.apiUrl, 'https://api.linear.app/graphql');
		assert.equal(trackers.beads.path, '.beads/issues.jsonl');
		assert.equal(trackers.timeout, 10_000);
	});

	void it('refuses unknown keys (a token pasted into the file) and bad values, naming the field', () => {
		const refuse = (input: unknown, field: RegExp) =>
			assert.throws(
				() => resolveConfig(input, '.baton/config.json'),
				(e: unknown) => BatonError.is(e, 'configInvalid') && field.test((e as Error).message),
			);
		refuse({ trackers: { github: { token: 'ghp_x' } } }, /trackers\.github\.token: secrets never go in configuration or settings; store github\.token/);
		refuse({ trackers: { github: { pat: 'ghp_x' } } }, /trackers\.github: Unrecognized key: "pat"/);
		refuse({ trackers: { enabled: ['jira'] } }, /trackers\.enabled\.0/);
		refuse({ trackers: { github: { apiUrl: 'ftp://x' } } }, /trackers\.github\.apiUrl/);
		refuse({ trackers: { linear: { teamKey: 'eng' } } }, /trackers\.linear\.teamKey/);
		refuse({ trackers: { timeout: 'soon' } }, /trackers\.timeout/);
	});

	void it('host overrides merge key by key with the file', () => {
		const merged = mergeConfig(
			{ trackers: { enabled: ['github'], github: { owner: 'acme', repo: 'shop' }, linear: { teamKey: 'ENG' } } },
			{ trackers: { github: { apiUrl: 'http://127.0.0.1:1' }, openOnError: true } },
		);
		const { trackers } = resolveConfig(merged, 'test');
		assert.deepEqual(trackers.enabled, ['github']);
		assert.deepEqual([trackers.github.owner, trackers.github.repo, trackers.github.apiUrl], ['acme', 'shop', 'http://127.0.0.1:1']);
		assert.equal(trackers.linear.teamKey, 'ENG');
		assert.equal(trackers.openOnError, true);
	});
});

void describe('repository facts from .git', () => {
	void it('parses GitHub remotes in every syntax, and no other host', () => {
		for (const url of [
			'git@github.com:acme/shop.git',
			'https://github.com/acme/shop',
			'https://user@github.com/acme/shop.git/',
			'ssh://git@github.com:22/acme/shop.git',
			'git://github.com/acme/shop.git',
		]) {
			assert.deepEqual(parseGithubRemote(url), { owner: 'acme', repo: 'shop' }, url);
		}
		assert.deepEqual(parseGithubRemote('git@git.corp.test:team/app.git', 'git.corp.test'), { owner: 'team', repo: 'app' });
		assert.equal(parseGithubRemote('git@gitlab.com:acme/shop.git'), null);
		assert.equal(parseGithubRemote('https://github.com.evil.test/acme/shop'), null);
	});

	void it('reads the branch and origin of a repository, a worktree and a subfolder, without git', (t) => {
		const root = tempDir(t);
		const repo = path.join(root, 'repo');
		fs.mkdirSync(repo);
		userGit(repo, 'init', '-q', '-b', 'feature/123-x');
		userGit(repo, 'remote', 'add', 'origin', 'git@github.com:acme/shop.git');
		fs.writeFileSync(path.join(repo, 'a.txt'), 'a');
		userGit(repo, 'add', 'a.txt');
		userGit(repo, 'commit', '-q', '-m', 'a');
		fs.mkdirSync(path.join(repo, 'packages', 'app'), { recursive: true });
		assert.equal(currentBranch(path.join(repo, 'packages', 'app')), 'feature/123-x');
		assert.equal(originUrl(repo), 'git@github.com:acme/shop.git');

		const worktree = path.join(root, 'wt');
		userGit(repo, 'worktree', 'add', '-q', '-b', 'ENG-9-login', worktree);
		assert.equal(currentBranch(worktree), 'ENG-9-login');
		assert.equal(originUrl(worktree), 'git@github.com:acme/shop.git', 'config from the common dir');

		userGit(repo, 'checkout', '-q', '--detach');
		assert.equal(currentBranch(repo), null, 'a detached head has no branch');
		assert.equal(currentBranch(root), null);
		assert.equal(originUrl(root), null);
	});
});
