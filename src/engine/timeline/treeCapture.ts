/**
 * One capture of the workspace for the timeline: bring the shadow store's index up to date (git's
 * stat cache makes an unchanged file cost one stat) and `write-tree` (skipped when the index was not
 * written since the last one). No commit, no checkpoint
 * record: a tree id is all a step needs. Only keyframe trees are kept from git's garbage collection,
 * by one commit chain per session under `refs/baton/timeline/<session>`; the blobs the steps between
 * wrote are kept in the session's own packs; they share every blob with checkpoints and with each other. Nothing here throws: a capture that cannot finish within its budget says why.
 */
import type { DirtyTracking } from '../checkpoints/dirtyTracking';
import { syncIndex } from '../checkpoints/indexSync';
import { writeIndexTree } from '../checkpoints/indexTree';
import type { ShadowRepo } from '../checkpoints/shadowRepo';
import { diffTrees } from '../checkpoints/treeDiff';
import type { TimelineFile } from './timelineTypes';

export type Capture = { tree: string; reason?: undefined } | { tree?: undefined; reason: string };

export interface CaptureOptions {
	excludes: readonly string[];
	maxFileSize: number;
	/** Date.now()-style deadline for the whole capture. */
	deadline: number;
	/**
	 * The workspace watcher's dirty paths, in a process that runs one (the backend): the capture then
	 * looks only at what changed since the shadow index was last brought up to date, by a capture or
	 * a checkpoint alike (they share that index). Without one, the full scan.
	 */
	dirty?: DirtyTracking;
}

/** The workspace's tree id as the shadow sees it now. The caller holds the shadow's lock. */
export async function captureTree(shadow: ShadowRepo, options: CaptureOptions): Promise<Capture> {
	try {
		const excludesChanged = await shadow.ensureInit(options.excludes);
		const run = (paths: string[] | undefined) => syncIndex(shadow, { ...(paths ? { paths } : {}), maxFileSize: options.maxFileSize, deadline: options.deadline });
		// Half the budget at most for a watcher that is still starting: the scan needs the rest.
		const sync = options.dirty ? await options.dirty.sync(excludesChanged, run, Math.max(0, (options.deadline - Date.now()) / 2)) : await run(undefined);
		if (sync.degradedReason) {
			return { reason: `the workspace could not be read within the time budget (${sync.degradedReason})` };
		}
		const remaining = options.deadline - Date.now();
		const tree = await writeIndexTree(shadow, Math.max(remaining, 1_000));
		return { tree };
	} catch (error) {
		return { reason: `capture failed: ${(error as Error).message}` };
	}
}

/** The timeline ref of a session. */
export function timelineRef(sessionId: string): string {
	return `refs/baton/timeline/${sessionId.replace(/[^A-Za-z0-9_.-]/g, '_')}`;
}

/**
 * Makes `tree` a keyframe of the session: one commit on its chain under `timelineRef`, so git never
 * prunes it. (The blobs the steps between wrote are kept in the session's own packs,
 * timelinePacks.ts.) Returns the new head commit. The caller holds the shadow's lock.
 */
export async function keepKeyframe(shadow: ShadowRepo, sessionId: string, tree: string, parent: string | null, nowMs: number): Promise<string> {
	const date = `@${Math.floor(nowMs / 1000)} +0000`;
	const env = { GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date };
	const parents = parent ? ['-p', parent] : [];
	const commit = await shadow.gitText(['commit-tree', tree, ...parents, '-m', `timeline ${sessionId}`], { env });
	shadow.writeRef(timelineRef(sessionId), commit);
	return commit;
}

const plainMode = '100644';

/** Most files a step lists; a larger change (a generated tree, `npm install` into the workspace) says how many more. */
export const maxStepFiles = 2_000;

/** The files that differ between two trees, with line counts (binary files count 0 lines). */
export async function stepFiles(shadow: ShadowRepo, before: string, after: string): Promise<{ files: TimelineFile[]; more: number }> {
	if (before === after) {
		return { files: [], more: 0 };
	}
	const changes = await diffTrees(shadow, before, after);
	const files = changes.slice(0, maxStepFiles).map((c): TimelineFile => ({
		path: c.path,
		change: c.change,
		additions: c.additions ?? 0,
		deletions: c.deletions ?? 0,
		...(c.oldSha ? { blobBefore: c.oldSha } : {}),
		...(c.newSha ? { blobAfter: c.newSha } : {}),
		...(c.oldMode && c.oldMode !== plainMode ? { modeBefore: c.oldMode } : {}),
		...(c.newMode && c.newMode !== plainMode ? { modeAfter: c.newMode } : {}),
		...(c.binary ? { binary: true } : {}),
	}));
	return { files, more: Math.max(0, changes.length - maxStepFiles) };
}
