/**
 * `.baton/transcripts/index.json`: what Baton knows of every agent transcript it has seen (source
 * path, byte offset parsed so far, size and mtime, the durable session it belongs to, totals) and,
 * per durable session, the archive switch, the files agents touched and the summary notes. Written
 * whole, atomically (tmp + fsync + rename), under a lock file, because hooks of parallel tool calls
 * update it from several processes at once. No database table: transcripts are files, and the
 * database stays small (docs/architecture.md §4).
 */
import fs from 'node:fs';
import path from 'node:path';
import { ownMap, ownRecord } from '../storage/ownRecord';
import { z } from 'zod';
import { atomicWriteFile } from '../storage/fsUtil';
import { LockFile } from '../storage/lockFile';
import { mkdirPrivate } from '../workspace';
import { agentKinds } from '../agentKinds';

const count = z.number().int().nonnegative();
const tokenCountsSchema = z.object({ input: count, output: count, cacheRead: count, cacheCreation: count });

export const transcriptEntrySchema = z.object({
	/** `<agentSessionId>` or, for a subagent, `<parent agentSessionId>/<agent-id>`. */
	id: z.string().min(1),
	agent: z.enum(agentKinds),
	agentSessionId: z.string().min(1),
	parentAgentSessionId: z.string().nullable(),
	sourcePath: z.string(),
	/** The durable session (through the agent id's alias); null until linked. */
	sessionId: z.string().nullable(),
	/** Relative to `.baton/transcripts/`; null until something was archived. */
	archivePath: z.string().nullable(),
	/** Bytes of the source parsed so far; always just after a newline. */
	offset: count,
	/** Bytes of the archive that belong to `offset` (a longer archive is cut back: an interrupted sync). */
	archiveBytes: count,
	sourceSize: count,
	sourceMtimeMs: z.number().nonnegative(),
	sourceMissing: z.boolean(),
	lines: count,
	badLines: count,
	/** Only `file-history-snapshot` records so far: a session id Claude created and left. */
	bootstrap: z.boolean(),
	title: z.string().nullable(),
	agentType: z.string().nullable(),
	description: z.string().nullable(),
	firstAt: z.string().nullable(),
	lastAt: z.string().nullable(),
	userRequests: count,
	assistantMessages: count,
	toolCalls: count,
	errors: count,
	compactions: count,
	/** Tokens by model, each assistant message counted once; by own key, since model names come from transcripts (storage/ownRecord.ts). */
	tokens: ownRecord(tokenCountsSchema),
	/** The last assistant message seen: its usage repeats on every record of the message, across reads too. */
	lastMessage: z.object({ id: z.string(), model: z.string(), tokens: tokenCountsSchema }).nullable(),
	lastUserText: z.string().nullable(),
	lastAssistantText: z.string().nullable(),
	/** Files changed by edit tools, workspace-relative when inside the workspace. */
	filesTouched: z.array(z.string()),
	syncedAt: z.string().nullable(),
	/** Records of a type the agent's reader does not know, by type: passed over and counted, never fatal. */
	unknownRecords: ownRecord(count).optional(),
	/** Imported by sync from another machine (its copy is read-only here and never shipped again). */
	sharedFrom: z.object({ machine: z.string(), machineName: z.string().nullable(), author: z.string().nullable() }).nullable().optional(),
});
export type TranscriptEntry = z.infer<typeof transcriptEntrySchema>;

const sessionNoteSchema = z.object({ at: z.string(), kind: z.string(), text: z.string() });
export type SessionNote = z.infer<typeof sessionNoteSchema>;

export const sessionArchiveSchema = z.object({
	/** False: this session's transcripts are not archived (and later syncs skip them). */
	archive: z.boolean(),
	/** Files agents reported touching through their tool hooks (all three agents). */
	filesTouched: z.array(z.string()),
	notes: z.array(sessionNoteSchema),
});
export type SessionArchive = z.infer<typeof sessionArchiveSchema>;

const transcriptIndexSchema = z.object({
	version: z.literal(1),
	// Own keys: transcript ids come from file names and hook payloads (storage/ownRecord.ts).
	transcripts: ownRecord(transcriptEntrySchema),
	sessions: ownRecord(sessionArchiveSchema),
});
export type TranscriptIndex = z.infer<typeof transcriptIndexSchema>;

export const emptyIndex = (): TranscriptIndex => ({ version: 1, transcripts: ownMap(), sessions: ownMap() });

const maxFilesPerSession = 2_000;
export const maxNotesPerSession = 50;

export function indexKey(agent: string, id: string): string {
	return `${agent}:${id}`;
}

export function sessionArchiveOf(index: TranscriptIndex, sessionId: string): SessionArchive {
	let entry = index.sessions[sessionId];
	if (!entry) {
		entry = { archive: true, filesTouched: [], notes: [] };
		index.sessions[sessionId] = entry;
	}
	return entry;
}

/**
 * A transcript's entry before anything was read. Only the named fields of `init` are taken: a discovered
 * transcript may carry more (the bytes an import read, DiscoveredTranscript.whole), never for the index.
 */
