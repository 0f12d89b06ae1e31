/**
 * Which of a session's trees the store keeps (docs/replay.md, "Retention and size"). A step keeps its
 * new blobs and lists its files with their blob ids; its trees are not kept, except at keyframes: the
 * session's first capture, every `keyframeEvery` steps, a step too large to list, and wherever the
 * steps' chain breaks (a step that starts from a tree other than the one the previous recorded step
 * left, or one not captured). Any step's tree is then the nearest keyframe before it plus the files of
 * the steps between (stepTrees.ts). The steps' blobs go into a pack of the session's at each keyframe
 * and whenever `packAt` of them wait, whether or not a keyframe falls there. All of this runs under
 * the shadow's lock.
 */
import type { ShadowRepo } from '../shadow/shadowRepo';
import type { TimelineState } from './timelineState';
import { readState, stateSessions, writeState } from './timelineState';
import type { TimelineFile } from './timelineShapes';
import { keepSessionBlobs, sessionPacks } from './timelinePacks';
import { keepKeyframe } from './treeCapture';

/**
 * Steps between two keyframes after the session start. A keyframe keeps every tree the steps since the
 * last one changed, at their versions then (in the benchmark's 500-step session, keyframes every 100
 * steps kept 120 trees no other state needs, 11 KB, a tenth of all it kept), while a rebuild costs
 * one `read-tree` of the keyframe and one `write-tree` however many steps lie between
 * (docs/replay.md, "Measured"); so keyframes are rare, and bound only the walk back (stepTrees.ts).
 */
export const keyframeEvery = 1_000;

/**
 * Blobs that wait (listed in the session's state file, which every hook call reads and writes; kept
 * from `git prune` by its hour of grace and by the maintenance's flush) before they go into a pack of
 * the session's: about 100 one-file steps, each listing the file's version before and after.
 */
export const packAt = 200;

/** A session's kept packs past which a new one is merged with them (git reads every pack's index on a lookup). */
const mergePacksAt = 4;

/** Keeps the blobs the steps wrote since the last pack in a pack of the session's. */
async function packBlobs(shadow: ShadowRepo, sessionId: string, state: TimelineState): Promise<void> {
	if (state.unkept.length) {
		await keepSessionBlobs(shadow, sessionId, state.unkept, sessionPacks(shadow, sessionId).length >= mergePacksAt);
		state.unkept = [];
	}
}

/** Makes `tree` a keyframe, and keeps the blobs written since the last one in a pack of the session's. */
export async function keyframe(shadow: ShadowRepo, sessionId: string, state: TimelineState, tree: string, nowMs: number): Promise<void> {
	await packBlobs(shadow, sessionId, state);
	if (state.refTree === tree) {
		state.sinceKey = 0;
		return;
	}
	try {
		state.refCommit = await keepKeyframe(shadow, sessionId, tree, state.refCommit, nowMs);
	} catch (error) {
		if (!state.refCommit) {
			throw error;
		}
		// The chain's head is gone (the session's ref was pruned): start a new chain.
		state.refCommit = await keepKeyframe(shadow, sessionId, tree, null, nowMs);
	}
	state.refTree = tree;
	state.sinceKey = 0;
}

/** Notes one recorded step: its blobs to keep, and a keyframe where the chain needs one. */
export async function noteStep(
	shadow: ShadowRepo,
	sessionId: string,
	state: TimelineState,
	before: string | null,
	after: string | null,
	files: readonly TimelineFile[],
	complete: boolean,
	nowMs: number,
): Promise<void> {
	if (!after) {
		state.chainTree = null;
		return;
	}
	if (!before || !complete) {
		// Nothing to rebuild this tree from: keep it whole.
		await keyframe(shadow, sessionId, state, after, nowMs);
		state.chainTree = after;
		return;
	}
	if (before !== state.chainTree) {
		await keyframe(shadow, sessionId, state, before, nowMs);
	}
	// The version before goes into the pack too, so the new one can be a delta of it there (a kept
	// pack cannot hold deltas against objects outside it); packed once, it leaves the main pack.
	const listed = new Set(state.unkept.map((b) => b[0]));
	for (const f of files) {
		for (const blob of [f.blobBefore, f.blobAfter]) {
			if (blob && !listed.has(blob)) {
				listed.add(blob);
				state.unkept.push([blob, f.path]);
			}
		}
	}
	state.sinceKey += 1;
	state.chainTree = after;
	if (state.sinceKey >= keyframeEvery) {
		await keyframe(shadow, sessionId, state, after, nowMs);
	} else if (state.unkept.length >= packAt) {
		await packBlobs(shadow, sessionId, state);
	}
}

/**
 * Before the store's maintenance prunes: every session's blobs not yet in one of its packs go into
 * one, merged with its earlier packs, so a pause longer than the prune's grace period loses nothing
 * and a session keeps one pack. `skip`: sessions whose trees are being pruned. The caller holds the
 * shadow's lock.
 */
export async function flushKeyframes(shadow: ShadowRepo, workspaceRoot: string, nowMs: number, skip: ReadonlySet<string>): Promise<number> {
	let flushed = 0;
	for (const file of stateSessions(workspaceRoot)) {
		if (skip.has(file)) {
			continue;
		}
		const state = readState(workspaceRoot, file, nowMs);
		await keepSessionBlobs(shadow, file, state.unkept, true);
		if (state.unkept.length) {
			state.unkept = [];
			writeState(workspaceRoot, file, state);
			flushed++;
		}
	}
	return flushed;
}
