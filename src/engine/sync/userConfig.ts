/**
 * The user's git config as a sync needs it, read once and kept while the files it came from are
 * unchanged. Every push and pull needs the remote's URL and the user's credential and http settings
 * (remoteGit.ts); in a long-running process (the workspace daemon, the editor's backend) reading them
 * again for each sync is a git process on every push: about a third of a push's own cost beyond
 * plain git's. The config is a function of its files, so it is kept with a fingerprint of every file
 * git could read it from (the system, global and repository files, the repository's HEAD for
 * `includeIf onbranch:`, every file an entry came from and every `include.path` / `includeIf.*.path`
 * target, present or not) and of the variables that move them (HOME, XDG_CONFIG_HOME). The files
 * known before a read are stamped before it, so a change made while git reads shows next time; a file
 * first named by the read (a new include) is stamped after it, and a read is not kept when such a file
 * changed in the two seconds before it (git's own "racy" rule for its index).
 */
import fs from 'node:fs';
import path from 'node:path';
import { BatonError } from '../errors';
import { hostEnv, userEnv } from '../git/gitEnv';
import { runGit } from '../git/gitRunner';
import { findGitDirs } from '../workspace';

export type ConfigEntry = [key: string, value: string | null];

/** A file written this recently may have changed after git read it (timestamps are coarse on some file systems). */
const racyMs = 2000;

interface Kept {
	files: string[];
	fingerprint: string;
	entries: ConfigEntry[];
}

const kept = new Map<string, Kept>();
let reads = 0;
let systemFile: Promise<string | null> | undefined;

/** How many times the config was read from git in this process (for tests). */
export function userConfigReads(): number {
	return reads;
}

function fileStamp(file: string): { text: string; changedAt: number } {
	try {
		const s = fs.statSync(file);
		return { text: `${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}`, changedAt: Math.max(s.mtimeMs, s.ctimeMs) };
	} catch {
		return { text: '-', changedAt: 0 };
	}
}

/** The variables that move the global files, then each file's stamp, in the files' order. */
function fingerprint(files: readonly string[], stamps: ReadonlyMap<string, string>): string {
	return [`HOME=${process.env['HOME'] ?? ''}`, `XDG=${process.env['XDG_CONFIG_HOME'] ?? ''}`, ...files.map((f) => `${f}=${stamps.get(f) ?? '-'}`)].join('\n');
}

function stampAll(files: readonly string[]): Map<string, string> {
	return new Map(files.map((f) => [f, fileStamp(f).text]));
}

/**
 * Where a git installed under the prefix that `git --exec-path` names keeps its system config, by
 * git's own default (`sysconfdir`: /etc for the /usr prefix, else `<prefix>/etc`); null when the exec
 * path is not under a `lib*` or `libexec` folder.
 */
export function systemConfigFromExecPath(execPath: string): string | null {
	const prefix = /^(.*)\/(?:lib|lib64|libexec)\/git-core\/?$/.exec(execPath.trim())?.[1];
	if (prefix === undefined) {
		return null;
	}
	return prefix === '/usr' ? '/etc/gitconfig' : path.join(prefix || '/', 'etc', 'gitconfig');
}

/**
 * The system config's path as this git names it (its prefix decides), asked once per process: the
 * origin of its first entry, or the file git says it cannot read; a file that exists with no entry
 * names itself nowhere, so then git's default for its prefix (it must be stamped all the same: an
 * entry added to it later has to be seen).
 */
async function systemConfigFile(repo: string): Promise<string | null> {
	systemFile ??= runGit(['config', '--system', '--show-origin', '--list'], { cwd: repo, env: hostEnv(), timeoutMs: 10_000, okCodes: [1, 128] })
		.then(async (result) => {
			const text = `${result.stdout.toString('utf8')}\n${result.stderr}`;
			const named = /^file:([^\t\n]+)\t/m.exec(text)?.[1] ?? /unable to read config file '([^']+)'/.exec(text)?.[1];
			if (named) {
				return named;
			}
			const execPath = await runGit(['--exec-path'], { cwd: repo, env: hostEnv(), timeoutMs: 10_000 });
			return systemConfigFromExecPath(execPath.stdout.toString('utf8'));
		})
		.catch(() => null);
	return systemFile;
}

