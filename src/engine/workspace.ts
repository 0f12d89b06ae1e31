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
