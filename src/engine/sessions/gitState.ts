/**
 * Reads the user's repository state for debriefs, through simple-git, without writing to it:
 * GIT_OPTIONAL_LOCKS=0 stops `git status` from refreshing the index file.
 */
import fs from 'node:fs';
import path from 'node:path';
import { simpleGit } from 'simple-git';
import type { Logger } from '../ports';
import type { GitState } from '../storage/jsonShapes';

export interface GitStateReader {
	read(sinceIso: string | null): Promise<GitState | null>;
}

export function createGitStateReader(workspaceRoot: string, log?: Logger, timeoutMs = 5_000): GitStateReader {
	return {
		async read(sinceIso) {
			if (!isInsideGitRepo(workspaceRoot)) {
				return null;
			}
			const git = simpleGit({
				baseDir: workspaceRoot,
				timeout: { block: timeoutMs },
				// simple-git refuses GIT_* variables it was not told about.
				allowEnvironment: ['GIT_OPTIONAL_LOCKS', 'GIT_TERMINAL_PROMPT'],
			}).env({
				...cleanEnv(),
				GIT_OPTIONAL_LOCKS: '0',
				GIT_TERMINAL_PROMPT: '0',
			});
			try {
				const status = await git.status();
				let head: string | null = null;
				let commitCount = 0;
				try {
					head = (await git.revparse(['HEAD'])).trim();
					const args = ['rev-list', '--count', 'HEAD'];
					if (sinceIso) {
						// Commit times have whole seconds: round the start down, or a commit made in the
						// same second as the session started would not count.
						args.splice(2, 0, `--since=@${Math.floor(Date.parse(sinceIso) / 1000)}`);
					}
					commitCount = Number((await git.raw(args)).trim()) || 0;
				} catch {
					// A repository without commits yet has no HEAD.
				}
				return { branch: status.current ?? null, head, commitCount, uncommittedChanges: status.files.length };
			} catch (error) {
				log?.warn(`could not read the git state of ${workspaceRoot}: ${(error as Error).message}`);
				return null;
			}
		},
	};
}

function isInsideGitRepo(dir: string): boolean {
	let current = path.resolve(dir);
	for (;;) {
		if (fs.existsSync(path.join(current, '.git'))) {
			return true;
		}
		const parent = path.dirname(current);
		if (parent === current) {
			return false;
		}
		current = parent;
	}
}

/**
 * The environment git runs with: only what it needs to find itself, the user's home (for
 * safe.directory) and the locale. Inherited GIT_DIR/GIT_WORK_TREE (from a hook or terminal) would
 * point git elsewhere, and simple-git rejects guarded variables such as EDITOR or PAGER (npm sets
 * EDITOR) when they are passed explicitly.
 */
function cleanEnv(): Record<string, string> {
	const keep = ['PATH', 'Path', 'HOME', 'USERPROFILE', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TMPDIR', 'TEMP', 'TMP', 'SystemRoot', 'APPDATA', 'LOCALAPPDATA'];
	const out: Record<string, string> = {};
	for (const key of keep) {
		const value = process.env[key];
		if (value !== undefined) {
			out[key] = value;
		}
	}
	return out;
}
