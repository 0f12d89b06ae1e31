/**
 * Attribution of one commit: every line it added gets the origin of whatever last wrote it, in this
 * order of evidence —
 *   1. git's own rewrite pairs (`post-rewrite`, when Baton's hook is installed): the old commit's
 *      attribution carried through the diff between the old and new versions of the file;
 *   2. an attributed commit with the same patch id (a rebase or cherry-pick that kept the change);
 *   3. the turn capture: the file's last captured state before the commit, matched line by line —
 *      a line the capture holds keeps its step's origin;
 *   4. content matching against attributed commits that are neither ancestors nor descendants
 *      (squashes, fixups, squash-merges): placed only where every such commit that holds the line
 *      agrees, and marked `recovered`.
 * For a rewritten commit (its author date differs from its commit date) 4 comes before 3, because the
 * capture's latest state may be newer than the content being replayed. Whatever is left is `human`
 * when the capture knew the file (a person changed it after the agent's step), else `unknown`.
 */
import path from 'node:path';
import { batchCheck, catBatch } from '../git/objectReader';
import { workTreeBlob } from './keptBlobs';
import { matchLines } from './lineDiff';
import {
	humanOrigin,
	originsByLine,
	sameOrigin,
	toRanges,
	unknownOrigin,
	type CommitAttribution,
	type FileAttribution,
	type LineOrigin,
	type RewriteHow,
} from './attributionRecords';
import type { CommitPatch } from './commitDiff';
import { textLines, type RepoGit } from './repoGit';
import { stepSpecs, trackFile, type CapturedStep, type ShadowBlobs, type TrackedFile } from './stepHistory';

interface AttributionInputs {
	git: RepoGit;
	/** The workspace's path inside the repository (`''` or `sub/`). */
	prefix: string;
	steps: readonly CapturedStep[];
	blobs: ShadowBlobs;
	attributions: ReadonlyMap<string, CommitAttribution>;
	/** Old commits git named for this one (`post-rewrite`). */
	rewrittenFrom: readonly string[];
}

interface AttributionResult {
	attribution: CommitAttribution;
	/** How old commits were found for this one by matching (to record as `provenance.rewrite`). */
	matched: { from: string[]; how: RewriteHow }[];
	/** Attributed commits it might have come from that this clone does not have: skipped. */
	missing: string[];
}

/**
 * Null when Baton has nothing to say about the commit: no captured step, no rewrite source. `patchId`
 * is the commit's (read with the other commits' in one call, readCommits).
 */
export async function attributeCommit(
	inputs: AttributionInputs,
	info: CommitPatch,
	patchIdOf: Promise<Map<string, string>>,
): Promise<AttributionResult | null> {
	const files = [...info.added]
		.filter(([repoPath]) => repoPath.startsWith(inputs.prefix))
		.map(([repoPath, lines]) => ({ repoPath, path: repoPath.slice(inputs.prefix.length), lines, blob: info.blobs.get(repoPath) }));
	if (files.length === 0) {
		return null;
	}
	const cutoffMs = (info.committerTime + 1) * 1000;
	const steps = inputs.steps.filter((s) => s.startedAtMs < cutoffMs);
	const wanted = new Set(files.map((f) => f.path));
	const contents = await readCommitVersions(inputs, info, files, steps, wanted);
	// The capture's state of every file, matched while git computes the patch id (it is needed only
	// once the lines are placed in order of evidence, below).
	const trackedByPath = new Map<string, TrackedFile | null | undefined>();
	for (const f of files) {
		trackedByPath.set(f.path, await trackFile(f.path, steps, inputs.blobs));
	}
	const patchId = (await patchIdOf).get(info.commit) ?? null;
	const evidence = commitEvidence(inputs, info, patchId, wanted);
	let placedAnything = false;
	const result: FileAttribution[] = [];
	for (const file of files) {
		const content = contents.get(file.repoPath);
		if (!content?.lines) {
			continue;
		}
		const tracked = trackedByPath.get(file.path);
		const final = await attributeFile(evidence, file, content.lines, tracked);
		placedAnything ||= tracked !== undefined || final.some((o) => o.origin !== 'unknown');
		result.push({ path: file.path, blob: content.oid, ranges: toRanges(file.lines, final) });
	}
	if (!placedAnything && inputs.rewrittenFrom.length === 0) {
		return null;
	}
	return { attribution: { commit: info.commit, files: result, patchId }, matched: matchedRewrites(evidence.used), missing: [...evidence.related.missing] };
}

