/**
 * Reads many objects of the shadow store with one `git cat-file --batch` process: names go in
 * (an id, or `<tree>:<path>`), each answer is `<id> <type> <size>\n<content>\n`, or `<name> missing`.
 */
import { BatonError } from '../errors';
import type { ShadowRepo } from './shadowRepo';

export interface GitObject {
	sha: string;
	type: string;
	content: Buffer;
}

/** The objects named, in order; null for a name the store does not hold (or an ambiguous one). */
export async function readObjects(repo: ShadowRepo, names: readonly string[], timeoutMs = 60_000): Promise<(GitObject | null)[]> {
	if (names.length === 0) {
		return [];
	}
	if (names.some((n) => /[\n\r]/.test(n))) {
		throw new BatonError('invalidInput', 'an object name for cat-file holds a line break');
	}
	const out = (await repo.git(['cat-file', '--batch'], { input: `${names.join('\n')}\n`, timeoutMs })).stdout;
	const objects: (GitObject | null)[] = [];
	let at = 0;
	for (const name of names) {
		const eol = out.indexOf(0x0a, at);
		if (eol < 0) {
			throw new BatonError('gitFailed', `cat-file --batch stopped before answering ${name}`);
		}
		const header = out.toString('utf8', at, eol);
		at = eol + 1;
		const parts = header.split(' ');
		const size = Number(parts[parts.length - 1]);
		if (parts.length !== 3 || !/^[0-9a-f]{40,64}$/.test(parts[0] as string) || !Number.isInteger(size)) {
			// `<name> missing` / `<name> ambiguous`: the name may hold spaces, the answer's last word says.
			objects.push(null);
			continue;
		}
		objects.push({ sha: parts[0] as string, type: parts[1] as string, content: out.subarray(at, at + size) });
		at += size + 1;
	}
	return objects;
}
