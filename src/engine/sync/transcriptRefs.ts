/**
 * Transcripts on a ref of their own, `refs/baton/transcripts/<machine>` (docs/sync.md "Transcripts"):
 * a commit chain whose tree holds `transcripts/<durable session>/<name>.jsonl`, one file per archived
 * transcript (sharedTranscripts.ts says what is in it). Kept apart from the events ref so that a
 * remote enabled without `--transcripts` is pushed the events ref alone and receives no transcript
 * object. Written by one `git fast-import` per export (a pack), only for transcripts that changed
 * since the last export.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ShadowRepo } from '../shadow/shadowRepo';
import { catBlobs, type BoundedGitRun } from '../git/objectReader';
import { fastImportArgs } from './eventRefs';
import { addedFiles, refTreeLimits } from './refTrees';
import { atomicWriteFile } from '../storage/fsUtil';
import { mkdirPrivate } from '../workspace';
import type { SharedTranscript } from '../transcripts/sharedTranscripts';

export const transcriptsRefPrefix = 'refs/baton/transcripts/';
const treeDir = 'transcripts';

interface ShippedCache {
	tip: string | null;
	versions: Record<string, string>;
}

function readCache(file: string): ShippedCache {
	try {
		const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<ShippedCache>;
		return {
			tip: typeof parsed.tip === 'string' ? parsed.tip : null,
			versions: parsed.versions && typeof parsed.versions === 'object' ? parsed.versions : {},
		};
	} catch {
		return { tip: null, versions: {} };
	}
}

/**
 * Writes the transcripts that changed since the last export onto `ref` (needs the shadow lock).
 * `tip` reads a ref's oid. Returns how many files were written.
 */
export async function exportTranscripts(
	shadow: ShadowRepo,
	ref: string,
	tip: (ref: string) => Promise<string | null>,
	transcripts: readonly SharedTranscript[],
	cacheFile: string,
	nowMs: number,
): Promise<number> {
	const from = await tip(ref);
	const cache = readCache(cacheFile);
	// A cache of another tip (a lost write, a ref reset by hand) says nothing: every file is written again.
	const versions = cache.tip === from ? cache.versions : {};
	const changed = transcripts.filter((t) => versions[t.path] !== t.version);
	if (changed.length === 0) {
		return 0;
	}
	const chunks: Buffer[] = [];
	const data = (bytes: Buffer): void => {
		chunks.push(Buffer.from(`data ${bytes.length}\n`), bytes, Buffer.from('\n'));
	};
	chunks.push(Buffer.from(`commit ${ref}\ncommitter Baton <baton@localhost> ${Math.floor(nowMs / 1000)} +0000\n`));
	data(Buffer.from(`baton transcripts: ${changed.length}\n`));
	if (from) {
		chunks.push(Buffer.from(`from ${from}\n`));
	}
	for (const t of changed) {
		chunks.push(Buffer.from(`M 100644 inline ${treeDir}/${t.path}\n`));
		data(Buffer.from(t.content()));
	}
	chunks.push(Buffer.from('done\n'));
	await shadow.git(fastImportArgs, { input: Buffer.concat(chunks), timeoutMs: 120_000 });
	const next: ShippedCache = { tip: await tip(ref), versions: { ...versions } };
	for (const t of changed) {
		next.versions[t.path] = t.version;
	}
	mkdirPrivate(path.dirname(cacheFile));
	atomicWriteFile(cacheFile, Buffer.from(JSON.stringify(next)));
	return changed.length;
}

/**
 * Writes the transcripts ref again without the folders of `sessions` (a retraction): one parentless
 * commit of what remains, so no commit of the ref reaches them any more, and the shipped-versions
 * cache is carried over to the new tip without them. Needs the shadow lock. Returns whether the ref
 * held any of them.
 */
export async function dropTranscripts(
	shadow: ShadowRepo,
	ref: string,
	tip: (ref: string) => Promise<string | null>,
	sessions: readonly string[],
	cacheFile: string,
	nowMs: number,
): Promise<boolean> {
	const from = await tip(ref);
	if (!from || sessions.length === 0) {
		return false;
	}
	const listed = (await shadow.git(['ls-tree', '-z', '--name-only', `${from}:${treeDir}`], { okCodes: [128] })).stdout.toString('utf8').split('\0');
	const held = sessions.filter((s) => listed.includes(s));
	if (held.length === 0) {
		return false;
	}
	const tree = (await shadow.gitText(['rev-parse', `${from}^{tree}`])).trim();
	const message = `baton transcripts (${held.length} session(s) taken back)\n`;
	const stream = [
		`commit ${ref}\ncommitter Baton <baton@localhost> ${Math.floor(nowMs / 1000)} +0000\ndata ${Buffer.byteLength(message)}\n${message}M 040000 ${tree} ""\n`,
		...held.map((s) => `D ${treeDir}/${s}\n`),
		'\ndone\n',
	].join('');
	await shadow.git(['update-ref', '-d', ref]);
	await shadow.git(fastImportArgs, { input: Buffer.from(stream), timeoutMs: 120_000 });
	const cache = readCache(cacheFile);
	const versions = Object.fromEntries(Object.entries(cache.tip === from ? cache.versions : {}).filter(([p]) => !held.includes(p.split('/')[0] ?? '')));
	mkdirPrivate(path.dirname(cacheFile));
	atomicWriteFile(cacheFile, Buffer.from(JSON.stringify({ tip: await tip(ref), versions })));
	return true;
}

/** A pulled transcript above this is skipped unread (a long Claude Code session is tens of megabytes). */
export const maxTranscriptBytes = 256 * 1024 * 1024;

/**
 * The transcript files `newTip` added or changed since `oldTip` (null: all of them), with their
 * text; those above `maxBytes` by path and size only. Its trees are read under `refTreeLimits`
 * (refTrees.ts): a ref that is no commit chain of files within them is refused by name (`ref`), and
 * `refusedRef` says so.
 */
export async function readTranscripts(
	shadow: ShadowRepo,
	oldTip: string | null,
	newTip: string,
	maxBytes: number = maxTranscriptBytes,
	ref: string = newTip,
): Promise<{
	files: { path: string; content: string }[];
	tooLarge: { path: string; bytes: number }[];
	refused: { id: string; reason: string }[];
	refusedRef: boolean;
}> {
	const run: BoundedGitRun = async (args, input, maxStdoutBytes) => (await shadow.git(args, { input, maxStdoutBytes })).stdout;
	const listed = await addedFiles(run, [{ ref, from: oldTip, to: newTip }], treeDir, refTreeLimits);
	const wanted = listed.read.flatMap((r) => r.files);
	const found = await catBlobs(
		run,
		wanted.map((w) => w.oid),
		{
			maxBlobBytes: maxBytes,
			maxGroupBytes: maxBytes,
		},
	);
	const files: { path: string; content: string }[] = [];
	const tooLarge: { path: string; bytes: number }[] = [];
	wanted.forEach((w, i) => {
		const blob = found[i];
		if (blob && 'tooLarge' in blob) {
			tooLarge.push({ path: w.path, bytes: blob.tooLarge });
		} else if (blob) {
			files.push({ path: w.path, content: blob.content.toString('utf8') });
		}
	});
	return { files, tooLarge, refused: listed.refused, refusedRef: listed.refusedRefs.length > 0 };
}
