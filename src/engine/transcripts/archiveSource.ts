/**
 * Reading an agent's transcript for the archive: JSONL from the remembered offset (jsonlReader.ts),
 * or — Gemini CLI's older `session-*.json`, one JSON document rewritten whole on every message — the
 * whole document again whenever it changed, its `messages` read as one `$set` record.
 */
import fs from 'node:fs';
import { readJsonlFrom, type JsonlReadOptions, type JsonlReadResult } from './jsonlReader';
import { openRegularFile } from './regularFile';
import { newTranscriptEntry, type TranscriptEntry } from './transcriptIndex';

/** A transcript that is one JSON document (Gemini CLI's older chat file), not JSON lines. */
export function isWholeDocument(file: string): boolean {
	return file.endsWith('.json');
}

/** The records of `file` after `offset`: its new lines, or for a whole document every message again. */
export function readSource(file: string, offset: number, onRecord: (record: unknown) => void, options: JsonlReadOptions): JsonlReadResult {
	if (!isWholeDocument(file)) {
		return readJsonlFrom(file, offset, onRecord, options);
	}
	const { fd, stat } = openRegularFile(file);
	let text: string;
	try {
		const bytes = Buffer.alloc(stat.size);
		let read = 0;
		while (read < bytes.length) {
			const n = fs.readSync(fd, bytes, read, bytes.length - read, read);
			if (n === 0) {
				break;
			}
			read += n;
		}
		text = bytes.toString('utf8', 0, read);
	} finally {
		fs.closeSync(fd);
	}
	const result: JsonlReadResult = { offset: stat.size, lines: 1, badLines: 0, pendingBytes: 0, size: stat.size, truncated: false };
	let doc: unknown;
	try {
		doc = JSON.parse(text);
	} catch {
		// Written while it was read, or damaged: counted, and read again once it changes.
		result.badLines = 1;
		return result;
	}
	const messages = doc && typeof doc === 'object' ? (doc as Record<string, unknown>)['messages'] : undefined;
	if (Array.isArray(messages)) {
		onRecord({ $set: { messages } });
	}
	return result;
}

/** Starts an entry over (its source was rewritten or truncated), keeping its link and archive file. */
export function resetEntry(entry: TranscriptEntry): void {
	const fresh = newTranscriptEntry(entry);
	Object.assign(entry, { ...fresh, sessionId: entry.sessionId, archivePath: entry.archivePath });
	delete entry.unknownRecords;
}

/** An archive longer than the index says holds excerpts of an interrupted sync: cut them, they are parsed again. */
export function cutArchive(file: string, bytes: number): void {
	try {
		if (fs.statSync(file).size > bytes) {
			fs.truncateSync(file, bytes);
		}
	} catch {
		// No archive yet.
	}
}
