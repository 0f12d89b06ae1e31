/**
 * The listing half of a sync of the shadow index: which paths may differ from it, of everything or
 * of the paths the file watcher saw change.
 */
import fs from 'node:fs';
import path from 'node:path';
import { splitNul } from '../git/gitRunner';
import { readIndexPaths, type IndexPaths } from './indexPaths';
import type { ShadowRepo } from './shadowRepo';

const pathspecChunk = 500;

/**
 * What may differ from the index: modified, deleted and untracked-not-ignored paths. Limited to the
 * watcher's paths it is the same answer for those paths (a folder stands for everything under it),
 * at the cost of what changed instead of a stat of every tracked file and a walk of every folder.
 * A watcher path the index holds as a file is listed as it is, without asking git (update-index
 * hashes it, or removes it when gone; ignore rules do not apply to tracked files); one that is gone
 * with nothing of the index under it is dropped. Only the rest (new files, folders, a path under a
 * symlink) is left to `git status`.
 */
export async function listChanged(repo: ShadowRepo, paths: readonly string[] | undefined, timeoutMs: number): Promise<Listed[]> {
	if (paths === undefined) {
		return listByStatus(repo, timeoutMs, []);
	}
	const out = new Map<string, Listed>();
	const ask: string[] = [];
	const fresh: string[] = [];
	if (paths.length > 0) {
		const index = await readIndexPaths(repo);
		const parents = new Map<string, boolean>();
		const repos = new Map<string, boolean>();
		for (const rel of paths) {
			const kind = classify(repo.workTree, rel, index, parents);
			if (kind === 'tracked') {
				out.set(rel, { path: rel, untracked: false });
			} else if (kind === 'new' && realFolders(repo.workTree, rel, parents) && !underRepo(repo.workTree, rel, repos)) {
				fresh.push(rel);
			} else if (kind !== 'gone') {
				ask.push(rel);
			}
		}
	}
	// New files: what status would list of them is what the ignore rules keep (check-ignore without
	// reading the index; they are not in it).
	if (fresh.length > 0) {
		const ignored = new Set(
			splitNul((await repo.git(['check-ignore', '-z', '--no-index', '--stdin'], { input: `${fresh.join('\0')}\0`, okCodes: [1], timeoutMs })).stdout),
		);
		for (const rel of fresh) {
			if (!ignored.has(rel)) {
				out.set(rel, { path: rel, untracked: true });
			}
		}
	}
	// Literal pathspecs: a file named `*.ts` or `[x]` means itself. Chunks keep the command line short.
	for (let i = 0; i < ask.length; i += pathspecChunk) {
		for (const listed of await listByStatus(repo, timeoutMs, ask.slice(i, i + pathspecChunk))) {
			out.set(listed.path, listed);
		}
	}
	return [...out.values()];
}

/**
 * `tracked`: the index holds the path as a file and it is a file, a symlink or gone, under real
 * folders (git refuses a path beyond a symlink; status reports those as deleted). `gone`: neither
 * the workspace nor the index has anything at or under it. `new`: a file or symlink the index does
 * not hold, not named `.git` nor inside one. `ask`: anything else (folders above all).
 */
function classify(workTree: string, rel: string, index: IndexPaths, parents: Map<string, boolean>): 'tracked' | 'gone' | 'new' | 'ask' {
	let stat: fs.Stats | undefined;
	try {
		stat = fs.lstatSync(path.join(workTree, rel));
	} catch {
		// Gone (or a parent is no longer a folder).
	}
	if (index.hasFile(rel)) {
		return !stat?.isDirectory() && realFolders(workTree, rel, parents) ? 'tracked' : 'ask';
	}
	if (stat === undefined) {
		return index.hasDir(rel) ? 'ask' : 'gone';
	}
	return (stat.isFile() || stat.isSymbolicLink()) && !`/${rel}/`.includes('/.git/') ? 'new' : 'ask';
}

/**
 * Whether a folder above `rel` holds a `.git` (a nested repository: status lists it as `dir/`, and
 * its files are read with its own ignore rules).
 */
/** Whether a folder above `rel` holds a repository of its own (`.git`), cached per folder in `repos`. */
export function underRepo(workTree: string, rel: string, repos: Map<string, boolean>): boolean {
	for (let i = rel.indexOf('/'); i > 0; i = rel.indexOf('/', i + 1)) {
		const dir = rel.slice(0, i);
		let found = repos.get(dir);
		if (found === undefined) {
			found = hasGit(path.join(workTree, dir));
			repos.set(dir, found);
		}
		if (found) {
			return true;
		}
	}
	return false;
}

/** Whether every existing folder above `rel` is a folder, not a symlink (a missing one is fine: all below is gone). */
export function realFolders(workTree: string, rel: string, parents: Map<string, boolean>): boolean {
	const slash = rel.lastIndexOf('/');
	if (slash <= 0) {
		return true;
	}
	const dir = rel.slice(0, slash);
	let ok = parents.get(dir);
	if (ok === undefined) {
		let stat: fs.Stats | undefined;
		try {
			stat = fs.lstatSync(path.join(workTree, dir));
		} catch {
			// Missing.
		}
		ok = stat === undefined ? true : stat.isDirectory() && realFolders(workTree, dir, parents);
		parents.set(dir, ok);
	}
	return ok;
}

/** A path that may differ from the index; `untracked` when the index has no entry for it. */
export interface Listed {
	path: string;
	untracked: boolean;
}

/**
 * The listing, of everything or of the watcher's paths: `git status`, because it alone uses the
 * index's untracked cache (a folder whose mtime did not change is not read again; `ls-files -o` and
 * `add -A` read every folder) and writes refreshed stat data back, so a file touched without a
 * change is hashed once, not on every scan. It also counts a file under a folder that became a
 * symlink as deleted (`ls-files -d` looks through the symlink). The cache serves `-uall` only when
 * the configuration asks for all untracked files. Kept: what differs in the work tree (second
 * column) and untracked paths (a nested repository as `dir/`).
 */
async function listByStatus(repo: ShadowRepo, timeoutMs: number, pathspecs: readonly string[]): Promise<Listed[]> {
	const args = ['-c', 'status.showUntrackedFiles=all', 'status', '--porcelain', '-z', '--untracked-files=all', '--no-renames', '--ignore-submodules=all'];
	const out: Listed[] = [];
	const run =
		pathspecs.length > 0 ? repo.git([...args, '--', ...pathspecs], { timeoutMs, env: { GIT_LITERAL_PATHSPECS: '1' } }) : repo.git(args, { timeoutMs });
	for (const entry of splitNul((await run).stdout)) {
		if (entry.length > 3 && (entry.startsWith('??') || entry[1] !== ' ')) {
			out.push({ path: entry.slice(3), untracked: entry.startsWith('??') });
		}
	}
	return out;
}

function hasGit(dir: string): boolean {
	try {
		fs.lstatSync(path.join(dir, '.git'));
		return true;
	} catch {
		return false;
	}
}
