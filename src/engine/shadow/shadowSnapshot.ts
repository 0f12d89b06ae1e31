/**
 * A snapshot = sync the shadow index with the workspace, `write-tree`, `commit-tree`, and a private
 * ref per checkpoint (`refs/baton/checkpoints/<id>`) so git never considers its objects garbage.
 * The caller holds the shadow's lock.
 */
import { syncIndex, type SyncProgress } from './indexSync';
import { writeIndexTree } from './indexTree';
import type { ShadowRepo } from './shadowRepo';
import type { SkippedFile } from '../storage/jsonShapes';

interface SnapshotOptions {
	excludes: readonly string[];
	maxFileSize: number;
	budgetMs: number;
	message: string;
	parentCommit: string | null;
	/** The checkpoint id the private ref is named after; null for no ref (a dry run). */
	refId: string | null;
	/** Commit date (ms since the epoch): the engine's clock, so tests are deterministic. */
	dateMs: number;
	/** When the tree equals this one, nothing is committed (`commit` is null). */
	skipIfTree?: string | null;
	onProgress?: ((progress: SyncProgress) => void) | undefined;
	batchFiles?: number;
	/** The paths a file watcher saw change since the last snapshot; undefined for the full scan. */
	paths?: readonly string[] | undefined;
}

export interface SnapshotResult {
	commit: string | null;
	tree: string;
	skipped: SkippedFile[];
	degradedReason: string | null;
	nestedRepos: string[];
	/** Paths the index was updated with. */
	fed: number;
	durationMs: number;
}

export async function takeSnapshot(repo: ShadowRepo, options: SnapshotOptions): Promise<SnapshotResult> {
	const started = Date.now();
	const excludesChanged = await repo.ensureInit(options.excludes);
	const sync = await syncIndex(repo, {
		// New excludes change what unchanged files mean: only the full scan sees that.
		paths: excludesChanged ? undefined : options.paths,
		maxFileSize: options.maxFileSize,
		deadline: started + options.budgetMs,
		onProgress: options.onProgress,
		...(options.batchFiles ? { batchFiles: options.batchFiles } : {}),
	});
	options.onProgress?.({ phase: 'committing', done: sync.fed, total: sync.fed });
	const tree = await writeIndexTree(repo);
	if (options.skipIfTree && tree === options.skipIfTree) {
		return {
			commit: null,
			tree,
			skipped: sync.skipped,
			degradedReason: sync.degradedReason,
			nestedRepos: sync.nestedRepos,
			fed: sync.fed,
			durationMs: Date.now() - started,
		};
	}
	const date = `@${Math.floor(options.dateMs / 1000)} +0000`;
	const commit = await repo.gitText(['commit-tree', tree, ...(options.parentCommit ? ['-p', options.parentCommit] : []), '-m', options.message], {
		env: { GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date },
	});
	if (options.refId) {
		repo.writeRef(`refs/baton/checkpoints/${options.refId}`, commit);
	}
	return {
		commit,
		tree,
		skipped: sync.skipped,
		degradedReason: sync.degradedReason,
		nestedRepos: sync.nestedRepos,
		fed: sync.fed,
		durationMs: Date.now() - started,
	};
}
