/**
 * The file half of a rollback: from the safety snapshot S (the workspace as it is) to the target T.
 *
 * - Every file of T is written exactly (content, mode, symlink), through `read-tree -m -u T'` from
 *   an index that is S: git's merge, which refuses instead of overwriting anything it does not know
 *   about. Precondition: the shadow index is S (the safety snapshot was written through it, under
 *   the lock the caller holds).
 * - A file in S but not in T is removed only when the caller proves it was created after T (Baton's
 *   later snapshots hold it); otherwise it is kept, so T' = T plus the kept files.
 * - Anything on disk that S does not hold (ignored or oversized files, folders of them) and that
 *   stands where T' puts a file is moved to a `preserved` folder first, never overwritten: git's
 *   switch would silently replace ignored files.
 * - `recover()` puts the workspace back to S after a failure at any point: it resets the index to
 *   S without touching files, rewrites only what differs from S, removes what the failed restore
 *   created, and moves preserved content back.
 *
 * Nothing here runs `git clean`, `git stash` or touches the user's repository. Caller holds the lock.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { BatonError } from '../errors';
import { mkdirPrivate } from '../workspace';
import { nulJoin } from './indexSync';
import { assertRealFolders, assertWorkspacePaths, workspaceFile } from './workspacePaths';
import { splitNul } from '../git/gitRunner';
import { batchCheck } from '../git/objectReader';
import type { ShadowRepo } from './shadowRepo';
import { diffTrees, type FileChange } from './treeDiff';

export interface RestorePlan {
	safetyCommit: string;
	targetCommit: string;
	/** T' (a tree, or the target commit when nothing is kept): the target plus the files kept for lack of proof. */
	restoreTree: string;
	/** Paths written (added or changed compared with the workspace). */
	restored: string[];
	/** The same, with the content written. */
	written: FileChange[];
	/** Paths removed: proven to be created after the target, or displaced (see `displaced`). */
	removed: string[];
	/** Absent from the target but kept: no snapshot proves they were created after it. */
	kept: string[];
	/** Files S holds that could not be kept because the target puts a file or folder in their place; copied to the preserved folder first (or moved there with their folder, where the target puts a file or link in its place). */
	displaced: string[];
	/** Content S does not hold that stands where the target puts a file: moved to the preserved folder. */
	inTheWay: string[];
	/** Folders that do not exist yet and the restore will create. */
	createdDirs: string[];
	/** Paths only T' has (for clean-up on recovery). */
	addedPaths: string[];
}

export interface RestoreFaults {
	/** Called after the preserved content was moved aside, before git writes anything. */
	beforeRestore?: () => void | Promise<void>;
	/** Called after git wrote the target's files. */
	afterRestore?: () => void | Promise<void>;
}

/**
 * Paths Baton's later snapshots prove were created after the target. It runs alongside the diff of
 * S and T (it does not need its result): the plan keeps those of the paths T lacks.
 */
type Prover = () => Promise<Set<string>>;

const restoreIndexName = 'baton-restore.index';

