/**
 * One capture of the workspace for the timeline: bring the shadow store's index up to date (git's
 * stat cache makes an unchanged file cost one stat) and `write-tree` (skipped when the index was not
 * written since the last one). No commit, no checkpoint
 * record: a tree id is all a step needs. Only keyframe trees are kept from git's garbage collection,
 * by one commit chain per session under `refs/baton/timeline/<session>`, together with the blobs the
 * steps between wrote; they share every blob with checkpoints and with each other. Nothing here throws: a capture that cannot finish within its budget says why.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { DirtyTracking } from '../checkpoints/dirtyTracking';
import { syncIndex } from '../checkpoints/indexSync';
import { writeIndexTree } from '../checkpoints/indexTree';
import type { ShadowRepo } from '../checkpoints/shadowRepo';
import { diffTrees } from '../checkpoints/treeDiff';
import type { KeptBlob } from './timelineState';
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
 * prunes it. `blobs` are the blobs (with their paths) the session's steps wrote since the previous
 * keyframe; whole trees of ordinary steps are not kept (docs/replay.md), so these blobs are kept here
 * instead, in one small tree whose commit is the keyframe's second parent. Returns the new head
 * commit. The caller holds the shadow's lock.
 */
export async function keepKeyframe(shadow: ShadowRepo, sessionId: string, tree: string, parent: string | null, blobs: readonly KeptBlob[], nowMs: number): Promise<string> {
	const date = `@${Math.floor(nowMs / 1000)} +0000`;
	const env = { GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date };
	const parents = parent ? ['-p', parent] : [];
	const list = await blobListTree(shadow, blobs);
	if (list) {
		const holder = await shadow.gitText(['commit-tree', list, '-m', `timeline blobs ${sessionId}`], { env });
		parents.push('-p', holder);
	}
	const commit = await shadow.gitText(['commit-tree', tree, ...parents, '-m', `timeline ${sessionId}`], { env });
	shadow.writeRef(timelineRef(sessionId), commit);
	return commit;
}

/**
 * A tree holding `blobs`, each at `<n>/<the end of its path>`: git's packing looks for a blob's delta
 * base among objects whose paths end alike (its name hash is made of the last 16 non-blank
 * characters), so the list ends each blob's path as the workspace does and the new version packs as
 * a small delta of the old; the rest of the path would only add trees. A tail already listed, or
 * clashing with a folder, goes under the next `<n>`. Blobs the store no longer holds are left out: a tree naming a missing object
 * would break every later repack. Null when there is nothing to list.
 */
async function blobListTree(shadow: ShadowRepo, blobs: readonly KeptBlob[]): Promise<string | null> {
	const shas = [...new Set(blobs.map((b) => b[0]))];
	if (shas.length === 0) {
		return null;
	}
	const check = (await shadow.git(['cat-file', '--batch-check=%(objectname) %(objecttype)'], { input: `${shas.join('\n')}\n` })).stdout.toString('utf8');
	const present = new Set(
		check
			.split('\n')
			.filter((l) => l.endsWith(' blob'))
			.map((l) => l.slice(0, -' blob'.length)),
	);
	const generations: { files: Set<string>; dirs: Set<string> }[] = [];
	const seen = new Set<string>();
	const lines: string[] = [];
	for (const [sha, file] of blobs) {
		if (!present.has(sha) || seen.has(`${sha} ${file}`)) {
			continue;
		}
		seen.add(`${sha} ${file}`);
		const tail = hashTail(file);
		const parts = tail.split('/');
		const dirs = parts.slice(0, -1).map((_, i) => parts.slice(0, i + 1).join('/'));
		let n = 0;
		for (; ; n++) {
			const g = (generations[n] ??= { files: new Set(), dirs: new Set() });
			if (!g.files.has(tail) && !g.dirs.has(tail) && !dirs.some((d) => g.files.has(d))) {
				g.files.add(tail);
				dirs.forEach((d) => g.dirs.add(d));
				break;
			}
		}
		lines.push(`100644 ${sha}\t${n}/${tail}\0`);
	}
	if (lines.length === 0) {
		return null;
	}
	const index = path.join(shadow.gitDir, `baton-blobs-${process.pid}.index`);
	const env = { GIT_INDEX_FILE: index, GIT_LITERAL_PATHSPECS: '1' };
	try {
		fs.rmSync(index, { force: true });
		await shadow.git(['update-index', '--add', '-z', '--index-info'], { env, input: lines.join('') });
		return await shadow.gitText(['write-tree'], { env });
	} finally {
		fs.rmSync(index, { force: true });
	}
}

/** The end of `file` that git's pack name hash reads: its last 16 non-blank characters, never starting at a `/`. */
function hashTail(file: string): string {
	let start = file.length;
	for (let count = 0; start > 0 && count < 16;) {
		start--;
		if (!/\s/.test(file[start] as string)) {
			count++;
		}
	}
	while (file[start] === '/') {
		start++;
	}
	const tail = file.slice(start);
	// A cut name git refuses as a path component (`.`, `..`, `.git`): the whole path, which git took.
	return tail && !tail.split('/').some((part) => part === '.' || part === '..' || part.toLowerCase() === '.git') ? tail : file;
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
