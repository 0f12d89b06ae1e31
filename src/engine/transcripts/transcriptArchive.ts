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
import { ownMap } from '../storage/ownRecord';
import { batonDir, mkdirPrivate, privateFileMode } from '../workspace';
import { discoverClaudeTranscripts, isBootstrapTranscript, subagentTranscripts, type DiscoveredTranscript } from './claudeProjects';
import { estimateCostUsd } from './costEstimate';
import type { AgentKind } from '../agentKinds';
import { cutArchive, isWholeDocument, needsAdapter, readSource, resetEntry } from './archiveSource';
import { recordAdapter } from './agentTranscripts';
import { digestSession, type SessionDigest } from './sessionDigest';
import { importSharedTranscript, shareableTranscripts, type SharedTranscript, type TranscriptOrigin } from './sharedTranscripts';
import { ExcerptBuilder, isUnneededLine, type Excerpt } from './transcriptExcerpts';
import { addFiles, indexKey, maxNotesPerSession, newTranscriptEntry, sessionArchiveOf, TranscriptIndexFile, type SessionNote, type TranscriptEntry, type TranscriptIndex } from './transcriptIndex';

/** The durable session an agent session id belongs to (an alias lookup), or null. */
export type SessionLinker = (agent: AgentKind, agentSessionId: string) => Promise<string | null>;

export interface TranscriptArchiveOptions {
	workspaceRoot: string;
	claudeHome: string;
	log: Logger;
	now?: () => number;
	lockTimeoutMs?: number;
}

export interface SyncInput {
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
}

export interface SyncReport {
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

const safeName = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
const archiveBatchChars = 4 * 1024 * 1024;

export class TranscriptArchive {
	readonly dir: string;
	private readonly index: TranscriptIndexFile;
	private readonly now: () => number;

	constructor(private readonly options: TranscriptArchiveOptions) {
		this.dir = path.join(batonDir(options.workspaceRoot), 'transcripts');
		this.index = new TranscriptIndexFile(this.dir, (m) => options.log.warn(m), options.lockTimeoutMs);
		this.now = options.now ?? Date.now;
	}

	/** The Claude Code data folder this archive reads transcripts from. */
	get claudeHome(): string {
		return this.options.claudeHome;
	}

	async sync(input: SyncInput): Promise<SyncReport> {
		const report: SyncReport = { synced: [], parsedBytes: 0, excerpts: 0, unlinked: 0, bootstrap: 0, skipped: 0, pending: 0 };
		const agent = input.agent ?? 'claude-code';
		return this.index.update(async (index) => {
			let changed = false;
			for (const found of agent === 'claude-code' ? this.candidates(index, input) : this.namedCandidates(index, input, agent)) {
				const key = indexKey(agent, found.id);
				let entry = index.transcripts[key];
				if (!entry) {
					entry = newTranscriptEntry({ ...found, agent });
					index.transcripts[key] = entry;
					changed = true;
				} else if (entry.sourcePath !== found.sourcePath && fs.existsSync(found.sourcePath)) {
					entry.sourcePath = found.sourcePath;
					changed = true;
				}
				if (!entry.sessionId) {
					entry.sessionId = await input.link(agent, found.parentAgentSessionId ?? found.agentSessionId);
					changed ||= entry.sessionId !== null;
				}
				if (input.sessionId && entry.sessionId !== input.sessionId) {
					continue;
				}
				changed = this.syncOne(index, entry, input.maxBytes, report) || changed;
			}
			return { changed, result: report };
		});
	}

	/** Every transcript in the index, newest activity first; one session's when `sessionId` is given. */
	list(filter: { sessionId?: string } = {}): TranscriptInfo[] {
		const index = this.index.peek();
		return Object.values(index.transcripts)
			.filter((e) => !filter.sessionId || e.sessionId === filter.sessionId)
			.map((e) => this.info(index, e))
			.sort((a, b) => (b.lastAt ?? '').localeCompare(a.lastAt ?? '') || a.id.localeCompare(b.id));
	}

