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
import { ignoreVerdictsOf } from './ignoreVerdicts';

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

type BuildResult = BuiltTree | { reason: string };

/** `base` with `paths` (files, `/`-separated, relative to the work tree) as they are now. The caller holds the shadow's lock. */
export async function treeFromPaths(repo: ShadowRepo, base: string, paths: readonly string[], maxFileSize: number, timeoutMs: number): Promise<BuildResult> {
	const wanted = readWanted(repo, paths, maxFileSize);
	if ('reason' in wanted) {
		return wanted;
	}
	const filemode = configBool(repo.gitDir, 'core', 'filemode', true);
	if ([...wanted.values()].some((w) => w.kind === 'file' && w.symlink) && !configBool(repo.gitDir, 'core', 'symlinks', true)) {
		return { reason: 'the store does not keep symlinks as such' };
	}
	const dirs = await readFolders(repo, base, [...wanted.keys()], timeoutMs);
	if ('reason' in dirs) {
		return dirs;
	}
	const inNested = await dropIgnoredNewFiles(repo, wanted, dirs, timeoutMs);
	if (inNested) {
		return inNested;
	}
	const result: BuiltTree = { tree: base, base, paths: new Map() };
	const changed = editEntries(repo, wanted, dirs, filemode, result);
	if ('reason' in changed) {
		return changed;
	}
	if (changed.size > 0) {
		writeFolders(repo, changed, result);
	}
	return result;
}

/** Why the tree is left to the index-based sync: a step that answers this ends the build with it. */
interface Refusal {
	reason: string;
}

/** Each path's state in the work tree (a file's content read), or why a path is left to the index-based sync. */
function readWanted(repo: ShadowRepo, paths: readonly string[], maxFileSize: number): Map<string, Wanted> | Refusal {
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
	return wanted;
}

/** A folder's entries in `base` (null: not there), by folder path (`''`: the root). */
type Folders = Map<string, TreeEntry[] | null>;

/**
 * The folders on the paths in `base`, from the cache where it knows them; the rest, and the old
 * versions of the changed files (for the line counts), are read in one process and cached.
 */
async function readFolders(repo: ShadowRepo, base: string, rels: readonly string[], timeoutMs: number): Promise<Folders | Refusal> {
	const dirs: Folders = new Map();
	const allDirs = new Set<string>();
	for (const rel of rels) {
		for (let dir = folderOf(rel); ; dir = folderOf(dir)) {
			allDirs.add(dir);
			if (dir === '') {
				break;
			}
		}
	}
	const ordered = [...allDirs].sort((a, b) => depth(a) - depth(b) || (a < b ? -1 : 1));
	let missing = resolveFolders(base, ordered, dirs);
	if (missing.some((m) => m.startsWith('conflict:'))) {
		return { reason: 'a file path where the tree holds a file as a folder' };
	}
	// Old versions of the changed files, for the line counts: asked for with the folders, in one process.
	const oldBlobs = new Set<string>();
	const blobNames: string[] = [];
	for (const rel of rels) {
		const entries = dirs.get(folderOf(rel));
		const entry = entries === undefined ? undefined : entries?.find((e) => e.name === baseName(rel));
		if (entries === undefined) {
			blobNames.push(`${base}:${rel}`);
		} else if (entry && entry.mode !== treeMode && !contents.has(entry.sha)) {
			oldBlobs.add(entry.sha);
		}
	}
	const names = [...missing.map((dir) => (dir === '' ? base : `${base}:${dir}`)), ...blobNames, ...oldBlobs];
	if (names.length === 0) {
		return dirs;
	}
	const byDir = await readObjects(repo, names, missing, timeoutMs);
	if ('reason' in byDir) {
		return byDir;
	}
	if (!trees.has(base)) {
		return { reason: 'the previous tree is not in the store' };
	}
	for (const [dir, entries] of byDir) {
		if (entries === null) {
			dirs.set(dir, null);
		}
	}
	missing = resolveFolders(base, ordered, dirs);
	return missing.length > 0 ? { reason: 'the previous tree could not be read' } : dirs;
}

