/**
 * The workspace's tree built from a known tree and the few paths the file watcher saw change: the
 * changed files are hashed and their folders' trees rewritten, up to the root, in this process
 * (gitObjects.ts); reading the folders on those paths (and the files' versions before, for the
 * step's line counts) takes at most one `git cat-file --batch`, none when this process read them
 * before. The shadow index is left as it was: the caller keeps the paths marked, so the next sync of
 * the index (a checkpoint's, or the catch-up after the hook answered) looks at them again.
 *
 * Anything unusual is left to the index-based sync, which knows every case: a folder among the
 * paths, a path under a symlink or inside `.git`, a new file inside a nested repository, a file over
 * the size cap or unreadable, a file where the tree holds a folder (or the reverse), a gitlink. The
 * answer is then null with the reason.
 */
import fs from 'node:fs';
import path from 'node:path';
import { splitNul } from '../git/gitRunner';
import { catBatch } from '../git/objectReader';
import { realFolders, underRepo } from './listChanged';
import { configBool, parseTree, serializeTree, treeMode, writeLooseObject, type TreeEntry } from './gitObjects';
import type { ShadowRepo } from './shadowRepo';

export interface PathState {
	mode: string;
	sha: string;
}

export interface BuiltTree {
	tree: string;
	base: string;
	/** Each claimed path as it is in `base` and in `tree` (null: absent). */
	paths: Map<string, { before: PathState | null; after: PathState | null }>;
}

const maxCachedTrees = 4_096;
const maxCachedBytes = 8 * 1024 * 1024;
/** Trees by id (immutable, so never stale): the folders on recently changed paths are read once. */
const trees = new Map<string, TreeEntry[]>();
/** Blob contents by id, recent ones: a step's line counts need the file's version before. */
const contents = new Map<string, Buffer>();
let contentBytes = 0;

export function cachedContent(sha: string): Buffer | undefined {
	return contents.get(sha);
}

export function cacheContent(sha: string, content: Buffer): void {
	if (content.length > maxCachedBytes / 4 || contents.has(sha)) {
		return;
	}
	contents.set(sha, content);
	contentBytes += content.length;
	for (const [key, value] of contents) {
		if (contentBytes <= maxCachedBytes) {
			break;
		}
		contents.delete(key);
		contentBytes -= value.length;
	}
}

function cacheTree(sha: string, entries: TreeEntry[]): void {
	trees.set(sha, entries);
	if (trees.size > maxCachedTrees) {
		trees.delete(trees.keys().next().value as string);
	}
}

type Wanted = { kind: 'file'; content: Buffer; executable: boolean; symlink: boolean } | { kind: 'gone' };

export type BuildResult = BuiltTree | { reason: string };

