/**
 * The lines Baton's opt-in git hooks run (installed by `baton connect git`, never by provenance
 * itself: the user's `.git` is theirs). Both hooks must never fail or slow the user's git noticeably,
 * so errors are swallowed and the work is done by the CLI in the background of the hook's exit.
 */
export interface ProvenanceHookLines {
	/** Attributes the new commit right away (otherwise it is found later, from HEAD's reflog). */
	'post-commit': string[];
	/** Records git's own old → new pairs after an amend or a rebase: the exact rewrite map. */
	'post-rewrite': string[];
}

export function provenanceGitHooks(baton = 'baton'): ProvenanceHookLines {
	return {
		'post-commit': [`${baton} provenance commit HEAD --new-only >/dev/null 2>&1 || true`],
		'post-rewrite': ['baton_pairs="$(mktemp)" || exit 0', 'cat > "$baton_pairs"', `${baton} provenance rewritten "$1" --pairs-file "$baton_pairs" >/dev/null 2>&1 || true`, 'rm -f "$baton_pairs"'],
	};
}