/** A file of the commit inside the workspace: its added line numbers and the blob id of its version. */
interface AddedFile {
	repoPath: string;
	/** Workspace-relative. */
	path: string;
	lines: number[];
	blob: string | undefined;
}

/**
 * The commit's version of each file, with its blob id (null lines: not text). The commit's own versions
 * first from the working tree, where they usually still are right after the commit (each checked
 * against its blob id, so never a wrong version). Then every captured version of every file, and the
 * commit's versions still missing, in one read of the shadow store: the capture stored the same
 * content under the same blob id, and the versions earlier commits' attributions read are kept. Only
 * what is in neither is read from the repository. A 100-file commit costs at most two git processes
 * here, not 100, and usually none.
 */
async function readCommitVersions(
	inputs: AttributionInputs,
	info: CommitPatch,
	files: readonly AddedFile[],
	steps: readonly CapturedStep[],
	wanted: ReadonlySet<string>,
): Promise<Map<string, { oid: string; lines: string[] | null }>> {
	for (const f of files) {
		if (f.blob && !inputs.blobs.has(f.blob)) {
			const lines = workTreeBlob(path.join(inputs.git.workspaceRoot, f.path), f.blob);
			if (lines !== undefined) {
				inputs.blobs.put(f.blob, lines);
			}
		}
	}
	await inputs.blobs.prefetch([
		...steps.flatMap((s) =>
			[...s.paths].filter((p) => wanted.has(p)).flatMap((p) => Object.values(stepSpecs(s, p)).filter((v): v is string => v !== null)),
		),
		...files.flatMap((f) => (f.blob ? [f.blob] : [])),
	]);
	const notInShadow = files.filter((f) => !f.blob || !inputs.blobs.spec(f.blob));
	const fromRepo = await catBatch(
		inputs.git.run,
		notInShadow.map((f) => `${info.commit}:${f.repoPath}`),
		'blob',
	);
	const contents = new Map<string, { oid: string; lines: string[] | null }>();
	notInShadow.forEach((f, i) => {
		const found = fromRepo[i];
		if (found) {
			contents.set(f.repoPath, { oid: found.oid, lines: textLines(found.content) });
		}
	});
	for (const f of files) {
		const lines = f.blob ? inputs.blobs.spec(f.blob) : undefined;
		if (f.blob && lines) {
			contents.set(f.repoPath, { oid: f.blob, lines });
		}
	}
	return contents;
}

/** What the commit's files are attributed from, shared by all of them, and which old commits were used. */
interface CommitEvidence {
	inputs: AttributionInputs;
	commit: string;
	/** Its author date differs from its commit date: content matching comes before the capture. */
	rewritten: boolean;
	wanted: ReadonlySet<string>;
	/** Attributed commits with the same patch id. */
	patchSources: string[];
	/** Which attributed commits hold each of this commit's files. */
	attributedByPath: Map<string, string[]>;
	related: RelatedCommits;
	sourceBlobs: Map<string, string[] | null>;
	used: { patch: Set<string>; content: Set<string> };
}

function commitEvidence(inputs: AttributionInputs, info: CommitPatch, patchId: string | null, wanted: ReadonlySet<string>): CommitEvidence {
	// Which attributed commits hold each of this commit's files, found in one pass (not one per file).
	const attributedByPath = new Map<string, string[]>();
	for (const a of inputs.attributions.values()) {
		for (const f of a.files) {
			const holders = wanted.has(f.path) ? (attributedByPath.get(f.path) ?? []) : undefined;
			if (holders && holders[holders.length - 1] !== a.commit) {
				holders.push(a.commit);
				attributedByPath.set(f.path, holders);
			}
		}
	}
	const patchSources = patchId ? [...inputs.attributions.values()].filter((a) => a.commit !== info.commit && a.patchId === patchId).map((a) => a.commit) : [];
	return {
		inputs,
		commit: info.commit,
		rewritten: info.authorTime !== info.committerTime,
		wanted,
		patchSources,
		attributedByPath,
		related: new RelatedCommits(inputs.git, info.commit),
		sourceBlobs: new Map(),
		used: { patch: new Set(), content: new Set() },
	};
}

