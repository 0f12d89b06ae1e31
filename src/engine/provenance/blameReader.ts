/**
 * `baton blame` and `baton provenance stats`: git's own blame (read-only, `--porcelain`) says which
 * commit last touched each line; Baton's attribution of that commit says who wrote it. Lines not
 * committed yet are placed from the turn capture directly.
 */
import fs from 'node:fs';
import path from 'node:path';
import { BatonError } from '../errors';
import { humanOrigin, originsByLine, unknownOrigin, type LineOrigin } from './attributionRecords';
import type { BlameLine, BlameResult } from './provenanceShapes';
import { matchLines } from './lineDiff';
import type { ProvenanceService } from './provenanceService';
import { batonDir } from '../workspace';
import { ShadowRepo } from '../shadow/shadowRepo';
import { RepoGit, shadowRun, textLines } from './repoGit';
import { ShadowBlobs, trackFile } from './stepHistory';

export type { BlameLine } from './provenanceShapes';

/** What the lines of one commit (from one path) share. */
interface PorcelainSource {
	commit: string;
	/** git's all-zero id: the line is not committed yet. */
	uncommitted: boolean;
	filename: string;
	author: string | null;
	authorTime: number | null;
}

interface PorcelainLine {
	source: PorcelainSource;
	origLine: number;
	finalLine: number;
	text: string;
}

const zeroCommit = /^0+$/;

type BlameOptions = { rev?: string; line?: number };
type Porcelain = { text: string } | { error: Error };

/** git's blame of `file`, started before the engine is open: see `startBlame`. */
interface StartedBlame {
	readonly args: string;
	readonly porcelain: Promise<Porcelain>;
}

/**
 * A whole working file is blamed `--incremental`: one record per group of lines, not the text of
 * every line (a 100,000-line file's porcelain is 8 MB to carry and parse; its groups are 50 KB), the
 * text read from the file itself. A revision or one line is blamed `--porcelain`.
 */
function blameArgs(file: string, options: BlameOptions): string[] {
	if (!options.rev && !options.line) {
		return ['blame', '--incremental', '--', file];
	}
	return porcelainArgs(file, options);
}

function porcelainArgs(file: string, options: BlameOptions): string[] {
	return ['blame', '--porcelain', ...(options.line ? ['-L', `${options.line},${options.line}`] : []), ...(options.rev ? [options.rev] : []), '--', file];
}

function porcelainOf(git: RepoGit, args: readonly string[]): Promise<Porcelain> {
	return git.text(args).then(
		(text) => ({ text }),
		(error: unknown) => ({ error: error as Error }),
	);
}

/**
 * A process of its own (the CLI without the daemon) starts git's blame before it opens the store, so
 * git's run (most of a large file's blame) overlaps opening the engine instead of following it;
 * `blameFile` takes it when it has no blame kept. Undefined when the store has not made its isolated
 * git configuration yet (nothing is created here: the engine's open says what is missing).
 */
export function startBlame(workspaceRoot: string, file: string, options: BlameOptions = {}): StartedBlame | undefined {
	const { emptyConfig } = new ShadowRepo(workspaceRoot, batonDir(workspaceRoot));
	if (!fs.existsSync(emptyConfig)) {
		return undefined;
	}
	const args = blameArgs(file, options);
	const porcelain = porcelainOf(new RepoGit(workspaceRoot, emptyConfig), args);
	return { args: args.join('\u0000'), porcelain };
}

/**
 * `file` is relative to the workspace root. git's blame runs alongside the search for commits not
 * attributed yet (it does not depend on it). A whole-file blame is kept per file under a key of git's
 * refs and reflog, the file's stat and the records' version: asked again with nothing changed (a
 * hover, the editor coming back to the file) it is answered without running git's blame again.
 */
