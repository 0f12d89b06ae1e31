/**
 * Archived transcripts as sync ships them (docs/sync.md "Transcripts"): one file per transcript, a
 * first line with what the index says of it and then its excerpts. Only what is safe to leave the
 * machine goes out: every text passes through the archive's own `redactSecrets` again (titles and
 * descriptions are not redacted when archived), and nothing machine-specific (the source path, byte
 * offsets, absolute file paths) is kept. An imported copy is marked with the machine it came from,
 * is never shipped again from here, and never overwrites a transcript of this machine.
 */
import fs from 'node:fs';
import path from 'node:path';
import { atomicWriteFile } from '../storage/fsUtil';
import { mkdirPrivate } from '../workspace';
import { redactSecrets } from '../text/redactSecrets';
import { metaPathOf, writeTranscriptMeta } from './archiveMeta';
import { indexKey, newTranscriptEntry, transcriptEntrySchema, type TranscriptEntry, type TranscriptIndex } from './transcriptIndex';

/** Who wrote a shared transcript (display only). */
export interface TranscriptOrigin {
	machine: string;
	machineName: string | null;
	author: string | null;
}

/** One transcript as shipped: `path` is `<durable session>/<name>.jsonl`, `content` the file's text. */
export interface SharedTranscript {
	path: string;
	/** Changes whenever the archived copy does (what an export compares). */
	version: string;
	content: () => string;
}

const safeName = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
const sharedFields = [
	'id',
	'agent',
	'agentSessionId',
	'parentAgentSessionId',
	'sessionId',
	'lines',
	'badLines',
	'bootstrap',
	'title',
	'agentType',
	'description',
	'firstAt',
	'lastAt',
	'userRequests',
	'assistantMessages',
	'toolCalls',
	'errors',
	'compactions',
	'tokens',
	'lastMessage',
	'lastUserText',
	'lastAssistantText',
	'filesTouched',
] as const;

/** Every string inside a JSON value through `redactSecrets` (keys too: a key can be a secret's name and value). */
function redactJson(value: unknown): unknown {
	if (typeof value === 'string') {
		return redactSecrets(value);
	}
	if (Array.isArray(value)) {
		return value.map(redactJson);
	}
	if (value && typeof value === 'object') {
		return Object.fromEntries(Object.entries(value).map(([k, v]) => [redactSecrets(k), redactJson(v)]));
	}
	return value;
}

/** This machine's archived transcripts that may be shipped (linked, archived, archiving on, not imported). */
export function shareableTranscripts(index: TranscriptIndex, dir: string, origin: TranscriptOrigin): SharedTranscript[] {
	const out: SharedTranscript[] = [];
	for (const entry of Object.values(index.transcripts)) {
		if (entry.sharedFrom || !entry.sessionId || !entry.archivePath || entry.archiveBytes === 0 || index.sessions[entry.sessionId]?.archive === false) {
			continue;
		}
		const name = path.basename(entry.archivePath);
		if (!safeName.test(entry.sessionId) || !safeName.test(name)) {
			continue;
		}
		const file = path.join(dir, entry.archivePath);
		out.push({
			path: `${entry.sessionId}/${name}`,
			version: `${entry.archiveBytes}:${entry.lines}:${entry.lastAt ?? ''}:${entry.title ?? ''}`,
			content: () => {
				const meta: Record<string, unknown> = { origin };
				for (const field of sharedFields) {
					meta[field] = entry[field];
				}
				// Files outside the workspace are absolute paths of this machine: not shared.
				meta['filesTouched'] = entry.filesTouched.filter((f) => !path.isAbsolute(f) && !/^[A-Za-z]:[\\/]/.test(f));
				const lines = [JSON.stringify(redactJson(meta))];
				let text = '';
				try {
					text = fs.readFileSync(file, 'utf8').slice(0, entry.archiveBytes);
				} catch {
					// Removed by hand since: ship the description alone.
				}
				for (const line of text.split('\n')) {
					if (line) {
						try {
							lines.push(JSON.stringify(redactJson(JSON.parse(line))));
						} catch {
							// A damaged line of the archive is not shipped (read() skips it too).
						}
					}
				}
				return `${lines.join('\n')}\n`;
			},
		});
	}
	return out.sort((a, b) => (a.path < b.path ? -1 : 1));
}

/**
 * Puts a teammate's shipped transcript into this archive: its excerpts under `<session>/<name>` and
 * its index entry marked `sharedFrom`. Returns a reason when it is not imported (the caller warns).
 */
