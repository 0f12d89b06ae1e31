/**
 * The shadow index brought up to date after a capture that built its tree without it
 * (treeCapture.ts), once the hook has its answer: a short while after the last such capture, in the
 * process that made it (the daemon), one index-based sync of the paths still claimed. Nothing depends
 * on it for correctness (those paths stay claimed until a sync of the index took them in, whoever
 * runs it first); it keeps the next captures' work small and the index's tree current.
 */
import path from 'node:path';
import type { DirtyTracking } from '../watcher/dirtyTracking';
import { ShadowRepo } from '../shadow/shadowRepo';
import { captureTree } from './treeCapture';

/**
 * How long after the last capture the catch-up waits: the hook's answer goes out first, and an agent's
 * burst of tool calls goes by. Its git processes hold the store's lock, and an agent's next call comes
 * 0.1–0.5 s after the last one's result: at 200 ms the catch-up ran between calls and the next
 * PreToolUse waited for it (daemon-side median 18–37 ms against 8–23 ms at 1.5 s, p90 60–88 against
 * 20–40, in alternating runs of 40 calls 300 ms apart). The paths stay claimed meanwhile, and each
 * capture takes them in again from the tree (up to `maxTreePaths`).
 */
const catchUpDelayMs = 1_500;
const catchUpBudgetMs = 60_000;
/** A lock held elsewhere (a checkpoint) is not waited for long: the next capture or sync takes the paths. */
const lockWaitMs = 2_000;

const timers = new Map<string, NodeJS.Timeout>();
const running = new Map<string, Promise<void>>();

interface CatchUpOptions {
	excludes: readonly string[];
	maxFileSize: number;
	dirty: DirtyTracking;
}

export function scheduleIndexCatchUp(shadow: ShadowRepo, options: CatchUpOptions): void {
	const key = shadow.gitDir;
	clearTimeout(timers.get(key));
	const timer = setTimeout(() => {
		timers.delete(key);
		void runCatchUp(shadow, options);
	}, catchUpDelayMs);
	timer.unref();
	timers.set(key, timer);
}

/** Runs a scheduled catch-up now (tests, shutdown); resolves once none is scheduled or running. */
export async function flushIndexCatchUp(shadow: ShadowRepo, options: CatchUpOptions): Promise<void> {
	const key = shadow.gitDir;
	const timer = timers.get(key);
	if (timer) {
		clearTimeout(timer);
		timers.delete(key);
		await runCatchUp(shadow, options);
	}
	await running.get(key);
}

async function runCatchUp(shadow: ShadowRepo, options: CatchUpOptions): Promise<void> {
	const key = shadow.gitDir;
	const repo = new ShadowRepo(shadow.workTree, path.dirname(shadow.gitDir), lockWaitMs);
	const run = repo
		.withLock(async () => {
			await captureTree(repo, {
				excludes: options.excludes,
				maxFileSize: options.maxFileSize,
				deadline: Date.now() + catchUpBudgetMs,
				dirty: options.dirty,
				fromTree: false,
			});
		})
		.catch(() => {
			// The lock was busy: the paths stay claimed for whichever sync comes next.
		});
	running.set(key, run);
	try {
		await run;
	} finally {
		if (running.get(key) === run) {
			running.delete(key);
		}
	}
}
