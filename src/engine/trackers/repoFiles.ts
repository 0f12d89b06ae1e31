/**
 * The workspace repository's branch and `origin` URL, read from the files under `.git` (HEAD and
 * config; worktrees and submodules through their `gitdir:` pointer and `commondir`). No git process
 * and no lock: cheap enough for a domain-event subscriber, and it never writes to the repository.
 */
import fs from 'node:fs';
import path from 'node:path';

interface GitDirs {
	/** Per-worktree: HEAD lives here. */
	gitDir: string;
	/** Shared: config lives here. */
	commonDir: string;
}

function findGitDirs(start: string): GitDirs | null {
	let dir = path.resolve(start);
	for (;;) {
		const dotGit = path.join(dir, '.git');
		let stat: fs.Stats | undefined;
		try {
			stat = fs.statSync(dotGit);
		} catch {
			stat = undefined;
		}
		if (stat?.isDirectory()) {
			return { gitDir: dotGit, commonDir: dotGit };
		}
		if (stat?.isFile()) {
			const pointer = /^gitdir:\s*(.+)$/m.exec(readText(dotGit) ?? '')?.[1]?.trim();
			if (!pointer) {
				return null;
			}
			const gitDir = path.resolve(dir, pointer);
			const common = readText(path.join(gitDir, 'commondir'))?.trim();
			return { gitDir, commonDir: common ? path.resolve(gitDir, common) : gitDir };
		}
		const parent = path.dirname(dir);
		if (parent === dir) {
			return null;
		}
		dir = parent;
	}
}

/** The checked-out branch (`feature/123-x`), or null (no repository, detached head). */
export function currentBranch(workspaceRoot: string): string | null {
	const dirs = findGitDirs(workspaceRoot);
	const head = dirs ? readText(path.join(dirs.gitDir, 'HEAD')) : null;
	return /^ref:\s*refs\/heads\/(.+)$/m.exec(head ?? '')?.[1]?.trim() ?? null;
}

/** `remote.origin.url` from the repository's config, or null. */
export function originUrl(workspaceRoot: string): string | null {
	const dirs = findGitDirs(workspaceRoot);
	const config = dirs ? readText(path.join(dirs.commonDir, 'config')) : null;
	if (!config) {
		return null;
	}
	let inOrigin = false;
	for (const line of config.split(/\r?\n/)) {
		const section = /^\s*\[\s*([^\]\s]+)(?:\s+"([^"]*)")?\s*\]/.exec(line);
		if (section) {
			inOrigin = section[1]?.toLowerCase() === 'remote' && section[2] === 'origin';
			continue;
		}
		const url = inOrigin ? /^\s*url\s*=\s*(.+?)\s*$/i.exec(line)?.[1] : undefined;
		if (url) {
			return url.replace(/^"(.*)"$/, '$1');
		}
	}
	return null;
}

/** `owner/repo` of a GitHub remote (https, ssh or scp-like syntax) on `host`; null for any other remote. */
export function parseGithubRemote(url: string, host = 'github.com'): { owner: string; repo: string } | null {
	const h = host.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
	const match = new RegExp(`^(?:(?:https?|ssh|git)://(?:[^@/]+@)?${h}(?::\\d+)?/|(?:[^@/]+@)?${h}:)([\\w.-]+)/([\\w.-]+?)(?:\\.git)?/?$`, 'i').exec(url.trim());
	return match?.[1] && match[2] ? { owner: match[1], repo: match[2] } : null;
}

function readText(file: string): string | null {
	try {
		return fs.readFileSync(file, 'utf8');
	} catch {
		return null;
	}
}
