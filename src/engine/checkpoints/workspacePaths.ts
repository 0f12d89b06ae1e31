/**
 * A path from a tree (a checkpoint's, a step's) names a file inside the workspace only if each of its
 * parts is a plain name. Git writes no other kind, but a tree can be made with any name (`git mktree`
 * takes `..` and `.git`) and arrive through a pulled ref: joined to the workspace folder, `../x`
 * names a file outside it and `.git/config` the user's repository.
 */
import path from 'node:path';
import { BatonError } from '../errors';

/** Why `rel` (slash-separated) is not a path inside the workspace, or null. */
export function workspacePathProblem(rel: string): string | null {
	if (rel.length === 0 || rel.includes('\0')) {
		return 'an empty name';
	}
	for (const part of rel.split('/')) {
		if (part === '' || part === '.' || part === '..') {
			return `the part "${part}"`;
		}
		if (part.toLowerCase() === '.git') {
			return 'a .git folder';
		}
		if (process.platform === 'win32' && /[\\:]/.test(part)) {
			return `the part "${part}"`;
		}
	}
	return null;
}

/** Refuses, naming the first path of `paths` that is not inside the workspace, with `what` said. */
export function assertWorkspacePaths(paths: Iterable<string>, what: string): void {
	for (const rel of paths) {
		const problem = workspacePathProblem(rel);
		if (problem) {
			throw new BatonError('invalidInput', `${what} holds ${JSON.stringify(rel)}, which is no path inside the workspace (${problem}); Baton never writes one, so the tree was made elsewhere. Nothing was changed`);
		}
	}
}

/** The file `rel` names inside `root` (refused when it would be outside, see `workspacePathProblem`). */
export function workspaceFile(root: string, rel: string): string {
	assertWorkspacePaths([rel], 'the tree');
	return path.join(root, rel);
}
