/**
 * `baton doctor --reindex` (issue 26, "never lose one"): the transcript index rebuilt from the
 * archive's own files. Each archived transcript's header (archiveMeta.ts) gives its entry; an archive
 * written before headers existed takes the entry the old index has for it, or else one recovered from
 * its excerpts (its agent and source matched to the agents' files still on disk by its name). A file
 * that cannot be used (a header cut short or naming another place, a file too large, a FIFO, a header
 * of a newer version) is reported with why and left where it is: nothing is deleted, and the rest is
 * rebuilt. What the old index knew that the archive holds no file for (a transcript not archived yet,
 * a session's notes) is kept. Keys are sorted, so a second rebuild writes the same bytes.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { AgentKind } from '../agentKinds';
import { ownMap } from '../storage/ownRecord';
import { clip } from '../text/clip';
import { batonDir } from '../workspace';
import { archiveNameOf, safeName } from './archiveCandidates';
import {
	archiveMetaVersion,
	metaPathOf,
	metaSuffix,
	readHeaderText,
	sessionHeaderOf,
	sessionsDirName,
	transcriptMetaSchema,
	writeSessionMeta,
	writeTranscriptMeta,
} from './archiveMeta';
import type { DiscoveredTranscript } from './claudeProjects';
import type { Excerpt } from './transcriptExcerpts';
import {
	addFiles,
	indexKey,
	newTranscriptEntry,
	sessionArchiveSchema,
	transcriptEntrySchema,
	type IndexHealth,
	type SessionArchive,
	type TranscriptEntry,
	type TranscriptIndex,
} from './transcriptIndex';

export type AgentTranscript = DiscoveredTranscript & { agent: AgentKind };

export interface ReindexInput {
	/** The agents' transcripts still on disk (the agent-history import's discovery). */
	discovered: readonly AgentTranscript[];
	/** The durable session an agent's id is an alias of, or null. */
	link: (agent: AgentKind, agentSessionId: string) => Promise<string | null>;
}

/** A file of the archive the rebuild could not use (`error`: left as it is) or used with a caveat (`warning`). */
interface ReindexProblem {
	path: string;
	level: 'error' | 'warning';
	reason: string;
}

interface ArchiveScan {
	transcripts: Record<string, TranscriptEntry>;
	sessions: Record<string, SessionArchive>;
	problems: ReindexProblem[];
	/** Entries read from their header, taken from the old index (an archive without a header), recovered from excerpts. */
	fromHeader: number;
	fromIndex: number;
	recovered: number;
	/** Headers that could not be used: set aside before a new one is written (a newer version's are kept in place, not written over). */
	badHeaders: Map<string, 'aside' | 'keep'>;
}

export interface ReindexResult {
	previous: IndexHealth;
	scan: ArchiveScan;
	/** Headers written (new, or brought up to date). */
	sidecars: number;
	/** False when the run changed no byte (the index and every header were already what it rebuilt). */
	changed: boolean;
	parsedBytes: number;
}

/** An archive without a header larger than this is kept and listed, its counts not recovered. */
const maxRecoverBytes = 64 * 1024 * 1024;

export function readIfPresent(file: string): string | null {
	try {
		return fs.readFileSync(file, 'utf8');
	} catch {
		return null;
	}
}

function kindOf(d: fs.Dirent): string {
	if (d.isFIFO()) return 'a FIFO';
	if (d.isSymbolicLink()) return 'a symbolic link';
	if (d.isSocket()) return 'a socket';
	if (d.isDirectory()) return 'a folder';
	return 'a device';
}

