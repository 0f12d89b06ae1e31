/**
 * Baton's own copy of agent transcripts (docs/architecture.md §6): Claude deletes
 * its transcripts after 30 days, so excerpts go to `.baton/transcripts/<durable session>/<agent
 * session>.jsonl`, parsed incrementally from the offset remembered in the index. A transcript is
 * archived once its agent session id is an alias of a durable session; unlinked ones are listed but
 * not copied, bootstrap ones (only file-history snapshots) are marked and skipped.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../ports';
import type { FileBytes } from '../storage/regularFile';
import { batonDir } from '../workspace';
import { isBootstrapTranscript, type DiscoveredTranscript } from './claudeProjects';
import { archiveNameOf, claudeCandidates, namedCandidates } from './archiveCandidates';
import { isArchiveSessionId, writeSessionMeta, writeTranscriptMeta } from './archiveMeta';
import { BatonError } from '../errors';
import { adoptSidecar, finishReindex, readIfPresent, scanArchive, type ReindexInput, type ReindexResult } from './archiveRebuild';
import { estimateCostUsd } from './costEstimate';
import type { AgentKind } from '../agentKinds';
import { appendExcerpts } from './appendExcerpts';
import { digestSession, type SessionDigest } from './sessionDigest';
import { SessionFiles } from './sessionFiles';
import {
	entriesByArchivePath,
	forgetSharedTranscripts,
	importSharedTranscript,
	shareableTranscripts,
	type SharedTranscript,
	type TranscriptOrigin,
} from './sharedTranscripts';
import type { Excerpt } from './transcriptExcerpts';
import {
	addFiles,
	emptyIndex,
	indexKey,
	maxNotesPerSession,
	newTranscriptEntry,
	sessionArchiveOf,
	TranscriptIndexFile,
	type IndexHealth,
	type SessionNote,
	type TranscriptEntry,
	type TranscriptIndex,
} from './transcriptIndex';

/** The durable session an agent session id belongs to (an alias lookup), or null. */
export type SessionLinker = (agent: AgentKind, agentSessionId: string) => Promise<string | null>;

interface TranscriptArchiveOptions {
	workspaceRoot: string;
	claudeHome: string;
	log: Logger;
	now?: () => number;
	lockTimeoutMs?: number;
}

interface SyncInput {
	link: SessionLinker;
	/** Only transcripts of these agent session ids (a hook syncs its own session): skips the other links. */
	agentSessionIds?: readonly string[];
	/** Only transcripts linked to this durable session. */
	sessionId?: string;
	/**
	 * Transcript files the agent named (a hook's `transcript_path`), which may lie outside the project
	 * folder (Claude started in a subfolder). The agent session id is the file's name, as Claude names it.
	 */
	sources?: string[];
	/** Parse at most this many bytes per transcript in this call. */
	maxBytes?: number;
	/**
	 * Whose transcripts (default Claude Code, whose project folder is searched too). For Codex and
	 * Gemini CLI only the transcripts the hook named (`sources`, each the transcript of the first of
	 * `agentSessionIds`) and the ones the index knows are read, through their adapter (agentTranscripts.ts).
	 */
	agent?: AgentKind;
	/** Transcripts the caller found (the agent-history import's discovery), read as the ones the index knows. */
	discovered?: readonly DiscoveredTranscript[];
	/**
	 * Filled by `indexKey` with the first request of each transcript read from its start in this call: the
	 * first `user` excerpt of its archive (an import names new sessions by it without reading the archive back).
	 */
	firstRequests?: Record<string, string>;
}

interface SyncReport {
	/** Transcripts parsed in this call (new bytes found). */
	synced: TranscriptInfo[];
	parsedBytes: number;
	excerpts: number;
	unlinked: number;
	bootstrap: number;
	/** Linked to a session whose archiving is off. */
	skipped: number;
	/** Transcripts with bytes left to parse (`maxBytes` reached). */
	pending: number;
}

export interface TranscriptInfo extends TranscriptEntry {
	costUsd: number;
	/** False while archiving is off for its session. */
	archiving: boolean;
}

export class TranscriptArchive {
	readonly dir: string;
	private readonly index: TranscriptIndexFile;
	private readonly now: () => number;
	private readonly sessionFiles: SessionFiles;

	constructor(private readonly options: TranscriptArchiveOptions) {
		this.dir = path.join(batonDir(options.workspaceRoot), 'transcripts');
		this.sessionFiles = new SessionFiles(this.dir);
		this.index = new TranscriptIndexFile(this.dir, (m) => options.log.warn(m), options.lockTimeoutMs);
		this.now = options.now ?? Date.now;
	}

	/** The Claude Code data folder this archive reads transcripts from. */
	get claudeHome(): string {
		return this.options.claudeHome;
	}

