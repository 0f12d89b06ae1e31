/**
 * The user's repository state for a session's debrief (branch, HEAD, commits since the session
 * started, uncommitted changes), read through the git room's one reader without writing to it.
 */
import { userRepoReadEnv } from '../git/gitEnv';
import { commitsSince, insideGitRepo, readUserRepoStatus } from '../git/userRepoState';
import type { Logger } from '../ports';
import type { GitState } from '../storage/jsonShapes';

export interface GitStateReader {
	read(sinceIso: string | null): Promise<GitState | null>;
}

export function createGitStateReader(workspaceRoot: string, log?: Logger, timeoutMs = 5_000): GitStateReader {
	return {
		async read(sinceIso) {
			if (!insideGitRepo(workspaceRoot)) {
				return null;
			}
			const env = userRepoReadEnv();
			try {
				const [status, commitCount] = await Promise.all([
					readUserRepoStatus(workspaceRoot, env, Date.now() + timeoutMs),
					commitsSince(workspaceRoot, env, sinceIso, timeoutMs),
				]);
				if (!status) {
					return null;
				}
				return { branch: status.branch, head: status.head, commitCount, uncommittedChanges: status.changedFiles + status.untrackedFiles };
			} catch (error) {
				log?.warn(`could not read the git state of ${workspaceRoot}: ${(error as Error).message}`);
				return null;
			}
		},
	};
}
