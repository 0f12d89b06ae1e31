/**
 * Git's object format, written and read without a git process: a loose object is the zlib-deflated
 * `<type> <size>\0<content>`, named after the SHA-1 of those bytes, under `objects/xx/yyyy…`; a tree's
 * content is its entries `<mode> <name>\0<20-byte id>`, sorted by name as if a folder's name ended in
 * `/`. The capture of a few changed files (treeFromPaths.ts) uses this to build the new tree from the
 * previous one without reading the whole shadow index twice (`update-index`, `write-tree`). The
 * trees it writes are byte for byte the ones `write-tree` writes for the same files, so both ways
 * give the same tree id.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { deflateSync } from 'node:zlib';

type ObjectType = 'blob' | 'tree';

export interface TreeEntry {
	mode: string;
	name: string;
	sha: string;
}

export const treeMode = '40000';

/** The object id of `content` as a `type`. */
function objectId(type: ObjectType, content: Buffer): string {
	return createHash('sha1').update(`${type} ${content.length}\0`).update(content).digest('hex');
}

/**
 * Writes `content` as a loose object (when no loose copy exists; one that does gets its time
 * renewed, as git does, so a prune's grace period counts from now). Returns its id. The store's
 * objects must be SHA-1 ones (see sha1Store). A copy already in a pack is written loose again: the
 * next repack folds the two.
 */
export function writeLooseObject(gitDir: string, type: ObjectType, content: Buffer, compression = 1): string {
	const sha = objectId(type, content);
	const dir = path.join(gitDir, 'objects', sha.slice(0, 2));
	const file = path.join(dir, sha.slice(2));
	try {
		const now = new Date();
		fs.utimesSync(file, now, now);
		return sha;
	} catch {
		// Not there loose: written below.
	}
	fs.mkdirSync(dir, { recursive: true });
	const temp = path.join(dir, `tmp_obj_baton_${process.pid}_${Math.random().toString(36).slice(2)}`);
	fs.writeFileSync(temp, deflateSync(Buffer.concat([Buffer.from(`${type} ${content.length}\0`), content]), { level: compression }), { mode: 0o444 });
	try {
		fs.renameSync(temp, file);
	} catch (error) {
		fs.rmSync(temp, { force: true });
		if (!fs.existsSync(file)) {
			throw error;
		}
	}
	return sha;
}

/** A tree object's entries, in their stored order. */
export function parseTree(content: Buffer): TreeEntry[] {
	const entries: TreeEntry[] = [];
	let at = 0;
	while (at < content.length) {
		const space = content.indexOf(0x20, at);
		const nul = content.indexOf(0, space + 1);
		if (space < 0 || nul < 0 || nul + 21 > content.length) {
			throw new Error('malformed tree object');
		}
		entries.push({
			mode: content.toString('latin1', at, space),
			name: content.toString('utf8', space + 1, nul),
			sha: content.toString('hex', nul + 1, nul + 21),
		});
		at = nul + 21;
	}
	return entries;
}

/** A tree object's content for `entries` (any order; git's order is applied). */
export function serializeTree(entries: readonly TreeEntry[]): Buffer {
	const keyed = entries.map((e) => ({ e, key: Buffer.from(e.mode === treeMode ? `${e.name}/` : e.name, 'utf8') }));
	keyed.sort((a, b) => Buffer.compare(a.key, b.key));
	return Buffer.concat(keyed.flatMap(({ e }) => [Buffer.from(`${e.mode} ${e.name}\0`, 'utf8'), Buffer.from(e.sha, 'hex')]));
}

/**
 * Whether the store's objects are SHA-1 ones and it takes loose objects the plain way: the only kind
 * this module writes. Read from the store's config (a repository made for SHA-256 says so there).
 */
export function sha1Store(gitDir: string): boolean {
	try {
		const config = fs.readFileSync(path.join(gitDir, 'config'), 'utf8');
		return !/^\s*objectformat\s*=\s*(?!sha1\s*$)/im.test(config) && !/^\s*repositoryformatversion\s*=\s*[1-9]/im.test(config);
	} catch {
		return false;
	}
}

/** A boolean from the store's config (last one wins), or `fallback` when not set. */
export function configBool(gitDir: string, section: string, key: string, fallback: boolean): boolean {
	let value = fallback;
	try {
		let current = '';
		for (const raw of fs.readFileSync(path.join(gitDir, 'config'), 'utf8').split('\n')) {
			const line = raw.trim();
			const header = /^\[([^\]\s"]+)\]$/.exec(line);
			if (header) {
				current = (header[1] as string).toLowerCase();
				continue;
			}
			const pair = /^([A-Za-z0-9-]+)\s*=\s*(\S+)$/.exec(line);
			if (current === section.toLowerCase() && pair && (pair[1] as string).toLowerCase() === key.toLowerCase()) {
				value = /^(true|yes|on|1)$/i.test(pair[2] as string);
			}
		}
	} catch {
		// No config: the fallback.
	}
	return value;
}
