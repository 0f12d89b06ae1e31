/**
 * `baton connect git`: the one thing Baton ever writes inside the user's `.git`, and only on that
 * explicit command. Three hooks get a block of Baton's between markers, merged into the user's own
 * hook when there is one (the original is copied to `<hook>.baton-backup` first): `pre-push` pushes
 * Baton's refs alongside the user's push (to that remote, only when sync is enabled for it);
 * `post-merge` and `post-checkout` pull. Baton's block never fails the user's git command and never
 * reads the hook's stdin. `--remove` takes the blocks out again (and deletes a hook Baton created).
 */
import { writeHookBlocks, type HookFile } from '../agentConfig/gitHookBlocks';
import { userHooksDir } from '../git/gitRunner';

export type { HookFile };

const begin = '# >>> baton sync (baton connect git; remove with: baton connect git --remove) >>>';
const end = '# <<< baton sync <<<';

const gitHookNames = ['pre-push', 'post-merge', 'post-checkout'] as const;

function linesFor(hook: (typeof gitHookNames)[number], command: string): string[] {
	const run = hook === 'pre-push' ? `${command} sync push --remote "$1"` : `${command} sync pull`;
	return [`( ${run} </dev/null >/dev/null 2>&1 || true ) &`];
}

export async function connectGitHooks(repo: string, options: { command: string; remove: boolean }): Promise<HookFile[]> {
	const lines = Object.fromEntries(gitHookNames.map((hook) => [hook, linesFor(hook, options.command)]));
	return writeHookBlocks({ dir: await userHooksDir(repo), begin, end, lines, remove: options.remove });
}