/** One transcript's header, checked: its entry, or why it cannot be used. */
function readTranscriptMeta(file: string, rel: string, workspaceRoot: string): { entry: TranscriptEntry } | { reason: string } {
	let value: unknown;
	try {
		value = JSON.parse(readHeaderText(file));
	} catch (error) {
		return {
			reason: error instanceof SyntaxError ? `is not JSON (cut short?): ${clip(error.message, 120)}` : (error as Error).message.replace(`${file} `, ''),
		};
	}
	const meta = transcriptMetaSchema.safeParse(value);
	if (!meta.success) {
		return { reason: 'is not a Baton transcript header' };
	}
	if (meta.data.version > archiveMetaVersion) {
		return { reason: `was written by a newer Baton (header version ${meta.data.version}): kept, not read` };
	}
	const parsed = transcriptEntrySchema.safeParse(meta.data.entry);
	if (!parsed.success) {
		const issue = parsed.error.issues[0];
		return { reason: `has an entry this version cannot read (${issue ? `${issue.path.join('.')}: ${issue.message}` : 'invalid'})` };
	}
	const entry = parsed.data;
	if (entry.archivePath !== rel || (!entry.sharedFrom && archiveNameOf(entry) !== rel)) {
		return {
			reason: `names ${clip(JSON.stringify(entry.archivePath), 200)} (session ${clip(String(entry.sessionId), 80)}), not the place it lies in: not used`,
		};
	}
	const source = path.resolve(entry.sourcePath || '/');
	if (entry.sourcePath && (!path.isAbsolute(entry.sourcePath) || source.startsWith(`${batonDir(workspaceRoot)}${path.sep}`))) {
		return { reason: `names a source Baton never reads (${clip(entry.sourcePath, 200)}): not used` };
	}
	return { entry };
}

/** Takes the header of the archive `entry` would be written to, when there is one for the same transcript. */
export function adoptSidecar(dir: string, entry: TranscriptEntry, workspaceRoot: string): boolean {
	const rel = archiveNameOf(entry);
	const archived = rel ? fs.statSync(path.join(dir, rel), { throwIfNoEntry: false }) : undefined;
	if (!rel || !archived?.isFile()) {
		return false;
	}
	const read = readTranscriptMeta(path.join(dir, metaPathOf(rel)), rel, workspaceRoot);
	// A header claiming excerpts the archive does not hold (a power cut kept the header, not what it
	// describes; neither is synced on its own, archiveMeta.ts) is not carried on from: the source is read again.
	if (!('entry' in read) || read.entry.agent !== entry.agent || read.entry.id !== entry.id || archived.size < read.entry.archiveBytes) {
		return false;
	}
	Object.assign(entry, read.entry);
	return true;
}

export function scanArchive(dir: string, previous: TranscriptIndex, discovered: readonly AgentTranscript[], workspaceRoot: string): ArchiveScan {
	const scan: ArchiveScan = { transcripts: ownMap(), sessions: ownMap(), problems: [], fromHeader: 0, fromIndex: 0, recovered: 0, badHeaders: new Map() };
	let top: fs.Dirent[] = [];
	try {
		top = fs.readdirSync(dir, { withFileTypes: true });
	} catch {
		// No archive yet: only what the old index knew.
	}
	for (const d of top.sort((a, b) => (a.name < b.name ? -1 : 1))) {
		if (d.isDirectory() && d.name === sessionsDirName) {
			scanSessionHeaders(path.join(dir, d.name), scan);
		} else if (d.isDirectory() && safeName.test(d.name)) {
			scanSession(dir, d.name, previous, discovered, workspaceRoot, scan);
		} else if (!d.isFile() && safeName.test(d.name)) {
			scan.problems.push({ path: d.name, level: 'error', reason: `is ${kindOf(d)}, not a folder of the archive: not followed` });
		}
	}
	for (const [key, entry] of Object.entries(previous.transcripts)) {
		if (!(key in scan.transcripts)) {
			scan.transcripts[key] = entry;
		}
	}
	for (const [id, session] of Object.entries(previous.sessions)) {
		if (!(id in scan.sessions)) {
			scan.sessions[id] = session;
		}
	}
	return scan;
}

