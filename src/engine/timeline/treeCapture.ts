/**
 * One capture of the workspace for the timeline: bring the shadow store's index up to date (git's
 * stat cache makes an unchanged file cost one stat) and `write-tree` (skipped when the index was not
 * written since the last one). With the file watcher's few paths and the index's tree known, the
 * tree is instead built from that tree and the changed files (treeFromPaths.ts: no index read or
 * written, at most one git process), and the index is brought up to date after the hook has its
 * answer (indexCatchUp.ts); until then its paths stay claimed, so any sync before that (a capture's,
 * a checkpoint's) looks at them again. No commit, no checkpoint
 * record: a tree id is all a step needs. Only keyframe trees are kept from git's garbage collection,
 * by one commit chain per session under `refs/baton/timeline/<session>`; the blobs the steps between
 * wrote are kept in the session's own packs; they share every blob with checkpoints and with each other. Nothing here throws: a capture that cannot finish within its budget says why.
 */
import type { DirtyTracking } from '../watcher/dirtyTracking';
import { sha1Store } from '../shadow/gitObjects';
import { syncIndex, type SyncResult } from '../shadow/indexSync';
import { savedIndexTree, writeIndexTree } from '../shadow/indexTree';
import type { ShadowRepo } from '../shadow/shadowRepo';
import { treeFromPaths, type BuiltTree } from '../shadow/treeFromPaths';
import { diffTrees } from '../shadow/treeDiff';
import { scheduleIndexCatchUp } from './indexCatchUp';
import { knownStepFiles, noteBuilt } from './knownStepFiles';
import type { TimelineFile } from './timelineShapes';

export type Capture = { tree: string; reason?: undefined } | { tree?: undefined; reason: string };

interface CaptureOptions {
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
	/** False: always through the index (the catch-up itself). */
	fromTree?: boolean;
}

/** Past this many watcher paths the index-based sync is used (hashing them here gains nothing). */
const maxTreePaths = 200;

/**
 * How the last capture in this process got its tree (for tests and the benchmark): 'tree' when built
 * from the previous one, else why the watcher's paths went through the index (null: no paths, or no watcher).
 */
export const lastCapture: { via: 'tree' | 'index'; reason: string | null } = { via: 'index', reason: null };

/** The workspace's tree id as the shadow sees it now. The caller holds the shadow's lock. */
export async function captureTree(shadow: ShadowRepo, options: CaptureOptions): Promise<Capture> {
	try {
		const excludesChanged = await shadow.ensureInit(options.excludes);
		let built: BuiltTree | null = null;
		lastCapture.via = 'index';
		lastCapture.reason = null;
		const run = async (paths: string[] | undefined): Promise<SyncResult & { again?: string[] }> => {
			if (paths && paths.length > 0 && options.fromTree !== false) {
				const base = paths.length > maxTreePaths ? null : savedIndexTree(shadow);
				const result =
					base && sha1Store(shadow.gitDir)
						? await treeFromPaths(shadow, base, paths, options.maxFileSize, Math.max(options.deadline - Date.now(), 1_000))
						: { reason: base ? 'the store is not a SHA-1 one' : 'the index has no known tree or too many paths changed' };
				if ('tree' in result) {
					built = result;
					lastCapture.via = 'tree';
					return { fed: 0, skipped: [], degradedReason: null, nestedRepos: [], again: paths };
				}
				lastCapture.reason = result.reason;
			}
			return syncIndex(shadow, { ...(paths ? { paths } : {}), maxFileSize: options.maxFileSize, deadline: options.deadline });
		};
		// Half the budget at most for a watcher that is still starting: the scan needs the rest.
		const sync = options.dirty ? await options.dirty.sync(excludesChanged, run, Math.max(0, (options.deadline - Date.now()) / 2)) : await run(undefined);
		if (sync.degradedReason) {
			return { reason: `the workspace could not be read within the time budget (${sync.degradedReason})` };
		}
		const fromTree = built as BuiltTree | null;
		if (fromTree && options.dirty) {
			noteBuilt(fromTree);
			scheduleIndexCatchUp(shadow, { excludes: options.excludes, maxFileSize: options.maxFileSize, dirty: options.dirty });
			return { tree: fromTree.tree };
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
const maxStepFiles = 2_000;

/** The files that differ between two trees, with line counts (binary files count 0 lines). */
export async function stepFiles(shadow: ShadowRepo, before: string, after: string): Promise<{ files: TimelineFile[]; more: number }> {
	if (before === after) {
		return { files: [], more: 0 };
	}
	const known = await knownStepFiles(shadow, before, after, maxStepFiles);
	if (known) {
		return known;
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