/**
 * The origin of each added line of one file, in the order of evidence the file's comment gives;
 * what is left is `human` when the capture knew the file (`tracked` not undefined), else `unknown`.
 */
async function attributeFile(ev: CommitEvidence, file: AddedFile, lines: readonly string[], tracked: TrackedFile | null | undefined): Promise<LineOrigin[]> {
	const origins: (LineOrigin | undefined)[] = file.lines.map(() => undefined);
	const fromCommits = (commits: readonly string[], recovered: boolean, check: boolean) =>
		placeFromCommits(ev, file, lines, origins, { commits, recovered, check });
	await fromCommits(ev.inputs.rewrittenFrom, false, false);
	for (const c of await fromCommits(ev.patchSources, false, false)) {
		ev.used.patch.add(c);
	}
	const contentCandidates = (ev.attributedByPath.get(file.path) ?? []).filter((c) => c !== ev.commit);
	if (ev.rewritten) {
		for (const c of await fromCommits(contentCandidates, true, true)) {
			ev.used.content.add(c);
		}
	}
	if (tracked) {
		const { bToA } = matchLines(tracked.lines, lines);
		file.lines.forEach((line, k) => {
			const i = bToA[line - 1]!;
			if (origins[k] === undefined && i >= 0) {
				origins[k] = tracked.origins[i]!;
			}
		});
	}
	// A fresh commit of files the capture never saw has nothing to recover (its lines are unknown).
	if (!ev.rewritten && tracked !== undefined) {
		for (const c of await fromCommits(contentCandidates, true, true)) {
			ev.used.content.add(c);
		}
	}
	const rest = tracked !== undefined ? humanOrigin : unknownOrigin;
	return origins.map((o) => o ?? rest);
}

/**
 * Places the still-unplaced lines of `origins` where every one of `from.commits` that holds the line
 * agrees (`check`: only commits unrelated to this one count; `recovered`: mark what is placed).
 * Returns the commits that contributed.
 */
async function placeFromCommits(
	ev: CommitEvidence,
	file: AddedFile,
	lines: readonly string[],
	origins: (LineOrigin | undefined)[],
	from: { commits: readonly string[]; recovered: boolean; check: boolean },
): Promise<Set<string>> {
	let commits = from.commits;
	if (commits.length === 0 || origins.every((o) => o !== undefined)) {
		return new Set();
	}
	if (from.check) {
		await ev.related.learn(commits);
		commits = commits.filter((c) => ev.related.unrelated(c));
	}
	const votes = await collectVotes(ev.inputs, commits, file.path, lines, file.lines, origins, ev.sourceBlobs, ev.wanted);
	const contributed = new Set<string>();
	for (const [lineIndex, byCommit] of votes) {
		let agreed: LineOrigin | undefined;
		let ok = true;
		for (const [commit, origin] of byCommit) {
			if (agreed && !sameOrigin(agreed, origin)) {
				ok = false;
				break;
			}
			agreed = origin;
			contributed.add(commit);
		}
		if (ok && agreed) {
			origins[lineIndex] = { ...agreed, recovered: from.recovered || agreed.recovered };
		}
	}
	return contributed;
}

/** The old commits found by matching, to record as `provenance.rewrite`. */
function matchedRewrites(used: CommitEvidence['used']): AttributionResult['matched'] {
	const matched: AttributionResult['matched'] = [];
	if (used.patch.size > 0) {
		matched.push({ from: [...used.patch], how: 'patch-id' });
	}
	if (used.content.size > 0) {
		matched.push({ from: [...used.content], how: 'content' });
	}
	return matched;
}