function scanSession(
	dir: string,
	sessionId: string,
	previous: TranscriptIndex,
	discovered: readonly AgentTranscript[],
	workspaceRoot: string,
	scan: ArchiveScan,
): void {
	const folder = path.join(dir, sessionId);
	let files: fs.Dirent[];
	try {
		files = fs.readdirSync(folder, { withFileTypes: true });
	} catch (error) {
		scan.problems.push({
			path: sessionId,
			level: 'error',
			reason: `cannot be listed (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}): left as it is`,
		});
		return;
	}
	const byArchive = new Map(Object.values(previous.transcripts).flatMap((e) => (e.archivePath ? [[e.archivePath, e] as const] : [])));
	const names = new Set(files.map((d) => d.name));
	for (const d of files.sort((a, b) => (a.name < b.name ? -1 : 1))) {
		const rel = `${sessionId}/${d.name}`;
		if (d.name.includes('.tmp-') || d.name.includes('.damaged-')) {
			continue; // A write a process did not finish (its old copy is still in place), or a header set aside.
		}
		const ours = d.name.endsWith('.jsonl') || d.name.endsWith(metaSuffix);
		if (!ours) {
			scan.problems.push({ path: rel, level: 'warning', reason: 'is not a file Baton writes: left as it is' });
		} else if (!d.isFile()) {
			scan.problems.push({ path: rel, level: 'error', reason: `is ${kindOf(d)}, not a regular file: not read` });
		} else if (d.name.endsWith(metaSuffix)) {
			if (!names.has(`${d.name.slice(0, -metaSuffix.length)}.jsonl`)) {
				scan.problems.push({ path: rel, level: 'warning', reason: 'describes an archive that is not there: not used' });
			}
		} else {
			const entry = archivedEntry(dir, rel, names.has(path.basename(metaPathOf(rel))), byArchive.get(rel), discovered, workspaceRoot, scan);
			const key = entry ? indexKey(entry.agent, entry.id) : '';
			if (entry && key in scan.transcripts) {
				scan.problems.push({ path: rel, level: 'error', reason: `is the same transcript as ${scan.transcripts[key]?.archivePath ?? ''}: not used` });
			} else if (entry) {
				scan.transcripts[key] = entry;
			}
		}
	}
}

function archivedEntry(
	dir: string,
	rel: string,
	hasHeader: boolean,
	known: TranscriptEntry | undefined,
	discovered: readonly AgentTranscript[],
	workspaceRoot: string,
	scan: ArchiveScan,
): TranscriptEntry | null {
	const size = fs.statSync(path.join(dir, rel)).size;
	if (hasHeader) {
		const read = readTranscriptMeta(path.join(dir, metaPathOf(rel)), rel, workspaceRoot);
		if ('entry' in read) {
			scan.fromHeader++;
			if (size < read.entry.archiveBytes) {
				scan.problems.push({
					path: rel,
					level: 'warning',
					reason: `is shorter (${size} bytes) than its header says (${read.entry.archiveBytes}): read as it is`,
				});
				read.entry.archiveBytes = size;
			}
			return read.entry;
		}
		const keep = read.reason.includes('newer Baton');
		scan.badHeaders.set(metaPathOf(rel), keep ? 'keep' : 'aside');
		scan.problems.push({
			path: metaPathOf(rel),
			level: 'error',
			reason: `${read.reason}; the archive beside it is read without it${keep ? '' : ' (the header is set aside as .damaged-<time> and written anew)'}`,
		});
	}
	if (known) {
		scan.fromIndex++;
		return known;
	}
	scan.recovered++;
	return recoverEntry(path.join(dir, rel), rel, size, discovered, scan);
}

/** `_sessions/<session>.json`: each session's archive switch, files and notes. */
function scanSessionHeaders(folder: string, scan: ArchiveScan): void {
	let files: fs.Dirent[] = [];
	try {
		files = fs.readdirSync(folder, { withFileTypes: true });
	} catch (error) {
		scan.problems.push({
			path: sessionsDirName,
			level: 'error',
			reason: `cannot be listed (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}): left as it is`,
		});
	}
	for (const d of files.sort((a, b) => (a.name < b.name ? -1 : 1))) {
		const rel = `${sessionsDirName}/${d.name}`;
		const sessionId = d.name.slice(0, -'.json'.length);
		if (d.name.includes('.tmp-') || d.name.includes('.damaged-')) {
			continue;
		} else if (!d.name.endsWith('.json') || !safeName.test(sessionId)) {
			scan.problems.push({ path: rel, level: 'warning', reason: 'is not a file Baton writes: left as it is' });
		} else if (!d.isFile()) {
			scan.problems.push({ path: rel, level: 'error', reason: `is ${kindOf(d)}, not a regular file: not read` });
		} else {
			readSessionMeta(path.join(folder, d.name), rel, sessionId, scan);
		}
	}
}

function readSessionMeta(file: string, rel: string, sessionId: string, scan: ArchiveScan): void {
	let value: unknown;
	try {
		value = JSON.parse(readHeaderText(file));
	} catch (error) {
		scan.problems.push({
			path: rel,
			level: 'error',
			reason: error instanceof SyntaxError ? 'is not JSON (cut short?): not used' : (error as Error).message.replace(`${file} `, ''),
		});
		return;
	}
	const header = sessionHeaderOf(value, sessionId);
	if ('reason' in header) {
		scan.problems.push({ path: rel, level: 'error', reason: header.reason });
		return;
	}
	scan.sessions[sessionId] = header.archive;
}

