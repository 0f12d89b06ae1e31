/**
 * `write-tree` of the shadow index, or the tree the last one wrote when the index file has not been
 * written since: an unchanged workspace then costs no git process here. The index is recognised by
 * its file's identity and times and by the checksum git writes at its end (every writer replaces the
 * file through `index.lock`, so any change to it changes these).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ShadowRepo } from './shadowRepo';

const treeFile = 'baton-index-tree.json';

export async function writeIndexTree(repo: ShadowRepo, timeoutMs?: number): Promise<string> {
	const file = path.join(repo.gitDir, treeFile);
	const stamp = indexStamp(repo.indexFile);
	if (stamp) {
		try {
			const saved = JSON.parse(fs.readFileSync(file, 'utf8')) as { stamp?: unknown; tree?: unknown };
			if (saved.stamp === stamp && typeof saved.tree === 'string' && /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(saved.tree)) {
				return saved.tree;
			}
		} catch {
			// None yet, or unreadable: write the tree.
		}
	}
	const tree = await repo.gitText(['write-tree'], timeoutMs === undefined ? {} : { timeoutMs });
	// write-tree may itself write the index (its cache of trees): remember the index as it is now.
	const after = indexStamp(repo.indexFile);
	if (after) {
		fs.writeFileSync(file, `${JSON.stringify({ stamp: after, tree })}\n`);
	}
	return tree;
}

/** Identity, size, times and trailing checksum of the index file; null when it cannot be read. */
function indexStamp(indexFile: string): string | null {
	let fd: number | undefined;
	try {
		fd = fs.openSync(indexFile, 'r');
		const stat = fs.fstatSync(fd, { bigint: true });
		const tail = Buffer.alloc(32);
		const length = Number(stat.size < 32n ? stat.size : 32n);
		fs.readSync(fd, tail, 0, length, Number(stat.size) - length);
		return `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}:${tail.subarray(0, length).toString('hex')}`;
	} catch {
		return null;
	} finally {
		if (fd !== undefined) {
			fs.closeSync(fd);
		}
	}
}
