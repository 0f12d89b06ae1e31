/**
 * What a shared checkpoint holds (docs/sync.md, "What travels"). A local checkpoint is a snapshot of
 * the whole workspace — untracked files, ignored ones, `.env` — because rollback must put everything
 * back. What goes to a remote is its *shared tree*: a commit of its own (its parent the previous
 * shared tree, so no local history travels with it) holding only
 * - the files the user's git tracks (its index), and, when every enabled remote allows untracked
 *   files (`sync enable --untracked`), the untracked files git would add: not ignored by
 *   `.gitignore`, `.git/info/exclude` or `core.excludesFile` (git's default `~/.config/git/ignore`
 *   included), read by git itself with the user's own value of that setting;
 * - and of those, only files whose content passes the credential scan (text/secretScan.ts). A file
 *   that fails it — or cannot be read, or is too large to scan — is left out whole and named with the
 *   reason: never altered, never sent.
 *
 * The shared tree's commit message names the local snapshot it stands for (`Baton-Snapshot: <oid>`),
 * and the checkpoints ref's commit lists each pair, so a teammate's machine reads the shared tree
 * wherever the checkpoint's recorded commit is asked for (projection.ts), and this machine knows which
 * snapshots it has shared (eventRefs.ts). Blobs already in the last shared tree were scanned when it
 * was made and are not read again.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { catBlobs, type BoundedGitRun } from '../git/objectReader';
import { userRepoEnv } from '../git/gitEnv';
import { runGit, splitNul } from '../git/gitRunner';
import type { ShadowRepo } from '../shadow/shadowRepo';
import { findSecret } from '../text/secretScan';
import { userConfigEntries } from './userConfig';
import type { LeftOutFile } from './syncShapes';

export type { LeftOutFile } from './syncShapes';

export interface ShareRules {
	/** Untracked files git would add travel too (every enabled remote allows it). */
	untracked: boolean;
}

export interface SharedTree {
	/** The local snapshot commit. */
	snapshot: string;
	/** The shared tree's own commit. */
	shared: string;
}

/**
 * A shared tree to write: the snapshot it stands for, and either every file it holds (`entries`) or
 * the files that differ from the shared tree before it (`changes`; null: not in this one).
 */
export interface PlannedTree {
	snapshot: string;
	entries?: readonly TreeFile[];
	changes?: readonly { path: string; file: TreeFile | null }[];
}

interface TreeFile {
	mode: string;
	oid: string;
	path: string;
}

/** Files above this are not scanned, so not shared (their name and reason are). */
const maxScannedBytes = 16 * 1024 * 1024;
/** The message line naming the local snapshot a shared tree stands for. */
const snapshotTrailer = 'Baton-Snapshot: ';

/** A shared tree's commit message: it names the snapshot it stands for (the export's and a retraction's rewrite alike). */
export function sharedTreeMessage(snapshot: string): string {
	return `baton shared checkpoint\n\n${snapshotTrailer}${snapshot}\n`;
}

type Entry = TreeFile;

/** The key of a file in `SharedTrees.screen`'s answer. */
export function screenKey(file: { path: string; oid: string }): string {
	return `${file.oid}\0${file.path}`;
}

export class SharedTrees {
	constructor(
		private readonly shadow: ShadowRepo,
		private readonly workspaceRoot: string,
	) {}

