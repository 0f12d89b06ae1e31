/**
 * The workspace repository's branch and `origin` URL, read from the files under `.git` (HEAD and
 * config; worktrees and submodules through their `gitdir:` pointer and `commondir`). No git process
 * and no lock: cheap enough for a domain-event subscriber, and it never writes to the repository.
 */
import fs from 'node:fs';
import path from 'node:path';
import { findGitDirs } from '../workspace';

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
	const match = new RegExp(`^(?:(?:https?|ssh|git)://(?:[^@/]+@)?${h}(?::\\d+)?/|(?:[^@/]+@)?${h}:)([\\w.-]+)/([\\w.-]+?)(?:\\.git)?/?$`, 'i').exec(
		url.trim(),
	);
	return match?.[1] && match[2] ? { owner: match[1], repo: match[2] } : null;
}

function readText(file: string): string | null {
	try {
		return fs.readFileSync(file, 'utf8');
	} catch {
		return null;
	}
}