	async sync(input: SyncInput): Promise<SyncReport> {
		const report: SyncReport = { synced: [], parsedBytes: 0, excerpts: 0, unlinked: 0, bootstrap: 0, skipped: 0, pending: 0 };
		return this.index.update(async (index) => ({ changed: await this.syncIn(index, input, report), result: report }));
	}

	/**
	 * Rebuilds the index from the archive's own files (archiveRebuild.ts) and the agents' files still on
	 * disk (`discovered`, read as a sync reads them), under the index's lock: `baton doctor --reindex`.
	 */
	async reindex(input: ReindexInput): Promise<ReindexResult> {
		const previous = this.index.health();
		return this.index.update(async (index) => {
			const before = readIfPresent(this.index.file);
			const scan = scanArchive(this.dir, index, input.discovered, this.options.workspaceRoot);
			index.transcripts = scan.transcripts;
			index.sessions = scan.sessions;
			const report: SyncReport = { synced: [], parsedBytes: 0, excerpts: 0, unlinked: 0, bootstrap: 0, skipped: 0, pending: 0 };
			// Every agent the archive or the agents' files name: a transcript whose file is gone is marked so.
			for (const agent of new Set<AgentKind>([
				'claude-code',
				...Object.values(index.transcripts).map((e) => e.agent),
				...input.discovered.map((d) => d.agent),
			])) {
				await this.syncIn(index, { agent, link: input.link, discovered: input.discovered.filter((d) => d.agent === agent) }, report);
			}
			const sidecars = finishReindex(this.dir, index, scan.badHeaders);
			const text = `${JSON.stringify(index)}\n`;
			return {
				changed: text !== before,
				result: { previous, scan, sidecars, changed: text !== before || sidecars > 0, parsedBytes: report.parsedBytes },
			};
		});
	}

	/** Whether index.json reads (without setting a damaged one aside) and what the archive holds that it lacks: for `baton doctor`. */
	indexHealth(): { index: IndexHealth; missing: number; problems: number } {
		const index = this.index.health();
		const scan = scanArchive(this.dir, index === 'ok' ? this.index.peek() : emptyIndex(), [], this.options.workspaceRoot);
		const known = index === 'ok' ? this.index.peek().transcripts : {};
		const missing = Object.keys(scan.transcripts).filter((k) => scan.transcripts[k]?.archivePath && !known[k]?.archivePath).length;
		return { index, missing, problems: scan.problems.length };
	}

	private async syncIn(index: TranscriptIndex, input: SyncInput, report: SyncReport): Promise<boolean> {
		const agent = input.agent ?? 'claude-code';
		let changed = false;
		const found =
			agent === 'claude-code'
				? claudeCandidates(index, input, this.options.claudeHome, this.options.workspaceRoot)
				: namedCandidates(index, input, agent);
		// Every agent session id the index knows, made once per sync rather than once per transcript (an import syncs a thousand).
		const knownIds = new Set(Object.values(index.transcripts).map((e) => e.agentSessionId));
		// An import's sync lists the archive's folders once: a new transcript whose session has none has no
		// header to adopt and its folder is made before its first write (no stat, no failed open each).
		const folders = input.discovered?.length ? archiveFolders(this.dir) : undefined;
		for (const one of found) {
			const key = indexKey(agent, one.id);
			let entry = index.transcripts[key];
			const isNew = !entry;
			if (!entry) {
				entry = newTranscriptEntry({ ...one, agent });
				index.transcripts[key] = entry;
				knownIds.add(entry.agentSessionId);
				changed = true;
			} else if (entry.sourcePath !== one.sourcePath && fs.existsSync(one.sourcePath)) {
				entry.sourcePath = one.sourcePath;
				changed = true;
			}
			if (!entry.sessionId) {
				entry.sessionId = await input.link(agent, one.parentAgentSessionId ?? one.agentSessionId);
				changed ||= entry.sessionId !== null;
				// The index was lost but the archive was not: carry on from what the archive's own header says.
				const mayHaveHeader = !folders || (entry.sessionId !== null && folders.has(entry.sessionId));
				if (isNew && mayHaveHeader && adoptSidecar(this.dir, entry, this.options.workspaceRoot)) {
					entry.sourcePath = one.sourcePath;
				}
			}
			if (input.sessionId && entry.sessionId !== input.sessionId) {
				continue;
			}
			const archivedBefore = entry.archivePath !== null;
			const whole = one.whole && one.sourcePath === entry.sourcePath ? one.whole : undefined;
			const folderMissing = folders !== undefined && entry.sessionId !== null && !folders.has(entry.sessionId);
			if (this.syncOne(index, entry, knownIds, { ...input, whole, folderMissing }, report)) {
				changed = true;
				writeTranscriptMeta(this.dir, entry, !archivedBefore);
			}
			if (entry.archivePath && entry.sessionId) {
				folders?.add(entry.sessionId);
			}
		}
		return changed;
	}

