/**
 * `check-ignore`'s verdict on each new file, per store, kept between captures (treeFromPaths.ts): a
 * file an agent creates is new to every capture until the index catches up, and asking git again each
 * time was a process per tool call. The store's ignore rules are its own `info/exclude` and the work
 * tree's `.gitignore` files (its git reads no user config and no global excludes file: shadowRepo.ts),
 * so a verdict holds until one of those may have changed: the exclude file rewritten (`ensureInit`) or
 * an index sync, which a changed `.gitignore` always brings (the watcher asks for a full scan when it
 * sees one: workspaceWatcher.ts). A `.gitignore` among a capture's paths drops them too, should that
 * rule ever change.
 */
const verdictsByStore = new Map<string, Map<string, boolean>>();
const maxVerdicts = 10_000;

/** The kept verdicts (path → ignored) a capture of `paths` may use; none when one of them is a `.gitignore`. */
export function ignoreVerdictsOf(gitDir: string, paths: readonly string[]): Map<string, boolean> {
	let verdicts = verdictsByStore.get(gitDir);
	if (!verdicts || verdicts.size > maxVerdicts || paths.some((rel) => rel === '.gitignore' || rel.endsWith('/.gitignore'))) {
		verdicts = new Map();
		verdictsByStore.set(gitDir, verdicts);
	}
	return verdicts;
}

/** Forgets the store's kept verdicts: its ignore rules may have changed, or its index moved on. */
export function forgetIgnoreVerdicts(gitDir: string): void {
	verdictsByStore.delete(gitDir);
}
