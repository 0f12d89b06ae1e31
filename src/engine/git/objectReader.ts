/**
 * The one object reader (docs/architecture.md, "Git in one room"): many objects through one `cat-file --batch`
 * (sync reads the event batches it fetched, provenance the blobs it attributes, the snapshot path the
 * trees and blobs it rebuilds), their ids, types and sizes through one `cat-file --batch-check`, and
 * blobs another machine wrote within bounds. The caller supplies the git call (its own repository and
 * environment); this only writes the specs and parses git's answer.
 */
import { pushAll } from '../arrays';
import { BatonError } from '../errors';

/** A promise input is written when it settles: git starts (and pays its start-up) while the specs are computed. */
export type GitRun = (args: readonly string[], input?: string | Buffer | Promise<string | Buffer>) => Promise<Buffer>;

interface CatResult {
	oid: string;
	type: string;
	content: Buffer;
}

export interface ObjectInfo {
	oid: string;
	type: string;
	size: number;
}

const headerLine = /^([0-9a-f]{40,64}) (\w+) (\d+)$/;

function specsInput(specs: readonly string[]): string {
	if (specs.some((s) => /[\n\r]/.test(s))) {
		throw new BatonError('invalidInput', 'an object name for cat-file holds a line break');
	}
	return specs.length ? `${specs.join('\n')}\n` : '';
}

/**
 * `cat-file --batch` for many `<rev>:<path>` or oid specs, in order. A spec git does not hold
 * (`<name> missing`, `<name> ambiguous`: the name may hold spaces, the answer's last word says), or an
 * object not of `type` when one is asked, is null.
 */
export async function catBatch(run: GitRun, specs: readonly string[], type?: 'blob' | 'tree' | 'commit'): Promise<(CatResult | null)[]> {
	if (specs.length === 0) {
		return [];
	}
	const out = await run(['cat-file', '--batch'], specsInput(specs));
	const results: (CatResult | null)[] = [];
	let at = 0;
	for (const spec of specs) {
		const eol = out.indexOf(10, at);
		if (eol < 0) {
			throw new BatonError('gitFailed', `cat-file --batch stopped before answering ${spec}`);
		}
		const match = headerLine.exec(out.toString('utf8', at, eol));
		at = eol + 1;
		if (!match) {
			results.push(null);
			continue;
		}
		const size = Number(match[3]);
		results.push(
			type === undefined || match[2] === type ? { oid: match[1] as string, type: match[2] as string, content: out.subarray(at, at + size) } : null,
		);
		at += size + 1;
	}
	return results;
}

/**
 * `cat-file --batch-check` of each spec, in order: its oid, type and size, or null when git does not
 * hold it. The specs may still be computed (a promise): git starts meanwhile.
 */
export async function batchCheck(run: GitRun, specs: readonly string[] | Promise<readonly string[]>): Promise<(ObjectInfo | null)[]> {
	const list = Promise.resolve(specs);
	const input = list.then(specsInput);
	// The specs' own refusal (a line break) comes first, not git's exit when its input failed.
	const [out, names] = await Promise.all([run(['cat-file', '--batch-check=%(objectname) %(objecttype) %(objectsize)'], input), input.then(() => list)]);
	const lines = out.toString('utf8').split('\n');
	return names.map((_, i) => {
		const match = headerLine.exec(lines[i] ?? '');
		return match ? { oid: match[1] as string, type: match[2] as string, size: Number(match[3]) } : null;
	});
}

/** How much a bounded read holds: no blob above `maxBlobBytes`, no single git answer above `maxGroupBytes` (at least `maxBlobBytes`). */
interface CatLimits {
	maxBlobBytes: number;
	maxGroupBytes: number;
}

/** A blob too large to read under the limits: its size, not its content. */
interface TooLargeBlob {
	oid: string;
	tooLarge: number;
}

/** A run whose output may be capped: past `maxStdoutBytes` it fails as runGit's GitOutputTooLargeError does. */
export type BoundedGitRun = (args: readonly string[], input: string | Buffer | Promise<string | Buffer>, maxStdoutBytes: number) => Promise<Buffer>;