	/**
	 * What the shared trees of `snapshots` (local snapshot commits, in the order they are shared) hold;
	 * the checkpoints ref's export writes them (`sharedTreeCommands`, in its one `git fast-import`).
	 * `sharedBefore`: the last shared tree's commit, whose blobs need no scan.
	 */
	async build(snapshots: readonly string[], rules: ShareRules, before: SharedTree | null): Promise<{ trees: PlannedTree[]; leftOut: LeftOutFile[] }> {
		if (snapshots.length === 0) {
			return { trees: [], leftOut: [] };
		}
		const stamp = await this.indexStamp();
		const last = this.last;
		if (before && last && !rules.untracked && !last.untracked && last.snapshot === before.snapshot && stamp !== null && last.stamp === stamp) {
			return this.buildChanges(snapshots, before.snapshot, last.tracked, stamp);
		}
		const listings = await Promise.all(snapshots.map((s) => this.listTree(s)));
		const clean = new Set(before ? (await this.listTree(before.shared)).map((e) => e.oid) : []);
		const all = new Set(listings.flatMap((l) => l.map((e) => e.path)));
		const { why: allowed, tracked } = await this.committable([...all], rules);
		this.last = stamp === null ? undefined : { snapshot: snapshots.at(-1) as string, stamp, tracked, untracked: rules.untracked };
		const leftOut: LeftOutFile[] = [];
		const kept: Entry[][] = listings.map((entries, i) => {
			const keep: Entry[] = [];
			for (const e of entries) {
				const why = e.mode === '160000' ? null : allowed.get(e.path);
				if (why === undefined) {
					keep.push(e);
				} else if (why !== null && why !== 'ignored' && why !== 'untracked') {
					leftOut.push({ snapshot: snapshots[i] as string, path: e.path, reason: why });
				}
			}
			return keep;
		});
		// Each blob not scanned before is read once, whatever number of trees hold it.
		const toScan = [...new Set(kept.flatMap((k) => k.map((e) => e.oid)))].filter((oid) => !clean.has(oid));
		const verdicts = await this.scan(toScan);
		const trees: Entry[][] = kept.map((entries, i) =>
			entries.filter((e) => {
				const verdict = verdicts.get(e.oid);
				if (verdict) {
					leftOut.push({ snapshot: snapshots[i] as string, path: e.path, reason: verdict });
					return false;
				}
				return true;
			}),
		);
		return { trees: trees.map((entries, i) => ({ snapshot: snapshots[i] as string, entries })), leftOut };
	}

	/**
	 * Which of `files` (a path and the blob it names) may travel under `rules`: the reason each one
	 * stays (absent: it passes). Files git does not track (or would not add) stay silently, as
	 * `'untracked'` or `'ignored'`; one that fails the credential scan stays with its reason. The
	 * timeline's shared blobs (timelineSync.ts) are held to exactly the rules of a checkpoint.
	 */
	async screen(files: readonly { path: string; oid: string }[], rules: ShareRules): Promise<Map<string, string>> {
		const out = new Map<string, string>();
		if (files.length === 0) {
			return out;
		}
		const { why } = await this.committable([...new Set(files.map((f) => f.path))], rules);
		const verdicts = await this.scan([...new Set(files.filter((f) => !why.has(f.path)).map((f) => f.oid))]);
		for (const f of files) {
			const reason = why.get(f.path) ?? verdicts.get(f.oid);
			if (reason) {
				out.set(screenKey(f), reason);
			}
		}
		return out;
	}

	/**
	 * What this instance knows of the last shared tree it planned: its snapshot, the user's index as
	 * it was (its stat) and the paths it tracked. While the index is the same, the next shared tree is
	 * the last one with the snapshots' changes applied: one `diff-tree` and the changed files' scan,
	 * not every file of the workspace listed, checked and written again.
	 */
	private last: { snapshot: string; stamp: string; tracked: Set<string>; untracked: boolean } | undefined;
	private indexFile: string | null | undefined;

	/** The user's index file's size, modification time and inode (null: no git repository). */
	private async indexStamp(): Promise<string | null> {
		if (this.indexFile === undefined) {
			try {
				const out = await runGit(['rev-parse', '--git-path', 'index'], {
					cwd: this.workspaceRoot,
					env: userRepoEnv(this.shadow.emptyConfig),
					timeoutMs: 30_000,
				});
				this.indexFile = path.resolve(this.workspaceRoot, out.stdout.toString('utf8').trim());
			} catch {
				this.indexFile = null;
			}
		}
		if (!this.indexFile) {
			return null;
		}
		try {
			const stat = fs.statSync(this.indexFile, { bigint: true });
			return `${stat.size}:${stat.mtimeNs}:${stat.ino}`;
		} catch {
			return 'none';
		}
	}

