/**
 * Baton's opt-in provenance git hooks, installed by `baton connect git` (never by provenance on its
 * own: the user's `.git` is theirs). `post-commit` attributes the new commit at once (otherwise it is
 * found later, from HEAD's reflog); `post-rewrite` records git's own old → new pairs after an amend or
 * a rebase, the exact rewrite map. Each hook gets a block of Baton's between markers, right after the
 * shebang, merged into the user's own hook when there is one (the original is copied to
 * `<hook>.baton-backup` first); `--remove` takes the blocks out again and deletes a hook Baton created.
 * The blocks never fail the user's git command and do their work in the background; post-rewrite's
 * stdin is kept for the user's own part of the hook.
 */
import { writeHookBlocks, type HookFile } from '../agentConfig/gitHookBlocks';
import { userHooksDir } from '../git/gitRunner';

interface ProvenanceHookLines {
	'post-commit': string[];
	'post-rewrite': string[];
}

const provenanceHookNames = ['post-commit', 'post-rewrite'] as const;

const begin = '# >>> baton provenance (baton connect git; remove with: baton connect git --remove) >>>';
const end = '# <<< baton provenance <<<';

function provenanceGitHooks(baton = 'baton'): ProvenanceHookLines {
	return {
		'post-commit': [`( ${baton} provenance commit HEAD --new-only </dev/null >/dev/null 2>&1 || true ) &`],
		'post-rewrite': [
			'baton_pairs="$(mktemp 2>/dev/null)" || baton_pairs=""',
			'if [ -n "$baton_pairs" ] && cat > "$baton_pairs"; then',
			// The rest of the hook (the user's part) reads the same pairs from the saved copy.
			'\texec < "$baton_pairs"',
			`\t( ${baton} provenance rewritten "$1" --pairs-file "$baton_pairs" </dev/null >/dev/null 2>&1; rm -f "$baton_pairs" ) &`,
			'fi',
		],
	};
}

type ProvenanceHookFile = HookFile;

/** Installs (or with `remove` takes out) the post-commit and post-rewrite blocks; `command` runs the CLI. */
export async function connectProvenanceHooks(repo: string, options: { command: string; remove: boolean }): Promise<ProvenanceHookFile[]> {
	const lines = provenanceGitHooks(options.command);
	return writeHookBlocks({
		dir: await userHooksDir(repo),
		begin,
		end,
		lines: Object.fromEntries(provenanceHookNames.map((hook) => [hook, lines[hook]])),
		remove: options.remove,
	});
}
