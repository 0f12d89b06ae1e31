import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../ports';
import type { SkippedFile } from '../storage/jsonShapes';
import { DirtyPaths, type DirtyClaim } from './dirtyPaths';
import { WorkspaceWatcher } from './workspaceWatcher';
import { pushAll } from '../arrays';

/** How long a sync waits for a watcher that is still starting before it scans without it. */
const startWaitMs = 3_000;

/**
 * The checkpoint service's side of the file watcher: a long-lived process (the backend) starts it,
 * and every sync of the shadow index then claims the paths that changed. Without it (a CLI call, a
 * hook) every sync is the full scan, as before.
 */
export class DirtyTracking {
	private current: { paths: DirtyPaths; watcher: WorkspaceWatcher } | undefined;
	/** How the last sync chose its paths (for logs and the benchmark). */
	lastClaim: DirtyClaim | undefined;
	/**
	 * Files the last sync skipped (too large, unreadable), with their file identity then: they are not
	 * in the index, so only a change to them can change the answer. Each sync reports them again
	 * without asking git, unless the file changed (then it is looked at).
	 */
	private carried = new Map<string, { skipped: SkippedFile; identity: string }>();
	/** Which watcher the change count belongs to: a restarted watcher counts from zero again. */
	private starts = 0;
	private readonly instance = `${process.pid}.${Date.now().toString(36)}`;
	/** The watcher being started (it walks every folder first): the first sync waits for it, bounded. */
	private starting: Promise<void> | undefined;

	constructor(
		private readonly workspaceRoot: string,
		private readonly batonDir: string,
		private readonly log: Logger,
	) {}

	get watching(): boolean {
		return this.current?.paths.isWatching ?? false;
	}

	/** Workspace changes seen so far, once every earlier change has been reported; undefined without a watcher. */
	async changeCount(): Promise<number | undefined> {
		const current = this.current;
		if (!current || !current.paths.isWatching || !(await current.watcher.flush())) {
			return undefined;
		}
		return current.paths.changeCount;
	}

	get watchId(): string {
		return `${this.instance}.${this.starts}`;
	}

	/** Starts watching the workspace; resolves once every folder is watched. Returns the stop function. */
	async start(): Promise<() => void> {
		this.stop();
		this.starts++;
		const paths = new DirtyPaths();
		const skip = path.relative(this.workspaceRoot, this.batonDir).split(path.sep).join('/');
		const watcher = new WorkspaceWatcher(this.workspaceRoot, paths, this.log, {
			skip: skip && !skip.startsWith('..') ? [skip] : [],
			markerDir: path.join(this.batonDir, 'cache'),
		});
		const current = { paths, watcher };
		this.current = current;
		const starting = watcher.start();
		this.starting = starting;
		try {
			await starting;
		} finally {
			if (this.starting === starting) {
				this.starting = undefined;
			}
		}
		return () => {
			if (this.current === current) {
				this.stop();
			}
		};
	}

	stop(): void {
		this.current?.watcher.stop();
		this.current = undefined;
	}

	/**
	 * Runs one sync of the shadow index (the caller holds the shadow's lock) with the paths to look at,
	 * or undefined for the full scan. A sync that failed or ran out of time gives its paths back; one
	 * that read them without bringing the index up to date (a capture that built its tree from the
	 * previous one) lists them in `again`, and they stay claimed for the next sync.
	 * `waitMs` bounds the wait for a watcher that is still starting (a hook's capture has a budget).
	 */
	async sync<T extends { skipped: SkippedFile[]; degradedReason: string | null; again?: readonly string[] }>(
		forceFull: boolean,
		run: (paths: string[] | undefined) => Promise<T>,
		waitMs = startWaitMs,
	): Promise<T> {
		// A backend opens the engine and starts its watcher as the first request comes in: that request's
		// full scan only counts as "since the watcher started" (so the next sync can trust the watcher)
		// when the watcher was watching before the scan began.
		if (this.starting) {
			await Promise.race([this.starting.catch(() => undefined), new Promise((resolve) => setTimeout(resolve, Math.min(waitMs, startWaitMs)).unref())]);
		}
		const current = this.current;
		let claim: DirtyClaim = { kind: 'full', reason: 'no file watcher in this process' };
		if (current && (await current.watcher.flush())) {
			claim = current.paths.claim();
		} else if (current) {
			claim = { kind: 'full', reason: current.paths.isWatching ? 'the file watcher did not answer in time' : 'the file watcher is not watching yet' };
		}
		if (forceFull && claim.kind === 'paths') {
			claim = { kind: 'full', reason: 'the checkpoint excludes changed' };
		}
		// Skipped files that did not change are reported from the last sync, not listed by git again.
		const kept: SkippedFile[] = [];
		if (claim.kind === 'paths') {
			const claimed = new Set(claim.paths);
			for (const [rel, entry] of this.carried) {
				if (!claimed.has(rel) && fileIdentity(path.join(this.workspaceRoot, rel)) === entry.identity) {
					kept.push(entry.skipped);
				} else {
					claimed.add(rel);
				}
			}
			claim = { kind: 'paths', paths: [...claimed].sort() };
		}
		this.carried = new Map();
		this.lastClaim = claim;
		try {
			const result = await run(claim.kind === 'paths' ? claim.paths : undefined);
			if (result.degradedReason === null) {
				const listed = new Set(result.skipped.map((s) => s.path));
				pushAll(result.skipped, [...kept.filter((s) => !listed.has(s.path))]);
				for (const skipped of result.skipped) {
					const identity = fileIdentity(path.join(this.workspaceRoot, skipped.path));
					if (identity !== null) {
						this.carried.set(skipped.path, { skipped, identity });
					}
				}
			}
			// Skipped files gone since (no identity) are looked at again next time.
			current?.paths.settle(
				result.degradedReason === null,
				result.skipped.filter((s) => !this.carried.has(s.path)).map((s) => s.path),
			);
			if (result.degradedReason === null && result.again) {
				current?.paths.keep(result.again);
			}
			return result;
		} catch (error) {
			current?.paths.settle(false);
			throw error;
		}
	}
}

/** What changes when a file is written, replaced, resized or its permissions change; null when it is gone. */
function fileIdentity(abs: string): string | null {
	try {
		const stat = fs.lstatSync(abs, { bigint: true });
		return `${stat.dev}:${stat.ino}:${stat.mode}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`;
	} catch {
		return null;
	}
}