/**
 * Fills `dirs` with the folders of `ordered` (parents first) that the cache knows, and returns those
 * it does not (`conflict:<dir>` when the tree holds a file where the path needs a folder).
 */
function resolveFolders(base: string, ordered: readonly string[], dirs: Folders): string[] {
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
}

/**
 * Reads `names` in one `cat-file --batch`: the first `missing.length` are the missing folders (their
 * trees cached, and returned by folder; null when absent), the rest old blobs (cached).
 */
async function readObjects(repo: ShadowRepo, names: readonly string[], missing: readonly string[], timeoutMs: number): Promise<Folders | Refusal> {
	const objects = await catBatch(async (args, input) => (await repo.git(args, { ...(input !== undefined ? { input } : {}), timeoutMs })).stdout, names);
	const byDir: Folders = new Map();
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
	return byDir;
}

/** New files: kept unless the ignore rules leave them out (tracked ones stay, as in the index); one inside a nested repository refuses. */
async function dropIgnoredNewFiles(repo: ShadowRepo, wanted: Map<string, Wanted>, dirs: Folders, timeoutMs: number): Promise<Refusal | undefined> {
	const fresh = [...wanted].filter(([rel, w]) => w.kind === 'file' && !entryOf(dirs, rel)).map(([rel]) => rel);
	const repos = new Map<string, boolean>();
	if (fresh.some((rel) => underRepo(repo.workTree, rel, repos))) {
		return { reason: 'a new file inside a nested repository' };
	}
	const verdicts = ignoreVerdictsOf(repo.gitDir, [...wanted.keys()]);
	const unknown = fresh.filter((rel) => !verdicts.has(rel));
	if (unknown.length > 0) {
		const ignored = new Set(
			splitNul((await repo.git(['check-ignore', '-z', '--no-index', '--stdin'], { input: `${unknown.join('\0')}\0`, okCodes: [1], timeoutMs })).stdout),
		);
		for (const rel of unknown) {
			verdicts.set(rel, ignored.has(rel));
		}
	}
	for (const rel of fresh) {
		if (verdicts.get(rel)) {
			wanted.set(rel, { kind: 'gone' });
		}
	}
	return undefined;
}

/**
 * Writes the changed files' blobs, records each path before and after in `result`, and returns the
 * edited entries of every folder that changed (copies; with every folder above them).
 */
function editEntries(
	repo: ShadowRepo,
	wanted: ReadonlyMap<string, Wanted>,
	dirs: Folders,
	filemode: boolean,
	result: BuiltTree,
): Map<string, TreeEntry[]> | Refusal {
	const changed = new Map<string, TreeEntry[]>();
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
		const entries = editFolder(changed, dirs, dir);
		const at = entries.findIndex((e) => e.name === baseName(rel));
		if (at >= 0) {
			entries.splice(at, 1);
		}
		if (after) {
			entries.push({ mode: after.mode, name: baseName(rel), sha: after.sha });
			for (let d = dir; d !== ''; d = folderOf(d)) {
				editFolder(changed, dirs, folderOf(d));
			}
		}
	}
	if (changed.size > 0) {
		// Every folder above a changed one changes too.
		for (const dir of [...changed.keys()]) {
			for (let d = dir; d !== ''; d = folderOf(d)) {
				editFolder(changed, dirs, folderOf(d));
			}
		}
	}
	return changed;
}

/** The entries of `dir` being edited: a copy of its entries in the base, made on first use. */
function editFolder(changed: Map<string, TreeEntry[]>, dirs: Folders, dir: string): TreeEntry[] {
	let entries = changed.get(dir);
	if (!entries) {
		entries = [...(dirs.get(dir) ?? [])];
		changed.set(dir, entries);
	}
	return entries;
}

/** Writes the changed folders' trees bottom-up, each into its parent's entries, the root's into `result.tree`. */
function writeFolders(repo: ShadowRepo, changed: Map<string, TreeEntry[]>, result: BuiltTree): void {
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
}

/** The folder holding `rel` (`''`: the root). */
function folderOf(rel: string): string {
	return rel.slice(0, Math.max(rel.lastIndexOf('/'), 0));
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