/** `base` with `paths` (files, `/`-separated, relative to the work tree) as they are now. The caller holds the shadow's lock. */
export async function treeFromPaths(repo: ShadowRepo, base: string, paths: readonly string[], maxFileSize: number, timeoutMs: number): Promise<BuildResult> {
	const wanted = new Map<string, Wanted>();
	const parents = new Map<string, boolean>();
	for (const rel of paths) {
		if (rel === '' || `/${rel}/`.includes('/.git/') || rel.split('/').some((part) => part === '' || part === '.' || part === '..')) {
			return { reason: `${rel} is not a plain workspace file path` };
		}
		if (!realFolders(repo.workTree, rel, parents)) {
			return { reason: `${rel} is under a symlink` };
		}
		const abs = path.join(repo.workTree, rel);
		let stat: fs.Stats | undefined;
		try {
			stat = fs.lstatSync(abs);
		} catch {
			// Gone.
		}
		if (!stat) {
			wanted.set(rel, { kind: 'gone' });
		} else if (stat.isSymbolicLink()) {
			wanted.set(rel, { kind: 'file', content: fs.readlinkSync(abs, { encoding: 'buffer' }), executable: false, symlink: true });
		} else if (stat.isFile()) {
			if (stat.size > maxFileSize) {
				return { reason: `${rel} is over the size cap` };
			}
			try {
				wanted.set(rel, { kind: 'file', content: fs.readFileSync(abs), executable: (stat.mode & 0o100) !== 0, symlink: false });
			} catch (error) {
				return { reason: `${rel} could not be read: ${(error as Error).message}` };
			}
		} else {
			return { reason: `${rel} is a folder or a special file` };
		}
	}
	const filemode = configBool(repo.gitDir, 'core', 'filemode', true);
	if ([...wanted.values()].some((w) => w.kind === 'file' && w.symlink) && !configBool(repo.gitDir, 'core', 'symlinks', true)) {
		return { reason: 'the store does not keep symlinks as such' };
	}

	// The folders on the paths, and the paths' entries, as far as the cache knows them.
	const dirs = new Map<string, TreeEntry[] | null>();
	const folderOf = (rel: string) => rel.slice(0, Math.max(rel.lastIndexOf('/'), 0));
	const allDirs = new Set<string>();
	for (const rel of wanted.keys()) {
		for (let dir = folderOf(rel); ; dir = folderOf(dir)) {
			allDirs.add(dir);
			if (dir === '') {
				break;
			}
		}
	}
	const ordered = [...allDirs].sort((a, b) => depth(a) - depth(b) || (a < b ? -1 : 1));
	const resolve = (): string[] => {
		const missing: string[] = [];
		for (const dir of ordered) {
			if (dirs.has(dir)) {
				continue;
			}
			if (dir === '') {
				const root = trees.get(base);
				if (root) {
					dirs.set('', root);
				} else {
					missing.push(dir);
				}
				continue;
			}
			const parent = dirs.get(folderOf(dir));
			if (parent === undefined) {
				missing.push(dir);
				continue;
			}
			const entry = parent?.find((e) => e.name === baseName(dir));
			if (!entry) {
				dirs.set(dir, null);
			} else if (entry.mode !== treeMode) {
				missing.push(`conflict:${dir}`);
			} else {
				const cached = trees.get(entry.sha);
				if (cached) {
					dirs.set(dir, cached);
				} else {
					missing.push(dir);
				}
			}
		}
		return missing;
	};
	let missing = resolve();
	if (missing.some((m) => m.startsWith('conflict:'))) {
		return { reason: 'a file path where the tree holds a file as a folder' };
	}
	// Old versions of the changed files, for the line counts: asked for with the folders, in one process.
	const oldBlobs = new Set<string>();
	const blobNames: string[] = [];
	for (const rel of wanted.keys()) {
		const entries = dirs.get(folderOf(rel));
		const entry = entries === undefined ? undefined : entries?.find((e) => e.name === baseName(rel));
		if (entries === undefined) {
			blobNames.push(`${base}:${rel}`);
		} else if (entry && entry.mode !== treeMode && !contents.has(entry.sha)) {
			oldBlobs.add(entry.sha);
		}
	}
	const names = [...missing.map((dir) => (dir === '' ? base : `${base}:${dir}`)), ...blobNames, ...oldBlobs];
	if (names.length > 0) {
		const objects = await catBatch(async (args, input) => (await repo.git(args, { ...(input !== undefined ? { input } : {}), timeoutMs })).stdout, names);
		const byDir = new Map<string, TreeEntry[] | null>();
		for (let i = 0; i < names.length; i++) {
			const object = objects[i];
			if (i < missing.length) {
				if (object && object.type !== 'tree') {
					return { reason: 'a file path where the tree holds a file as a folder' };
				}
				const entries = object ? parseTree(object.content) : null;
				if (object && entries) {
					cacheTree(object.oid, entries);
				}
				byDir.set(missing[i] as string, entries);
			} else if (object?.type === 'blob') {
				cacheContent(object.oid, object.content);
			}
		}
		if (!trees.has(base)) {
			return { reason: 'the previous tree is not in the store' };
		}
		for (const [dir, entries] of byDir) {
			if (entries === null) {
				dirs.set(dir, null);
			}
		}
		missing = resolve();
		if (missing.length > 0) {
			return { reason: 'the previous tree could not be read' };
		}
	}

	// New files: kept unless the ignore rules leave them out (tracked ones stay, as in the index).
	const fresh = [...wanted].filter(([rel, w]) => w.kind === 'file' && !entryOf(dirs, rel)).map(([rel]) => rel);
	const repos = new Map<string, boolean>();
	if (fresh.some((rel) => underRepo(repo.workTree, rel, repos))) {
		return { reason: 'a new file inside a nested repository' };
	}
	if (fresh.length > 0) {
		const ignored = new Set(splitNul((await repo.git(['check-ignore', '-z', '--no-index', '--stdin'], { input: `${fresh.join('\0')}\0`, okCodes: [1], timeoutMs })).stdout));
		for (const rel of ignored) {
			wanted.set(rel, { kind: 'gone' });
		}
	}

	// The new entries, then the changed folders bottom-up.
	const changed = new Map<string, TreeEntry[]>();
	const edit = (dir: string): TreeEntry[] => {
		let entries = changed.get(dir);
		if (!entries) {
			entries = [...(dirs.get(dir) ?? [])];
			changed.set(dir, entries);
		}
		return entries;
	};
	const result: BuiltTree = { tree: base, base, paths: new Map() };
	for (const [rel, w] of wanted) {
		const before = entryOf(dirs, rel);
		if (before && (before.mode === treeMode || before.mode === '160000')) {
			return { reason: `${rel} is a folder or a nested repository in the previous tree` };
		}
		let after: PathState | null = null;
		if (w.kind === 'file') {
			const mode = w.symlink ? '120000' : filemode ? (w.executable ? '100755' : '100644') : before && before.mode !== '120000' ? before.mode : '100644';
			after = { mode, sha: writeLooseObject(repo.gitDir, 'blob', w.content) };
			cacheContent(after.sha, w.content);
		}
		result.paths.set(rel, { before: before ? { mode: before.mode, sha: before.sha } : null, after });
		if (before?.sha === after?.sha && before?.mode === after?.mode) {
			continue;
		}
		const dir = folderOf(rel);
		if (dirs.get(dir) === null && dir !== '' && !after) {
			continue;
		}
		const entries = edit(dir);
		const at = entries.findIndex((e) => e.name === baseName(rel));
		if (at >= 0) {
			entries.splice(at, 1);
		}
		if (after) {
			entries.push({ mode: after.mode, name: baseName(rel), sha: after.sha });
			for (let d = dir; d !== ''; d = folderOf(d)) {
				edit(folderOf(d));
			}
		}
	}
	if (changed.size === 0) {
		return result;
	}
	// Every folder above a changed one changes too.
	for (const dir of [...changed.keys()]) {
		for (let d = dir; d !== ''; d = folderOf(d)) {
			edit(folderOf(d));
		}
	}
	for (const dir of [...changed.keys()].sort((a, b) => depth(b) - depth(a))) {
		const entries = changed.get(dir) as TreeEntry[];
		const sha = entries.length === 0 && dir !== '' ? null : writeLooseObject(repo.gitDir, 'tree', serializeTree(entries));
		if (sha) {
			cacheTree(sha, parseTree(serializeTree(entries)));
		}
		if (dir === '') {
			result.tree = sha as string;
			break;
		}
		const parent = changed.get(folderOf(dir)) as TreeEntry[];
		const at = parent.findIndex((e) => e.name === baseName(dir));
		if (at >= 0) {
			parent.splice(at, 1);
		}
		// An emptied folder leaves the tree, as it would the index.
		if (sha) {
			parent.push({ mode: treeMode, name: baseName(dir), sha });
		}
	}
	return result;
}

function entryOf(dirs: Map<string, TreeEntry[] | null>, rel: string): TreeEntry | undefined {
	const slash = rel.lastIndexOf('/');
	return dirs.get(slash < 0 ? '' : rel.slice(0, slash))?.find((e) => e.name === baseName(rel));
}

function baseName(rel: string): string {
	return rel.slice(rel.lastIndexOf('/') + 1);
}

function depth(dir: string): number {
	return dir === '' ? 0 : dir.split('/').length;
}
