/**
 * Line provenance for a workspace: finds the commits Baton has not attributed yet (HEAD's reflog and
 * every ref's recent history, read-only — the same commits a HEAD watcher or a `post-commit` hook
 * would report), attributes them oldest first so a rewrite finds its originals already attributed,
 * and records the results as shared events. Blame and stats read from here (blameReader.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { count, eq, max } from 'drizzle-orm';
import { sharedEvents } from '../storage/schema';
import { forEachFile } from '../storage/fsUtil';
import { batonDir, privateFileMode } from '../workspace';
import { ShadowRepo } from '../shadow/shadowRepo';
import type { EngineContext } from '../context';
import { appendSharedEvent } from '../shared/sharedEvents';
import { machineIdentity } from '../shared/machineIdentity';
import { readAttributionsSince, readRewrites, type CommitAttribution, type ParsedAttributions } from './attributionRecords';
import { attributeCommit } from './commitAttribution';
import { readCommits } from './commitDiff';
import { KeptBlobs } from './keptBlobs';
import { RepoGit, shadowRun } from './repoGit';
import { readStepsSince, type ParsedSteps } from './parsedSteps';
import { ShadowBlobs, type CapturedStep } from './stepHistory';
import { pushAll } from '../arrays';

interface AttributeReport {
	attributed: string[];
	rewrites: { commit: string; from: string[]; how: string }[];
	/** Commits attributed without some source an attribution named, because this clone does not have it (a teammate's amended or rebased commit that was never pushed). */
	skipped?: { commit: string; missing: string[] }[];
}

/** How far before the first captured step a commit may be and still be looked at (commit times are whole seconds). */
const skewMs = 1000;

export class ProvenanceService {
	readonly git: RepoGit;
	readonly shadow: ShadowRepo;
	/** Commits examined with nothing to say, and the inputs they were examined with. */
	private readonly nothingToSay = new Map<string, string>();

	constructor(readonly ctx: EngineContext) {
		this.shadow = new ShadowRepo(ctx.workspaceRoot, batonDir(ctx.workspaceRoot));
		this.shadow.ensureEmptyConfig();
		this.git = new RepoGit(ctx.workspaceRoot, this.shadow.emptyConfig);
	}

	/** Parsed records, kept while the shared records are unchanged (a version the store bumps on every change, ours or another process's). */
	private readonly parsed: { steps?: { version: number; value: ParsedSteps }; attributions?: { version: number; value: ParsedAttributions } } = {};

	async steps(): Promise<CapturedStep[]> {
		return this.ctx.store.read((db) => {
			const version = this.recordsVersion();
			if (this.parsed.steps?.version !== version) {
				this.parsed.steps = { version, value: readStepsSince(db, this.parsed.steps?.value) };
			}
			return [...this.parsed.steps.value.steps];
		});
	}

	/** Every attribution (or those of `commits`), a fresh map the caller may add to. */
	async attributions(commits?: readonly string[]): Promise<Map<string, CommitAttribution>> {
		return (await this.attributionsAt(commits)).attributions;
	}

	/** The attributions with the records' version they were read at (the blame cache's key). */
	async attributionsAt(commits?: readonly string[]): Promise<{ attributions: Map<string, CommitAttribution>; version: number }> {
		return this.ctx.store.read((db) => {
			const version = this.recordsVersion();
			if (this.parsed.attributions?.version !== version) {
				this.parsed.attributions = { version, value: readAttributionsSince(db, this.parsed.attributions?.value) };
			}
			const all = this.parsed.attributions.value.map;
			const attributions = commits ? new Map(commits.flatMap((c) => (all.has(c) ? [[c, all.get(c)!] as const] : []))) : new Map(all);
			return { attributions, version };
		});
	}

	/** Call inside a store read: the version of the shared records as of that read. */
	private recordsVersion(): number {
		return this.ctx.store.tableVersion('shared_events');
	}

	/** What a warm blame must match: git's refs, reflog and HEAD (stat only) and the shared records' version. */
	async stateKey(): Promise<string> {
		const version = await this.ctx.store.read(() => this.recordsVersion());
		return `${await this.gitStateKey()}|${version}`;
	}

