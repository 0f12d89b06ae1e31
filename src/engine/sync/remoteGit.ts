/**
 * Talking to a remote of the user's repository from Baton's own store. The remote's URL and the
 * user's credential and http settings for it are *read* from the user's repository (read-only git
 * calls, no optional locks); the fetch and push themselves run in Baton's store, whose own config
 * ignores the user's global config — so the settings that matter for that URL are passed explicitly
 * with `-c`. Baton stores no credential: git's own helpers answer.
 */
import { BatonError } from '../errors';
import { withoutUrlCredentials } from '../text/urlCredentials';
import { hostEnv, userEnv } from '../git/gitEnv';
import { runGit } from '../git/gitRunner';
import type { ShadowRepo } from '../shadow/shadowRepo';
import type { PushedRef } from './syncShapes';
import { userConfigEntries, type ConfigEntry } from './userConfig';

async function userGit(repo: string, args: readonly string[], okCodes: readonly number[] = []): Promise<{ text: string; code: number }> {
	const result = await runGit(['-C', repo, ...args], { cwd: repo, env: hostEnv({ ...userEnv(), GIT_OPTIONAL_LOCKS: '0' }), timeoutMs: 10_000, okCodes });
	return { text: result.stdout.toString('utf8').trim(), code: result.code };
}

function checkRemoteName(remote: string): void {
	if (!/^[A-Za-z0-9._/-]+$/.test(remote) || remote.startsWith('-')) {
		throw new BatonError('invalidInput', `"${remote}" is not a remote name`);
	}
}

/** The user's repository's remotes by name (`git remote`); none when the folder is no repository. */
export async function remoteNames(repo: string): Promise<string[]> {
	const result = await userGit(repo, ['remote'], [128]);
	return result.code === 0 ? result.text.split('\n').filter(Boolean) : [];
}

/** The URL of `remote` in the user's repository, as `git remote get-url --push` gives it (insteadOf applied). */
export async function remoteUrl(repo: string, remote: string): Promise<string> {
	checkRemoteName(remote);
	const result = await userGit(repo, ['remote', 'get-url', '--push', remote], [2, 128]).catch((error: unknown) => {
		throw new BatonError('invalidInput', `could not read the remotes of ${repo}: ${(error as Error).message}`);
	});
	if (result.code !== 0 || !result.text) {
		throw new BatonError('notFound', `the repository has no remote "${remote}" (git remote -v lists them)`);
	}
	return result.text;
}

/** git's `alias_url`: the longest matching `url.<base>.<kind>` prefix is replaced by its base. */
function rewriteUrl(url: string, entries: readonly ConfigEntry[], kind: 'insteadof' | 'pushinsteadof'): string | null {
	let best: { base: string; length: number } | null = null;
	for (const [key, value] of entries) {
		if (value === null || !key.startsWith('url.') || !key.endsWith(`.${kind}`)) {
			continue;
		}
		if (url.startsWith(value) && (best === null || value.length > best.length)) {
			best = { base: key.slice('url.'.length, key.length - kind.length - 1), length: value.length };
		}
	}
	return best ? best.base + url.slice(best.length) : null;
}

/**
 * `git remote get-url --push` from config entries: the first pushurl (insteadOf applied), else the
 * first url with pushInsteadOf applied when one matches, else with insteadOf. Null when the remote
 * has no url in the config (a legacy `.git/remotes` file, or no such remote).
 */
function pushUrlOf(remote: string, entries: readonly ConfigEntry[]): string | null {
	const values = (name: string): string[] =>
		entries.filter(([key, value]) => key === `remote.${remote}.${name}` && value !== null).map(([, value]) => value as string);
	const pushUrl = values('pushurl')[0];
	if (pushUrl !== undefined) {
		return rewriteUrl(pushUrl, entries, 'insteadof') ?? pushUrl;
	}
	const url = values('url')[0];
	if (url === undefined) {
		return null;
	}
	return rewriteUrl(url, entries, 'pushinsteadof') ?? rewriteUrl(url, entries, 'insteadof') ?? url;
}

/**
 * `-c` arguments carrying the user's credential, http and ssh settings: every `credential.*` and
 * `http.*` entry (URL-specific ones included) in the user's order, after a reset of the helper list.
 * git itself picks the entries that match the URL it talks to (its urlmatch rules), so only the
 * user's helpers for that URL run, in the user's order.
 */
