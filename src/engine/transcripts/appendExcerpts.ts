/**
 * The parsing half of a transcript's sync (transcriptArchive.ts): the source's new bytes, from the
 * entry's offset, become excerpts appended to its archive file. The caller writes the index after,
 * with what the read says.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ownMap } from '../storage/ownRecord';
import { mkdirPrivate, privateFileMode } from '../workspace';
import { cutArchive, isWholeDocument, needsAdapter, readSource, resetEntry } from './archiveSource';
import { recordAdapter } from './agentTranscripts';
import { ExcerptBuilder, isUnneededLine } from './transcriptExcerpts';
import { indexKey, type TranscriptEntry } from './transcriptIndex';

const archiveBatchChars = 4 * 1024 * 1024;

interface AppendOptions {
	workspaceRoot: string;
	/** Agent session ids Baton knows (the builder links subagents by them). */
	knownIds: ReadonlySet<string>;
	/** Parse at most this many bytes. */
	maxBytes?: number | undefined;
	/** Filled with the transcript's first request when it is read from its start (SyncInput.firstRequests). */
	firstRequests?: Record<string, string> | undefined;
	/** The source's bytes, read already (DiscoveredTranscript.whole): parsed instead of the file. */
	whole?: Buffer | undefined;
	/** The archive's folder is known to be missing (an import's new session): made before the first write, not after a failed one. */
	folderMissing?: boolean | undefined;
}

/**
 * Appends the excerpts of `entry`'s new source bytes to `<dir>/<archiveName>` and counts the record
 * types nobody knows on the entry. A source rewritten or truncated since (or a whole-document one)
 * starts over; the archive is first cut back to what the index says it holds. Returns the read and
 * how many excerpts were written; the entry's offset and counts are the caller's to update.
 */
export function appendExcerpts(
	entry: TranscriptEntry,
	sourceSize: number,
	archive: { dir: string; name: string },
	options: AppendOptions,
): { read: ReturnType<typeof readSource>; excerpts: number } {
	const archiveFile = path.join(archive.dir, archive.name);
	if (sourceSize < entry.offset || (isWholeDocument(entry.agent, entry.sourcePath) && entry.offset > 0)) {
		// Rewritten or truncated at the source (a whole-document transcript is rewritten on each message): start over.
		resetEntry(entry);
	}
	const out = archiveWriter(archiveFile, entry.archiveBytes, options.folderMissing === true);
	const fromStart = entry.offset === 0 && entry.archiveBytes === 0;
	if (entry.offset === 0) {
		entry.bootstrap = true;
	}
	const builder = new ExcerptBuilder(entry, options.workspaceRoot, options.knownIds);
	// Codex's, Gemini CLI's and Copilot CLI's records are read as the Claude Code records the builder knows.
	const adapter = needsAdapter(entry.agent, entry.sourcePath) ? recordAdapter(entry.agent) : null;
	// Excerpts go to the archive in batches as they are made: a large transcript never sits in memory
	// twice. The index is written last; a sync that dies in between is cut back by cutArchive next time.
	let excerpts = 0;
	const writeOut = (): void => {
		const lines = builder.drain();
		if (lines.length) {
			const bytes = Buffer.from(`${lines.join('\n')}\n`);
			out.write(bytes);
			entry.archiveBytes += bytes.length;
			entry.archivePath = archive.name;
			excerpts += lines.length;
		}
	};
	const { maxBytes, firstRequests } = options;
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
		// The skip tells Claude Code's records by their bytes; another agent's lines are all read: its adapter needs them, and its tools' data can hold the same keys (isUnneededLine).
		{ ...(adapter ? {} : { skipLine: isUnneededLine }), ...(maxBytes ? { maxBytes } : {}) },
		options.whole,
	);
	writeOut();
	out.finish();
	if (firstRequests && fromStart && builder.firstRequest !== null) {
		firstRequests[indexKey(entry.agent, entry.id)] = builder.firstRequest;
	}
	for (const [type, n] of Object.entries(adapter?.unknownTypes ?? read.unknownKinds ?? builder.unknownTypes)) {
		entry.unknownRecords ??= ownMap();
		entry.unknownRecords[type] = (entry.unknownRecords[type] ?? 0) + n;
	}
	return { read, excerpts };
}

/**
 * Writes one transcript's excerpts to its private archive file, which holds `archiveBytes` by the index.
 * An archive longer than that holds the excerpts of an interrupted sync: cut back first. One that holds
 * nothing by the index is created or started over by its first write (the cut without a stat to find
 * out: an import writes a thousand new ones), or cut when nothing is written. The folder is made on
 * first need, not before every write: before the first one when the caller knows it is missing, else
 * when a write finds it missing.
 */
function archiveWriter(file: string, archiveBytes: number, folderMissing: boolean): { write(bytes: Buffer): void; finish(): void } {
	let startOver = archiveBytes === 0;
	if (!startOver && !folderMissing) {
		cutArchive(file, archiveBytes);
	}
	let makeFolder = folderMissing;
	const write = (bytes: Buffer): void => {
		const options = { mode: privateFileMode, flag: startOver ? 'w' : 'a' };
		if (makeFolder) {
			mkdirPrivate(path.dirname(file));
			makeFolder = false;
		}
		try {
			fs.writeFileSync(file, bytes, options);
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
				throw error;
			}
			mkdirPrivate(path.dirname(file));
			fs.writeFileSync(file, bytes, options);
		}
		startOver = false;
	};
	return {
		write,
		finish: () => {
			if (startOver && !folderMissing) {
				cutArchive(file, 0);
			}
		},
	};
}
