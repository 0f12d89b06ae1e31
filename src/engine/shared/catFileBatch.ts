/**
 * Reading many git objects through one `cat-file --batch`: sync reads the event batches it fetched,
 * provenance reads the blobs it attributes. The caller supplies the git call (its own repository and
 * environment); this only writes the specs and parses git's answer.
 */
export type GitRun = (args: readonly string[], input?: string | Buffer) => Promise<Buffer>;

export interface CatResult {
	oid: string;
	content: Buffer;
}

/** `cat-file --batch` for many `<rev>:<path>` or oid specs; a missing object (or one that is not a blob) is null. */
export async function catBatch(run: GitRun, specs: readonly string[]): Promise<(CatResult | null)[]> {
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
		results.push(match[2] === 'blob' ? { oid: match[1]!, content: out.subarray(at, at + size) } : null);
		at += size + 1;
	}
	return results;
}