	/** Versions of files read for earlier attributions and blames (named by content, so never stale). */
	readonly keptBlobs = new KeptBlobs();

	/** Whole-file blames by workspace path, with the key they were made under (blameReader.ts). */
	readonly blameCache = new Map<string, { key: string; value: unknown }>();

	/**
	 * Attributes every commit not attributed yet that Baton may have something to say about. Skipped
	 * when git's refs and reflog and the shared records are as they were after the last full pass, in
	 * this process or another (the key is kept in `.baton/provenance-state.json`): a cold `baton blame`
	 * with nothing new pays for no search.
	 */
	async attributePending(): Promise<AttributeReport> {
		const key = await this.pendingStateKey();
		if (key === this.pendingKey || key === this.savedPendingKey()) {
			this.pendingKey = key;
			return { attributed: [], rewrites: [] };
		}
		const report = await this.findAndAttribute();
		this.pendingKey = await this.pendingStateKey();
		this.savePendingKey(this.pendingKey);
		return report;
	}

	private pendingKey: string | undefined;

	/** git's state (stat only) and the shared records' count and newest id: the same in every process. */
	private async pendingStateKey(): Promise<string> {
		const records = await this.ctx.store.read((db) =>
			db
				.select({ n: count(), newest: max(sharedEvents.id) })
				.from(sharedEvents)
				.get(),
		);
		return `${await this.gitStateKey()}|${records?.n ?? 0}:${records?.newest ?? ''}`;
	}

	private get pendingFile(): string {
		return path.join(batonDir(this.ctx.workspaceRoot), 'provenance-state.json');
	}

	private savedPendingKey(): string | undefined {
		try {
			const saved = JSON.parse(fs.readFileSync(this.pendingFile, 'utf8')) as { pendingKey?: unknown };
			return typeof saved.pendingKey === 'string' ? saved.pendingKey : undefined;
		} catch {
			return undefined;
		}
	}

	private savePendingKey(key: string): void {
		try {
			const temp = `${this.pendingFile}.${process.pid}.tmp`;
			fs.writeFileSync(temp, `${JSON.stringify({ pendingKey: key })}\n`, { mode: privateFileMode });
			fs.renameSync(temp, this.pendingFile);
		} catch {
			// Only a shortcut: without it the next process searches again.
		}
	}

	private gitDir: string | undefined;

	/** Sizes and times of HEAD's reflog and the refs, read with stat only. */
	async gitStateKey(): Promise<string> {
		this.gitDir ??= (await this.git.layout()).commonDir;
		const parts: string[] = [];
		for (const file of ['HEAD', 'logs/HEAD', 'packed-refs', 'FETCH_HEAD', 'ORIG_HEAD']) {
			try {
				const stat = fs.statSync(path.join(this.gitDir, file));
				parts.push(`${stat.size}:${stat.mtimeMs}`);
			} catch {
				parts.push('-');
			}
		}
		forEachFile(path.join(this.gitDir, 'refs'), (full, _rel, name) => {
			parts.push(`${name}:${fs.statSync(full).mtimeMs}`);
		});
		return parts.join(',');
	}

	private async findAndAttribute(): Promise<AttributeReport> {
		const steps = await this.steps();
		const firstStep = steps[0]?.startedAtMs;
		// Subjects only: parsing every attribution is left for when a commit is really pending.
		const { rewriteSubjects, attributed } = await this.ctx.store.read((db) => {
			const subjects = (kind: string): string[] =>
				db
					.selectDistinct({ subject: sharedEvents.subject })
					.from(sharedEvents)
					.where(eq(sharedEvents.kind, kind))
					.all()
					.map((r) => r.subject);
			return { rewriteSubjects: new Set(subjects('provenance.rewrite')), attributed: new Set(subjects('provenance.attribution')) };
		});
		if (firstStep === undefined && rewriteSubjects.size === 0) {
			return { attributed: [], rewrites: [] };
		}
		const since = Math.floor(((firstStep ?? Date.now()) - skewMs) / 1000);
		const candidates = (await this.recentCommits(since)).filter((c) => !attributed.has(c.commit));
		if (candidates.length === 0) {
			return { attributed: [], rewrites: [] };
		}
		const attributions = await this.attributions();
		const known = new Set([...steps.flatMap((s) => [...s.paths]), ...[...attributions.values()].flatMap((a) => a.files.map((f) => f.path))]);
		const pending = candidates.filter((c) => !attributions.has(c.commit) && (rewriteSubjects.has(c.commit) || c.paths.some((p) => known.has(p))));
		// git lists newest first; oldest first lets commits made in the same second keep their order.
		return this.attribute(pending.map((c) => c.commit).reverse(), {}, steps, attributions);
	}

