/**
 * Talking to a remote of the user's repository from Baton's own store. The remote's URL and the
 * user's credential and http settings for it are *read* from the user's repository (read-only git
 * calls, no optional locks); the fetch and push themselves run in Baton's store, whose own config
 * ignores the user's global config — so the settings that matter for that URL are passed explicitly
 * with `-c`. Baton stores no credential: git's own helpers answer.
 */
import { BatonError } from '../errors';
import { hostEnv, runGit } from '../checkpoints/gitProcess';
import type { ShadowRepo } from '../checkpoints/shadowRepo';

/** What a credential helper or ssh needs from the host beyond hostEnv's minimum. */
function userEnv(): Record<string, string> {
	const env: Record<string, string> = {};
	for (const key of ['HOME', 'USERPROFILE', 'XDG_CONFIG_HOME', 'SSH_AUTH_SOCK', 'GIT_ASKPASS', 'SSH_ASKPASS', 'DISPLAY']) {
		const value = process.env[key];
		if (value !== undefined) {
			env[key] = value;
		}
	}
	return env;
}

async function userGit(repo: string, args: readonly string[], okCodes: readonly number[] = []): Promise<{ text: string; code: number }> {
	const result = await runGit(['-C', repo, ...args], { cwd: repo, env: hostEnv({ ...userEnv(), GIT_OPTIONAL_LOCKS: '0' }), timeoutMs: 10_000, okCodes });
	return { text: result.stdout.toString('utf8').trim(), code: result.code };
}

/** The URL of `remote` in the user's repository (insteadOf applied, as the user's git would). */
export async function remoteUrl(repo: string, remote: string): Promise<string> {
	if (!/^[A-Za-z0-9._/-]+$/.test(remote) || remote.startsWith('-')) {
		throw new BatonError('invalidInput', `"${remote}" is not a remote name`);
	}
	const result = await userGit(repo, ['remote', 'get-url', '--push', remote], [2, 128]).catch((error: unknown) => {
		throw new BatonError('invalidInput', `could not read the remotes of ${repo}: ${(error as Error).message}`);
	});
	if (result.code !== 0 || !result.text) {
		throw new BatonError('notFound', `the repository has no remote "${remote}" (git remote -v lists them)`);
	}
	return result.text;
}

/**
 * `-c` arguments carrying the user's credential, http and ssh settings for `url`: the helpers of
 * the generic `credential.helper` list and of the most specific `credential.<url>` section, and the
 * most specific `http.<url>.*` values.
 */
export async function transportConfig(repo: string, url: string): Promise<string[]> {
	const args: string[] = [];
	const lines = async (args: string[]): Promise<string[]> => (await userGit(repo, ['config', ...args], [1])).text.split('\n').filter(Boolean);
	const [helpers, matched, http, sshLines] = await Promise.all([lines(['--get-all', 'credential.helper']), lines(['--get-urlmatch', 'credential', url]), lines(['--get-urlmatch', 'http', url]), lines(['--get', 'core.sshCommand'])]);
	const ssh = sshLines[0];
	const specificHelper = matched.find((line) => line.startsWith('credential.helper '))?.slice('credential.helper '.length);
	if (specificHelper !== undefined && !helpers.includes(specificHelper)) {
		helpers.push(specificHelper);
	}
	// An empty value resets the list, so only the user's helpers run, in the user's order.
	args.push('-c', 'credential.helper=');
	for (const helper of helpers) {
		args.push('-c', `credential.helper=${helper}`);
	}
	for (const line of [...matched.filter((l) => !l.startsWith('credential.helper ')), ...http]) {
		const space = line.indexOf(' ');
		if (space > 0) {
			args.push('-c', `${line.slice(0, space)}=${line.slice(space + 1)}`);
		}
	}
	if (ssh) {
		args.push('-c', `core.sshCommand=${ssh}`);
	}
	return args;
}

export interface RemoteTransport {
	url: Promise<string>;
	config: Promise<string[]>;
}

/**
 * Starts reading a remote's URL and transport settings; the caller awaits them when it needs them
 * (each promise rejects as `remoteUrl`/`transportConfig` would, and is marked handled meanwhile).
 */
export function remoteTransport(repo: string, remote: string): RemoteTransport {
	const url = remoteUrl(repo, remote);
	const config = url.then((u) => transportConfig(repo, u));
	url.catch(() => undefined);
	config.catch(() => undefined);
	return { url, config };
}

/** Fetches every `refs/baton/*` of the remote into `refs/baton-remotes/<name>/*` of Baton's store. */
export async function fetchBatonRefs(shadow: ShadowRepo, url: string, name: string, config: readonly string[], timeoutMs: number): Promise<void> {
	await shadow.git([...config, 'fetch', '--quiet', '--no-tags', '--no-write-fetch-head', '--prune', url, `+refs/baton/*:refs/baton-remotes/${name}/*`], { env: userEnv(), timeoutMs }).catch((error: unknown) => {
		throw refused('fetch from', name, error);
	});
}

export interface PushedRef {
	ref: string;
	oid: string;
}

/**
 * Pushes exactly these oids to exactly these refs (fast-forward only) and returns the refs the
 * remote confirmed, each by the oid `--porcelain` reports. A rejected ref is an error naming it.
 */
export async function pushRefs(
	shadow: ShadowRepo,
	url: string,
	name: string,
	config: readonly string[],
	updates: readonly PushedRef[],
	timeoutMs: number,
): Promise<{ confirmed: PushedRef[]; rejected: { ref: string; reason: string }[]; remoteSaid: string }> {
	const refspecs = updates.map((u) => `${u.oid}:${u.ref}`);
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
	const message = BatonError.is(error) ? ((error.details as { stderr?: string } | undefined)?.stderr?.trim().split('\n').slice(-2).join(' / ') ?? error.message) : (error as Error).message;
	return new BatonError('gitFailed', `could not ${what} remote "${name}": ${message || 'git gave no reason'}`, { remote: name });
}