function expandHome(file: string): string {
	return file.startsWith('~/') ? path.join(process.env['HOME'] ?? '', file.slice(2)) : file;
}

/** The files git reads the config from before any include: system, global, the repository's. */
function baseFiles(dirs: readonly string[], system: string | null): string[] {
	const home = process.env['HOME'] ?? '';
	const xdg = process.env['XDG_CONFIG_HOME'] || path.join(home, '.config');
	const files = [...(system ? [system] : []), path.join(xdg, 'git', 'config'), path.join(home, '.gitconfig')];
	for (const dir of dirs) {
		for (const name of ['config', 'config.worktree', 'HEAD']) {
			files.push(path.join(dir, name));
		}
	}
	return files;
}

/** Every file the config could come from, for these entries: the base files, their origins and their includes. */
function configFiles(repo: string, base: readonly string[], origins: ReadonlySet<string>, entries: readonly (ConfigEntry & { origin: string })[]): string[] {
	const files = new Set<string>(base);
	for (const origin of origins) {
		files.add(path.resolve(repo, origin));
	}
	for (const entry of entries) {
		const [key, value] = entry;
		if (value && /^include(if\..*)?\.path$/.test(key)) {
			files.add(path.resolve(path.dirname(path.resolve(repo, entry.origin)), expandHome(value)));
		}
	}
	return [...files].sort();
}

async function readConfig(repo: string): Promise<{ entries: (ConfigEntry & { origin: string })[]; origins: Set<string> }> {
	reads += 1;
	const result = await runGit(['-C', repo, 'config', '-z', '--show-origin', '--list'], {
		cwd: repo,
		env: hostEnv({ ...userEnv(), GIT_OPTIONAL_LOCKS: '0' }),
		timeoutMs: 10_000,
	}).catch((error: unknown) => {
		throw new BatonError('invalidInput', `could not read the git config of ${repo}: ${(error as Error).message}`);
	});
	const items = result.stdout.toString('utf8').split('\0');
	const entries: (ConfigEntry & { origin: string })[] = [];
	const origins = new Set<string>();
	// `origin\0key\nvalue\0`, or `origin\0key\0` for a key without a value (a boolean true).
	for (let i = 0; i + 1 < items.length; i += 2) {
		const origin = items[i] as string;
		const item = items[i + 1] as string;
		const file = origin.startsWith('file:') ? origin.slice('file:'.length) : null;
		if (file) {
			origins.add(file);
		}
		const eol = item.indexOf('\n');
		const entry = (eol < 0 ? [item, null] : [item.slice(0, eol), item.slice(eol + 1)]) as ConfigEntry & { origin: string };
		entry.origin = file ?? '';
		entries.push(entry);
	}
	return { entries, origins };
}

/**
 * The user's config entries whose keys match `wanted`, in git's order (system, global, repository,
 * includes where they stand), as `git config --list` reads them in the user's repository.
 */
export async function userConfigEntries(repo: string, wanted: RegExp): Promise<ConfigEntry[]> {
	const key = path.resolve(repo);
	const known = kept.get(key);
	if (known && fingerprint(known.files, stampAll(known.files)) === known.fingerprint) {
		return known.entries.filter(([k]) => wanted.test(k));
	}
	kept.delete(key);
	const found = findGitDirs(repo);
	const dirs = found ? [...new Set([found.gitDir, found.commonDir])] : null;
	// Stamped before the read: a file that changes while git reads it differs from its stamp next time.
	const before = dirs ? [...new Set([...baseFiles(dirs, await systemConfigFile(repo)), ...(known?.files ?? [])])] : [];
	const stamps = stampAll(before);
	const startedAt = Date.now();
	const read = await readConfig(repo);
	const entries: ConfigEntry[] = read.entries.map(([k, v]) => [k, v]);
	if (dirs) {
		const files = configFiles(repo, before, read.origins, read.entries).sort();
		// A file first named by this read (an include) is stamped after it: kept only when it had settled before.
		let racy = false;
		for (const file of files.filter((f) => !stamps.has(f))) {
			const stamp = fileStamp(file);
			stamps.set(file, stamp.text);
			racy ||= stamp.changedAt >= startedAt - racyMs;
		}
		if (!racy) {
			kept.set(key, { files, fingerprint: fingerprint(files, stamps), entries });
		}
	}
	return entries.filter(([k]) => wanted.test(k));
}