export async function blameFile(service: ProvenanceService, file: string, options: BlameOptions & { started?: StartedBlame } = {}): Promise<BlameResult> {
	const abs = path.join(service.ctx.workspaceRoot, file);
	if (!options.rev && !fs.existsSync(abs)) {
		throw new BatonError('notFound', `${file} does not exist in the workspace`);
	}
	const cacheName = `${options.rev ?? ''}\u0000${file}`;
	const cached = service.blameCache.get(cacheName);
	const args = blameArgs(file, options);
	const started = options.started?.args === args.join('\u0000') ? options.started.porcelain : undefined;
	const runBlame = () => started ?? porcelainOf(service.git, args);
	const fileBefore = options.rev ? '' : statKey(abs);
	const gitState = service.gitStateKey();
	// Nothing kept for this file: git's blame starts at once, alongside reading git's state.
	let blamed = cached ? undefined : runBlame();
	// Outside a git repository the layout's error is the one to report, not the state's.
	gitState.catch(() => undefined);
	const { prefix } = await service.git.layout();
	const gitBefore = await gitState;
	if (cached && cached.key === `${gitBefore}|${fileBefore}|${await service.ctx.store.read(() => service.ctx.store.tableVersion('shared_events'))}`) {
		const picked = pick(cached.value as BlameResult, options.line);
		if (picked.lines.length > 0 || !options.line) {
			return picked;
		}
	}
	blamed ??= runBlame();
	await service.attributePending();
	// The records are parsed while git's blame still runs (kept for the read below at the same version).
	await service.attributionsAt();
	const porcelain = await blamed;
	if ('error' in porcelain) {
		throw new BatonError('invalidInput', `git blame could not read ${file}${options.rev ? ` at ${options.rev}` : ''}: ${porcelain.error.message}`);
	}
	let entries = args[1] === '--incremental' ? incrementalLines(porcelain.text, abs) : parsePorcelain(porcelain.text);
	if (!entries) {
		// The file changed under git's read, is not text, or goes through a filter: git's porcelain carries each line's text.
		const again = await porcelainOf(service.git, porcelainArgs(file, options));
		if ('error' in again) {
			throw new BatonError('invalidInput', `git blame could not read ${file}: ${again.error.message}`);
		}
		entries = parsePorcelain(again.text);
	}
	const commits = [...new Set(entries.map((e) => e.source.commit))].filter((c) => !zeroCommit.test(c));
	const { attributions, version } = await service.attributionsAt(commits);
	let uncommitted: LineOrigin[] | undefined;
	if (entries.some((e) => e.source.uncommitted)) {
		uncommitted = await workingOrigins(service, file, abs);
	}
	// What every line of one commit shares (its path, time and attribution) is worked out once per
	// commit, not once per line: a 100,000-line file has a handful of commits.
	const perSource = new Map<PorcelainSource, { origins: Map<number, LineOrigin>; time: string | null }>();
	const lines = entries.map((entry): BlameLine => {
		const { source } = entry;
		if (source.uncommitted) {
			return blameLine(entry, uncommitted?.[entry.finalLine - 1] ?? unknownOrigin, null, null, null);
		}
		let shared = perSource.get(source);
		if (!shared) {
			const wsPath = source.filename.startsWith(prefix) ? source.filename.slice(prefix.length) : source.filename;
			const fileAttribution = attributions.get(source.commit)?.files.find((f) => f.path === wsPath);
			shared = {
				origins: fileAttribution ? originsByLine(fileAttribution) : new Map(),
				time: source.authorTime !== null ? new Date(source.authorTime * 1000).toISOString() : null,
			};
			perSource.set(source, shared);
		}
		return blameLine(entry, shared.origins.get(entry.origLine) ?? unknownOrigin, source.commit, source.author, shared.time);
	});
	const result: BlameResult = { file, rev: options.rev ?? null, lines };
	// Kept only when nothing moved while it was made (a save or a commit meanwhile is read next time).
	if (!options.line && (await service.gitStateKey()) === gitBefore && (options.rev ? '' : statKey(abs)) === fileBefore) {
		service.blameCache.set(cacheName, { key: `${gitBefore}|${fileBefore}|${version}`, value: result });
	}
	return result;
}

/** Size, modification time and inode: a save, a checkout or a rewrite of the file changes at least one. */
function statKey(abs: string): string {
	try {
		const stat = fs.statSync(abs, { bigint: true });
		return `${stat.size}:${stat.mtimeNs}:${stat.ino}`;
	} catch {
		return '-';
	}
}

function pick(result: BlameResult, line: number | undefined): BlameResult {
	return line ? { ...result, lines: result.lines.filter((l) => l.line === line) } : result;
}