export function newTranscriptEntry(
	init: Pick<TranscriptEntry, 'id' | 'agent' | 'agentSessionId' | 'parentAgentSessionId' | 'sourcePath' | 'agentType' | 'description'>,
): TranscriptEntry {
	const { id, agent, agentSessionId, parentAgentSessionId, sourcePath, agentType, description } = init;
	return {
		id,
		agent,
		agentSessionId,
		parentAgentSessionId,
		sourcePath,
		agentType,
		description,
		sessionId: null,
		archivePath: null,
		offset: 0,
		archiveBytes: 0,
		sourceSize: 0,
		sourceMtimeMs: 0,
		sourceMissing: false,
		lines: 0,
		badLines: 0,
		bootstrap: false,
		title: null,
		firstAt: null,
		lastAt: null,
		userRequests: 0,
		assistantMessages: 0,
		toolCalls: 0,
		errors: 0,
		compactions: 0,
		tokens: ownMap(),
		lastMessage: null,
		lastUserText: null,
		lastAssistantText: null,
		filesTouched: [],
		syncedAt: null,
	};
}

/** Adds files to a list in first-seen order, capped. */
export function addFiles(list: string[], files: readonly string[], cap = maxFilesPerSession): boolean {
	let changed = false;
	for (const file of files) {
		if (list.length >= cap) {
			break;
		}
		if (!list.includes(file)) {
			list.push(file);
			changed = true;
		}
	}
	return changed;
}

export type IndexHealth = 'ok' | 'missing' | 'damaged';

export class TranscriptIndexFile {
	readonly file: string;
	private readonly lock: LockFile;
	private peeked: { stamp: string; index: TranscriptIndex } | undefined;

	constructor(
		readonly dir: string,
		private readonly warn: (message: string) => void,
		lockTimeoutMs = 10_000,
	) {
		this.file = path.join(dir, 'index.json');
		this.lock = new LockFile(path.join(dir, 'index.lock'), lockTimeoutMs);
	}

	/** The index as stored; a damaged one is set aside (`index.json.damaged-<ms>`) and replaced by an empty one. */
	read(): TranscriptIndex {
		let text: string;
		try {
			text = fs.readFileSync(this.file, 'utf8');
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
				return emptyIndex();
			}
			throw error;
		}
		try {
			return transcriptIndexSchema.parse(JSON.parse(text));
		} catch (error) {
			const aside = `${this.file}.damaged-${Date.now()}`;
			try {
				fs.renameSync(this.file, aside);
			} catch {
				// Someone else moved it already.
			}
			this.warn(`${this.file} was damaged (${(error as Error).message.slice(0, 200)}); kept as ${aside}, starting a new index`);
			return emptyIndex();
		}
	}

	/** Whether index.json is there and reads, without setting a damaged one aside (what `baton doctor` reports). */
	health(): IndexHealth {
		let text: string;
		try {
			text = fs.readFileSync(this.file, 'utf8');
		} catch (error) {
			return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'missing' : 'damaged';
		}
		try {
			transcriptIndexSchema.parse(JSON.parse(text));
			return 'ok';
		} catch {
			return 'damaged';
		}
	}

	/**
	 * The index for reading only (the caller never changes it): parsed and checked again only when the
	 * file changed (its inode, size or times: every write replaces it by a rename). An import names a
	 * thousand new sessions from the archive, and reading the whole index for each was most of its cost.
	 */
	peek(): TranscriptIndex {
		const stamp = this.stamp();
		if (this.peeked?.stamp !== stamp) {
			this.peeked = { stamp, index: this.read() };
		}
		return this.peeked.index;
	}

	/** Which index.json is there now: its inode, size and times (every write replaces it by a rename); 'none' when there is none. */
	private stamp(): string {
		try {
			const st = fs.statSync(this.file);
			return `${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
		} catch {
			// No index yet: read() says so.
			return 'none';
		}
	}

	/** Runs `fn` under the index's lock, which keeps writers of the archive's files apart, without reading or writing the index. */
	async locked<T>(fn: () => T): Promise<T> {
		mkdirPrivate(this.dir);
		LockFile.removeDeadOwnerFiles(this.lock.file);
		await this.lock.acquire();
		try {
			return fn();
		} finally {
			this.lock.dispose();
		}
	}

	/** Read, change, write back when `fn` returns true; the lock makes it one step across processes. */
	async update<T>(fn: (index: TranscriptIndex) => Promise<{ changed: boolean; result: T }> | { changed: boolean; result: T }): Promise<T> {
		mkdirPrivate(this.dir);
		LockFile.removeDeadOwnerFiles(this.lock.file);
		await this.lock.acquire();
		try {
			// Under the lock nobody else writes it: the parse kept from this process's last read or write is
			// used while the file is still that one (a tool call read and checked the whole index each time,
			// 100 ms at a thousand sessions). Being changed, it is no one's to peek at until written.
			const stamp = this.stamp();
			const index = this.peeked?.stamp === stamp ? this.peeked.index : this.read();
			this.peeked = undefined;
			const { changed, result } = await fn(index);
			if (changed) {
				atomicWriteFile(this.file, Buffer.from(`${JSON.stringify(index)}\n`));
				// What was just written is what the next peek would parse back (an import lists the thousand
				// entries its sync wrote): kept, stamped while the lock still keeps other writers out.
				this.peeked = { stamp: this.stamp(), index };
			}
			return result;
		} finally {
			this.lock.dispose();
		}
	}
}
