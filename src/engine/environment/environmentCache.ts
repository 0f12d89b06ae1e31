/**
 * What the environment probes found, remembered in memory (the backend runs them once) and in a
 * file under `.baton/cache/` (a short CLI process reads what an earlier one found). Every entry is
 * stored with the fingerprint of its inputs and used only while that fingerprint still matches, so
 * the file can be stale, lost or written by two processes at once without giving a wrong answer:
 * the worst is one more probe.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { EnvironmentSnapshot } from '../storage/jsonShapes';
import { mkdirInExisting, privateFileMode } from '../workspace';
import type { PackageSet } from './lockfilePackages';

export type GitState = NonNullable<EnvironmentSnapshot['git']>;

interface CacheData {
	/** Command output by binary fingerprint (resolved path, inode, size, mtime, ctime and arguments). */
	versions: Record<string, string>;
	/** Parsed lockfile by absolute path, with the stat (and direct dependencies) it was read at. */
	lockfiles: Record<string, { key: string; value: PackageSet | null }>;
	/** The user's `git status` by workspace root, with what it was read against. */
	git: Record<string, { fingerprint: string; state: GitState | null }>;
}

/** Bounds, so a long-lived cache file stays a few hundred kilobytes at most. */
const maxVersions = 200;
const maxLockfiles = 50;
const maxGitStates = 20;

export class EnvironmentCache {
	private data: CacheData = { versions: {}, lockfiles: {}, git: {} };
	private changed = false;
	/** Stat of the file when it was last read: a later read only when another process wrote it. */
	private readStamp: string | undefined;

	constructor(private readonly file: string | undefined) {}

	/** Takes in what other processes wrote since the last look (a stat when nothing did). */
	refresh(): void {
		if (!this.file) return;
		const stamp = statStamp(this.file);
		if (stamp === this.readStamp) return;
		this.readStamp = stamp;
		const disk = readCacheFile(this.file);
		// Entries check their own fingerprints: which copy wins only decides which one is tried.
		this.data = {
			versions: { ...this.data.versions, ...disk.versions },
			lockfiles: { ...this.data.lockfiles, ...disk.lockfiles },
			git: { ...this.data.git, ...disk.git },
		};
	}

	version(key: string): string | undefined {
		return this.data.versions[key];
	}

	setVersion(key: string, value: string): void {
		if (this.data.versions[key] === value) return;
		this.data.versions[key] = value;
		this.changed = true;
	}

	lockfile(file: string, key: string): { value: PackageSet | null } | undefined {
		const hit = this.data.lockfiles[file];
		return hit?.key === key ? { value: hit.value } : undefined;
	}

	setLockfile(file: string, key: string, value: PackageSet | null): void {
		if (this.data.lockfiles[file]?.key === key) return;
		this.data.lockfiles[file] = { key, value };
		this.changed = true;
	}

	git(root: string, fingerprint: string): { state: GitState | null } | undefined {
		const hit = this.data.git[root];
		return hit?.fingerprint === fingerprint ? { state: hit.state } : undefined;
	}

	/** The fingerprint the last git state of `root` was read against. */
	gitFingerprint(root: string): string | undefined {
		return this.data.git[root]?.fingerprint;
	}

	setGit(root: string, fingerprint: string, state: GitState | null): void {
		this.data.git[root] = { fingerprint, state };
		this.changed = true;
	}

	/** Writes what this process learnt (merged over what others wrote meanwhile); never throws. */
	save(): void {
		if (!this.file || !this.changed) return;
		try {
			const disk = readCacheFile(this.file);
			const merged: CacheData = {
				versions: newest({ ...disk.versions, ...this.data.versions }, maxVersions),
				lockfiles: newest({ ...disk.lockfiles, ...this.data.lockfiles }, maxLockfiles),
				git: newest({ ...disk.git, ...this.data.git }, maxGitStates),
			};
			mkdirInExisting(path.dirname(this.file));
			// Whole or not at all: a reader never sees half a file.
			const temp = `${this.file}.${process.pid}.tmp`;
			fs.writeFileSync(temp, `${JSON.stringify(merged)}\n`, { mode: privateFileMode });
			fs.renameSync(temp, this.file);
			this.data = merged;
			this.readStamp = statStamp(this.file);
			this.changed = false;
		} catch {
			// A cache: losing it costs one more probe.
		}
	}
}

const caches = new Map<string, EnvironmentCache>();

/** One cache per file in a process (the backend keeps it warm); without a file, memory only. */
export function environmentCache(file: string | undefined): EnvironmentCache {
	const key = file ?? '';
	let cache = caches.get(key);
	if (!cache) {
		cache = new EnvironmentCache(file);
		caches.set(key, cache);
	}
	return cache;
}

function readCacheFile(file: string): CacheData {
	try {
		const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<CacheData> | null;
		const table = <T>(value: unknown): Record<string, T> =>
			value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, T>) : {};
		return { versions: table(parsed?.versions), lockfiles: table(parsed?.lockfiles), git: table(parsed?.git) };
	} catch {
		return { versions: {}, lockfiles: {}, git: {} };
	}
}

function statStamp(file: string): string | undefined {
	try {
		const st = fs.statSync(file);
		return `${st.size}:${st.mtimeMs}:${st.ino}`;
	} catch {
		return undefined;
	}
}

/** The last `limit` entries by insertion order (later writes were inserted last). */
function newest<T>(record: Record<string, T>, limit: number): Record<string, T> {
	const entries = Object.entries(record);
	return Object.fromEntries(entries.slice(Math.max(0, entries.length - limit)));
}