	/** Every transcript in the index, newest activity first; one session's when `sessionId` is given. */
	list(filter: { sessionId?: string } = {}): TranscriptInfo[] {
		const index = this.index.peek();
		return Object.values(index.transcripts)
			.filter((e) => !filter.sessionId || e.sessionId === filter.sessionId)
			.map((e) => this.info(index, e))
			.sort((a, b) => (b.lastAt ?? '').localeCompare(a.lastAt ?? '') || a.id.localeCompare(b.id));
	}

	/** One transcript by agent session id (or `<parent>/<agent-id>`; of `agent` only when given), with its archived excerpts. */
	read(id: string, agent?: AgentKind): { info: TranscriptInfo; excerpts: Excerpt[]; notes: SessionNote[] } | undefined {
		const index = this.index.peek();
		const entry = agent
			? index.transcripts[indexKey(agent, id)]
			: (index.transcripts[indexKey('claude-code', id)] ?? Object.values(index.transcripts).find((e) => e.agentSessionId === id));
		if (!entry) {
			return undefined;
		}
		const excerpts: Excerpt[] = [];
		if (entry.archivePath) {
			const file = path.join(this.dir, entry.archivePath);
			let text = '';
			try {
				text = fs.readFileSync(file, 'utf8');
			} catch {
				// Archiving was turned off and purged, or the file was removed by hand.
			}
			for (const line of text.slice(0, entry.archiveBytes).split('\n')) {
				if (line) {
					try {
						excerpts.push(JSON.parse(line) as Excerpt);
					} catch {
						// A damaged line of our own archive: skip it, keep the rest readable.
					}
				}
			}
		}
		const notes = entry.sessionId ? (index.sessions[entry.sessionId]?.notes ?? []) : [];
		return { info: this.info(index, entry), excerpts, notes };
	}

	/** Turns archiving of a session's transcripts off (optionally deleting what was archived) or back on. */
	async setArchiving(sessionId: string, on: boolean, purge = false): Promise<{ archiving: boolean; purged: number }> {
		if (!isArchiveSessionId(sessionId)) {
			// The id names the folder a purge removes: one with `..` or a separator would lead out of the archive.
			throw new BatonError('invalidInput', `${JSON.stringify(sessionId.slice(0, 200))} is no session id the archive keeps; nothing was changed`);
		}
		return this.index.update((index) => {
			sessionArchiveOf(index, sessionId).archive = on;
			let purged = 0;
			if (!on && purge) {
				for (const entry of Object.values(index.transcripts)) {
					if (entry.sessionId === sessionId && entry.archivePath) {
						fs.rmSync(path.join(this.dir, entry.archivePath), { force: true });
						entry.archivePath = null;
						entry.archiveBytes = 0;
						purged++;
					}
				}
				fs.rmSync(path.join(this.dir, sessionId), { recursive: true, force: true });
			}
			writeSessionMeta(this.dir, sessionId, sessionArchiveOf(index, sessionId));
			return { changed: true, result: { archiving: on, purged } };
		});
	}

	/**
	 * Files an agent's tool hook reported touching (all agents; Claude's also come from its transcript),
	 * kept in the session's sidecar (sessionFiles.ts: never a rewrite of the whole index).
	 */
	async recordFilesTouched(sessionId: string, files: readonly string[]): Promise<boolean> {
		// Most calls touch files the session already named: asked of the kept sidecar and index, without a lock or a write.
		const known = [...this.sessionFiles.of(sessionId)];
		addFiles(known, this.index.peek().sessions[sessionId]?.filesTouched ?? []);
		if (files.length === 0 || !addFiles(known, files)) {
			return false;
		}
		return this.index.locked(() => this.sessionFiles.add(sessionId, files, this.index.peek().sessions[sessionId]));
	}

	async addNote(sessionId: string, kind: string, text: string): Promise<SessionNote> {
		const note: SessionNote = { at: new Date(this.now()).toISOString(), kind, text };
		return this.index.update((index) => {
			const notes = sessionArchiveOf(index, sessionId).notes;
			notes.push(note);
			notes.splice(0, Math.max(0, notes.length - maxNotesPerSession));
			writeSessionMeta(this.dir, sessionId, sessionArchiveOf(index, sessionId));
			return { changed: true, result: note };
		});
	}

	/** This machine's archived transcripts as sync ships them (sharedTranscripts.ts). */
	shareable(origin: TranscriptOrigin): SharedTranscript[] {
		return shareableTranscripts(this.index.peek(), this.dir, origin);
	}