	/**
	 * Attributes the given commits (ids or revisions; oldest first), skipping those already
	 * attributed; with `newOnly`, also those that look rewritten (author date ≠ commit date: an amend,
	 * a rebase pick), which are attributed later once git's post-rewrite pairs are recorded. All the
	 * commits' diffs come from one `git log -p`, their patch ids from one `git patch-id`.
	 */
	async attribute(
		commits: readonly string[],
		options: { newOnly?: boolean } = {},
		steps?: CapturedStep[],
		attributions?: Map<string, CommitAttribution>,
	): Promise<AttributeReport> {
		const report: AttributeReport = { attributed: [], rewrites: [] };
		if (commits.length === 0) {
			return report;
		}
		// The hook's question (`HEAD`, one commit) starts git at once and reads the records while it
		// runs; commit ids already known to be attributed are left out first when the records are at hand.
		const early = steps && attributions ? undefined : readCommits(this.git, commits);
		early?.catch(() => undefined);
		steps ??= await this.steps();
		attributions ??= await this.attributions();
		const inputsKey = `${steps.length}:${attributions.size}`;
		const skip = (commit: string): boolean => attributions.has(commit) || this.nothingToSay.get(commit) === `${inputsKey}:${attributions.size}`;
		const asked = commits.filter((c) => !skip(c));
		if (asked.length === 0) {
			return report;
		}
		const [{ prefix }, read, rewriting] = await Promise.all([
			this.git.layout(),
			early ?? readCommits(this.git, asked),
			options.newOnly ? this.headRewrite() : undefined,
		]);
		// A rejected patch id read is reported where it is awaited; until then it must not count as unhandled.
		read.patchIds.catch(() => undefined);
		const infos = [...read.commits].sort((a, b) => a.committerTime - b.committerTime);
		const blobs = new ShadowBlobs(shadowRun(this.shadow), this.keptBlobs);
		for (const info of infos) {
			if (skip(info.commit) || (options.newOnly && (info.authorTime !== info.committerTime || info.commit === rewriting))) {
				continue;
			}
			const rewrittenFrom = (await this.ctx.store.read((db) => readRewrites(db, info.commit)))
				.filter((r) => r.how === 'post-rewrite')
				.flatMap((r) => r.from);
			const result = await attributeCommit({ git: this.git, prefix, steps, blobs, attributions, rewrittenFrom }, info, read.patchIds);
			if (!result) {
				this.nothingToSay.set(info.commit, `${inputsKey}:${attributions.size}`);
				continue;
			}
			const machine = machineIdentity(this.ctx.workspaceRoot);
			const now = this.ctx.clock.now();
			await this.ctx.store.write((db) => {
				appendSharedEvent(db, machine, now, {
					kind: 'provenance.attribution',
					subject: info.commit,
					actor: 'baton',
					body: { files: result.attribution.files, patchId: result.attribution.patchId },
				});
				for (const match of result.matched) {
					appendSharedEvent(db, machine, now, {
						kind: 'provenance.rewrite',
						subject: info.commit,
						actor: 'baton',
						body: { from: match.from, how: match.how },
					});
				}
			});
			attributions.set(info.commit, result.attribution);
			report.attributed.push(info.commit);
			if (result.missing.length > 0) {
				(report.skipped ??= []).push({ commit: info.commit, missing: result.missing });
				this.ctx.log.warn(
					`provenance: ${info.commit.slice(0, 10)} was attributed without ${result.missing.length} commit(s) an attribution names that this clone does not have (${result.missing.map((c) => c.slice(0, 10)).join(', ')}); its lines fall back to what can be proven here`,
				);
			}
			pushAll(report.rewrites, [...result.matched.map((m) => ({ commit: info.commit, ...m }))]);
		}
		return report;
	}