export function importSharedTranscript(
	index: TranscriptIndex,
	dir: string,
	file: { path: string; content: string; origin: TranscriptOrigin },
	/** Every entry by its archive file (entriesByArchivePath): kept up to date with what this imports. */
	byArchivePath: Map<string, TranscriptEntry>,
): string | null {
	const { path: filePath, content } = file;
	const [sessionId, name, ...rest] = filePath.split('/');
	// `index.*` are the archive's own files beside the session folders (index.json, its lock).
	if (
		!sessionId ||
		!name ||
		rest.length > 0 ||
		!safeName.test(sessionId) ||
		/^index\./i.test(sessionId) ||
		!safeName.test(name) ||
		!name.endsWith('.jsonl')
	) {
		return `a shared transcript named ${JSON.stringify(filePath.slice(0, 200))} is not a name Baton writes`;
	}
	const newline = content.indexOf('\n');
	let meta: Record<string, unknown>;
	try {
		meta = JSON.parse(newline < 0 ? content : content.slice(0, newline)) as Record<string, unknown>;
	} catch {
		return `the shared transcript ${filePath} does not start with its description`;
	}
	if (meta === null || typeof meta !== 'object' || Array.isArray(meta)) {
		return `the shared transcript ${filePath} does not start with its description (its first line is no JSON object)`;
	}
	const given = meta['origin'] as Partial<TranscriptOrigin> | null | undefined;
	// The machine is the ref's it came from, never what the file says: what a retraction takes back is by it (forgetSharedTranscripts).
	const origin: TranscriptOrigin = {
		machine: file.origin.machine,
		machineName: typeof given?.machineName === 'string' ? given.machineName : file.origin.machineName,
		author: typeof given?.author === 'string' ? given.author : file.origin.author,
	};
	const archivePath = `${sessionId}/${name}`;
	const base = newTranscriptEntry({
		id: '',
		agent: 'claude-code',
		agentSessionId: '',
		parentAgentSessionId: null,
		sourcePath: '',
		agentType: null,
		description: null,
	});
	const parsed = transcriptEntrySchema.safeParse({ ...base, ...meta, sessionId, sourcePath: '', sourceMissing: true, archivePath, sharedFrom: origin });
	if (!parsed.success) {
		return `the shared transcript ${filePath} has a description this version cannot read (${parsed.error.issues[0]?.message ?? 'invalid'})`;
	}
	const entry: TranscriptEntry = parsed.data;
	const key = indexKey(entry.agent, entry.id);
	const existing = index.transcripts[key];
	if (existing && !existing.sharedFrom) {
		return null; // This machine's own copy of the same transcript wins.
	}
	if (existing && existing.sharedFrom?.machine !== origin.machine) {
		return `the shared transcript ${filePath} is ${key}, which machine ${existing.sharedFrom?.machine ?? '?'} shared first: kept as it came from there`;
	}
	const atPath = byArchivePath.get(archivePath);
	if (atPath && atPath !== existing) {
		// Another transcript lies in that file (this machine's own, or another one's): never written over.
		return `the shared transcript ${filePath} would replace the archive of ${indexKey(atPath.agent, atPath.id)}${atPath.sharedFrom ? '' : ", a transcript of this machine's own"}: not imported`;
	}
	if (index.sessions[sessionId]?.archive === false) {
		return null; // Archiving is off here for that session: its transcripts are not kept.
	}
	const excerpts = newline < 0 ? '' : content.slice(newline + 1);
	const bytes = Buffer.from(excerpts);
	try {
		mkdirPrivate(path.join(dir, sessionId));
		atomicWriteFile(path.join(dir, archivePath), bytes);
	} catch (error) {
		return `the shared transcript ${filePath} could not be written (${(error as Error).message})`;
	}
	const imported: TranscriptEntry = { ...entry, archiveBytes: bytes.length, offset: 0, sourceSize: 0, sourceMtimeMs: 0 };
	index.transcripts[key] = imported;
	byArchivePath.set(archivePath, imported);
	writeTranscriptMeta(dir, imported);
	return null;
}

/** Each transcript's entry by the archive file it lies in (importSharedTranscript's check that no file is written over). */
export function entriesByArchivePath(index: TranscriptIndex): Map<string, TranscriptEntry> {
	const out = new Map<string, TranscriptEntry>();
	for (const entry of Object.values(index.transcripts)) {
		if (entry.archivePath) {
			out.set(entry.archivePath, entry);
		}
	}
	return out;
}

/**
 * The copies imported from a machine of the transcripts of a session it took back (a retraction):
 * their files, headers and entries. Only copies that machine shipped: its tombstone can name any
 * session, this machine's own among them. Returns how many went.
 */
export function forgetSharedTranscripts(index: TranscriptIndex, dir: string, taken: readonly { machine: string; session: string }[]): number {
	const pairs = new Set(taken.map((t) => `${t.machine}\u0000${t.session}`));
	let removed = 0;
	for (const [key, entry] of Object.entries(index.transcripts)) {
		if (!entry.sharedFrom || !entry.sessionId || !pairs.has(`${entry.sharedFrom.machine}\u0000${entry.sessionId}`)) {
			continue;
		}
		if (entry.archivePath) {
			fs.rmSync(path.join(dir, metaPathOf(entry.archivePath)), { force: true });
			fs.rmSync(path.join(dir, entry.archivePath), { force: true });
		}
		delete index.transcripts[key];
		removed++;
	}
	return removed;
}
