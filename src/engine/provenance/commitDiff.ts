/**
 * What a commit changed, read from the user's repository without writing to it: the lines each file
 * gained (git's own diff against the first parent, the same one `git blame` uses), the commit's
 * patch id (stable across rebases and cherry-picks), and its dates.
 */
import type { RepoGit } from './repoGit';

export interface CommitInfo {
	commit: string;
	parents: string[];
	authorTime: number;
	committerTime: number;
}

export interface CommitChanges {
	/** Repository-relative path → added line numbers (1-based, ascending) in the commit's version. */
	added: Map<string, number[]>;
	patchId: Promise<string | null>;
}

export async function commitInfos(git: RepoGit, commits: readonly string[]): Promise<Map<string, CommitInfo>> {
	const map = new Map<string, CommitInfo>();
	if (commits.length === 0) {
		return map;
	}
	const out = await git.text(['log', '--no-walk=unsorted', '--format=%H %at %ct%x01%P', ...commits]);
	for (const line of out.split('\n')) {
		const [head, parents] = line.split('\u0001');
		const [commit, at, ct] = (head ?? '').split(' ');
		if (commit && at && ct) {
			map.set(commit, { commit, parents: (parents ?? '').split(' ').filter(Boolean), authorTime: Number(at), committerTime: Number(ct) });
		}
	}
	return map;
}

export async function commitChanges(git: RepoGit, info: CommitInfo): Promise<CommitChanges> {
	const base = info.parents[0];
	const args = ['diff-tree', '-p', '-U0', '--no-renames', '--no-color', '--no-ext-diff', '--no-textconv', '--diff-algorithm=myers', '-r', ...(base ? [base, info.commit] : ['--root', info.commit])];
	const patch = await git.run(args);
	const added = new Map<string, number[]>();
	let current: number[] | undefined;
	for (const line of patch.toString('utf8').split('\n')) {
		if (line.startsWith('+++ ')) {
			const target = line.slice(4);
			current = target === '/dev/null' ? undefined : [];
			if (current) {
				added.set(target.startsWith('b/') ? target.slice(2) : target, current);
			}
		} else if (line.startsWith('@@ ') && current) {
			const match = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@/.exec(line);
			if (match) {
				const start = Number(match[1]);
				const count = match[2] === undefined ? 1 : Number(match[2]);
				for (let i = 0; i < count; i++) {
					current.push(start + i);
				}
			}
		}
	}
	for (const [file, lines] of added) {
		if (lines.length === 0) {
			added.delete(file);
		}
	}
	return { added, patchId: patchIdOf(git, patch) };
}

/** Started at once and awaited by the caller with its other reads: one git process less to wait for in a row. */
async function patchIdOf(git: RepoGit, patch: Buffer): Promise<string | null> {
	if (patch.length === 0) {
		return null;
	}
	try {
		const id = (await git.text(['patch-id', '--stable'], patch.toString('utf8'))).trim().split(' ')[0];
		return id && /^[0-9a-f]{40,64}$/.test(id) ? id : null;
	} catch {
		// No patch id: the commit is still attributed, only not matched to a rebased twin by it.
		return null;
	}
}