export async function planRestore(repo: ShadowRepo, safetyCommit: string, targetCommit: string, prove: Prover): Promise<RestorePlan> {
	// Three git processes at once (the object check is fed when the diff is known): the plan's
	// latency is what a rollback adds to git's own restore.
	const diff = diffTrees(repo, safetyCommit, targetCommit, { lines: false });
	const [changes, proven] = await Promise.all([diff, prove(), verifyObjects(repo, diff)]);
	// Before any of these paths is joined to the workspace folder (to look, move or write): plain
	// names, and no link among the folders on the way (a file there is moved aside first).
	const paths = changes.map((c) => c.path);
	assertWorkspacePaths(paths, `the checkpoint's tree ${targetCommit.slice(0, 12)}`);
	assertRealFolders(repo.workTree, paths, `the checkpoint's tree ${targetCommit.slice(0, 12)}`, { filesInTheWay: true });
	const written = changes.filter((c) => c.change !== 'deleted');
	const gone = changes.filter((c) => c.change === 'deleted');
	const added = written.filter((c) => c.change === 'added').map((c) => c.path);
	const addedSet = new Set(added);
	const addedDirs = new Set(added.flatMap(ancestors));
	const removed: string[] = [];
	const kept: FileChange[] = [];
	const displaced: string[] = [];
	for (const change of gone) {
		if (proven.has(change.path)) {
			removed.push(change.path);
		} else if (addedDirs.has(change.path) || ancestors(change.path).some((a) => addedSet.has(a))) {
			// T has a folder where this file is (or a file where its folder is): both cannot stay.
			displaced.push(change.path);
			removed.push(change.path);
		} else {
			kept.push(change);
		}
	}
	// read-tree takes the commit itself as the tree when nothing is kept.
	const restoreTree = kept.length ? await treeWithKept(repo, targetCommit, kept) : targetCommit;
	const gonePaths = new Set(gone.map((c) => c.path));
	const { inTheWay, createdDirs } = findInTheWay(repo.workTree, added, gonePaths);
	return {
		safetyCommit,
		targetCommit,
		restoreTree,
		restored: written.map((c) => c.path),
		written,
		removed: removed.sort(),
		kept: kept.map((c) => c.path),
		displaced,
		inTheWay,
		createdDirs,
		addedPaths: added,
	};
}

/** Moves aside what must not be overwritten, then switches the workspace from S to T'. */
export class RestoreRun {
	/** [original relative path, where it was moved] */
	private readonly moved: [string, string][] = [];
	private gitStarted = false;
	/** Files edited during the rollback where the restore had written: their copies in `edited-during-rollback/`. */
	readonly rescued: string[] = [];
	/** Files the restore never touched that changed meanwhile: left as they are. */
	private readonly foreign = new Set<string>();

	/** What the restore writes to each path (blob ids), to tell its writes from someone else's. */
	private readonly writtenSha: Map<string, string>;

	constructor(
		private readonly repo: ShadowRepo,
		private readonly plan: RestorePlan,
		private readonly preservedDir: string,
	) {
		this.writtenSha = new Map(plan.written.map((c) => [c.path, c.newSha ?? '']));
	}

	get preserved(): string[] {
		return this.moved.map(([rel]) => rel);
	}

	async apply(faults: RestoreFaults = {}): Promise<void> {
		const { plan, repo } = this;
		const movedWhole = new Set(plan.inTheWay);
		for (const rel of plan.displaced) {
			if (ancestors(rel).some((a) => movedWhole.has(a))) {
				continue; // Its folder is moved aside whole, with it.
			}
			// Also in S, but a copy beside the moved content makes the rollback's leftovers self-explaining.
			copyInto(workspaceFile(repo.workTree, rel), path.join(this.preservedDir, rel));
		}
		for (const rel of plan.inTheWay) {
			const dest = path.join(this.preservedDir, rel);
			mkdirPrivate(path.dirname(dest));
			// Checked again right before the move: no folder on the way may have become a link since the plan.
			fs.renameSync(workspaceFile(repo.workTree, rel), dest);
			this.moved.push([rel, dest]);
		}
		await faults.beforeRestore?.();
		this.gitStarted = true;
		// One-tree merge from the index, which is S (the safety snapshot was just written through it
		// under the same lock): like the two-tree S→T' switch, git refuses to overwrite a file that
		// changed since S or an untracked file in the way, but it reads one tree instead of two,
		// which makes it faster than `read-tree --reset -u` (that checks nothing).
		await repo.git(['read-tree', '-m', '-u', plan.restoreTree]);
		await faults.afterRestore?.();
	}

