/**
 * The archive describes itself (issue 26, "never lose one"): beside each archived transcript
 * `<session>/<name>.jsonl` lies `<session>/<name>.meta.json`, what the index says of it (agent, the
 * agent's id, the session, times, source path, size and mtime, offsets, counts), and beside them
 * `_sessions/<session>.json`, the session's archive switch, files and notes (outside the session's folder,
 * which a purge removes whole: the switch that says "off" must outlive it). Each is written whole
 * after the excerpts it describes and before the index, so `index.json` is a cache `baton doctor
 * --reindex` rebuilds from these files (archiveRebuild.ts). `_sessions` can never be a session's
 * folder: a session id starts with a letter or digit.
 *
 * A session's header is written atomically and synced (tmp, fsync, rename): it is written once per
 * person's action, and once per file an agent names for the first time in the session (its files
 * touched live there alone, not in the index: sessionFiles.ts). A transcript's header is written once per transcript per sync, a thousand times in an
 * import, so it is not synced on its own: the sync's one durable step is the index written after it
 * (tmp, fsync, rename), like the journal record after that. A kill cannot tear a header (a new one is
 * created and written in one write, a changed one replaces the old by a rename), and a header a power
 * cut took, cut short or left claiming excerpts the archive lost is never adopted (archiveRebuild.ts
 * `adoptSidecar`): that transcript's source is read again, as it was before the header existed.
 * `_sessions` can never be a session's folder: a session id starts with a letter or digit.
 */
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { atomicWriteFile, writeAll } from '../storage/fsUtil';
import { mkdirPrivate, privateFileMode } from '../workspace';
import { openRegularFile } from '../storage/regularFile';
import { addFiles, sessionArchiveSchema, transcriptEntrySchema, type SessionArchive, type TranscriptEntry } from './transcriptIndex';

export const metaSuffix = '.meta.json';
export const sessionsDirName = '_sessions';
/** Written by this version; a higher one is another version's (kept, reported, not read). */
export const archiveMetaVersion = 1;

export const transcriptMetaSchema = z.object({ kind: z.literal('baton-transcript'), version: z.number().int().positive(), entry: z.unknown() });
const sessionMetaSchema = z.object({
	kind: z.literal('baton-transcript-session'),
	version: z.number().int().positive(),
	sessionId: z.string(),
	archive: z.unknown(),
});

/** The sidecar of an archive file (`<session>/<name>.jsonl` → `<session>/<name>.meta.json`). */
export function metaPathOf(archivePath: string): string {
	return `${archivePath.slice(0, -'.jsonl'.length)}${metaSuffix}`;
}

function transcriptMetaBytes(entry: TranscriptEntry): Buffer {
	return Buffer.from(`${JSON.stringify({ kind: 'baton-transcript', version: archiveMetaVersion, entry: transcriptEntrySchema.parse(entry) })}\n`);
}

function sessionMetaBytes(sessionId: string, archive: SessionArchive): Buffer {
	return Buffer.from(
		`${JSON.stringify({ kind: 'baton-transcript-session', version: archiveMetaVersion, sessionId, archive: sessionArchiveSchema.parse(archive) })}\n`,
	);
}

/**
 * Writes `bytes` to `file` unless it holds them already (a second reindex changes no byte, and a sync
 * that found nothing new writes nothing). `fresh`: the caller has never written this file (a transcript
 * archived for the first time), so it is created in one write with nothing to compare or replace.
 * `synced`: the file is synced before its rename (see above for why a transcript's header is not).
 */
function writeIfChanged(file: string, bytes: Buffer, options: { fresh?: boolean; synced: boolean }): boolean {
	if (options.fresh && createWhole(file, bytes)) {
		return true;
	}
	try {
		if (fs.readFileSync(file).equals(bytes)) {
			return false;
		}
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
			mkdirPrivate(path.dirname(file));
		}
		// Anything else (a damaged or unreadable copy): written over below, or the write says why.
	}
	if (options.synced) {
		atomicWriteFile(file, bytes);
	} else {
		replaceWhole(file, bytes);
	}
	return true;
}