/** For each still-unplaced added line (index into `added`), what each source commit says. */
async function collectVotes(
	inputs: AttributionInputs,
	commits: readonly string[],
	file: string,
	lines: readonly string[],
	added: readonly number[],
	origins: readonly (LineOrigin | undefined)[],
	blobCache: Map<string, string[] | null>,
	paths: ReadonlySet<string>,
): Promise<Map<number, Map<string, LineOrigin>>> {
	const votes = new Map<number, Map<string, LineOrigin>>();
	const sources = commits
		.map((c) => ({ commit: c, file: inputs.attributions.get(c)?.files.find((f) => f.path === file) }))
		.filter((s): s is { commit: string; file: FileAttribution } => !!s.file && s.file.ranges.length > 0);
	// The same commits' versions of the commit's other files too: a squash of 100 files reads them in one git call, not 100.
	const wanted = sources
		.map((s) => s.file.blob)
		.concat(commits.flatMap((c) => (inputs.attributions.get(c)?.files ?? []).filter((f) => paths.has(f.path)).map((f) => f.blob)));
	const unread = [...new Set(wanted.filter((b) => b && !blobCache.has(b)))];
	const read = await catBatch(inputs.git.run, unread, 'blob');
	unread.forEach((blob, i) => {
		const found = read[i];
		blobCache.set(blob, found ? textLines(found.content) : null);
	});
	for (const source of sources) {
		const sourceLines = blobCache.get(source.file.blob);
		if (!sourceLines) {
			continue;
		}
		const byLine = originsByLine(source.file);
		const { bToA } = matchLines(sourceLines, lines);
		added.forEach((line, k) => {
			if (origins[k] !== undefined) {
				return;
			}
			const i = bToA[line - 1]!;
			const origin = i >= 0 ? byLine.get(i + 1) : undefined;
			if (origin && origin.origin !== 'unknown') {
				const forLine = votes.get(k) ?? new Map<string, LineOrigin>();
				forLine.set(source.commit, origin);
				votes.set(k, forLine);
			}
		});
	}
	return votes;
}

/** Which of `oids` are commits this repository has (`cat-file --batch-check`: a missing one is said, not an error). */
async function presentCommits(git: RepoGit, oids: readonly string[]): Promise<Set<string>> {
	const found = await batchCheck(git.run, oids);
	return new Set(found.filter((o) => o?.type === 'commit').map((o) => o?.oid as string));
}

/** Whether other commits are outside this one's line of history (neither ancestors nor descendants). */
class RelatedCommits {
	private ancestors: Set<string> | undefined;
	private readonly known = new Map<string, boolean>();
	/** Attributed commits this clone does not have, skipped. */
	readonly missing = new Set<string>();

	constructor(
		private readonly git: RepoGit,
		private readonly commit: string,
	) {}

	/** Answers for many commits with two git calls in all. */
	async learn(others: readonly string[]): Promise<void> {
		const unknown = [...new Set(others)].filter((o) => !this.known.has(o));
		if (unknown.length === 0) {
			return;
		}
		this.ancestors ??= new Set((await this.git.text(['rev-list', '--max-count=200000', this.commit])).split('\n').filter(Boolean));
		const notAncestors = unknown.filter((o) => !this.ancestors!.has(o));
		for (const o of unknown) {
			this.known.set(o, false);
		}
		if (notAncestors.length === 0) {
			return;
		}
		// A commit this clone does not have (a teammate's amended or rebased commit, attributed and never
		// pushed) cannot be placed: it is skipped for this commit (known, not unrelated) and named in
		// `missing`; one absent commit must not fail the question for the others.
		const present = await presentCommits(this.git, notAncestors);
		for (const o of notAncestors.filter((c) => !present.has(c))) {
			this.missing.add(o);
		}
		const asked = notAncestors.filter((c) => present.has(c));
		if (asked.length === 0) {
			return;
		}
		// Commits on the ancestry path from this one to the others: the others listed are its descendants.
		const descendants = new Set((await this.git.text(['rev-list', '--ancestry-path', `^${this.commit}`, ...asked])).split('\n').filter(Boolean));
		for (const o of asked) {
			this.known.set(o, !descendants.has(o));
		}
	}

	unrelated(other: string): boolean {
		return this.known.get(other) ?? false;
	}
}