/** Origins of the working file's lines from the capture: the last captured state, then whatever changed since is a person's. */
async function workingOrigins(service: ProvenanceService, file: string, abs: string): Promise<LineOrigin[]> {
	const current = textLines(fs.readFileSync(abs));
	if (!current) {
		return [];
	}
	const steps = await service.steps();
	const tracked = await trackFile(file, steps, new ShadowBlobs(shadowRun(service.shadow), service.keptBlobs));
	if (tracked === undefined) {
		return current.map(() => unknownOrigin);
	}
	if (tracked === null) {
		return current.map(() => humanOrigin);
	}
	const { bToA, exact } = matchLines(tracked.lines, current);
	return current.map((_, j) => {
		const i = bToA[j]!;
		return i >= 0 ? tracked.origins[i]! : exact ? humanOrigin : unknownOrigin;
	});
}

/**
 * git's `--porcelain` output: a header per line (`<commit> <orig> <final>`, a group's first line adds
 * the group's size), the commit's details the first time it appears (and its `filename` again when
 * the commit's lines come from more than one path), then the line's text after a tab. Lines share
 * their commit's {@link PorcelainSource} object.
 */
function parsePorcelain(text: string): PorcelainLine[] {
	const out: PorcelainLine[] = [];
	const known = new Map<string, PorcelainSource>();
	const lines = text.split('\n');
	let i = 0;
	while (i < lines.length) {
		const header = lines[i]!;
		i++;
		const first = header.indexOf(' ');
		const second = first < 0 ? -1 : header.indexOf(' ', first + 1);
		const commit = first < 0 ? '' : header.slice(0, first);
		let source = second < 0 ? undefined : known.get(commit);
		if (!source && (second < 0 || !commitId.test(commit))) {
			continue;
		}
		const third = header.indexOf(' ', second + 1);
		const origLine = Number(header.slice(first + 1, second));
		const finalLine = Number(third < 0 ? header.slice(second + 1) : header.slice(second + 1, third));
		if (!source) {
			source = { commit, uncommitted: zeroCommit.test(commit), filename: '', author: null, authorTime: null };
			known.set(commit, source);
		}
		while (i < lines.length && lines[i]!.charCodeAt(0) !== tab) {
			const line = lines[i]!;
			const space = line.indexOf(' ');
			const key = space < 0 ? line : line.slice(0, space);
			const value = space < 0 ? '' : line.slice(space + 1);
			if (key === 'filename') {
				if (value !== source.filename) {
					// Lines of this commit from another path (a copy or move git followed): a source of their own.
					source = source.filename === '' ? Object.assign(source, { filename: value }) : { ...source, filename: value };
					known.set(commit, source);
				}
			} else if (key === 'author') {
				source.author = value;
			} else if (key === 'author-time') {
				source.authorTime = Number(value);
			}
			i++;
		}
		out.push({ source, origLine, finalLine, text: (lines[i] ?? '').slice(1) });
		i++;
	}
	return out;
}

/**
 * git's `--incremental` output: per group of lines a header (`<commit> <orig> <final> <count>`), the
 * commit's details the first time it appears, then `filename` ending the group. Each line's text is the
 * working file's (read now); undefined when the groups do not cover the file's lines exactly once
 * (it changed since git read it, it is not text, or a clean filter makes git's content another).
 */
function incrementalLines(text: string, abs: string): PorcelainLine[] | undefined {
	let content: Buffer;
	try {
		content = fs.readFileSync(abs);
	} catch {
		return undefined;
	}
	const fileLines = textLines(content);
	if (!fileLines) {
		return undefined;
	}
	const out: (PorcelainLine | undefined)[] = new Array<PorcelainLine | undefined>(fileLines.length);
	const known = new Map<string, PorcelainSource>();
	let group: { commit: string; orig: number; final: number; count: number } | undefined;
	let details: { author?: string; authorTime?: number } = {};
	let placed = 0;
	for (const line of text.split('\n')) {
		const space = line.indexOf(' ');
		const key = space < 0 ? line : line.slice(0, space);
		const value = space < 0 ? '' : line.slice(space + 1);
		if (!group) {
			const [commit = '', orig, final, count] = line.split(' ');
			if (!commitId.test(commit)) {
				continue;
			}
			group = { commit, orig: Number(orig), final: Number(final), count: Number(count) };
			if (!(
				Number.isInteger(group.final) &&
				Number.isInteger(group.count) &&
				group.final >= 1 &&
				group.count >= 0 &&
				group.final + group.count - 1 <= fileLines.length
			)) {
				return undefined;
			}
		} else if (key === 'author') {
			details.author = value;
		} else if (key === 'author-time') {
			details.authorTime = Number(value);
		} else if (key === 'filename') {
			const { commit, orig, final, count } = group;
			let source = known.get(commit);
			if (!source) {
				source = {
					commit,
					uncommitted: zeroCommit.test(commit),
					filename: value,
					author: details.author ?? null,
					authorTime: details.authorTime ?? null,
				};
				known.set(commit, source);
			} else if (source.filename !== value) {
				// Lines of this commit from another path (a copy or move git followed): a source of their own.
				source = { ...source, filename: value };
				known.set(commit, source);
			}
			for (let k = 0; k < count; k++) {
				const index = final - 1 + k;
				if (out[index]) {
					return undefined;
				}
				out[index] = { source, origLine: orig + k, finalLine: final + k, text: fileLines[index]! };
			}
			placed += count;
			group = undefined;
			details = {};
		}
	}
	return placed === fileLines.length && !group ? (out as PorcelainLine[]) : undefined;
}

