/**
 * The git state of the user's repository around a checkpoint (branch, HEAD, changed and untracked
 * counts), read with `git status` only when something it reports may have changed. What it reports
 * depends on HEAD, the branch ref, the index and the work tree; the first three are a few stats,
 * the work tree is vouched for by the file watcher's change count (in the backend) and by the
 * checkpoint's own snapshot (its tree and skipped files, in any process). Both are remembered with
 * the answer, in memory and in the environment cache file, so neither the backend nor the next CLI
 * process runs `git status` over an unchanged repository.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { EnvironmentCache, GitState } from './environmentCache';
import { readUserRepoStatus } from '../git/userRepoState';
import type { SnapshotResult } from '../shadow/shadowSnapshot';

/** What vouches for the work tree since the last capture; without either, `git status` runs every time. */
export interface WorkspaceState {
	/** The file watcher's instance and change count, known at once; undefined without a watcher. */
	watched?: string | undefined;
	/** The snapshot this capture belongs to (its tree and skipped files), once taken; undefined when there is none. */
	snapshot?: Promise<string | undefined> | undefined;
}

interface GitStateOptions {
	workspaceRoot: string;
	gitEnv: NodeJS.ProcessEnv;
	workspaceState: WorkspaceState | undefined;
	cache: EnvironmentCache;
	/** When the read must be done by; a read that had to wait for the snapshot gets `timeoutMs` from then. */
	deadline: number;
	timeoutMs: number;
}

export async function cachedGitState(options: GitStateOptions): Promise<GitState | null> {
	const { workspaceRoot: root, workspaceState: state, cache } = options;
	const repo = repoStamp(root);
	if (repo === undefined || !state || (state.watched === undefined && !state.snapshot)) {
		return readUserRepoStatus(root, options.gitEnv, options.deadline);
	}
	const known = `${repo}|${state.watched ?? '-'}|`;
	const fingerprint = async (): Promise<string | undefined> => {
		const snapshot = state.snapshot ? await state.snapshot : undefined;
		return snapshot === undefined && state.watched === undefined ? undefined : `${known}${snapshot ?? '-'}`;
	};
	cache.refresh();
	const prior = cache.gitFingerprint(root);
	if (prior?.startsWith(known)) {
		// HEAD, the refs, the index and the watcher agree: the snapshot decides.
		const full = await fingerprint();
		const hit = full === undefined ? undefined : cache.git(root, full);
		if (hit) return hit.state;
		const read = await readUserRepoStatus(root, options.gitEnv, Math.max(options.deadline, Date.now() + options.timeoutMs));
		if (full !== undefined) cache.setGit(root, full, read);
		return read;
	}
	// Something it reports already moved: read now, beside the snapshot, and key the answer once it is known.
	const read = await readUserRepoStatus(root, options.gitEnv, options.deadline);
	const full = await fingerprint();
	if (full !== undefined) cache.setGit(root, full, read);
	return read;
}

/**
 * Stat data of what `git status` depends on besides the work tree (and the workspace folder itself,
 * where a new top-level folder the snapshot excludes shows); undefined when unsure (no caching).
 */
function repoStamp(root: string): string | undefined {
	const gitDir = path.join(root, '.git');
	try {
		if (!fs.statSync(gitDir).isDirectory()) return undefined; // A linked worktree or submodule: read each time.
		const head = fs.readFileSync(path.join(gitDir, 'HEAD'), 'utf8').trim();
		const ref = /^ref: (refs\/[^\s]+)$/.exec(head)?.[1];
		const stamp = (file: string): string => {
			try {
				const st = fs.statSync(file);
				return `${st.size}:${st.mtimeMs}:${st.ino}`;
			} catch {
				return '-';
			}
		};
		return [
			head,
			stamp(path.join(gitDir, 'index')),
			ref ? stamp(path.join(gitDir, ref)) : '',
			stamp(path.join(gitDir, 'packed-refs')),
			stamp(path.join(gitDir, 'info/exclude')),
			stamp(root),
		].join('|');
	} catch {
		return undefined;
	}
}

/**
 * What the user's `git status` can depend on that a snapshot shows: its tree, and the files it
 * skipped (too large to store) by size and mtime.
 */
export function snapshotKey(root: string, snapshot: SnapshotResult): string {
	const skipped = snapshot.skipped.slice(0, 1_000).map((s) => {
		try {
			const st = fs.statSync(path.join(root, s.path));
			return `${s.path}:${st.size}:${st.mtimeMs}`;
		} catch {
			return `${s.path}:-`;
		}
	});
	return `${snapshot.tree}${snapshot.skipped.length > 1_000 ? `:${snapshot.skipped.length}` : ''}${skipped.length ? `:${createHash('sha256').update(skipped.join('\0')).digest('hex')}` : ''}`;
}
