/**
 * The archive describes itself (issue 26, "never lose one"): beside each archived transcript
 * `<session>/<name>.jsonl` lies `<session>/<name>.meta.json`, what the index says of it (agent, the
 * agent's id, the session, times, source path, size and mtime, offsets, counts), and beside them
 * `_sessions/<session>.json`, the session's archive switch, files and notes (outside the session's folder,
 * which a purge removes whole: the switch that says "off" must outlive it). Each is written whole and
 * atomically (tmp, fsync, rename) after the excerpts it describes and before the index, so
 * `index.json` is a cache `baton doctor --reindex` rebuilds from these files (archiveRebuild.ts).
 * `_sessions` can never be a session's folder: a session id starts with a letter or digit.
 */
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { atomicWriteFile } from '../storage/fsUtil';
import { mkdirPrivate } from '../workspace';
import { sessionArchiveSchema, transcriptEntrySchema, type SessionArchive, type TranscriptEntry } from './transcriptIndex';

export const metaSuffix = '.meta.json';
export const sessionsDirName = '_sessions';
/** Written by this version; a higher one is another version's (kept, reported, not read). */
export const archiveMetaVersion = 1;

export const transcriptMetaSchema = z.object({ kind: z.literal('baton-transcript'), version: z.number().int().positive(), entry: z.unknown() });
export const sessionMetaSchema = z.object({ kind: z.literal('baton-transcript-session'), version: z.number().int().positive(), sessionId: z.string(), archive: z.unknown() });

/** The sidecar of an archive file (`<session>/<name>.jsonl` → `<session>/<name>.meta.json`). */
export function metaPathOf(archivePath: string): string {
	return `${archivePath.slice(0, -'.jsonl'.length)}${metaSuffix}`;
}

function transcriptMetaBytes(entry: TranscriptEntry): Buffer {
	return Buffer.from(`${JSON.stringify({ kind: 'baton-transcript', version: archiveMetaVersion, entry: transcriptEntrySchema.parse(entry) })}\n`);
}

function sessionMetaBytes(sessionId: string, archive: SessionArchive): Buffer {
	return Buffer.from(`${JSON.stringify({ kind: 'baton-transcript-session', version: archiveMetaVersion, sessionId, archive: sessionArchiveSchema.parse(archive) })}\n`);
}

/** Writes `bytes` to `file` unless it holds them already (a second reindex changes no byte, and a sync that found nothing new writes nothing). */
function writeIfChanged(file: string, bytes: Buffer): boolean {
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
	atomicWriteFile(file, bytes);
	return true;
}

/** The sidecar of one archived transcript, from its index entry (nothing when nothing is archived). */
export function writeTranscriptMeta(dir: string, entry: TranscriptEntry): boolean {
	return entry.archivePath ? writeIfChanged(path.join(dir, metaPathOf(entry.archivePath)), transcriptMetaBytes(entry)) : false;
}

const safeSessionId = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** The session's sidecar. */
export function writeSessionMeta(dir: string, sessionId: string, archive: SessionArchive): boolean {
	return safeSessionId.test(sessionId) ? writeIfChanged(path.join(dir, sessionsDirName, `${sessionId}.json`), sessionMetaBytes(sessionId, archive)) : false;
}
