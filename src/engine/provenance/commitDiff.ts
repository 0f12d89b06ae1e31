/**
 * What commits changed, read from the user's repository without writing to it: the lines each file
 * gained (git's own diff against the first parent, the same one `git blame` uses), the blob id of
 * each changed file's new version, the commits' patch ids (stable across rebases and cherry-picks),
 * and their dates. Every commit asked about costs one `git log -p` for all of them and one
 * `git patch-id` for all of them, started together: a process is the expensive part of a small
 * commit's attribution.
 */
import { BatonError } from '../errors';
import type { RepoGit } from './repoGit';

interface CommitInfo {
	commit: string;
	parents: string[];
	authorTime: number;
	committerTime: number;
}

export interface CommitPatch extends CommitInfo {
	/** Repository-relative path → added line numbers (1-based, ascending) in the commit's version. */
	added: Map<string, number[]>;
	/** Repository-relative path → the blob id of the commit's version (from the patch's full index line). */
	blobs: Map<string, string>;
}

interface CommitPatches {
	/** In the order asked (a revision named twice is listed once). */
	commits: CommitPatch[];
	/** Commit → `git patch-id --stable` of its diff (absent for an empty diff); started at once, awaited with the caller's other reads. */
	patchIds: Promise<Map<string, string>>;
}

/**
 * The diffs are `-U0` with the myers algorithm, no renames and the default prefixes whatever the
 * user's configuration says: the patch ids recorded for earlier commits were made from this form.
 */
const diffOptions = [
	'-p',
	'-U0',
	'--full-index',
	'--no-renames',
	'--no-relative',
	'--no-color',
	'--no-ext-diff',
	'--no-textconv',
	'--diff-algorithm=myers',
	'--diff-merges=first-parent',
	'--src-prefix=a/',
	'--dst-prefix=b/',
];

/** `revs` are commit ids or revisions; an unknown one is a notFound error naming it. */
export async function readCommits(git: RepoGit, revs: readonly string[]): Promise<CommitPatches> {
	if (revs.length === 0) {
		return { commits: [], patchIds: Promise.resolve(new Map()) };
	}
	// `commit <id>` on a line of its own is what patch-id reads to name the patch it follows. patch-id
	// starts with the log and reads its output once it is complete: two processes side by side.
	const log = git.run([
		'-c',
		'log.showRoot=true',
		'log',
		'--no-walk=unsorted',
		...diffOptions,
		'--format=commit %H%n%x01%at %ct %P',
		'--end-of-options',
		...revs,
	]);
	const patchIds = patchIdsOf(git, log);
	let out: Buffer;
	try {
		out = await log;
	} catch (error) {
		throw await unknownRevision(git, revs, error as Error);
	}
	const commits = parseLog(out.toString('utf8'));
	return { commits, patchIds };
}

function parseLog(text: string): CommitPatch[] {
	const commits: CommitPatch[] = [];
	let commit: CommitPatch | undefined;
	let current: number[] | undefined;
	let blob: string | undefined;
	const lines = text.split('\n');
	for (let i = 0; i < lines.length; i++) {
		const line = lines[i]!;
		const header = /^commit ([0-9a-f]{40,64})$/.exec(line);
		if (header && lines[i + 1]?.startsWith('\u0001')) {
			const [at, ct, ...parents] = lines[i + 1]!.slice(1).split(' ');
			commit = {
				commit: header[1]!,
				parents: parents.filter(Boolean),
				authorTime: Number(at),
				committerTime: Number(ct),
				added: new Map(),
				blobs: new Map(),
			};
			commits.push(commit);
			current = undefined;
			blob = undefined;
			i++;
		} else if (!commit) {
			continue;
		} else if (line.startsWith('diff --git ')) {
			current = undefined;
			blob = undefined;
		} else if (line.startsWith('index ') && current === undefined) {
			blob = /^index [0-9a-f]+\.\.([0-9a-f]+)/.exec(line)?.[1];
		} else if (line.startsWith('+++ ')) {
			const target = line.slice(4);
			current = target === '/dev/null' ? undefined : [];
			if (current) {
				const file = target.startsWith('b/') ? target.slice(2) : target;
				commit.added.set(file, current);
				if (blob && !/^0+$/.test(blob)) {
					commit.blobs.set(file, blob);
				}
			}
		} else if (line.startsWith('@@ ') && current) {
			const match = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@/.exec(line);
			if (match) {
				const start = Number(match[1]);
				const count = match[2] === undefined ? 1 : Number(match[2]);
				for (let k = 0; k < count; k++) {
					current.push(start + k);
				}
			}
		}
	}
	for (const c of commits) {
		for (const [file, added] of c.added) {
			if (added.length === 0) {
				c.added.delete(file);
			}
		}
	}
	return commits;
}

/** `git log -p` output is what patch-id reads natively: one `<patch id> <commit>` line per commit with a diff. */
async function patchIdsOf(git: RepoGit, log: Promise<Buffer>): Promise<Map<string, string>> {
	const ids = new Map<string, string>();
	try {
		for (const line of (await git.textOf(['patch-id', '--stable'], log)).split('\n')) {
			const [id, commit] = line.trim().split(' ');
			if (id && commit && /^[0-9a-f]{40,64}$/.test(id)) {
				ids.set(commit, id);
			}
		}
	} catch {
		// No patch ids: the commits are still attributed, only not matched to rebased twins by them.
	}
	return ids;
}

/** The log failed: name the revision that is not a commit (checked one by one only now), else report git's error. */
async function unknownRevision(git: RepoGit, revs: readonly string[], error: Error): Promise<Error> {
	for (const rev of revs) {
		try {
			await git.text(['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`]);
		} catch {
			return new BatonError('notFound', `${rev} is not a commit of this repository`);
		}
	}
	return error;
}