const tab = 9;
const commitId = /^[0-9a-f]{40,64}$/;

/** One line's answer, every field written in one order (the JSON's), with no spread per line. */
function blameLine(entry: PorcelainLine, o: LineOrigin, commit: string | null, author: string | null, time: string | null): BlameLine {
	return {
		line: entry.finalLine,
		text: entry.text,
		origin: o.origin,
		session: o.session,
		agent: o.agent,
		model: o.model,
		turn: o.turn,
		prompt: o.prompt,
		step: o.step,
		recovered: o.recovered,
		commit,
		author,
		time,
	};
}

interface ProvenanceStats {
	range: string;
	total: Counts;
	files: ({ path: string } & Counts)[];
	sessions: { session: string; agent: string | null; lines: number }[];
}

interface Counts {
	agent: number;
	human: number;
	unknown: number;
}

/** Lines added by the commits of `range`, by origin, per file and per session. */
export async function provenanceStats(service: ProvenanceService, range = 'HEAD'): Promise<ProvenanceStats> {
	const { prefix } = await service.git.layout();
	await service.attributePending();
	let out: string;
	try {
		out = await service.git.text(['log', '--no-renames', '--format=%x01%H', '--numstat', range]);
	} catch (error) {
		throw new BatonError('invalidInput', `git log could not read the range ${range}: ${(error as Error).message}`);
	}
	const perCommit: { commit: string; files: { path: string; added: number }[] }[] = [];
	for (const chunk of out.split('\u0001').slice(1)) {
		const [commit, ...rows] = chunk.split('\n');
		const files = rows
			.map((r) => r.split('\t'))
			.filter((p) => p.length >= 3 && /^\d+$/.test(p[0] ?? '') && (p[2] ?? '').startsWith(prefix))
			.map((p) => ({ path: p.slice(2).join('\t').slice(prefix.length), added: Number(p[0]) }));
		if (commit) {
			perCommit.push({ commit, files });
		}
	}
	const attributions = await service.attributions(perCommit.map((c) => c.commit));
	const total: Counts = { agent: 0, human: 0, unknown: 0 };
	const files = new Map<string, Counts>();
	const sessions = new Map<string, { session: string; agent: string | null; lines: number }>();
	for (const { commit, files: changed } of perCommit) {
		const attribution = attributions.get(commit);
		for (const change of changed) {
			const counts = files.get(change.path) ?? { agent: 0, human: 0, unknown: 0 };
			files.set(change.path, counts);
			const ranges = attribution?.files.find((f) => f.path === change.path)?.ranges ?? [];
			let placed = 0;
			for (const r of ranges) {
				const n = r.end - r.start + 1;
				placed += n;
				counts[r.origin] += n;
				total[r.origin] += n;
				if (r.session) {
					const s = sessions.get(r.session) ?? { session: r.session, agent: r.agent, lines: 0 };
					s.lines += n;
					sessions.set(r.session, s);
				}
			}
			const rest = Math.max(0, change.added - placed);
			counts.unknown += rest;
			total.unknown += rest;
		}
	}
	return {
		range,
		total,
		files: [...files].map(([p, c]) => ({ path: p, ...c })).sort((a, b) => a.path.localeCompare(b.path)),
		sessions: [...sessions.values()].sort((a, b) => b.lines - a.lines),
	};
}