	/** One transcript by agent session id (or `<parent>/<agent-id>`), with its archived excerpts. */
	read(id: string): { info: TranscriptInfo; excerpts: Excerpt[]; notes: SessionNote[] } | undefined {
		const index = this.index.peek();
		const entry = index.transcripts[indexKey('claude-code', id)] ?? Object.values(index.transcripts).find((e) => e.agentSessionId === id);
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
			return { changed: true, result: { archiving: on, purged } };
		});
	}

	/** Files an agent's tool hook reported touching (all agents; Claude's also come from its transcript). */
	async recordFilesTouched(sessionId: string, files: readonly string[]): Promise<boolean> {
		if (files.length === 0) {
			return false;
		}
		return this.index.update((index) => {
			const changed = addFiles(sessionArchiveOf(index, sessionId).filesTouched, files);
			return { changed, result: changed };
		});
	}

	async addNote(sessionId: string, kind: string, text: string): Promise<SessionNote> {
		const note: SessionNote = { at: new Date(this.now()).toISOString(), kind, text };
		return this.index.update((index) => {
			const notes = sessionArchiveOf(index, sessionId).notes;
			notes.push(note);
			notes.splice(0, Math.max(0, notes.length - maxNotesPerSession));
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
			const problems = files.map((f) => importSharedTranscript(index, this.dir, f.path, f.content, f.origin)).filter((p): p is string => p !== null);
			return { changed: true, result: problems };
		});
	}

	/** Everything the index says about one durable session's agent work, for summaries and handoffs. */
	digest(sessionId: string): SessionDigest {
		return digestSession(this.index.peek(), sessionId);
	}

	private info(index: TranscriptIndex, entry: TranscriptEntry): TranscriptInfo {
		return { ...entry, costUsd: estimateCostUsd(entry.tokens), archiving: !entry.sessionId || index.sessions[entry.sessionId]?.archive !== false };
	}

	/** The project folder's transcripts, the ones the index knows, and the ones the agent named. */
	private candidates(index: TranscriptIndex, input: SyncInput): DiscoveredTranscript[] {
		const wanted = input.agentSessionIds ? new Set(input.agentSessionIds) : undefined;
		const byId = new Map<string, DiscoveredTranscript>();
		const add = (t: DiscoveredTranscript): void => {
			if (!wanted || wanted.has(t.parentAgentSessionId ?? t.agentSessionId)) {
				byId.set(t.id, t);
			}
		};
		for (const entry of Object.values(index.transcripts)) {
			if (entry.agent === 'claude-code') {
				add({ ...entry });
			}
		}
		for (const source of input.sources ?? []) {
			if (source.endsWith('.jsonl')) {
				const id = path.basename(source, '.jsonl');
				add({ id, agentSessionId: id, parentAgentSessionId: null, sourcePath: source, agentType: null, description: null });
				subagentTranscripts(source.slice(0, -'.jsonl'.length), id).forEach(add);
			}
		}
		discoverClaudeTranscripts(this.options.claudeHome, this.options.workspaceRoot).forEach(add);
		input.discovered?.forEach(add);
		return [...byId.values()];
	}

	/** An agent's transcripts other than Claude Code's: the ones the index knows, and the ones the hook named. */
	private namedCandidates(index: TranscriptIndex, input: SyncInput, agent: AgentKind): DiscoveredTranscript[] {
		const wanted = input.agentSessionIds ? new Set(input.agentSessionIds) : undefined;
		const byId = new Map<string, DiscoveredTranscript>();
		for (const entry of Object.values(index.transcripts)) {
			if (entry.agent === agent && (!wanted || wanted.has(entry.agentSessionId))) {
				byId.set(entry.id, { ...entry });
			}
		}
		const id = input.agentSessionIds?.[0];
		for (const source of id && safeName.test(id) ? (input.sources ?? []) : []) {
			if (source.endsWith('.jsonl')) {
				byId.set(id as string, { id: id as string, agentSessionId: id as string, parentAgentSessionId: null, sourcePath: source, agentType: null, description: null });
			}
		}
		for (const found of input.discovered ?? []) {
			byId.set(found.id, found);
		}
		return [...byId.values()];
	}

	/** Parses the new bytes of one transcript into its archive. Returns whether the entry changed. */
	private syncOne(index: TranscriptIndex, entry: TranscriptEntry, maxBytes: number | undefined, report: SyncReport): boolean {
		let stat: fs.Stats;
		try {
			stat = fs.statSync(entry.sourcePath);
			if (!stat.isFile()) {
				// A FIFO or a device named as a transcript would block or never end: never read it.
				throw new Error('not a regular file');
			}
		} catch {
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
		const archiveName = this.archiveName(entry);
		if (!archiveName) {
			this.options.log.warn(`transcript ${entry.id} has an id Baton does not use as a file name; not archived`);
			return false;
		}
		const archiveFile = path.join(this.dir, archiveName);
		if (stat.size < entry.offset || (isWholeDocument(entry.agent, entry.sourcePath) && entry.offset > 0)) {
			// Rewritten or truncated at the source (a whole-document transcript is rewritten on each message): start over.
			resetEntry(entry);
		}
		cutArchive(archiveFile, entry.archiveBytes);
		if (entry.offset === 0) {
			entry.bootstrap = true;
		}
		const builder = new ExcerptBuilder(entry, this.options.workspaceRoot, new Set(Object.values(index.transcripts).map((e) => e.agentSessionId)));
		// Codex's, Gemini CLI's and Copilot CLI's records are read as the Claude Code records the builder knows.
		const adapter = needsAdapter(entry.agent, entry.sourcePath) ? recordAdapter(entry.agent) : null;
		// Excerpts go to the archive in batches as they are made: a large transcript never sits in memory
		// twice. The index is written last; a sync that dies in between is cut back by cutArchive next time.
		let excerpts = 0;
		const writeOut = (): void => {
			const lines = builder.drain();
			if (lines.length) {
				const bytes = Buffer.from(`${lines.join('\n')}\n`);
				try {
					fs.appendFileSync(archiveFile, bytes, { mode: privateFileMode });
				} catch (error) {
					// Its folder is made on first need, not before every write (an import writes a thousand transcripts).
					if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
						throw error;
					}
					mkdirPrivate(path.dirname(archiveFile));
					fs.appendFileSync(archiveFile, bytes, { mode: privateFileMode });
				}
				entry.archiveBytes += bytes.length;
				entry.archivePath = archiveName;
				excerpts += lines.length;
			}
		};
		const read = readSource(
			entry.agent,
			entry.sourcePath,
			entry.offset,
			(record) => {
				for (const one of adapter ? adapter.adapt(record) : [record]) {
					builder.add(one);
				}
				if (builder.pendingChars > archiveBatchChars) {
					writeOut();
				}
			},
			{ skipLine: isUnneededLine, ...(maxBytes ? { maxBytes } : {}) },
		);
		writeOut();
		for (const [type, n] of Object.entries(adapter?.unknownTypes ?? read.unknownKinds ?? {})) {
			entry.unknownRecords ??= ownMap();
			entry.unknownRecords[type] = (entry.unknownRecords[type] ?? 0) + n;
		}
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

	private archiveName(entry: TranscriptEntry): string | null {
		const parts = entry.parentAgentSessionId ? [entry.parentAgentSessionId, entry.agentSessionId] : [entry.agentSessionId];
		if (!entry.sessionId || !safeName.test(entry.sessionId) || !parts.every((p) => safeName.test(p))) {
			return null;
		}
		return `${entry.sessionId}/${parts.join('.')}.jsonl`;
	}
}
