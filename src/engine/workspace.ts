/**
 * Where Baton's data lives: `<workspace>/.baton/`, with a `.gitignore` so the user's repository never
 * picks it up.
 */
import fs from 'node:fs';
import path from 'node:path';

export const batonDirName = '.baton';

/** The nearest folder upward from `start` that has `.baton/`, or undefined. */
export function findWorkspaceRoot(start: string): string | undefined {
	let current = path.resolve(start);
	for (;;) {
		if (isDirectory(path.join(current, batonDirName))) {
			return current;
		}
		const parent = path.dirname(current);
		if (parent === current) {
			return undefined;
		}
		current = parent;
	}
}

export function batonDir(workspaceRoot: string): string {
	return path.join(workspaceRoot, batonDirName);
}

export function isInitialized(workspaceRoot: string): boolean {
	return isDirectory(batonDir(workspaceRoot));
}

/** Creates `.baton/` and its `.gitignore` (idempotent). Returns true when it created the folder. */
export function initWorkspace(workspaceRoot: string): boolean {
	const dir = batonDir(workspaceRoot);
	const created = !isDirectory(dir);
	fs.mkdirSync(dir, { recursive: true });
	const gitignore = path.join(dir, '.gitignore');
	if (!fs.existsSync(gitignore)) {
		fs.writeFileSync(gitignore, '# Baton keeps its database, journal and archives here; none of it belongs in your repository.\n*\n');
	}
	return created;
}

function isDirectory(p: string): boolean {
	try {
		return fs.statSync(p).isDirectory();
	} catch {
		return false;
	}
}

/** A repository's git directories: HEAD lives in the first, config in the second (the same but for a linked worktree). */
export interface GitDirs {
	/** Per-worktree: HEAD lives here. */
	gitDir: string;
	/** Shared: config lives here. */
	commonDir: string;
}

/**
 * The git directories of the repository holding `start` (the nearest `.git` upward; a worktree's or
 * submodule's `.git` file through its `gitdir:` pointer and `commondir`), read from the files alone:
 * no git process. Null when there is none or the pointer cannot be read.
 */
export function findGitDirs(start: string): GitDirs | null {
	for (let dir = path.resolve(start); ; dir = path.dirname(dir)) {
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
			const pointer = /^gitdir:\s*(.+)$/m.exec(readTextOrNull(dotGit) ?? '')?.[1]?.trim();
			if (!pointer) {
				return null;
			}
			const gitDir = path.resolve(dir, pointer);
			const common = readTextOrNull(path.join(gitDir, 'commondir'))?.trim();
			return { gitDir, commonDir: common ? path.resolve(gitDir, common) : gitDir };
		}
		if (path.dirname(dir) === dir) {
			return null;
		}
	}
}

function readTextOrNull(file: string): string | null {
	try {
		return fs.readFileSync(file, 'utf8');
	} catch {
		return null;
	}
}
