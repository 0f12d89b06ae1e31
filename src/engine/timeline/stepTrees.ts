/**
 * A step's trees when the store no longer keeps them whole (docs/replay.md, "Retention and size"):
 * only keyframe trees are kept, and every step records its files with their blob ids. A step's tree
 * is rebuilt from the nearest kept tree before it plus the files of the steps between, in a private
 * index (`read-tree`, `update-index --index-info`, `write-tree`), and used only when it gives exactly
 * the id the record names; otherwise the caller says the tree cannot be rebuilt. Never a wrong tree.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { FileChange } from '../shadow/treeDiff';
import { diffTrees } from '../shadow/treeDiff';
import type { ShadowRepo } from '../shadow/shadowRepo';
import { missingObjects } from './timelineRetention';
import type { TimelineStep } from './timelineShapes';

const plainMode = '100644';

/**
 * The step's file changes as its record lists them, blob ids and modes included; null when the
 * record cannot say (written before blob ids were recorded, or too many files to list).
 */
export function recordedChanges(step: Pick<TimelineStep, 'files' | 'moreFiles'>): FileChange[] | null {
	if (step.moreFiles) {
		return null;
	}
	const changes: FileChange[] = [];
	for (const f of step.files) {
		const needsBefore = f.change !== 'added';
		const needsAfter = f.change !== 'deleted';
		if ((needsBefore && !f.blobBefore) || (needsAfter && !f.blobAfter)) {
			return null;
		}
		changes.push({
			path: f.path,
			change: f.change,
			additions: f.binary ? null : f.additions,
			deletions: f.binary ? null : f.deletions,
			binary: f.binary === true,
			oldMode: needsBefore ? (f.modeBefore ?? plainMode) : null,
			newMode: needsAfter ? (f.modeAfter ?? plainMode) : null,
			oldSha: needsBefore ? (f.blobBefore ?? null) : null,
			newSha: needsAfter ? (f.blobAfter ?? null) : null,
		});
	}
	return changes;
}

/** The step's changes: from its record when it lists blob ids, else from its two trees (older records). */
export async function stepChanges(
	shadow: ShadowRepo,
	step: Pick<TimelineStep, 'files' | 'moreFiles' | 'treeBefore' | 'treeAfter'>,
	options: { lines?: boolean } = {},
): Promise<FileChange[]> {
	const recorded = recordedChanges(step);
	if (recorded) {
		return recorded;
	}
	return diffTrees(shadow, step.treeBefore as string, step.treeAfter as string, options);
}

/** The blobs a step's record names (empty for older records). */
export function recordedBlobs(step: Pick<TimelineStep, 'files' | 'moreFiles'>): string[] {
	return (recordedChanges(step) ?? []).flatMap((c) => [c.oldSha, c.newSha].filter((s): s is string => !!s));
}

/** Longest run of steps walked back to find a kept tree. */
const maxWalk = 10_000;

/**
 * `target` (a tree a step of `steps` names; `steps` are the session's, in step order) in the store:
 * as it is when kept, else rebuilt. Null when it cannot be rebuilt to exactly that id.
 */
export async function resolveTree(shadow: ShadowRepo, steps: readonly TimelineStep[], target: string): Promise<string | null> {
	const points: { tree: string | null; step: TimelineStep; after: boolean }[] = steps.flatMap((step) => [
		{ tree: step.treeBefore, step, after: false },
		{ tree: step.treeAfter, step, after: true },
	]);
	const at = points.findIndex((p) => p.tree === target);
	const from = Math.max(0, at - 2 * maxWalk);
	const missing = await missingObjects(shadow, [target, ...points.slice(from, Math.max(at, 0)).flatMap((p) => (p.tree ? [p.tree] : []))]);
	if (!missing.has(target)) {
		return target;
	}
	if (at < 0) {
		return null;
	}
	// Walk back to the nearest kept tree; each step's own changes lead from its before to its after.
	const apply: FileChange[][] = [];
	let base: string | null = null;
	for (let q = at; q > from && base === null; q--) {
		const point = points[q]!;
		if (point.after) {
			const changes = point.step.treeBefore ? recordedChanges(point.step) : null;
			if (!changes) {
				return null;
			}
			apply.unshift(changes);
		} else if (points[q - 1]!.tree !== point.tree) {
			// The previous step left another tree: the chain is broken here.
			return null;
		}
		const previous = points[q - 1]!.tree;
		if (previous && !missing.has(previous)) {
			base = previous;
		}
	}
	if (base === null) {
		return null;
	}
	const rebuilt = await applyChanges(shadow, base, apply.flat());
	return rebuilt === target ? target : null;
}

/** `base` with `changes` applied in order, written to the store; its tree id. */
async function applyChanges(shadow: ShadowRepo, base: string, changes: readonly FileChange[]): Promise<string> {
	const index = path.join(shadow.gitDir, `baton-rebuild-${process.pid}-${Math.random().toString(36).slice(2)}.index`);
	const env = { GIT_INDEX_FILE: index, GIT_LITERAL_PATHSPECS: '1' };
	try {
		await shadow.git(['read-tree', base], { env });
		const zero = '0'.repeat(base.length);
		const lines = changes.map((c) => (c.newSha ? `${c.newMode ?? plainMode} ${c.newSha}\t${c.path}\0` : `0 ${zero}\t${c.path}\0`)).join('');
		if (lines) {
			await shadow.git(['update-index', '-z', '--index-info'], { env, input: lines });
		}
		return await shadow.gitText(['write-tree'], { env });
	} finally {
		fs.rmSync(index, { force: true });
	}
}

/**
 * Two trees holding only the step's own files, before and after, built from the blob ids its record
 * lists: what a teammate's store has of a step shared with `sync enable --timeline` (the blobs, never
 * the whole workspace's trees). Their diff is exactly the step's patch. Null when the record lists no
 * blob ids.
 */
export async function stepOnlyTrees(shadow: ShadowRepo, step: Pick<TimelineStep, 'files' | 'moreFiles'>): Promise<{ before: string; after: string } | null> {
	const changes = recordedChanges(step);
	if (!changes) {
		return null;
	}
	const empty = await shadow.gitText(['mktree'], { input: '' });
	const before = await applyChanges(
		shadow,
		empty,
		changes.filter((c) => c.oldSha).map((c) => ({ ...c, newSha: c.oldSha, newMode: c.oldMode })),
	);
	const after = await applyChanges(
		shadow,
		empty,
		changes.filter((c) => c.newSha),
	);
	return { before, after };
}
