/**
 * The platform's file watcher over the workspace, feeding `DirtyPaths`: one non-recursive `fs.watch`
 * per folder (inotify on Linux, FSEvents on macOS, ReadDirectoryChangesW on Windows), `.git` folders
 * and Baton's own folder left out. A folder that appears is marked dirty as a whole once it is
 * watched, so files created in it before that are not missed.
 *
 * What it cannot vouch for it says: a watch that cannot be added (the inotify limit), a watcher
 * error, or a burst of events as large as the kernel's queue (Linux drops events past it without
 * telling libuv) turns the set into "unknown", and the next snapshot scans the whole workspace.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../ports';
import { mkdirPrivate, privateFileMode } from '../workspace';
import type { DirtyPaths } from './dirtyPaths';

/** The flush marker's watch, kept apart from the workspace folders' (no folder path holds a NUL). */
const markerKey = '\0marker';

interface WatcherOptions {
	/** Folder names never watched (relative to the workspace, `/`-separated). */
	skip?: readonly string[];
	/** A folder Baton writes the flush marker to; watched on its own even inside a skipped folder. */
	markerDir: string;
}

export class WorkspaceWatcher {
	private readonly watchers = new Map<string, fs.FSWatcher>();
	/**
	 * The folder each watch was attached to, by inode: an inotify watch follows its folder when it is
	 * renamed, so a watch kept under the old path would report the moved folder and miss a new one
	 * created at that path.
	 */
	private readonly inodes = new Map<string, number>();
	private stopped = false;
	private burst = 0;
	private burstReset: NodeJS.Immediate | undefined;
	private readonly overflowAt = procLimit('max_queued_events', 0.9, 16_384);
	/** Half the inotify watches this user may have: the editor and other tools need the rest. */
	private readonly maxFolders = procLimit('max_user_watches', 0.5, 50_000);
	private readonly waiting = new Map<string, () => void>();
	private markerCount = 0;

	constructor(
		readonly root: string,
		private readonly dirty: DirtyPaths,
		private readonly log: Logger,
		private readonly options: WatcherOptions,
	) {}

	/** Watches every folder; the set becomes trustworthy from the next full scan on. */
	async start(): Promise<void> {
		mkdirPrivate(this.options.markerDir);
		this.watchMarkerDir();
		await this.watchTree('');
		if (!this.stopped) {
			this.dirty.setWatching(true);
		}
	}

	stop(): void {
		if (this.stopped) {
			return;
		}
		this.stopped = true;
		for (const watcher of this.watchers.values()) {
			watcher.close();
		}
		this.watchers.clear();
		this.dirty.setWatching(false, 'the file watcher was stopped');
	}

	/**
	 * Resolves once every change made before the call has been reported: the kernel queues events in
	 * order, so when the event of a marker written now arrives, all earlier ones have. False (and the
	 * set marked unknown) when the marker's event does not come in time.
	 */
	async flush(timeoutMs = 2_000): Promise<boolean> {
		if (this.stopped || !this.dirty.isWatching) {
			return false;
		}
		const token = `watch-marker-${process.pid}-${++this.markerCount}`;
		const arrived = new Promise<boolean>((resolve) => {
			const timer = setTimeout(() => {
				this.waiting.delete(token);
				resolve(false);
			}, timeoutMs);
			this.waiting.set(token, () => {
				clearTimeout(timer);
				resolve(true);
			});
		});
		const file = path.join(this.options.markerDir, token);
		fs.writeFileSync(file, '', { mode: privateFileMode });
		const ok = await arrived;
		fs.rmSync(file, { force: true });
		if (!ok) {
			this.dirty.invalidate('the file watcher did not answer in time');
		}
		return ok;
	}

	private watchMarkerDir(): void {
		// Each flush writes a marker of its own name: its event says exactly which flush arrived.
		const watcher = this.watchFolder(this.options.markerDir, (filename) => {
			const arrived = filename === null ? undefined : this.waiting.get(filename);
			if (filename !== null && arrived) {
				this.waiting.delete(filename);
				arrived();
			}
		});
		if (watcher) {
			this.watchers.set(markerKey, watcher);
		}
	}

	/** Watches `rel` and every folder under it (breadth first, asynchronously: a big tree never blocks the backend). */
	private async watchTree(rel: string): Promise<void> {
		const queue = [rel];
		while (queue.length > 0 && !this.stopped) {
			const dir = queue.shift() as string;
			if (this.watchers.size >= this.maxFolders) {
				this.fail(`the workspace has more than ${this.maxFolders} folders to watch`);
				return;
			}
			if (this.watchers.has(dir) || !this.addWatch(dir)) {
				continue;
			}
			let entries: fs.Dirent[];
			try {
				entries = await fs.promises.readdir(path.join(this.root, dir), { withFileTypes: true });
			} catch {
				continue; // Gone again: its parent's event already marked it.
			}
			for (const entry of entries) {
				const child = dir ? `${dir}/${entry.name}` : entry.name;
				if (entry.isDirectory() && !this.skipped(child)) {
					queue.push(child);
				}
			}
		}
	}

	private skipped(rel: string): boolean {
		return path.posix.basename(rel) === '.git' || (this.options.skip ?? []).some((s) => rel === s || rel.startsWith(`${s}/`));
	}