	/** Teammates' shipped transcripts into this archive; returns why any was not imported. */
	async importShared(files: readonly { path: string; content: string; origin: TranscriptOrigin }[]): Promise<string[]> {
		if (files.length === 0) {
			return [];
		}
		return this.index.update((index) => {
			const byArchivePath = entriesByArchivePath(index);
			const problems = files.map((f) => importSharedTranscript(index, this.dir, f, byArchivePath)).filter((p): p is string => p !== null);
			return { changed: true, result: problems };
		});
	}

	/** The copies imported from each machine of the transcripts of a session it took back (sync's retraction). */
	async forgetShared(taken: readonly { machine: string; session: string }[]): Promise<number> {
		if (taken.length === 0) {
			return 0;
		}
		return this.index.update((index) => {
			const removed = forgetSharedTranscripts(index, this.dir, taken);
			return { changed: removed > 0, result: removed };
		});
	}

	/** Everything the index says about one durable session's agent work, for summaries and handoffs. */
	digest(sessionId: string): SessionDigest {
		return digestSession(this.index.peek(), sessionId, this.sessionFiles.of(sessionId));
	}

	private info(index: TranscriptIndex, entry: TranscriptEntry): TranscriptInfo {
		return { ...entry, costUsd: estimateCostUsd(entry.tokens), archiving: !entry.sessionId || index.sessions[entry.sessionId]?.archive !== false };
	}

	/** Parses the new bytes of one transcript into its archive. Returns whether the entry changed. */
	private syncOne(
		index: TranscriptIndex,
		entry: TranscriptEntry,
		knownIds: ReadonlySet<string>,
		{
			maxBytes,
			firstRequests,
			whole,
			folderMissing,
		}: Pick<SyncInput, 'maxBytes' | 'firstRequests'> & { whole?: FileBytes | undefined; folderMissing: boolean },
		report: SyncReport,
	): boolean {
		// The bytes the import's discovery read come with the stats they were read at: no second look.
		const stat = whole ?? sourceStat(entry.sourcePath);
		if (!stat) {
			// Claude deleted it (30-day cleanup): what was archived stays.
			const changed = !entry.sourceMissing;
			entry.sourceMissing = true;
			return changed;
		}
		entry.sourceMissing = false;
		if (!entry.sessionId) {
			report.unlinked++;
			if (entry.sourceSize === stat.size) {
				return false;
			}
			entry.sourceSize = stat.size;
			entry.sourceMtimeMs = stat.mtimeMs;
			entry.bootstrap = stat.size < 1024 * 1024 && isBootstrapTranscript(entry.sourcePath);
			if (entry.bootstrap) {
				report.bootstrap++;
			}
			return true;
		}
		if (index.sessions[entry.sessionId]?.archive === false) {
			report.skipped++;
			return false;
		}
		if (stat.size === entry.offset && stat.mtimeMs === entry.sourceMtimeMs) {
			if (entry.bootstrap) {
				report.bootstrap++;
			}
			return false;
		}
		const archiveName = archiveNameOf(entry);
		if (!archiveName) {
			this.options.log.warn(`transcript ${entry.id} has an id Baton does not use as a file name; not archived`);
			return false;
		}
		const { read, excerpts } = appendExcerpts(
			entry,
			stat.size,
			{ dir: this.dir, name: archiveName },
			{ workspaceRoot: this.options.workspaceRoot, knownIds, maxBytes, firstRequests, whole: whole?.bytes, folderMissing },
		);
		if (entry.bootstrap && read.offset === 0) {
			entry.bootstrap = false;
		}
		report.parsedBytes += read.offset - entry.offset;
		report.excerpts += excerpts;
		entry.offset = read.offset;
		entry.lines += read.lines;
		entry.badLines += read.badLines;
		entry.sourceSize = read.size;
		entry.sourceMtimeMs = read.truncated ? 0 : stat.mtimeMs;
		entry.syncedAt = new Date(this.now()).toISOString();
		if (read.truncated) {
			report.pending++;
		}
		if (entry.bootstrap) {
			report.bootstrap++;
		}
		report.synced.push(this.info(index, entry));
		return true;
	}
}

/** The size and mtime of a transcript's source, or undefined when it is gone or not a regular file. */
function sourceStat(file: string): { size: number; mtimeMs: number } | undefined {
	try {
		const stat = fs.statSync(file);
		// A FIFO or a device named as a transcript would block or never end: never read it.
		return stat.isFile() ? stat : undefined;
	} catch {
		return undefined;
	}
}

/** The names in the archive's folder (each session's folder among them); none when it is not there yet. */
function archiveFolders(dir: string): Set<string> {
	try {
		return new Set(fs.readdirSync(dir));
	} catch {
		return new Set();
	}
}