	/** Shared trees as changes from the one before: the snapshots' differences, kept to tracked files that pass the scan. */
	private async buildChanges(
		snapshots: readonly string[],
		from: string,
		tracked: Set<string>,
		stamp: string,
	): Promise<{ trees: PlannedTree[]; leftOut: LeftOutFile[] }> {
		const pairs = snapshots.map((s, i) => `${s} ${i === 0 ? from : snapshots[i - 1]}\n`).join('');
		const out = (await this.shadow.git(['diff-tree', '--stdin', '-r', '-z', '--no-renames'], { input: pairs, timeoutMs: 120_000 })).stdout;
		// `diff-tree --stdin` answers each pair in turn: the pair's line (`<snapshot> <from>`) then its raw records.
		const fields = splitNul(out);
		const perSnapshot: { path: string; file: TreeFile | null }[][] = snapshots.map(() => []);
		let at = -1;
		for (let i = 0; i < fields.length; i++) {
			const field = fields[i] as string;
			if (/^[0-9a-f]{40,64}( [0-9a-f]{40,64})?$/.test(field)) {
				at = snapshots.indexOf(field.split(' ')[0] as string, at + 1);
				continue;
			}
			if (!field.startsWith(':') || at < 0) {
				continue;
			}
			const [, newMode = '', , newOid = '', status = ''] = field.slice(1).split(' ');
			const file = fields[++i] as string;
			const gone = status.startsWith('D') || newMode === '160000' || !tracked.has(file);
			perSnapshot[at]!.push({ path: file, file: gone ? null : { mode: newMode, oid: newOid, path: file } });
		}
		const leftOut: LeftOutFile[] = [];
		const verdicts = await this.scan([...new Set(perSnapshot.flatMap((c) => c.flatMap((x) => (x.file ? [x.file.oid] : []))))]);
		const trees = perSnapshot.map((changes, i): PlannedTree => ({
			snapshot: snapshots[i] as string,
			changes: changes.map((c) => {
				const verdict = c.file ? verdicts.get(c.file.oid) : undefined;
				if (verdict) {
					leftOut.push({ snapshot: snapshots[i] as string, path: c.path, reason: verdict });
					return { path: c.path, file: null };
				}
				return c;
			}),
		}));
		this.last = { snapshot: snapshots.at(-1) as string, stamp, tracked, untracked: false };
		return { trees, leftOut };
	}

	/** Every file of a snapshot: mode, blob and path (`ls-tree -r -z`). */
	private async listTree(commit: string): Promise<Entry[]> {
		const out = (await this.shadow.git(['ls-tree', '-r', '-z', '--full-tree', commit], { timeoutMs: 120_000 })).stdout;
		const entries: Entry[] = [];
		for (const line of splitNul(out)) {
			const tab = line.indexOf('\t');
			const [mode = '', , oid = ''] = line.slice(0, tab).split(' ');
			entries.push({ mode, oid, path: line.slice(tab + 1) });
		}
		return entries;
	}

	/**
	 * Why each path that would not be committed stays here (absent: it may travel). `'untracked'` and
	 * `'ignored'` are the ordinary cases, not reported per checkpoint.
	 */
	private async committable(paths: readonly string[], rules: ShareRules): Promise<{ why: Map<string, string>; tracked: Set<string> }> {
		const env = userRepoEnv(this.shadow.emptyConfig);
		const cwd = this.workspaceRoot;
		const out = new Map<string, string>();
		let tracked: Set<string>;
		try {
			tracked = new Set(splitNul((await runGit(['ls-files', '-z', '--cached'], { cwd, env, timeoutMs: 120_000 })).stdout));
		} catch {
			// Not a git repository (or one git cannot read): the user's git would commit nothing.
			tracked = new Set();
		}
		const untracked = paths.filter((p) => !tracked.has(p));
		if (!rules.untracked) {
			untracked.forEach((p) => out.set(p, 'untracked'));
			return { why: out, tracked };
		}
		let ignored: Set<string>;
		try {
			const excludes = await excludesFile(this.workspaceRoot);
			const result = await runGit(['-c', `core.excludesFile=${excludes}`, 'check-ignore', '-z', '--stdin'], {
				cwd,
				env,
				input: untracked.map((p) => `${p}\0`).join(''),
				okCodes: [1],
				timeoutMs: 120_000,
			});
			ignored = new Set(splitNul(result.stdout));
		} catch {
			// git could not say what it ignores: nothing untracked travels.
			ignored = new Set(untracked);
		}
		for (const p of untracked) {
			if (ignored.has(p)) {
				out.set(p, 'ignored');
			}
		}
		return { why: out, tracked };
	}

