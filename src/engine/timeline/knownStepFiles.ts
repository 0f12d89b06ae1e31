/**
 * A step's files without `diff-tree`, when the capture built its tree itself (treeFromPaths.ts): only
 * the paths it was built from can differ from the tree it was built on, and the blobs before and
 * after are at hand, so the step's files and line counts follow from them. Where that is not known
 * (another tree before, a mode-only or file/symlink change, counts git's diff must decide) the
 * answer is null and the caller asks git.
 */
import type { BuiltTree, PathState } from '../shadow/treeFromPaths';
import { cacheContent, cachedContent } from '../shadow/treeFromPaths';
import { catBatch } from '../git/objectReader';
import type { ShadowRepo } from '../shadow/shadowRepo';
import { lineCounts, type LineCount } from './lineCounts';
import type { TimelineFile } from './timelineShapes';

const plainMode = '100644';
const maxBuilt = 64;
/** The trees this process built lately, by id. */
const built = new Map<string, BuiltTree>();

export function noteBuilt(tree: BuiltTree): void {
	built.delete(tree.tree);
	built.set(tree.tree, tree);
	if (built.size > maxBuilt) {
		built.delete(built.keys().next().value as string);
	}
}

type Change = { path: string; before: PathState | null; after: PathState | null };

/** The files that differ from `before` to `after`, or null when this process cannot tell them without git. */
export async function knownStepFiles(
	shadow: ShadowRepo,
	before: string,
	after: string,
	maxFiles: number,
): Promise<{ files: TimelineFile[]; more: number } | null> {
	const info = built.get(after);
	if (!info) {
		return null;
	}
	let stateBefore: (rel: string) => PathState | null;
	if (before === info.base) {
		stateBefore = (rel) => info.paths.get(rel)?.before ?? null;
	} else {
		const prev = built.get(before);
		if (!prev || prev.base !== info.base || [...prev.paths.keys()].some((rel) => !info.paths.has(rel))) {
			return null;
		}
		stateBefore = (rel) => (prev.paths.has(rel) ? (prev.paths.get(rel)?.after ?? null) : (info.paths.get(rel)?.before ?? null));
	}
	const changes: Change[] = [];
	for (const [rel, states] of info.paths) {
		const old = stateBefore(rel);
		const now = states.after;
		if (old?.sha === now?.sha && old?.mode === now?.mode) {
			continue;
		}
		if (old && now && (old.sha === now.sha || (old.mode === '120000') !== (now.mode === '120000'))) {
			// A mode-only or file/symlink change: git's own rules for those.
			return null;
		}
		changes.push({ path: rel, before: old, after: now });
	}
	const wanted = [...new Set(changes.flatMap((c) => [c.before?.sha, c.after?.sha]).filter((sha): sha is string => !!sha && !cachedContent(sha)))];
	if (wanted.length > 0) {
		const objects = await catBatch(
			async (args, input) => (await shadow.git(args, { ...(input !== undefined ? { input } : {}), timeoutMs: 60_000 })).stdout,
			wanted,
			'blob',
		);
		objects.forEach((o) => o && cacheContent(o.oid, o.content));
	}
	const empty = Buffer.alloc(0);
	const files: TimelineFile[] = [];
	for (const c of changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
		const oldContent = c.before ? cachedContent(c.before.sha) : empty;
		const newContent = c.after ? cachedContent(c.after.sha) : empty;
		const counts: LineCount | null = oldContent && newContent ? lineCounts(oldContent, newContent) : null;
		if (!counts) {
			return null;
		}
		files.push({
			path: c.path,
			change: !c.before ? 'added' : !c.after ? 'deleted' : 'modified',
			additions: counts.binary ? 0 : counts.additions,
			deletions: counts.binary ? 0 : counts.deletions,
			...(c.before ? { blobBefore: c.before.sha } : {}),
			...(c.after ? { blobAfter: c.after.sha } : {}),
			...(c.before && c.before.mode !== plainMode ? { modeBefore: c.before.mode } : {}),
			...(c.after && c.after.mode !== plainMode ? { modeAfter: c.after.mode } : {}),
			...(counts.binary ? { binary: true } : {}),
		});
	}
	return { files: files.slice(0, maxFiles), more: Math.max(0, files.length - maxFiles) };
}
