/**
 * The remote's URL and credential settings come from one read of the user's config: checked here
 * against git's own answers (`git remote get-url --push`, `git credential fill` in the user's
 * repository) for pushurl, insteadOf, pushInsteadOf, URL-specific helpers and a legacy remotes file.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import test from 'node:test';
import { remoteTransport, remoteUrl } from '../../../../src/engine/sync/remoteGit';
import { systemConfigFromExecPath, userConfigReads } from '../../../../src/engine/sync/userConfig';
import { tempDir } from '../../helpers';
import { git } from './syncWorld';

test('the URL read from the config is the one `git remote get-url --push` gives', async (t) => {
	const repo = tempDir(t, 'baton-transport-');
	git(repo, ['init', '-q']);
	const set = (key: string, value: string): void => {
		git(repo, ['config', '--add', key, value]);
	};
	set('remote.plain.url', 'file:///srv/plain.git');
	set('remote.Mixed.Case.url', 'https://example.com/mixed.git');
	set('remote.two.url', 'https://example.com/first.git');
	set('remote.two.url', 'https://example.com/second.git');
	set('remote.withpush.url', 'https://example.com/fetch.git');
	set('remote.withpush.pushurl', 'gh:owner/push.git');
	set('remote.rewritten.url', 'gh:owner/repo.git');
	set('remote.pushrewritten.url', 'https://mirror.example.com/owner/repo.git');
	set('remote.both.url', 'gh:owner/both.git');
	set('url.https://github.com/.insteadOf', 'gh:');
	set('url.https://github.com/owner-long/.insteadOf', 'gh:owner');
	set('url.ssh://git@example.com/.pushInsteadOf', 'https://mirror.example.com/');
	set('url.ssh://git@github.com/.pushInsteadOf', 'gh:');
	fs.mkdirSync(path.join(repo, '.git', 'remotes'), { recursive: true });
	fs.writeFileSync(path.join(repo, '.git', 'remotes', 'legacy'), 'URL: file:///srv/legacy.git\nPush: refs/heads/main\n');
	for (const name of ['plain', 'Mixed.Case', 'two', 'withpush', 'rewritten', 'pushrewritten', 'both', 'legacy']) {
		const { url } = await remoteTransport(repo, name);
		assert.equal(url, await remoteUrl(repo, name), name);
	}
	await assert.rejects(remoteTransport(repo, 'missing'), /no remote "missing"/);
	await assert.rejects(remoteTransport(repo, '--upload-pack=x'), /not a remote name/);
});

test('the credential helpers git runs for a URL through Baton’s arguments are the ones it runs in the user’s repository', async (t) => {
	const repo = tempDir(t, 'baton-transport-');
	const isolated = tempDir(t, 'baton-transport-empty-');
	git(repo, ['init', '-q']);
	git(isolated, ['init', '-q']);
	const helper = (answer: string): string => {
		const file = path.join(repo, `helper-${answer}.sh`);
		fs.writeFileSync(file, `#!/bin/sh\n[ "$1" = get ] && echo username=user-${answer}; [ "$1" = get ] && echo password=${answer}\nexit 0\n`, {
			mode: 0o755,
		});
		return file;
	};
	git(repo, ['config', 'remote.origin.url', 'https://git.example.com/team/repo.git']);
	git(repo, ['config', '--add', 'credential.helper', helper('generic')]);
	git(repo, ['config', '--add', 'credential.https://git.example.com.helper', '']);
	git(repo, ['config', '--add', 'credential.https://git.example.com.helper', helper('specific')]);
	git(repo, ['config', 'credential.https://other.example.com.helper', helper('other')]);
	git(repo, ['config', 'credential.https://git.example.com.username', 'alice']);
	git(repo, ['config', 'http.https://git.example.com.sslVerify', 'false']);
	const { url, config } = await remoteTransport(repo, 'origin');
	const fill = (cwd: string, target: string, args: readonly string[]): string =>
		execFileSync('git', [...args, 'credential', 'fill'], {
			cwd,
			input: `url=${target}\n\n`,
			encoding: 'utf8',
			env: {
				PATH: process.env['PATH'],
				HOME: isolated,
				GIT_CONFIG_NOSYSTEM: '1',
				GIT_CONFIG_GLOBAL: path.join(isolated, 'none'),
				GIT_TERMINAL_PROMPT: '0',
			},
		});
	for (const target of [url, 'https://other.example.com/x.git', 'https://third.example.com/y.git']) {
		const ours = fill(isolated, target, config);
		assert.equal(ours, fill(repo, target, []), target);
	}
	assert.match(fill(isolated, url, config), /password=specific/);
	assert.match(fill(isolated, 'https://third.example.com/y.git', config), /password=generic/);
	const sslVerify = execFileSync('git', [...config, 'config', '--get-urlmatch', 'http.sslVerify', url], {
		cwd: isolated,
		encoding: 'utf8',
		env: { PATH: process.env['PATH'], HOME: isolated, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: path.join(isolated, 'none') },
	}).trim();
	assert.equal(sslVerify, 'false');
});

test('the config is read once while its files are unchanged, and again when any file it comes from changes', async (t) => {
	const repo = tempDir(t, 'baton-transport-');
	const home = tempDir(t, 'baton-transport-home-');
	const saved = { HOME: process.env['HOME'], XDG_CONFIG_HOME: process.env['XDG_CONFIG_HOME'] };
	process.env['HOME'] = home;
	delete process.env['XDG_CONFIG_HOME'];
	t.after(() => {
		for (const [key, value] of Object.entries(saved)) {
			if (value === undefined) delete process.env[key];
			else process.env[key] = value;
		}
	});
	git(repo, ['init', '-q']);
	const included = path.join(home, 'team.gitconfig');
	git(repo, ['config', 'remote.origin.url', 'gh:team/repo.git']);
	git(repo, ['config', 'include.path', '../team.gitconfig'.replace('..', path.relative(path.join(repo, '.git'), home))]);
	fs.writeFileSync(path.join(home, '.gitconfig'), '[url "https://github.com/"]\n\tinsteadOf = gh:\n');
	const read = async (): Promise<{ url: string; reads: number }> => {
		const before = userConfigReads();
		const { url } = await remoteTransport(repo, 'origin');
		assert.equal(url, await remoteUrl(repo, 'origin'), 'as git gives it');
		return { url, reads: userConfigReads() - before };
	};
	assert.deepEqual(await read(), { url: 'https://github.com/team/repo.git', reads: 1 });
	assert.deepEqual(await read(), { url: 'https://github.com/team/repo.git', reads: 0 }, 'unchanged: not read again');

	// The global file changes.
	fs.writeFileSync(path.join(home, '.gitconfig'), '[url "ssh://git@github.com/"]\n\tinsteadOf = gh:\n');
	assert.deepEqual(await read(), { url: 'ssh://git@github.com/team/repo.git', reads: 1 });
	// An included file that did not exist when the config was read appears.
	fs.writeFileSync(included, '[remote "origin"]\n\tpushurl = https://push.example.com/team/repo.git\n');
	assert.deepEqual(await read(), { url: 'https://push.example.com/team/repo.git', reads: 1 });
	assert.equal((await read()).reads, 0);
	// The repository's own file changes (the included pushurl still comes first: it stands where the include is).
	git(repo, ['config', '--unset', 'include.path']);
	assert.deepEqual(await read(), { url: 'ssh://git@github.com/team/repo.git', reads: 1 });
	// The branch changes (`includeIf "onbranch:…"` depends on it).
	git(repo, ['config', 'includeIf.onbranch:release.path', included]);
	assert.equal((await read()).reads, 1);
	assert.equal((await read()).reads, 0);
	git(repo, ['checkout', '-q', '-b', 'release']);
	assert.deepEqual(await read(), { url: 'https://push.example.com/team/repo.git', reads: 1 });
	git(repo, ['config', '--unset', 'includeIf.onbranch:release.path']);
	// HOME moves: another global file.
	const otherHome = tempDir(t, 'baton-transport-home2-');
	process.env['HOME'] = otherHome;
	assert.deepEqual(await read(), { url: 'gh:team/repo.git', reads: 1 });
});

test('an empty system config (it names itself nowhere) is found where git keeps it for its prefix', () => {
	assert.equal(systemConfigFromExecPath('/usr/lib/git-core\n'), '/etc/gitconfig');
	assert.equal(systemConfigFromExecPath('/usr/local/libexec/git-core'), '/usr/local/etc/gitconfig');
	assert.equal(systemConfigFromExecPath('/opt/homebrew/Cellar/git/2.47.0/libexec/git-core'), '/opt/homebrew/Cellar/git/2.47.0/etc/gitconfig');
	assert.equal(systemConfigFromExecPath('/somewhere/else'), null);
	// This machine's git agrees with its own answer when its system file has entries or is missing.
	const execPath = execFileSync('git', ['--exec-path'], { encoding: 'utf8' });
	const named = (() => {
		try {
			return /^file:([^\t\n]+)\t/m.exec(
				execFileSync('git', ['config', '--system', '--show-origin', '--list'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }),
			)?.[1];
		} catch (error) {
			return /unable to read config file '([^']+)'/.exec(String((error as { stderr?: unknown }).stderr))?.[1];
		}
	})();
	if (named) {
		assert.equal(systemConfigFromExecPath(execPath), named);
	}
});