	/** HEAD's commit when git's own reflog says an amend or a rebase made it (post-rewrite will name its originals), else undefined. */
	private async headRewrite(): Promise<string | undefined> {
		// HEAD's reflog read as a file (its newest line: `old new ident time tz<TAB>subject`), not
		// through `git log -g`: one process less before a commit's attribution.
		try {
			const file = path.join((await this.git.layout()).gitDir, 'logs', 'HEAD');
			const fd = fs.openSync(file, 'r');
			let tail: string;
			try {
				const size = fs.fstatSync(fd).size;
				const length = Math.min(size, 64 * 1024);
				const buffer = Buffer.alloc(length);
				fs.readSync(fd, buffer, 0, length, size - length);
				tail = buffer.toString('utf8');
			} finally {
				fs.closeSync(fd);
			}
			const last = tail.split('\n').filter(Boolean).pop() ?? '';
			const tab = last.indexOf('\t');
			const commit = last.split(' ')[1];
			const subject = tab < 0 ? '' : last.slice(tab + 1);
			return commit && /^[0-9a-f]{40,64}$/.test(commit) && /^(commit \(amend\)|rebase)/.test(subject) ? commit : undefined;
		} catch {
			return undefined;
		}
	}

	/** git's `post-rewrite` pairs (`old new [extra]` lines on the hook's stdin), recorded as rewrites. */
	async recordRewrites(pairsText: string, actor: string): Promise<{ commit: string; from: string[] }[]> {
		const byNew = new Map<string, string[]>();
		for (const line of pairsText.split('\n')) {
			const [from, to] = line.trim().split(/\s+/);
			if (!from || !to) {
				continue;
			}
			if (!/^[0-9a-f]{40,64}$/.test(from) || !/^[0-9a-f]{40,64}$/.test(to)) {
				throw new Error(`not a post-rewrite pair: ${JSON.stringify(line)} (expected "<old commit> <new commit>")`);
			}
			byNew.set(to, [...(byNew.get(to) ?? []), from]);
		}
		const machine = machineIdentity(this.ctx.workspaceRoot);
		const now = this.ctx.clock.now();
		const pairs = [...byNew].map(([commit, from]) => ({ commit, from }));
		if (pairs.length > 0) {
			await this.ctx.store.write((db) => {
				for (const pair of pairs) {
					appendSharedEvent(db, machine, now, {
						kind: 'provenance.rewrite',
						subject: pair.commit,
						actor,
						body: { from: pair.from, how: 'post-rewrite' },
					});
				}
			});
		}
		return pairs;
	}

	/** Commits HEAD has pointed at (its reflog) and every ref's commits since `sinceSec`, with the paths they changed (workspace-relative). */
	private async recentCommits(sinceSec: number): Promise<{ commit: string; paths: string[] }[]> {
		const { prefix } = await this.git.layout();
		const format = ['--format=%x01%H', '--name-only', '--no-renames', `--since=${sinceSec}`];
		const outputs: string[] = [];
		try {
			outputs.push(await this.git.text(['log', '-g', '-n', '5000', '--format=%x01%H', '--name-only', '--no-renames', 'HEAD']));
		} catch {
			// No reflog (a fresh clone, reflogs off): the refs below still name the branch tips' history.
		}
		try {
			outputs.push(await this.git.text(['log', '--all', ...format]));
		} catch {
			// No commit yet.
		}
		const byCommit = new Map<string, string[]>();
		for (const out of outputs) {
			for (const chunk of out.split('\u0001').slice(1)) {
				const [commit, ...lines] = chunk.split('\n');
				if (commit && !byCommit.has(commit)) {
					byCommit.set(
						commit,
						lines.filter((l) => l.startsWith(prefix) && l.length > prefix.length).map((l) => l.slice(prefix.length)),
					);
				}
			}
		}
		return [...byCommit].map(([commit, paths]) => ({ commit, paths }));
	}
}