/** Creates `file` with `bytes` in one write; false when it is there already (then it is compared and replaced). */
function createWhole(file: string, bytes: Buffer): boolean {
	let fd: number;
	try {
		fd = fs.openSync(file, 'wx', privateFileMode);
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
			return false;
		}
		mkdirPrivate(path.dirname(file));
		try {
			fd = fs.openSync(file, 'wx', privateFileMode);
		} catch {
			return false;
		}
	}
	try {
		writeAll(fd, bytes);
	} catch (error) {
		fs.closeSync(fd);
		fs.rmSync(file, { force: true }); // A full disk: no header cut short is left behind.
		throw error;
	}
	fs.closeSync(fd);
	return true;
}

/** A new copy renamed over the old one: a kill leaves the old or the new, never a mix (not synced: see above). */
function replaceWhole(file: string, bytes: Buffer): void {
	atomicWriteFile(file, bytes, privateFileMode, false);
}

/**
 * The sidecar of one archived transcript, from its index entry (nothing when nothing is archived).
 * `fresh`: its transcript had nothing archived before this sync, so no header of it was written.
 */
export function writeTranscriptMeta(dir: string, entry: TranscriptEntry, fresh = false): boolean {
	return entry.archivePath ? writeIfChanged(path.join(dir, metaPathOf(entry.archivePath)), transcriptMetaBytes(entry), { fresh, synced: false }) : false;
}

const safeSessionId = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** Whether a session id can name a folder of the archive (no `..`, separator or control character). */
export function isArchiveSessionId(sessionId: string): boolean {
	return safeSessionId.test(sessionId);
}

/** The largest header read: far above what 2,000 files and 50 notes take. */
const maxHeaderBytes = 1024 * 1024;

/** A header's text; throws (saying why, after the path) for a FIFO, a device or a file larger than a header can be. */
export function readHeaderText(file: string): string {
	const { fd, stat } = openRegularFile(file);
	try {
		if (stat.size > maxHeaderBytes) {
			throw new Error(`is ${stat.size} bytes, larger than a header can be (${maxHeaderBytes}): not read`);
		}
		const bytes = Buffer.alloc(stat.size);
		const n = stat.size ? fs.readSync(fd, bytes, 0, stat.size, 0) : 0;
		return bytes.toString('utf8', 0, n);
	} finally {
		fs.closeSync(fd);
	}
}

/** A parsed session header checked: the session's archive, or why it is not used. */
export function sessionHeaderOf(value: unknown, sessionId: string): { archive: SessionArchive } | { reason: string } {
	const meta = sessionMetaSchema.safeParse(value);
	if (meta.success && meta.data.version > archiveMetaVersion) {
		return { reason: `was written by a newer Baton (version ${meta.data.version}): kept, not read` };
	}
	const archive = meta.success && meta.data.sessionId === sessionId ? sessionArchiveSchema.safeParse(meta.data.archive) : null;
	return archive?.success ? { archive: archive.data } : { reason: 'is not this session’s header: not used' };
}

export function sessionMetaPath(dir: string, sessionId: string): string | null {
	return safeSessionId.test(sessionId) ? path.join(dir, sessionsDirName, `${sessionId}.json`) : null;
}

/**
 * The session's sidecar. It is where a session's files touched live (`TranscriptArchive.recordFilesTouched`
 * writes it alone, not `index.json`): `archive`'s files are added to the ones it holds, never put in their
 * place, so a writer whose index predates a file (another process's, an older index.json) keeps it.
 */
export function writeSessionMeta(dir: string, sessionId: string, archive: SessionArchive): boolean {
	const file = sessionMetaPath(dir, sessionId);
	if (!file) {
		return false;
	}
	const kept = readSessionMeta(dir, sessionId);
	let written = archive;
	if (kept && kept.filesTouched.length > 0) {
		const files = [...kept.filesTouched];
		addFiles(files, archive.filesTouched);
		written = { ...archive, filesTouched: files };
	}
	return writeIfChanged(file, sessionMetaBytes(sessionId, written), { synced: true });
}

/** The session's sidecar as written, or null: none, unreadable, another session's, or a newer Baton's (archiveRebuild.ts says why). */
export function readSessionMeta(dir: string, sessionId: string): SessionArchive | null {
	const file = sessionMetaPath(dir, sessionId);
	if (!file) {
		return null;
	}
	try {
		// A FIFO or a device in its place is not waited on, nor a file larger than a header can be.
		const header = sessionHeaderOf(JSON.parse(readHeaderText(file)), sessionId);
		return 'archive' in header ? header.archive : null;
	} catch {
		return null;
	}
}
