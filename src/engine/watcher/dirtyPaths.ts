/**
 * The workspace paths that may differ from the shadow index, as a file watcher reports them, so that
 * a snapshot looks at what changed instead of the whole tree.
 *
 * The set is only trusted while a watcher runs and has been running since the last full scan began:
 * until then (and after the watcher failed, overflowed or saw a `.gitignore` change, which changes
 * what unchanged files mean) a claim asks for the full scan. A claim hands the current set over and
 * starts an empty one; paths reported meanwhile land in the new set. A snapshot that did not finish
 * gives its claim back by invalidating, so nothing it missed is forgotten.
 */
export type DirtyClaim = { kind: 'full'; reason: string } | { kind: 'paths'; paths: string[] };

/** Past this many paths the full scan is about as cheap, and the command lines stay short. */
const maxPaths = 5_000;

export class DirtyPaths {
	private paths = new Set<string>();
	/** Why the set cannot be trusted; null when it can. */
	private unknown: string | null = 'no full scan since the watcher started';
	private watching = false;
	private stoppedReason = 'the file watcher is not running';
	/** Counts every change reported (trusted or not): derived data keyed on it knows the workspace moved. */
	private changes = 0;

	get changeCount(): number {
		return this.changes;
	}

	/** A path (workspace-relative, `/`-separated; a folder stands for everything under it) changed. */
	mark(rel: string): void {
		this.changes++;
		if (this.unknown === null) {
			this.paths.add(rel);
			if (this.paths.size > maxPaths) {
				this.invalidate(`more than ${maxPaths} paths changed`);
			}
		}
	}

	/**
	 * Paths a claim read without bringing the index up to date: claimed again by the next sync. Not
	 * counted as changes (the workspace did not move).
	 */
	keep(paths: readonly string[]): void {
		if (this.unknown !== null) {
			return;
		}
		for (const rel of paths) {
			this.paths.add(rel);
		}
		if (this.paths.size > maxPaths) {
			this.invalidate(`more than ${maxPaths} paths changed`);
		}
	}

	/** The set can no longer be trusted: the next claim is a full scan. */
	invalidate(reason: string): void {
		this.changes++;
		this.unknown ??= reason;
		this.paths.clear();
	}

	/** The watcher is (now) watching every folder, or stopped (with why). */
	setWatching(watching: boolean, reason?: string): void {
		this.watching = watching;
		if (!watching) {
			this.stoppedReason = reason ?? 'the file watcher stopped';
			this.invalidate(this.stoppedReason);
		}
	}

	get isWatching(): boolean {
		return this.watching;
	}

	/** What the next snapshot must look at. Starts a new set when a watcher keeps it from here on. */
	claim(): DirtyClaim {
		if (!this.watching) {
			return { kind: 'full', reason: this.stoppedReason };
		}
		const claim: DirtyClaim = this.unknown === null ? { kind: 'paths', paths: [...this.paths].sort() } : { kind: 'full', reason: this.unknown };
		this.paths = new Set();
		this.unknown = null;
		return claim;
	}

	/**
	 * After the snapshot of a claim: a failed or cut-short one gives everything back (full scan next);
	 * `again` are paths to look at next time too (files skipped for their size stay reported).
	 */
	settle(ok: boolean, again: readonly string[] = []): void {
		if (!ok) {
			this.invalidate('the previous snapshot did not finish');
			return;
		}
		again.forEach((p) => this.mark(p));
	}
}