	/** Back to S after a failure anywhere in apply(). Throws when the workspace could not be verified as S. */
	async recover(): Promise<void> {
		const { plan, repo } = this;
		if (!this.gitStarted) {
			// Nothing was written yet: only the moved content goes back; the index is still S.
			for (const [rel, from] of [...this.moved].reverse()) {
				moveBack(from, workspaceFile(repo.workTree, rel));
			}
			return;
		}
		fs.rmSync(path.join(repo.gitDir, 'index.lock'), { force: true });
		// Index only: stat data of untouched files survives, so only what differs from S is rewritten.
		await repo.git(['read-tree', '--reset', plan.safetyCommit]);
		const differing = [...new Set(splitNul((await repo.git(['ls-files', '-z', '-m', '-d'])).stdout))];
		const touched = new Set([...this.writtenSha.keys(), ...plan.removed]);
		const putBack: string[] = [];
		for (const rel of differing) {
			if (!touched.has(rel)) {
				// The restore never wrote or removed it: an edit made meanwhile by someone else stays.
				this.foreign.add(rel);
				continue;
			}
			const sha = blobSha(path.join(repo.workTree, rel));
			if (sha && sha !== this.writtenSha.get(rel)) {
				// Neither S nor what the restore wrote: edited during the rollback. Keep a copy.
				copyInto(path.join(repo.workTree, rel), path.join(this.preservedDir, 'edited-during-rollback', rel));
				this.rescued.push(rel);
			}
			putBack.push(rel);
		}
		if (putBack.length) {
			await repo.git(['checkout-index', '-f', '-q', '-z', '--stdin'], { input: nulJoin(putBack) });
		}
		// Paths only T' has did not exist before (what stood there was moved aside): git wrote them.
		for (const rel of plan.addedPaths) {
			try {
				const full = workspaceFile(repo.workTree, rel);
				if (!fs.lstatSync(full).isDirectory()) {
					const sha = blobSha(full);
					if (sha && sha !== this.writtenSha.get(rel)) {
						copyInto(full, path.join(this.preservedDir, 'edited-during-rollback', rel));
						this.rescued.push(rel);
					}
					fs.rmSync(full, { force: true });
				}
			} catch {
				// Not written (or below a link since: not removed through it).
			}
		}
		for (const dir of [...plan.createdDirs].sort((a, b) => b.length - a.length)) {
			try {
				fs.rmdirSync(workspaceFile(repo.workTree, dir));
			} catch {
				// Not empty (or never created): it holds something of S. Or below a link since: left alone.
			}
		}
		for (const [rel, from] of [...this.moved].reverse()) {
			moveBack(from, workspaceFile(repo.workTree, rel));
		}
		await repo.git(['update-index', '-q', '--refresh'], { okCodes: [1] });
		const left = splitNul((await repo.git(['ls-files', '-z', '-m', '-d'])).stdout).filter((rel) => !this.foreign.has(rel));
		if (left.length) {
			throw new BatonError(
				'rollbackFailed',
				`the workspace could not be put back completely; ${left.length} file(s) differ from the safety checkpoint (first: ${left[0]})`,
				{ paths: left.slice(0, 50) },
			);
		}
	}
}

/** Every blob the restore writes must be in the shadow store before anything is touched. */
async function verifyObjects(repo: ShadowRepo, diff: Promise<FileChange[]>): Promise<void> {
	const shas = diff.then((changes) => [...new Set(changes.map((c) => c.newSha).filter((s): s is string => !!s))]);
	// Started before the diff is known; an empty list makes cat-file print nothing.
	const found = await batchCheck(async (args, input) => (await repo.git(args, input !== undefined ? { input } : {})).stdout, shas);
	const missing = (await shas).filter((_, i) => !found[i]);
	if (missing.length) {
		throw new BatonError('rollbackFailed', `the target checkpoint is damaged: ${missing.length} of its files are missing from the shadow store`, {
			missing: missing.slice(0, 20),
		});
	}
}

