/**
 * Reading many git objects through one `cat-file --batch`: sync reads the event batches it fetched,
 * provenance reads the blobs it attributes. The caller supplies the git call (its own repository and
 * environment); this only writes the specs and parses git's answer.
 */
import { BatonError } from '../errors';

export type GitRun = (args: readonly string[], input?: string | Buffer) => Promise<Buffer>;

export interface CatResult {
	oid: string;
	content: Buffer;
}

/** `cat-file --batch` for many `<rev>:<path>` or oid specs; a missing object (or one that is not of `type`, a blob unless told) is null. */
export async function catBatch(run: GitRun, specs: readonly string[], type: 'blob' | 'tree' = 'blob'): Promise<(CatResult | null)[]> {
	if (specs.length === 0) {
		return [];
	}
	if (specs.some((s) => s.includes('\n'))) {
		throw new Error('a path with a newline cannot be read through cat-file --batch');
	}
	const out = await run(['cat-file', '--batch'], `${specs.join('\n')}\n`);
	const results: (CatResult | null)[] = [];
	let at = 0;
	for (let i = 0; i < specs.length; i++) {
		const eol = out.indexOf(10, at);
		if (eol < 0) {
			throw new Error('cat-file --batch stopped early');
		}
		const header = out.subarray(at, eol).toString('utf8');
		at = eol + 1;
		const match = /^([0-9a-f]{40,64}) (\w+) (\d+)$/.exec(header);
		if (!match) {
			results.push(null);
			continue;
		}
		const size = Number(match[3]);
		results.push(match[2] === type ? { oid: match[1]!, content: out.subarray(at, at + size) } : null);
		at += size + 1;
	}
	return results;
}

/** How much a bounded read holds: no blob above `maxBlobBytes`, no single git answer above `maxGroupBytes` (at least `maxBlobBytes`). */
export interface CatLimits {
	maxBlobBytes: number;
	maxGroupBytes: number;
}

/** A blob too large to read under the limits: its size, not its content. */
export interface TooLargeBlob {
	oid: string;
	tooLarge: number;
}

/** A run whose output may be capped: past `maxStdoutBytes` it fails as runGit's GitOutputTooLargeError does. */
export type BoundedGitRun = (args: readonly string[], input: string, maxStdoutBytes: number) => Promise<Buffer>;

/**
 * Blobs by oid, held within `limits`, for data another machine wrote (a pulled batch, a shared
 * transcript): whatever a remote holds, a pull neither runs out of memory nor fails over one
 * blob forever. The usual read is the one `cat-file --batch` of {@link catBatch}, capped; only when
 * its answer would pass `maxGroupBytes` are the sizes asked (`--batch-check`) and the blobs read in
 * groups under it. A blob above `maxBlobBytes` comes back as its size, either way; a missing object
 * (or one that is not a blob) as null.
 */
export async function catBlobs(run: BoundedGitRun, oids: readonly string[], limits: CatLimits): Promise<(CatResult | TooLargeBlob | null)[]> {
	if (oids.length === 0) {
		return [];
	}
	if (oids.some((oid) => !/^[0-9a-f]{40,64}$/.test(oid))) {
		throw new Error('catBlobs reads object ids only');
	}
	const capped = (found: (CatResult | null)[]): (CatResult | TooLargeBlob | null)[] => found.map((blob) => (blob && blob.content.length > limits.maxBlobBytes ? { oid: blob.oid, tooLarge: blob.content.length } : blob));
	try {
		return capped(await catBatch((args, input) => run(args, input as string, limits.maxGroupBytes), oids));
	} catch (error) {
		if (!outputTooLarge(error)) {
			throw error;
		}
	}
	const check = (await run(['cat-file', '--batch-check=%(objectname) %(objecttype) %(objectsize)'], `${oids.join('\n')}\n`, Number.MAX_SAFE_INTEGER)).toString('utf8').split('\n');
	const results: (CatResult | TooLargeBlob | null)[] = oids.map(() => null);
	// Each group's answer is bounded by its own sizes (headers and newlines: 100 bytes a blob is more than they take).
	const groups: { members: number[]; bytes: number }[] = [];
	oids.forEach((oid, i) => {
		const match = /^([0-9a-f]{40,64}) (\w+) (\d+)$/.exec(check[i] ?? '');
		if (!match || match[2] !== 'blob') {
			return;
		}
		const size = Number(match[3]);
		if (size > limits.maxBlobBytes) {
			results[i] = { oid, tooLarge: size };
			return;
		}
		const last = groups[groups.length - 1];
		if (last && last.bytes + size + 100 <= limits.maxGroupBytes) {
			last.members.push(i);
			last.bytes += size + 100;
		} else {
			groups.push({ members: [i], bytes: size + 100 });
		}
	});
	for (const { members, bytes } of groups) {
		const found = await catBatch(
			(args, input) => run(args, input as string, bytes),
			members.map((i) => oids[i] as string),
		);
		members.forEach((i, k) => (results[i] = found[k] ?? null));
	}
	return results;
}

/** runGit's GitOutputTooLargeError, from this copy of the engine or another (by code and details, as `BatonError.is`). */
function outputTooLarge(error: unknown): boolean {
	return BatonError.is(error, 'limitReached') && typeof error.details?.['maxStdoutBytes'] === 'number';
}
