/**
 * A session's files touched live in its sidecar, `_sessions/<session>.json` (archiveMeta.ts), not in
 * `index.json`: the index holds every transcript of the history, and rewriting it for each file an
 * agent names for the first time cost 55 ms at 1,000 imported sessions (a 1.2 MB index), growing with
 * the history, inside the tool call's hook. The sidecar is small, written whole and synced, under the
 * index's lock (two processes adding files never lose one), and read again only when it changed.
 * Files an older index.json names for the session still count: readers take both.
 */
import fs from 'node:fs';
import { readSessionMeta, sessionMetaPath, writeSessionMeta } from './archiveMeta';
import { addFiles, type SessionArchive } from './transcriptIndex';

/** Sessions whose sidecar a process keeps parsed; past this the kept ones are dropped and read again. */
const maxKept = 1_000;

export class SessionFiles {
	private readonly kept = new Map<string, { stamp: string; files: readonly string[] }>();

	constructor(private readonly dir: string) {}

	/** The files the session's sidecar names (none when it has none); parsed again only when the file changed (its inode, size or time). */
	of(sessionId: string): readonly string[] {
		const file = sessionMetaPath(this.dir, sessionId);
		if (!file) {
			return [];
		}
		let stamp: string;
		try {
			const stat = fs.statSync(file);
			stamp = `${stat.ino}:${stat.size}:${stat.mtimeMs}`;
		} catch {
			this.kept.delete(sessionId);
			return [];
		}
		const hit = this.kept.get(sessionId);
		if (hit?.stamp === stamp) {
			return hit.files;
		}
		const files = readSessionMeta(this.dir, sessionId)?.filesTouched ?? [];
		if (this.kept.size >= maxKept) {
			this.kept.clear();
		}
		this.kept.set(sessionId, { stamp, files });
		return files;
	}

	/**
	 * Adds `files` to the session's sidecar; whether any was new. The caller holds the index's lock.
	 * `fromIndex`: what the index says of the session (its switch and notes when it has no sidecar yet,
	 * and files an older index named).
	 */
	add(sessionId: string, files: readonly string[], fromIndex: SessionArchive | undefined): boolean {
		const current = readSessionMeta(this.dir, sessionId) ?? { archive: fromIndex?.archive ?? true, filesTouched: [], notes: [...(fromIndex?.notes ?? [])] };
		const list = [...current.filesTouched];
		addFiles(list, fromIndex?.filesTouched ?? []);
		const before = list.length;
		addFiles(list, files);
		if (list.length === before) {
			return false;
		}
		writeSessionMeta(this.dir, sessionId, { ...current, filesTouched: list });
		return true;
	}
}
