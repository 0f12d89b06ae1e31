/**
 * `write-tree` of the shadow index, or the tree the last one wrote when the index file has not been
 * written since: an unchanged workspace then costs no git process here. The index is recognised by
 * its file's identity and times and by the checksum git writes at its end (every writer replaces the
 * file through `index.lock`, so any change to it changes these).
 */
import fs from 'node:fs';
import path from 'node:path';
import { carryIndexPaths, indexStamp } from './indexPaths';
import type { ShadowRepo } from './shadowRepo';

const treeFile = 'baton-index-tree.json';

/** The tree `write-tree` last wrote, when the index file has not been written since; else null. */
export function savedIndexTree(repo: ShadowRepo): string | null {
	const stamp = indexStamp(repo.indexFile);
	if (!stamp) {
		return null;
	}
	try {
		const saved = JSON.parse(fs.readFileSync(path.join(repo.gitDir, treeFile), 'utf8')) as { stamp?: unknown; tree?: unknown };
		return saved.stamp === stamp && typeof saved.tree === 'string' && /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(saved.tree) ? saved.tree : null;
	} catch {
		return null;
	}
}

export async function writeIndexTree(repo: ShadowRepo, timeoutMs?: number): Promise<string> {
	const file = path.join(repo.gitDir, treeFile);
	const stamp = indexStamp(repo.indexFile);
	const saved = savedIndexTree(repo);
	if (saved) {
		return saved;
	}
	const tree = await repo.gitText(['write-tree'], timeoutMs === undefined ? {} : { timeoutMs });
	// write-tree may itself write the index (its cache of trees): remember the index as it is now.
	const after = indexStamp(repo.indexFile);
	// Its entries are the same: the index's paths kept in memory stay valid.
	carryIndexPaths(repo, stamp, [], []);
	if (after) {
		fs.writeFileSync(file, `${JSON.stringify({ stamp: after, tree })}\n`);
	}
	return tree;
}
