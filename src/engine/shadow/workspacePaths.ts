/**
 * A path from a tree (a checkpoint's, a step's) names a file inside the workspace only if each of its
 * parts is a plain name. Git writes no other kind, but a tree can be made with any name (`git mktree`
 * takes `..` and `.git`) and arrive through a pulled ref: joined to the workspace folder, `../x`
 * names a file outside it and `.git/config` the user's repository. Nor is `.baton` a part: Baton's
 * snapshots leave every `.baton` folder out (shadowRepo.ts's excludes), so a tree holding one was made
 * elsewhere, and a rollback to it would write Baton's own files (`.baton/machine.json`: the clone would
 * then push as another machine, over that machine's history).
 *
 * Nor is it inside when one of its folders on disk is a symbolic link (or a Windows junction): the
 * system follows it, so `d/x` with `d` linked elsewhere is a file outside. Baton writes, moves and
 * removes a path only when each folder on the way is a real folder (or absent: it then creates real
 * ones), checked with lstat from the workspace folder down, for all paths before anything is
 * touched and again right before each write. A link that is itself a tree entry is written as a link.
 */
import fs from 'node:fs';
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
		const lower = part.toLowerCase();
		if (lower === '.git') {
			return 'a .git folder';
		}
		if (lower === '.baton') {
			return "Baton's own folder, which its snapshots leave out";
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
			throw new BatonError(
				'invalidInput',
				`${what} holds ${JSON.stringify(rel)}, which is no path inside the workspace (${problem}); Baton never writes one, so the tree was made elsewhere. Nothing was changed`,
			);
		}
	}
}

type FolderKind = 'folder' | 'absent' | 'link' | 'file';

/** What each folder (slash-separated, relative) is on disk; one per check, shared by its paths. */
type FolderKinds = Map<string, FolderKind>;

/**
 * Why a folder on the way to `rel` inside `root` is no real folder of the workspace, or null: a
 * link always; a file too unless `filesInTheWay` (a restore moves such a file aside first). The
 * parts of `rel` must be plain names (`workspacePathProblem`).
 */
export function folderProblem(root: string, rel: string, options: { filesInTheWay?: boolean; kinds?: FolderKinds } = {}): string | null {
	const parts = rel.split('/');
	const kinds = options.kinds ?? new Map<string, FolderKind>();
	for (let i = 1; i < parts.length; i++) {
		const dir = parts.slice(0, i).join('/');
		let kind = kinds.get(dir);
		if (!kind) {
			kind = folderKind(path.join(root, dir));
			kinds.set(dir, kind);
		}
		if (kind === 'absent') {
			return null; // The writer creates it and those below it as real folders.
		}
		if (kind === 'link') {
			const target = JSON.stringify(linkTarget(path.join(root, dir)));
			return `its folder ${JSON.stringify(dir)} is a symbolic link (to ${target}), and Baton never writes, moves or removes a file through a link: it can lead out of the workspace`;
		}
		if (kind === 'file') {
			// A restore moves such a file aside before it writes below.
			return options.filesInTheWay ? null : `${JSON.stringify(dir)} is a file, not a folder`;
		}
	}
	return null;
}

/**
 * Refuses, naming the path and the link, when any of `paths` (inside `root`) has a link (or, unless
 * `filesInTheWay`, a file) among its folders: before anything is written, so nothing is half done.
 */
export function assertRealFolders(root: string, paths: Iterable<string>, what: string, options: { filesInTheWay?: boolean } = {}): void {
	const kinds: FolderKinds = new Map();
	for (const rel of paths) {
		const problem = folderProblem(root, rel, { ...options, kinds });
		if (problem) {
			throw new BatonError('invalidInput', `${what} changes ${JSON.stringify(rel)}, but ${problem}. Nothing was changed`);
		}
	}
}

/**
 * The file `rel` names inside `root`, checked right before it is written, moved or removed: refused
 * when it would be outside (`workspacePathProblem`) or a folder on the way is a link or a file.
 */
export function workspaceFile(root: string, rel: string): string {
	assertWorkspacePaths([rel], 'the tree');
	const problem = folderProblem(root, rel);
	if (problem) {
		throw new BatonError('invalidInput', `stopped before writing ${JSON.stringify(rel)}: ${problem}`);
	}
	return path.join(root, rel);
}

function folderKind(full: string): FolderKind {
	let stat: fs.Stats;
	try {
		stat = fs.lstatSync(full);
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
			return 'absent';
		}
		throw error;
	}
	return stat.isSymbolicLink() ? 'link' : stat.isDirectory() ? 'folder' : 'file';
}

function linkTarget(full: string): string {
	try {
		return fs.readlinkSync(full);
	} catch {
		return '?';
	}
}