	private addWatch(dir: string): boolean {
		const watcher = this.watchFolder(path.join(this.root, dir), (filename) => this.onEvent(dir, filename));
		if (!watcher) {
			return false;
		}
		this.watchers.set(dir, watcher);
		try {
			this.inodes.set(dir, fs.lstatSync(path.join(this.root, dir)).ino);
		} catch {
			this.inodes.delete(dir);
		}
		return true;
	}

	private watchFolder(abs: string, onEvent: (filename: string | null) => void): fs.FSWatcher | undefined {
		try {
			const watcher = fs.watch(abs, { persistent: false }, (_event, filename) => onEvent(filename === null ? null : String(filename)));
			watcher.on('error', (error: Error) => this.fail(`the file watcher failed on ${abs}: ${error.message}`));
			return watcher;
		} catch (error) {
			const code = (error as NodeJS.ErrnoException).code;
			if (code === 'ENOENT' || code === 'ENOTDIR') {
				return undefined;
			}
			// ENOSPC (the inotify limit), EMFILE, EPERM: this folder would go unseen.
			this.fail(`cannot watch ${abs}: ${(error as Error).message}`);
			return undefined;
		}
	}

	private onEvent(dir: string, filename: string | null): void {
		if (this.stopped) {
			return;
		}
		this.countBurst();
		const name = filename === null ? null : filename.split(path.sep).join('/');
		if (name === null || name === path.basename(path.join(this.root, dir))) {
			// libuv names an event about the watched folder itself (deleted, moved away, attributes)
			// after that folder; a child of the same name reads the same. Either way the folder is
			// looked at as a whole, and its watch is renewed.
			this.folderChanged(dir);
			return;
		}
		const rel = dir ? `${dir}/${name}` : name;
		if (this.skipped(rel)) {
			return;
		}
		if (path.posix.basename(rel) === '.gitignore') {
			// Ignore rules changed: files that did not change may now count (or no longer).
			this.dirty.invalidate(`${rel} changed`);
			return;
		}
		this.dirty.mark(rel);
		let stat: fs.Stats;
		try {
			stat = fs.lstatSync(path.join(this.root, rel));
		} catch {
			this.unwatch(rel);
			return;
		}
		const isDir = stat.isDirectory();
		if (this.watchers.has(rel) && (!isDir || this.inodes.get(rel) !== stat.ino)) {
			// The path names another folder (or no folder) than the one watched: that one was renamed away.
			this.unwatch(rel);
		}
		if (isDir && !this.watchers.has(rel)) {
			// Watch the new folder, then mark it again: anything created in it before the watch is covered.
			void this.watchTree(rel).then(() => this.dirty.mark(rel));
		}
	}

	/**
	 * The watched folder itself was deleted, moved or changed. Its watch (and those under it) cannot be
	 * trusted: a moved folder's watch follows it elsewhere, a deleted one's is dead, and a folder
	 * created again at the path before these events are read often gets the freed inode number back,
	 * so comparing inodes cannot tell the new folder from the old. So the watches are dropped and,
	 * when a folder is there now, attached again, and the folder is marked as a whole once they are.
	 */
	private folderChanged(dir: string): void {
		if (dir === '') {
			this.dirty.invalidate('the workspace folder itself changed');
			if (!isDirectory(this.root)) {
				this.fail('the workspace folder was removed or moved');
				return;
			}
			this.unwatch('');
			void this.watchTree('').then(() => this.dirty.invalidate('the workspace folder itself changed'));
			return;
		}
		this.dirty.mark(dir);
		this.unwatch(dir);
		if (isDirectory(path.join(this.root, dir))) {
			void this.watchTree(dir).then(() => this.dirty.mark(dir));
		}
	}

	/** A folder went away (deleted or renamed): its watches go too ('' for every workspace folder). */
	private unwatch(rel: string): void {
		for (const [dir, watcher] of this.watchers) {
			if (dir === rel || dir.startsWith(`${rel}/`) || (rel === '' && dir !== markerKey)) {
				watcher.close();
				this.watchers.delete(dir);
				this.inodes.delete(dir);
			}
		}
	}

	/** Events delivered in one go: as many as the kernel queue holds means some may have been dropped. */
	private countBurst(): void {
		this.burst++;
		if (this.burst === this.overflowAt) {
			this.dirty.invalidate(`a burst of ${this.burst} file events may have overflowed the watcher's queue`);
		}
		this.burstReset ??= setImmediate(() => {
			this.burst = 0;
			this.burstReset = undefined;
		});
	}

	private fail(reason: string): void {
		this.log.warn(`${reason}; checkpoints scan the whole workspace instead`);
		this.stop();
		this.dirty.setWatching(false, reason);
	}
}

function isDirectory(abs: string): boolean {
	try {
		return fs.lstatSync(abs).isDirectory();
	} catch {
		return false;
	}
}

/** A fraction of one of Linux's inotify limits (events past the queue length are dropped); elsewhere a default. */
function procLimit(name: string, fraction: number, fallback: number): number {
	try {
		const limit = Number(fs.readFileSync(`/proc/sys/fs/inotify/${name}`, 'utf8').trim());
		if (limit > 0) {
			return Math.floor(limit * fraction);
		}
	} catch {
		// Not Linux.
	}
	return fallback;
}
