/**
 * The files a fetched ref added under one folder (`batches`, `transcripts`), read without trusting
 * the ref's shape (docs/sync.md "How it travels"). Anyone who can push may write anything: a ref at a
 * blob made every pull fail (`not a tree object`), and a tree naming one subtree a thousand times
 * fanned `ls-tree -r` out to millions of paths. So nothing is listed recursively by git. Every ref
 * is checked first (one `cat-file --batch-check` for all of them: its tip a commit, its folder a
 * tree), then the trees are read a level at a time (one `cat-file --batch` a level for all refs),
 * their paths counted — a subtree as often as it is named — and bounded before the next level is
 * read. A ref past a bound is refused by name; the other refs are read as usual.
 */
import { batchCheck, catBatch, type BoundedGitRun, type ObjectInfo } from '../git/objectReader';

interface TreeLimits {
	/** Paths under the folder, a subtree counted as often as it is named. */
	maxPaths: number;
	/** Levels of trees under the folder (Baton writes its batches in the folder itself, its transcripts one level down). */
	maxDepth: number;
	/** Bytes of the distinct trees read for one side (old or new) of one ref. */
	maxTreeBytes: number;
}

/**
 * The bounds of a pulled ref's folder, far above real use: one batch file per export, so 200,000
 * is years of a machine exporting every few minutes all day (its flat tree about 15 MB).
 */
export const refTreeLimits: TreeLimits = { maxPaths: 200_000, maxDepth: 4, maxTreeBytes: 32 * 1024 * 1024 };

export interface RefRange {
	ref: string;
	from: string | null;
	to: string;
}

interface RefFile {
	/** Relative to the folder. */
	path: string;
	oid: string;
}

interface Entry {
	mode: string;
	oid: string;
}

interface Side {
	nodes: { oid: string; prefix: string }[];
	paths: number;
	bytes: number;
	found: Map<string, Entry>;
	failed: string | null;
}

const fileModes = new Set(['100644', '100755']);

/**
 * For each range, the files under `folder` that `to` holds and `from` (null: nothing) did not, by
 * path and blob. Refused by name: a ref whose tip is no commit, whose folder is no tree, or whose
 * folder passes `limits` (`refusedRefs` lists those refs); an entry that is neither a file nor a
 * folder (a symlink, a submodule) as `<ref>:<folder>/<path>`. A `from` that cannot be read counts as
 * nothing (every file of `to` is new).
 */
export async function addedFiles(
	run: BoundedGitRun,
	ranges: readonly RefRange[],
	folder: string,
	limits: TreeLimits,
): Promise<{ read: { ref: string; files: RefFile[] }[]; refused: { id: string; reason: string }[]; refusedRefs: string[] }> {
	const read: { ref: string; files: RefFile[] }[] = [];
	const refused: { id: string; reason: string }[] = [];
	const refusedRefs: string[] = [];
	if (ranges.length === 0) {
		return { read, refused, refusedRefs };
	}
	const checked = await check(
		run,
		ranges.flatMap((r) => [r.to, `${r.to}:${folder}`, r.from ?? r.to, `${r.from ?? r.to}:${folder}`]),
	);
	const sizes = new Map<string, number>();
	const pairs: { range: RefRange; to: Side | null; from: Side | null }[] = [];
	const side = (tree: ObjectInfo): Side => {
		sizes.set(tree.oid, tree.size);
		return { nodes: [{ oid: tree.oid, prefix: '' }], paths: 0, bytes: 0, found: new Map(), failed: null };
	};
	ranges.forEach((range, i) => {
		const [tip, dir, fromTip, fromDir] = checked.slice(4 * i, 4 * i + 4);
		const refuse = (reason: string): void => {
			refused.push({ id: range.ref, reason: `${reason} (not read)` });
			refusedRefs.push(range.ref);
		};
		if (tip?.type !== 'commit') {
			refuse(`points at ${tip ? `a ${tip.type}` : 'an object Baton’s store does not hold'} (${range.to.slice(0, 12)}), not a commit`);
		} else if (dir && dir.type !== 'tree') {
			refuse(`its ${folder} is a ${dir.type}, not a folder`);
		} else {
			const from = range.from && fromTip?.type === 'commit' && fromDir?.type === 'tree' ? side(fromDir) : null;
			pairs.push({ range, to: dir ? side(dir) : null, from });
		}
	});
	await walk(
		run,
		pairs.flatMap((p) => [p.to, p.from].filter((s): s is Side => s !== null)),
		sizes,
		folder,
		limits,
	);
	for (const { range, to, from } of pairs) {
		if (to?.failed) {
			refused.push({ id: range.ref, reason: `${to.failed} (not read)` });
			refusedRefs.push(range.ref);
			continue;
		}
		const old = from && !from.failed ? from.found : new Map<string, Entry>();
		const files: RefFile[] = [];
		for (const [path, entry] of to?.found ?? []) {
			if (old.get(path)?.oid === entry.oid && old.get(path)?.mode === entry.mode) {
				continue;
			}
			if (fileModes.has(entry.mode)) {
				files.push({ path, oid: entry.oid });
			} else {
				refused.push({ id: `${range.ref}:${folder}/${path}`, reason: `not a file (mode ${entry.mode}; not read)` });
			}
		}
		read.push({ ref: range.ref, files });
	}
	return { read, refused, refusedRefs };
}

