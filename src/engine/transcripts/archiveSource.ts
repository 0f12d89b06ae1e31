/**
 * Reading an agent's transcript for the archive: JSONL from the remembered offset (jsonlReader.ts),
 * or a file that must be read whole again whenever it changed (its excerpts then replace the ones
 * read before): Gemini CLI's older `session-*.json`, one JSON document rewritten whole on every
 * message, its `messages` read as one `$set` record; VS Code's chat sessions (`chatSessions/<id>.json`,
 * and `.jsonl`, a mutation log replayed from its first line: vscodeChatSessions.ts); Cline's and Roo
 * Code's task files and Cline SDK messages, written whole on every change (clineRecords.ts). Which one
 * a file is follows from its agent and where the product keeps it, so the index needs no field for it.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { AgentKind } from '../agentKinds';
import { readAll } from '../storage/fsUtil';
import type { AgentFileRead } from './agentFiles';
import { readClineTaskFile } from './clineRecords';
import { readJsonlBytes, readJsonlFrom, type JsonlReadOptions, type JsonlReadResult } from './jsonlReader';
import { openRegularFile } from '../storage/regularFile';
import { newTranscriptEntry, type TranscriptEntry } from './transcriptIndex';
import { readVscodeChatSession } from './vscodeChatSessions';

type SourceFormat = 'jsonl' | 'gemini-json' | 'vscode-chat' | 'vscode-chat-log' | 'cline-ui' | 'cline-api' | 'cline-sdk';

/** How `file` of `agent` is read: as JSON lines, or whole in one of the formats above. */
function sourceFormat(agent: AgentKind, file: string): SourceFormat {
	const name = path.basename(file);
	if (agent === 'copilot' && path.basename(path.dirname(file)) === 'chatSessions') {
		return name.endsWith('.jsonl') ? 'vscode-chat-log' : 'vscode-chat';
	}
	if (agent === 'cline') {
		if (name === 'ui_messages.json') return 'cline-ui';
		if (name === 'api_conversation_history.json') return 'cline-api';
		if (name.endsWith('.messages.json')) return 'cline-sdk';
	}
	return agent === 'gemini' && name.endsWith('.json') ? 'gemini-json' : 'jsonl';
}

/** A transcript read whole on every change (its excerpts replaced), not from where the last read stopped. */
export function isWholeDocument(agent: AgentKind, file: string): boolean {
	return sourceFormat(agent, file) !== 'jsonl';
}

/** True when the agent's records need its adapter (agentTranscripts.ts); the agent-file readers give Claude-shaped ones. */
export function needsAdapter(agent: AgentKind, file: string): boolean {
	const format = sourceFormat(agent, file);
	return format === 'jsonl' || format === 'gemini-json';
}

interface SourceRead extends JsonlReadResult {
	/** Record kinds an agent-file reader did not know, with how many of each. */
	unknownKinds?: Record<string, number>;
}

/**
 * The records of `file` after `offset`: its new lines, or for a file read whole every record again.
 * `whole`: the JSONL file's bytes, read already (the agent-history discovery's): parsed instead of the file.
 */
export function readSource(
	agent: AgentKind,
	file: string,
	offset: number,
	onRecord: (record: unknown) => void,
	options: JsonlReadOptions,
	whole?: Buffer,
): SourceRead {
	const format = sourceFormat(agent, file);
	if (format === 'jsonl') {
		return whole ? readJsonlBytes(whole, offset, onRecord, options) : readJsonlFrom(file, offset, onRecord, options);
	}
	const { text, size } = wholeText(file);
	if (format !== 'gemini-json') {
		const read = agentFileRead(format, file, text);
		for (const record of read.records) {
			onRecord(record);
		}
		if (read.title) {
			onRecord({ type: 'ai-title', aiTitle: read.title });
		}
		return {
			offset: size,
			lines: read.records.length,
			badLines: read.records.length === 0 && read.warnings.length > 0 ? 1 : 0,
			pendingBytes: 0,
			size,
			truncated: false,
			unknownKinds: read.unknownKinds,
		};
	}
	const result: JsonlReadResult = { offset: size, lines: 1, badLines: 0, pendingBytes: 0, size, truncated: false };
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

function agentFileRead(format: Exclude<SourceFormat, 'jsonl' | 'gemini-json'>, file: string, text: string): AgentFileRead {
	switch (format) {
		case 'vscode-chat':
		case 'vscode-chat-log':
			return readVscodeChatSession(text, format === 'vscode-chat-log');
		case 'cline-ui':
			// Roo Code keeps its tasks in its own extension's folder (clineTasks.ts) and opens a task differently.
			return readClineTaskFile(text, 'ui_messages', /roo-cline/i.test(file) ? 'roo-code' : 'cline');
		case 'cline-api':
			return readClineTaskFile(text, 'api_conversation_history');
		case 'cline-sdk':
			return readClineTaskFile(text, 'sdk_messages');
	}
}

function wholeText(file: string): { text: string; size: number } {
	const { fd, stat } = openRegularFile(file);
	try {
		const bytes = Buffer.alloc(stat.size);
		const read = readAll(fd, bytes);
		return { text: bytes.toString('utf8', 0, read), size: stat.size };
	} finally {
		fs.closeSync(fd);
	}
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