/**
 * An archive without a header that the old index does not know: its entry rebuilt from its name and
 * excerpts. Matched to an agent's file still on disk by its name, it continues from that file's
 * present end (what the archive holds is taken as read: nothing read twice); else its source is gone
 * and it is listed as Claude Code's (the one agent whose archives came before the others').
 */
function recoverEntry(file: string, rel: string, size: number, discovered: readonly AgentTranscript[], scan: ArchiveScan): TranscriptEntry {
	const [sessionId, name] = rel.split('/') as [string, string];
	const base = name.slice(0, -'.jsonl'.length);
	const match = discovered.find((d) => (d.parentAgentSessionId ? `${d.parentAgentSessionId}.${d.agentSessionId}` : d.agentSessionId) === base);
	const entry = newTranscriptEntry(
		match ?? { id: base, agent: 'claude-code', agentSessionId: base, parentAgentSessionId: null, sourcePath: '', agentType: null, description: null },
	);
	Object.assign(entry, { sessionId, archivePath: rel, archiveBytes: size, sourceMissing: !match });
	if (match) {
		try {
			const stat = fs.statSync(match.sourcePath);
			Object.assign(entry, { offset: stat.size, sourceSize: stat.size, sourceMtimeMs: stat.mtimeMs });
		} catch {
			entry.sourceMissing = true;
		}
	}
	scan.problems.push({
		path: rel,
		level: 'warning',
		reason: `has no header: rebuilt from its excerpts${match ? '' : ', its agent taken as Claude Code (its source is gone)'}`,
	});
	if (size > maxRecoverBytes) {
		scan.problems.push({ path: rel, level: 'warning', reason: `is ${size} bytes, over ${maxRecoverBytes}: kept and listed, its counts not recovered` });
		return entry;
	}
	for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
		countExcerpt(entry, line);
	}
	return entry;
}

function countExcerpt(entry: TranscriptEntry, line: string): void {
	let e: Excerpt;
	try {
		e = JSON.parse(line) as Excerpt;
	} catch {
		return;
	}
	if (!e || typeof e !== 'object') {
		return;
	}
	if (e.at && (e.type === 'user' || e.type === 'assistant')) {
		entry.firstAt ??= e.at;
		entry.lastAt = e.at;
	}
	if (e.type === 'user') {
		entry.userRequests++;
		entry.lastUserText = clip(e.text, 500);
	} else if (e.type === 'assistant') {
		entry.assistantMessages++;
		entry.lastAssistantText = clip(e.text, 500);
	} else if (e.type === 'tool') {
		entry.toolCalls++;
		if (e.edit && Array.isArray(e.files)) addFiles(entry.filesTouched, e.files);
	} else if (e.type === 'error') {
		entry.errors++;
	} else if (e.type === 'compact') {
		entry.compactions++;
	}
}

/** Keys in one order and every header up to date with its entry; returns how many headers were written. */
export function finishReindex(dir: string, index: TranscriptIndex, badHeaders: ReadonlyMap<string, 'aside' | 'keep'>): number {
	let written = 0;
	const transcripts = ownMap<TranscriptEntry>();
	for (const key of Object.keys(index.transcripts).sort()) {
		// Checked and in the schema's key order, however it was made: the same index gives the same bytes.
		const entry = transcriptEntrySchema.parse(index.transcripts[key]);
		transcripts[key] = entry;
		const header = entry.archivePath ? metaPathOf(entry.archivePath) : '';
		if (!entry.archivePath || badHeaders.get(header) === 'keep' || !fs.existsSync(path.join(dir, entry.archivePath))) {
			continue;
		}
		if (badHeaders.get(header) === 'aside') {
			fs.renameSync(path.join(dir, header), path.join(dir, `${header}.damaged-${Date.now()}`));
		}
		if (writeTranscriptMeta(dir, entry)) {
			written++;
		}
	}
	const sessions = ownMap<SessionArchive>();
	for (const id of Object.keys(index.sessions).sort()) {
		sessions[id] = sessionArchiveSchema.parse(index.sessions[id]);
		if (writeSessionMeta(dir, id, sessions[id])) {
			written++;
		}
	}
	index.transcripts = transcripts;
	index.sessions = sessions;
	return written;
}
