/**
 * Brings the shadow index in line with the workspace: the expensive half of a snapshot.
 *
 * One `git status` lists what changed since the last snapshot (the index caches stat data, so
 * unchanged files cost a stat each, and untracked folders that did not change are not read); with
 * the file watcher's paths, tracked files and new ones need no status (see listChanged.ts). The listed paths are size-checked, then fed
 * to `update-index --add --remove --stdin` in batches: progress is reported after each batch, and
 * each batch is written to the index, so a snapshot cut short by its time budget keeps what it did
 * and the next one continues from there (the first snapshot of a large workspace takes seconds).
 *
 * Nested repositories (a folder with its own `.git`) are listed by git as `dir/` and would be stored
 * as a bare gitlink. Their files are fed in explicitly instead, from `git ls-files -co
 * --exclude-standard` run read-only inside them, filtered by Baton's own excludes. From then on the
 * shadow sees the folder as an ordinary one; the nested `.git` itself is never read through the
 * shadow nor written.
 */
import fs from 'node:fs';
import path from 'node:path';
import { BatonError } from '../errors';
import type { SkippedFile } from '../storage/jsonShapes';
import { runGit, splitNul } from '../git/gitRunner';
import { listChanged, type Listed } from './listChanged';
import { carryIndexPaths, indexStamp } from './indexPaths';
import type { ShadowRepo } from './shadowRepo';
import { forgetIgnoreVerdicts } from './ignoreVerdicts';
import { pushAll } from '../arrays';
import { formatBytes } from '../text/byteSizes';

export interface SyncProgress {
	phase: 'listing' | 'hashing' | 'committing';
	/** Files hashed so far in this snapshot, out of `total` (0 while listing). */
	done: number;
	total: number;
}

interface SyncOptions {
	maxFileSize: number;
	/** `performance.now()`-style deadline in ms (Date.now()). */
	deadline: number;
	onProgress?: ((progress: SyncProgress) => void) | undefined;
	/** For tests and the benchmark: a smaller batch shows the resume-after-budget behaviour. */
	batchFiles?: number;
	/**
	 * The only workspace paths (files or folders) that may differ from the index, as the file watcher
	 * saw them: the listing looks at these alone. Undefined: look at everything (the full scan).
	 */
	paths?: readonly string[] | undefined;
}

export interface SyncResult {
	/** Paths handed to update-index. */
	fed: number;
	skipped: SkippedFile[];
	degradedReason: string | null;
	nestedRepos: string[];
}

const batchBytes = 32 * 1024 * 1024;
const defaultBatchFiles = 2_000;
const nestedFile = 'baton-nested.json';
const maxNestedDepth = 4;

/** Lists what changed, size-checks it, and feeds it to the index in batches until done or out of time. */
export async function syncIndex(repo: ShadowRepo, options: SyncOptions): Promise<SyncResult> {
	const skipped: SkippedFile[] = [];
	// The sync takes in any changed .gitignore: the captures' kept ignore verdicts no longer know the rules.
	forgetIgnoreVerdicts(repo.gitDir);
	const remaining = () => options.deadline - Date.now();
	options.onProgress?.({ phase: 'listing', done: 0, total: 0 });
	let listing: Listed[];
	try {
		listing = await listChanged(repo, options.paths, Math.max(remaining(), 1_000));
	} catch (error) {
		if (BatonError.is(error, 'gitFailed') && error.details?.['timedOut']) {
			return {
				fed: 0,
				skipped,
				degradedReason: `listing the workspace's files took longer than the time budget; this checkpoint holds the files as of the previous snapshot`,
				nestedRepos: readNested(repo),
			};
		}
		throw error;
	}
	const { paths, untracked, nested } = await listedPaths(repo, listing, skipped);
	const feed = await sizeChecked(repo, paths, untracked, options.maxFileSize, skipped);
	const { done, degradedReason } = await feedIndex(repo, feed, options, skipped, remaining);
	return { fed: done, skipped, degradedReason, nestedRepos: [...nested].sort() };
}

/** A path to hand to update-index, with its size (for the batch's byte cap). */
interface FeedEntry {
	path: string;
	size: number;
	untracked: boolean;
}

/**
 * The listed paths (which of them untracked), with the files of nested repositories the listing
 * named as `dir/` in place of the folder; the nested repositories known so far are recorded.
 */