function transportArgs(entries: readonly ConfigEntry[]): string[] {
	const args = ['-c', 'credential.helper='];
	let ssh: string | null = null;
	for (const [key, value] of entries) {
		if (key === 'core.sshcommand') {
			ssh = value;
		} else if ((key.startsWith('credential.') || key.startsWith('http.')) && !key.includes('=')) {
			// A key with '=' (a URL with a query) cannot be said with -c; such a section matches no remote git talks to anyway.
			args.push('-c', value === null ? key : `${key}=${value}`);
		}
	}
	if (ssh) {
		args.push('-c', `core.sshCommand=${ssh}`);
	}
	return args;
}

export interface RemoteTransport {
	url: string;
	config: string[];
}

/**
 * A remote's URL and the `-c` arguments for talking to it, from the user's config (read once and
 * kept while its files are unchanged, userConfig.ts; a remote defined outside the config, in a legacy
 * `.git/remotes` file, costs one more git call).
 */
export async function remoteTransport(repo: string, remote: string): Promise<RemoteTransport> {
	checkRemoteName(remote);
	const entries = await userConfigEntries(repo, /^(remote|url|credential|http)\.|^core\.sshcommand$/);
	const url = pushUrlOf(remote, entries) ?? (await remoteUrl(repo, remote));
	return { url, config: transportArgs(entries) };
}

/** Fetches every `refs/baton/*` of the remote into `refs/baton-remotes/<name>/*` of Baton's store. */
export async function fetchBatonRefs(shadow: ShadowRepo, url: string, name: string, config: readonly string[], timeoutMs: number): Promise<void> {
	await shadow
		.git([...config, 'fetch', '--quiet', '--no-tags', '--no-write-fetch-head', '--prune', url, `+refs/baton/*:refs/baton-remotes/${name}/*`], {
			env: userEnv(),
			timeoutMs,
		})
		.catch((error: unknown) => {
			throw refused('fetch from', name, error);
		});
}

export type { PushedRef } from './syncShapes';

/**
 * Pushes exactly these oids to exactly these refs and returns the refs the remote confirmed, each by
 * the oid `--porcelain` reports. A rejected ref is an error naming it. The refs are this machine's
 * own, which no one else writes: a remote copy that is not an ancestor of ours was written by
 * someone else (anyone who can push can add a commit on top of it), and a fast-forward-only push
 * would then be refused for ever, stopping this machine's sharing. So they are pushed forced (`+`),
 * putting this machine's history back; a remote that denies that says so, by name, as any refusal.
 */
export async function pushRefs(
	shadow: ShadowRepo,
	url: string,
	name: string,
	config: readonly string[],
	updates: readonly PushedRef[],
	timeoutMs: number,
): Promise<{ confirmed: PushedRef[]; rejected: { ref: string; reason: string }[]; remoteSaid: string }> {
	const refspecs = updates.map((u) => `+${u.oid}:${u.ref}`);
	let stdout: string;
	// What the remote's own hooks printed (`remote: …` lines): the clearest reason for a refusal.
	let remoteSaid: string;
	try {
		const result = await shadow.git([...config, 'push', '--porcelain', '--no-verify', url, ...refspecs], { env: userEnv(), timeoutMs, okCodes: [1] });
		stdout = result.stdout.toString('utf8');
		remoteSaid = result.stderr
			.split('\n')
			.filter((l) => l.startsWith('remote: ') && l.slice(8).trim())
			.map((l) => l.slice(8).trim())
			.slice(-3)
			.map(withoutUrlCredentials)
			.join(' / ');
		if (result.code !== 0 && !stdout.includes('\t')) {
			throw new BatonError('gitFailed', result.stderr.trim().split('\n').slice(-3).join(' / ') || 'git push failed');
		}
	} catch (error) {
		throw refused('push to', name, error);
	}
	const confirmed: PushedRef[] = [];
	const rejected: { ref: string; reason: string }[] = [];
	for (const line of stdout.split('\n')) {
		const match = /^([ +\-*=!])\t([^:]*):([^\t]+)\t(.*)$/.exec(line);
		if (!match) {
			continue;
		}
		const [, flag, from, to, summary] = match as unknown as [string, string, string, string, string];
		const update = updates.find((u) => u.ref === to);
		if (!update) {
			continue;
		}
		if (flag === '!' || flag === '-') {
			rejected.push({ ref: to, reason: summary });
		} else if (from === update.oid) {
			confirmed.push({ ref: to, oid: update.oid });
		}
	}
	return { confirmed, rejected, remoteSaid };
}

function refused(what: string, name: string, error: unknown): BatonError {
	const message = BatonError.is(error)
		? ((error.details as { stderr?: string } | undefined)?.stderr?.trim().split('\n').slice(-2).join(' / ') ?? error.message)
		: (error as Error).message;
	return new BatonError('gitFailed', withoutUrlCredentials(`could not ${what} remote "${name}": ${message || 'git gave no reason'}`), { remote: name });
}