	/** The reason each blob cannot be shared (absent: it passed the scan). */
	private async scan(oids: readonly string[]): Promise<Map<string, string>> {
		const verdicts = new Map<string, string>();
		const run: BoundedGitRun = async (args, input, maxStdoutBytes) => (await this.shadow.git(args, { input, maxStdoutBytes, timeoutMs: 120_000 })).stdout;
		// In groups: a first share of a large workspace is not held in memory at once.
		const group = 2_000;
		for (let at = 0; at < oids.length; at += group) {
			const part = oids.slice(at, at + group);
			let blobs;
			try {
				blobs = await catBlobs(run, part, { maxBlobBytes: maxScannedBytes, maxGroupBytes: 64 * 1024 * 1024 });
			} catch (error) {
				part.forEach((oid) => verdicts.set(oid, `could not be read for the credential scan (${(error as Error).message})`));
				continue;
			}
			blobs.forEach((blob, i) => {
				const oid = part[i] as string;
				if (!blob) {
					verdicts.set(oid, 'could not be read for the credential scan');
				} else if ('tooLarge' in blob) {
					verdicts.set(oid, `larger than ${maxScannedBytes / 1024 / 1024} MiB, so not scanned for credentials`);
				} else {
					const found = findSecret(blob.content.toString('latin1'));
					if (found) {
						verdicts.set(oid, `looks like it holds a credential (${found.rule}, line ${found.line})`);
					}
				}
			});
		}
		return verdicts;
	}
}

/**
 * A shared tree as `git fast-import` commands: a commit on a scratch ref (`build`, deleted by the
 * caller) with the given mark, holding exactly its files, its message naming the snapshot. Its
 * parent is the previous shared tree (`from`: an oid or a mark; none for the first): git then sends
 * a teammate only what changed since the tree they have — a commit without one is an edge with
 * nothing in common, and every push and fetch carried the whole tree again. No local history
 * travels: the parents are shared trees too. Its date is fixed, so the same files on the same parent
 * make the same commit.
 */
export function sharedTreeCommands(tree: PlannedTree, build: string, mark: number, from: string | null): string {
	const message = sharedTreeMessage(tree.snapshot);
	if (tree.changes && !from) {
		throw new Error('a shared tree written as changes needs the one before it');
	}
	const lines = [
		`reset ${build}\ncommit ${build}\nmark :${mark}\ncommitter Baton <baton@localhost> 0 +0000\ndata ${Buffer.byteLength(message)}\n${message}${from ? `from ${from}\n` : ''}`,
	];
	if (tree.changes) {
		for (const c of tree.changes) {
			lines.push(c.file ? `M ${c.file.mode} ${c.file.oid} ${quotePath(c.path)}\n` : `D ${quotePath(c.path)}\n`);
		}
	} else {
		lines.push('deleteall\n');
		for (const e of tree.entries ?? []) {
			lines.push(`M ${e.mode} ${e.oid} ${quotePath(e.path)}\n`);
		}
	}
	lines.push('\n');
	return lines.join('');
}

/** A path as fast-import reads it: quoted, `"` `\` and control characters escaped (a path may hold a newline). */
function quotePath(p: string): string {
	// eslint-disable-next-line no-control-regex -- escaping them is the point
	return `"${p.replace(/[\\"\u0000-\u001f]/g, (c) => (c === '\\' || c === '"' ? `\\${c}` : `\\${c.charCodeAt(0).toString(8).padStart(3, '0')}`))}"`;
}

/**
 * The excludes file git reads for this repository: the user's `core.excludesFile` (system, global or
 * the repository's, the last one set), else git's default `$XDG_CONFIG_HOME/git/ignore` or
 * `~/.config/git/ignore`. Baton's own git calls set no global config, so it is passed explicitly.
 */
async function excludesFile(workspaceRoot: string): Promise<string> {
	const set = (await userConfigEntries(workspaceRoot, /^core\.excludesfile$/i)).at(-1)?.[1];
	const home = process.env['HOME'] ?? os.homedir();
	if (set) {
		return set.startsWith('~/') ? path.join(home, set.slice(2)) : path.resolve(workspaceRoot, set);
	}
	const xdg = process.env['XDG_CONFIG_HOME'];
	return path.join(xdg ? xdg : path.join(home, '.config'), 'git', 'ignore');
}