async function listedPaths(
	repo: ShadowRepo,
	listing: readonly Listed[],
	skipped: SkippedFile[],
): Promise<{ paths: Set<string>; untracked: Set<string>; nested: Set<string> }> {
	const paths = new Set<string>();
	const untracked = new Set<string>();
	const nestedCandidates: string[] = [];
	for (const entry of listing) {
		if (entry.path.endsWith('/')) {
			nestedCandidates.push(entry.path.slice(0, -1));
		} else {
			paths.add(entry.path);
			if (entry.untracked) {
				untracked.add(entry.path);
			}
		}
	}
	const nested = new Set(readNested(repo).filter((dir) => isRepo(path.join(repo.workTree, dir))));
	for (const dir of nestedCandidates) {
		if (!isRepo(path.join(repo.workTree, dir))) {
			continue;
		}
		const files = await nestedFiles(repo, dir, 0, skipped);
		for (const file of await notIgnored(repo, files)) {
			paths.add(file);
		}
		nested.add(dir);
	}
	writeNested(repo, [...nested].sort());
	return { paths, untracked, nested };
}

/**
 * The paths to feed, past the size cap: only the listed (new or changed) paths are looked at, so a
 * snapshot costs a stat per change. A file over the cap is skipped and, like a tracked file that
 * became a folder, removed from the index.
 */
async function sizeChecked(
	repo: ShadowRepo,
	paths: ReadonlySet<string>,
	untracked: ReadonlySet<string>,
	maxFileSize: number,
	skipped: SkippedFile[],
): Promise<FeedEntry[]> {
	const feed: FeedEntry[] = [];
	const oversized: string[] = [];
	for (const rel of paths) {
		let stat: fs.Stats | undefined;
		try {
			stat = fs.lstatSync(path.join(repo.workTree, rel));
		} catch {
			// Gone: update-index --remove drops it.
		}
		if (stat?.isFile() && stat.size > maxFileSize) {
			if (!untracked.has(rel)) {
				oversized.push(rel);
			}
			skipped.push({ path: rel, size: stat.size, reason: `larger than the ${formatBytes(maxFileSize)} limit` });
		} else if (stat?.isDirectory()) {
			// A tracked file that became a folder: drop the entry (its files are listed on their own);
			// update-index --add would store a folder holding a .git as a gitlink.
			if (!untracked.has(rel)) {
				oversized.push(rel);
			}
		} else {
			feed.push({ path: rel, size: stat?.isFile() ? stat.size : 0, untracked: untracked.has(rel) });
		}
	}
	if (oversized.length > 0) {
		// A file that grew past the cap must not stay in the snapshot with its old content (one that
		// never was in the index is left alone: removing nothing would still rewrite the index).
		const before = indexStamp(repo.indexFile);
		await repo.git(['update-index', '-z', '--force-remove', '--stdin'], { input: nulJoin(oversized) });
		carryIndexPaths(repo, before, [], oversized);
	}
	return feed;
}

/**
 * Feeds `feed` to update-index in batches (at most `batchFiles` paths and about batchBytes each),
 * reporting progress after each; when the time budget runs out between batches the rest is left
 * for the next checkpoint and `degradedReason` says so.
 */
async function feedIndex(
	repo: ShadowRepo,
	feed: FeedEntry[],
	options: SyncOptions,
	skipped: SkippedFile[],
	remaining: () => number,
): Promise<{ done: number; degradedReason: string | null }> {
	// Paths the index has first, new ones last: a folder replaced by a file or symlink of its name
	// cannot be added while the folder's files are still in the index (update-index refuses the path
	// as both file and folder). Whether those files are gone is git's to say, not lstat's: through a
	// symlink that replaced their folder, a file of the same name elsewhere may answer.
	feed.sort((a, b) => Number(a.untracked) - Number(b.untracked));
	let done = 0;
	let degradedReason: string | null = null;
	const batchFiles = options.batchFiles ?? defaultBatchFiles;
	for (let start = 0; start < feed.length;) {
		if (remaining() <= 0) {
			degradedReason = `the ${feed.length - done} of ${feed.length} changed files not yet captured when the time budget ran out are as of the previous snapshot; the next checkpoint continues`;
			break;
		}
		let end = start;
		let bytes = 0;
		while (end < feed.length && end - start < batchFiles && (bytes < batchBytes || end === start)) {
			bytes += (feed[end] as { size: number }).size;
			end++;
		}
		const batch = feed.slice(start, end).map((f) => f.path);
		const before = indexStamp(repo.indexFile);
		const unreadable = await updateIndexBatch(repo, batch, skipped, remaining);
		// What update-index made of each path: an entry when a file (or symlink) is there, none when not.
		const added = batch.filter((p) => !unreadable.has(p) && isEntry(path.join(repo.workTree, p)));
		const addedSet = new Set(added);
		carryIndexPaths(
			repo,
			before,
			added,
			batch.filter((p) => !addedSet.has(p)),
		);
		done = end;
		start = end;
		options.onProgress?.({ phase: 'hashing', done, total: feed.length });
	}
	return { done, degradedReason };
}

