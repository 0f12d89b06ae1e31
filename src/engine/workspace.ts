/**
 * Where Baton's data lives: `<workspace>/.baton/`, with a `.gitignore` so the user's repository never
 * picks it up. It is its user's only: sessions, hook prompts and transcripts are not for the other
 * accounts on the machine.
 */
import fs from 'node:fs';
import path from 'node:path';

const batonDirName = '.baton';

/** Every folder Baton creates in `.baton/`, whichever process creates it (the umask can only narrow it). */
const privateDirMode = 0o700;
/** Every file Baton creates in `.baton/`, temp files that are renamed into place included. */
export const privateFileMode = 0o600;

/** `mkdir -p` whose new folders are private; one that exists keeps its mode (opening the store tightens `.baton/`). */
export function mkdirPrivate(dir: string): void {
	fs.mkdirSync(dir, { recursive: true, mode: privateDirMode });
}

/**
 * A private folder inside one that must exist already (a cache's folder in `.baton/`): a late write
 * of a cache (an environment capture that finishes after its workspace's `.baton/` was removed) never
 * creates the store's folder again. Throws ENOENT when the parent is gone.
 */
export function mkdirInExisting(dir: string): void {
	try {
		fs.mkdirSync(dir, { mode: privateDirMode });
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
	}
}

/**
 * Takes the group's and others' permissions off `dir` and everything in it: a store made before
 * Baton kept it private (0755 folders, 0644 files) becomes 0700/0600, content untouched. Folders
 * named in `ownModes` (git's shadow store) are tightened themselves but not walked: git sets the
 * modes inside, and the private folder above keeps other users out. Symbolic links are never
 * followed. One stat when `dir` is private already. Returns what it could not change, for a warning.
 */
export function tightenPrivateTree(dir: string, ownModes: readonly string[] = []): string[] {
	if (process.platform === 'win32') {
		return []; // No POSIX modes: the folder's ACL decides.
	}
	const top = fs.lstatSync(dir, { throwIfNoEntry: false });
	if (!top?.isDirectory() || (top.mode & 0o077) === 0) {
		return [];
	}
	const failed: string[] = [];
	const tighten = (file: string, mode: number): void => {
		if ((mode & 0o077) !== 0) {
			try {
				fs.chmodSync(file, mode & 0o700);
			} catch (error) {
				failed.push(`${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
			}
		}
	};
	const walk = (folder: string, mode: number, depth: number): void => {
		tighten(folder, mode);
		if (depth > 0 && ownModes.includes(path.basename(folder))) {
			return;
		}
		let entries: fs.Dirent[];
		try {
			entries = fs.readdirSync(folder, { withFileTypes: true });
		} catch {
			return; // Gone meanwhile.
		}
		for (const entry of entries) {
			const full = path.join(folder, entry.name);
			if (entry.isDirectory()) {
				const stat = fs.lstatSync(full, { throwIfNoEntry: false });
				if (stat?.isDirectory()) {
					walk(full, stat.mode, depth + 1);
				}
			} else if (entry.isFile()) {
				const stat = fs.lstatSync(full, { throwIfNoEntry: false });
				if (stat?.isFile()) {
					tighten(full, stat.mode);
				}
			}
		}
	};
	walk(dir, top.mode, 0);
	return failed;
}

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
	mkdirPrivate(dir);
	const gitignore = path.join(dir, '.gitignore');
	if (!fs.existsSync(gitignore)) {
		fs.writeFileSync(gitignore, '# Baton keeps its database, journal and archives here; none of it belongs in your repository.\n*\n', {
			mode: privateFileMode,
		});
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
interface GitDirs {
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