/**
 * Blobs by oid, held within `limits`, for data another machine wrote (a pulled batch, a shared
 * transcript): whatever a remote holds, a pull neither runs out of memory nor fails over one
 * blob forever. The usual read is the one `cat-file --batch` of {@link catBatch}, capped; only when
 * its answer would pass `maxGroupBytes` are the sizes asked (`--batch-check`) and the blobs read in
 * groups under it. A blob above `maxBlobBytes` comes back as its size, either way; a missing object
 * (or one that is not a blob) as null.
 */
export async function catBlobs(run: BoundedGitRun, oids: readonly string[], limits: CatLimits): Promise<(CatResult | TooLargeBlob | null)[]> {
	const results: (CatResult | TooLargeBlob | null)[] = [];
	for await (const group of catBlobGroups(run, oids, limits)) pushAll(results, group.found);
	return results;
}

/** One read of {@link catBlobGroups}: blobs in the order asked, what each was, and whether no group follows. */
interface BlobGroup {
	oids: string[];
	found: (CatResult | TooLargeBlob | null)[];
	last: boolean;
}

/**
 * {@link catBlobs} a group at a time, in the order asked: one group when the answer fits
 * `maxGroupBytes`, else groups of at most that many bytes each (a larger blob, up to `maxBlobBytes`,
 * alone). A caller that handles each group before the next holds one group's blobs, not all of them;
 * each group says whether it is the last, so that caller need not read the next one ahead to know.
 */
export async function* catBlobGroups(run: BoundedGitRun, oids: readonly string[], limits: CatLimits): AsyncGenerator<BlobGroup> {
	if (oids.length === 0) {
		return;
	}
	if (oids.some((oid) => !/^[0-9a-f]{40,64}$/.test(oid))) {
		throw new Error('catBlobs reads object ids only');
	}
	const capped = (found: (CatResult | null)[]): (CatResult | TooLargeBlob | null)[] =>
		found.map((blob) => (blob && blob.content.length > limits.maxBlobBytes ? { oid: blob.oid, tooLarge: blob.content.length } : blob));
	let whole: (CatResult | null)[] | undefined;
	try {
		whole = await catBatch((args, input) => run(args, input ?? '', limits.maxGroupBytes), oids, 'blob');
	} catch (error) {
		if (!outputTooLarge(error)) {
			throw error;
		}
	}
	if (whole) {
		yield { oids: [...oids], found: capped(whole), last: true };
		return;
	}
	const check = await batchCheck((args, input) => run(args, input ?? '', Number.MAX_SAFE_INTEGER), oids);
	// Each group's answer is bounded by its own sizes (headers and newlines: 100 bytes a blob is more than they take).
	// A blob that is missing, not a blob, or too large joins the group it falls in, as what it is.
	const groups: { members: { oid: string; known?: TooLargeBlob | null }[]; bytes: number }[] = [];
	oids.forEach((oid, i) => {
		const info = check[i];
		const last = groups[groups.length - 1];
		if (!info || info.type !== 'blob' || info.size > limits.maxBlobBytes) {
			const known = info?.type === 'blob' ? { oid, tooLarge: info.size } : null;
			if (last) last.members.push({ oid, known });
			else groups.push({ members: [{ oid, known }], bytes: 0 });
		} else if (last && (last.bytes === 0 || last.bytes + info.size + 100 <= limits.maxGroupBytes)) {
			last.members.push({ oid });
			last.bytes += info.size + 100;
		} else {
			groups.push({ members: [{ oid }], bytes: info.size + 100 });
		}
	});
	for (const [g, { members, bytes }] of groups.entries()) {
		const read = members.filter((m) => m.known === undefined).map((m) => m.oid);
		const found = await catBatch((args, input) => run(args, input ?? '', bytes), read);
		let k = 0;
		const last = g === groups.length - 1;
		yield { oids: members.map((m) => m.oid), found: members.map((m) => (m.known === undefined ? (found[k++] ?? null) : m.known)), last };
	}
}

/** runGit's GitOutputTooLargeError, from this copy of the engine or another (by code and details, as `BatonError.is`). */
function outputTooLarge(error: unknown): boolean {
	return BatonError.is(error, 'limitReached') && typeof error.details?.['maxStdoutBytes'] === 'number';
}