/** T plus the kept files (S's mode and content), written through a temporary index. */
async function treeWithKept(repo: ShadowRepo, targetCommit: string, kept: FileChange[]): Promise<string> {
	const env = { GIT_INDEX_FILE: path.join(repo.gitDir, restoreIndexName) };
	try {
		await repo.git(['read-tree', targetCommit], { env });
		const info = kept.map((c) => `${c.oldMode} ${c.oldSha}\t${c.path}`);
		await repo.git(['update-index', '-z', '--index-info'], { env, input: nulJoin(info) });
		return await repo.gitText(['write-tree'], { env });
	} finally {
		fs.rmSync(env.GIT_INDEX_FILE, { force: true });
	}
}

/**
 * What stands where the target writes a new path without being held by S: the path itself, or a
 * non-folder where the target needs a folder. Also the folders the restore will create.
 */
function findInTheWay(workTree: string, added: string[], gonePaths: Set<string>): { inTheWay: string[]; createdDirs: string[] } {
	const inTheWay = new Set<string>();
	const created = new Set<string>();
	const checked = new Map<string, 'dir' | 'missing' | 'other'>();
	const kindOf = (rel: string): 'dir' | 'missing' | 'other' => {
		let kind = checked.get(rel);
		if (!kind) {
			try {
				kind = fs.lstatSync(path.join(workTree, rel)).isDirectory() ? 'dir' : 'other';
			} catch {
				kind = 'missing';
			}
			checked.set(rel, kind);
		}
		return kind;
	};
	for (const rel of added) {
		let blocked = false;
		for (const dir of ancestors(rel)) {
			if (blocked) {
				// Below a folder that does not exist (yet): the restore creates this one too.
				created.add(dir);
				continue;
			}
			const kind = kindOf(dir);
			if (kind === 'missing') {
				created.add(dir);
				blocked = true;
			} else if (kind === 'other' && !gonePaths.has(dir)) {
				inTheWay.add(dir);
				created.add(dir);
				blocked = true;
			}
		}
		if (!blocked && kindOf(rel) !== 'missing') {
			inTheWay.add(rel);
		}
	}
	// A folder whose ancestor is moved aside is moved with it.
	const sorted = [...inTheWay].sort();
	const top = sorted.filter((p) => !ancestors(p).some((a) => inTheWay.has(a)));
	return { inTheWay: top, createdDirs: [...created] };
}

/** `a/b/c` → [`a`, `a/b`] */
function ancestors(rel: string): string[] {
	const parts = rel.split('/');
	const out: string[] = [];
	for (let i = 1; i < parts.length; i++) {
		out.push(parts.slice(0, i).join('/'));
	}
	return out;
}

/** git's blob id of a file or symlink as it is on disk (sha1: the shadow store's format). */
function blobSha(file: string): string | null {
	try {
		const stat = fs.lstatSync(file);
		const content = stat.isSymbolicLink() ? Buffer.from(fs.readlinkSync(file)) : stat.isFile() ? fs.readFileSync(file) : null;
		if (!content) return null;
		return createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');
	} catch {
		return null;
	}
}

function copyInto(from: string, to: string): void {
	try {
		mkdirPrivate(path.dirname(to));
		fs.cpSync(from, to, { recursive: true, verbatimSymlinks: true, errorOnExist: false });
	} catch {
		// Best effort: the file is in the safety checkpoint anyway.
	}
}

/** Puts moved content back; where S's restore recreated a folder, merges entry by entry. */
function moveBack(from: string, to: string): void {
	let target: fs.Stats | undefined;
	try {
		target = fs.lstatSync(to);
	} catch {
		fs.mkdirSync(path.dirname(to), { recursive: true });
		fs.renameSync(from, to);
		return;
	}
	const source = fs.lstatSync(from);
	if (target.isDirectory() && source.isDirectory()) {
		for (const name of fs.readdirSync(from)) {
			moveBack(path.join(from, name), path.join(to, name));
		}
		fs.rmSync(from, { recursive: true, force: true });
	}
	// Otherwise S's version stands there, and the moved copy stays in the preserved folder.
}
