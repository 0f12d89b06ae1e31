/**
 * The one reader of the user's repository state (docs/architecture.md, "Git in one room"): branch, HEAD and the
 * changed and untracked counts from one `git status --porcelain=v2 --branch -z` that takes no
 * optional locks (the index is never rewritten), and the commits since a time. The checkpoint's
 * environment (environment/userGitState.ts, cached) and a session's debrief (sessions/gitState.ts)
 * both read it here.
 */
import fs from 'node:fs';
import path from 'node:path';
import { userRepoReadEnv } from './gitEnv';
import { GitTimeoutError, runGit, splitNul } from './gitRunner';

interface UserRepoStatus {
	branch: string | null;
	head: string | null;
	changedFiles: number;
	untrackedFiles: number;
}

/** Branch, head and dirty counts of the user's repository, read without taking optional locks. */
export async function readUserRepoStatus(root: string, env: NodeJS.ProcessEnv, deadline: number): Promise<UserRepoStatus | null> {
	if (!insideGitRepo(root)) return null;
	// Through runGit, so a backend starts it through its spawner (gitSpawner.ts).
	const out = (
		await runGit(['--no-optional-locks', 'status', '--porcelain=v2', '--branch', '-z'], {
			cwd: root,
			env,
			timeoutMs: Math.max(1, deadline - Date.now()),
		}).catch((error: Error) => {
			throw new Error(error instanceof GitTimeoutError ? 'timed out' : (error.message.split('\n')[0] ?? 'git status failed'));
		})
	).stdout;
	if (out.length === 0) {
		// `--branch` always prints a header: nothing at all is a timeout that fired after git exited (its output dropped).
		throw new Error('no output (timed out?)');
	}
	let branch: string | null = null;
	let head: string | null = null;
	let changedFiles = 0;
	let untrackedFiles = 0;
	const fields = splitNul(out);
	for (let i = 0; i < fields.length; i++) {
		const field = fields[i] as string;
		if (field.startsWith('# branch.head ')) branch = field.slice(14) === '(detached)' ? null : field.slice(14);
		else if (field.startsWith('# branch.oid ')) head = field.slice(13) === '(initial)' ? null : field.slice(13);
		else if (field.startsWith('1 ') || field.startsWith('u ')) changedFiles++;
		else if (field.startsWith('2 ')) {
			changedFiles++;
			i++; // a rename's second field is the original path
		} else if (field.startsWith('? ')) untrackedFiles++;
	}
	return { branch, head, changedFiles, untrackedFiles };
}

export function insideGitRepo(dir: string): boolean {
	for (let current = path.resolve(dir); ; current = path.dirname(current)) {
		if (fs.existsSync(path.join(current, '.git'))) return true;
		if (path.dirname(current) === current) return false;
	}
}

/** Commits reachable from HEAD (made since `sinceIso` when given); 0 for a repository without commits yet. */
export async function commitsSince(root: string, env: NodeJS.ProcessEnv, sinceIso: string | null, timeoutMs: number): Promise<number> {
	const args = ['rev-list', '--count', 'HEAD'];
	if (sinceIso) {
		// Commit times have whole seconds: round the start down, or a commit made in the same second as the session started would not count.
		args.splice(2, 0, `--since=@${Math.floor(Date.parse(sinceIso) / 1000)}`);
	}
	try {
		return Number((await runGit(args, { cwd: root, env, timeoutMs })).stdout.toString('utf8').trim()) || 0;
	} catch {
		// A repository without commits yet has no HEAD.
		return 0;
	}
}

/**
 * Which of `names` in the folder `dir` (inside `root`) are as a checkout of the user's repository
 * wrote them: tracked, and unchanged from what the index holds (`git ls-files -t -c -m`, which reads
 * the index and writes nothing). A tracked file something rewrote since (Baton's own file at a path a
 * commit also holds) is not one. An empty set outside a repository, when none of the files exists
 * (no git started), or when git fails: the caller's other checks still hold.
 */
export async function checkedOutNames(root: string, dir: string, names: readonly string[], timeoutMs: number): Promise<Set<string>> {
	const present = names.filter((name) => fs.existsSync(path.join(dir, name)));
	if (present.length === 0 || !insideGitRepo(root)) return new Set();
	const relative = present.map((name) => path.relative(root, path.join(dir, name)).split(path.sep).join('/'));
	try {
		const tagged = splitNul(
			(await runGit(['ls-files', '-z', '-t', '-c', '-m', '--', ...relative], { cwd: root, env: userRepoReadEnv(), timeoutMs })).stdout,
		);
		// `H path` for each tracked file, and `C path` again for each that differs from the index.
		const tracked = new Set(tagged.filter((f) => f.startsWith('H ')).map((f) => f.slice(2)));
		const changed = new Set(tagged.filter((f) => f.startsWith('C ')).map((f) => f.slice(2)));
		return new Set(present.filter((_name, i) => tracked.has(relative[i] as string) && !changed.has(relative[i] as string)));
	} catch {
		return new Set();
	}
}