/**
 * One `update-index` call. A path git cannot read (permissions, a file that turned into something
 * else) fails the whole call: it is recorded as skipped and the batch retried without it.
 */
async function updateIndexBatch(repo: ShadowRepo, batch: string[], skipped: SkippedFile[], remaining: () => number): Promise<Set<string>> {
	let pending = batch;
	const unreadable = new Set<string>();
	for (let attempt = 0; pending.length > 0; attempt++) {
		try {
			// The budget is checked between batches; a batch already running gets time to finish.
			await repo.git(['update-index', '--add', '--remove', '-z', '--stdin'], { input: nulJoin(pending), timeoutMs: Math.max(remaining(), 0) + 120_000 });
			return unreadable;
		} catch (error) {
			const stderr = BatonError.is(error) ? String(error.details?.['stderr'] ?? '') : '';
			const bad = /Unable to process path (.+)$/m.exec(stderr)?.[1] ?? /error: (?:open|read)\("(.+?)"\)/.exec(stderr)?.[1];
			if (!bad || attempt >= 50 || !pending.includes(bad)) {
				throw error;
			}
			let size = 0;
			try {
				size = fs.lstatSync(path.join(repo.workTree, bad)).size;
			} catch {
				// Size unknown.
			}
			skipped.push({ path: bad, size, reason: `unreadable: ${stderr.trim().split('\n')[0] ?? 'git could not read it'}` });
			await repo.git(['update-index', '-z', '--force-remove', '--stdin'], { input: nulJoin([bad]) });
			unreadable.add(bad);
			pending = pending.filter((p) => p !== bad);
		}
	}
	return unreadable;
}

/** The files a nested repository holds (tracked and untracked, its own .gitignore applied), read-only. */
async function nestedFiles(repo: ShadowRepo, dir: string, depth: number, skipped: SkippedFile[]): Promise<string[]> {
	const cwd = path.join(repo.workTree, dir);
	let entries: string[];
	try {
		entries = splitNul((await runGit(['ls-files', '-z', '-c', '-o', '--exclude-standard'], { cwd, env: repo.userRepoEnv(), timeoutMs: 60_000 })).stdout);
	} catch (error) {
		skipped.push({ path: `${dir}/`, size: 0, reason: `nested repository could not be listed: ${(error as Error).message}` });
		return [];
	}
	const out: string[] = [];
	for (const entry of entries) {
		const rel = entry.endsWith('/') ? entry.slice(0, -1) : entry;
		const full = `${dir}/${rel}`;
		// A repository inside the nested one: a submodule (gitlink, listed without a slash) or untracked.
		if ((entry.endsWith('/') || isDirectory(path.join(repo.workTree, full))) && isRepo(path.join(repo.workTree, full))) {
			if (depth + 1 < maxNestedDepth) {
				pushAll(out, [...(await nestedFiles(repo, full, depth + 1, skipped))]);
			}
			continue;
		}
		if (!entry.endsWith('/')) {
			out.push(full);
		}
	}
	return out;
}

/** Drops the paths Baton's excludes (and the workspace's .gitignore files) leave out. */
async function notIgnored(repo: ShadowRepo, files: string[]): Promise<string[]> {
	if (files.length === 0) {
		return files;
	}
	const ignored = new Set(splitNul((await repo.git(['check-ignore', '-z', '--no-index', '--stdin'], { input: nulJoin(files), okCodes: [1] })).stdout));
	return ignored.size === 0 ? files : files.filter((f) => !ignored.has(f));
}

function readNested(repo: ShadowRepo): string[] {
	try {
		const parsed = JSON.parse(fs.readFileSync(path.join(repo.gitDir, nestedFile), 'utf8')) as unknown;
		return Array.isArray(parsed) ? parsed.filter((x): x is string => typeof x === 'string') : [];
	} catch {
		return [];
	}
}

function writeNested(repo: ShadowRepo, dirs: string[]): void {
	const text = `${JSON.stringify(dirs)}\n`;
	const file = path.join(repo.gitDir, nestedFile);
	try {
		if (fs.readFileSync(file, 'utf8') === text) {
			return;
		}
	} catch {
		// Written below.
	}
	fs.writeFileSync(file, text);
}

function isRepo(dir: string): boolean {
	try {
		fs.lstatSync(path.join(dir, '.git'));
		return true;
	} catch {
		return false;
	}
}

/** What `update-index --add` keeps an entry for: anything there but a folder. */
function isEntry(p: string): boolean {
	try {
		return !fs.lstatSync(p).isDirectory();
	} catch {
		return false;
	}
}

function isDirectory(p: string): boolean {
	try {
		return fs.lstatSync(p).isDirectory();
	} catch {
		return false;
	}
}

export function nulJoin(paths: readonly string[]): string {
	return paths.length ? `${paths.join('\0')}\0` : '';
}