/** Each side's trees, a level at a time, until every side is read or past a bound. */
async function walk(run: BoundedGitRun, sides: readonly Side[], sizes: Map<string, number>, folder: string, limits: TreeLimits): Promise<void> {
	for (let depth = 1; ; depth++) {
		const active = sides.filter((s) => !s.failed && s.nodes.length > 0);
		if (active.length === 0) {
			return;
		}
		// Below the folder itself the trees' sizes are not known yet: asked before any is read.
		const unknown = [...new Set(active.flatMap((s) => s.nodes.map((n) => n.oid)))].filter((oid) => !sizes.has(oid));
		const infos = unknown.length > 0 ? await check(run, unknown) : [];
		unknown.forEach((oid, i) => sizes.set(oid, infos[i]?.type === 'tree' ? infos[i].size : -1));
		const wanted = new Set<string>();
		for (const s of active) {
			const distinct = new Set(s.nodes.map((n) => n.oid));
			for (const oid of distinct) {
				const size = sizes.get(oid) ?? -1;
				if (size < 0) {
					s.failed = `its ${folder} names ${oid.slice(0, 12)} as a folder, which is not a tree Baton’s store holds`;
					break;
				}
				s.bytes += size;
			}
			if (!s.failed && s.bytes > limits.maxTreeBytes) {
				s.failed = `its ${folder} is trees of more than ${limits.maxTreeBytes} bytes`;
			}
			if (!s.failed) {
				distinct.forEach((oid) => wanted.add(oid));
			}
		}
		const list = [...wanted];
		const bytes = list.reduce((sum, oid) => sum + (sizes.get(oid) ?? 0) + 100, 0);
		const trees = await catBatch((args, input) => run(args, input ?? '', bytes), list, 'tree');
		const entries = new Map<string, { name: string; entry: Entry }[] | null>();
		list.forEach((oid, i) => entries.set(oid, parseTree(trees[i]?.content ?? null, oid.length / 2)));
		for (const s of active.filter((x) => !x.failed)) {
			const broken = s.nodes.find((n) => !entries.get(n.oid));
			if (broken) {
				s.failed = `its ${folder} holds a tree ${broken.oid.slice(0, 12)} that git cannot read as one`;
				continue;
			}
			// Counted before anything of this level is listed: a tree named a million times stops here.
			s.paths += s.nodes.reduce((sum, n) => sum + (entries.get(n.oid)?.length ?? 0), 0);
			if (s.paths > limits.maxPaths) {
				s.failed = `its ${folder} holds more than ${limits.maxPaths} paths`;
				continue;
			}
			const next: { oid: string; prefix: string }[] = [];
			for (const node of s.nodes) {
				for (const { name, entry } of entries.get(node.oid) ?? []) {
					if (entry.mode === '40000') {
						next.push({ oid: entry.oid, prefix: `${node.prefix}${name}/` });
					} else {
						s.found.set(`${node.prefix}${name}`, entry);
					}
				}
			}
			if (next.length > 0 && depth >= limits.maxDepth) {
				s.failed = `its ${folder} has folders more than ${limits.maxDepth} levels deep`;
				continue;
			}
			s.nodes = next;
		}
	}
}

/** A tree object's entries (`<mode> <name>\0<oid bytes>` each), or null when it is none. */
function parseTree(content: Buffer | null, oidBytes: number): { name: string; entry: Entry }[] | null {
	if (!content) {
		return null;
	}
	const out: { name: string; entry: Entry }[] = [];
	let at = 0;
	while (at < content.length) {
		const space = content.indexOf(0x20, at);
		const nul = space < 0 ? -1 : content.indexOf(0, space);
		if (nul < 0 || nul + 1 + oidBytes > content.length) {
			return null;
		}
		out.push({
			name: content.toString('utf8', space + 1, nul),
			entry: { mode: content.toString('latin1', at, space), oid: content.toString('hex', nul + 1, nul + 1 + oidBytes) },
		});
		at = nul + 1 + oidBytes;
	}
	return out;
}

/** `cat-file --batch-check` of each spec: its oid, type and size, or null when git does not hold it. */
function check(run: BoundedGitRun, specs: readonly string[]): Promise<(ObjectInfo | null)[]> {
	return batchCheck((args, input) => run(args, input ?? '', Number.MAX_SAFE_INTEGER), specs);
}
