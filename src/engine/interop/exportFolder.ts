/**
 * The folder an export writes to. Baton never overwrites a file it did not write: the folder must be
 * new, empty, or hold exactly a previous Baton export (its `index.json` with Baton's format marker and
 * only the files that index lists). Such an export is replaced: new files are written (atomically,
 * one by one), the new index last, then the previous export's files that are no longer listed are
 * removed. A temp file an export that crashed left beside a file the index lists (atomicWriteFile's
 * `<name>.tmp-<pid>` of a process that is gone) is removed before the folder is judged: it is that
 * export's own, and every later export refused the folder for it. Before its first file an export
 * lists the files it is about to write (`.baton-export-pending.json`, removed once its index is in
 * place): what an export that crashed before its index wrote is Baton's too, and is replaced.
 */
import fs from 'node:fs';
import path from 'node:path';
import { BatonError } from '../errors';
import { atomicWriteFile, ordinaryFileMode, removeStaleTemps } from '../storage/fsUtil';
import { unsafeFileReason } from './safeNames';
import { indexFileName, indexFormat } from './sessionFileFormat';

/** The list of the files an export is about to write, there until its index is (the files of an export that crashed). */
const pendingFileName = '.baton-export-pending.json';
const pendingFormat = `${indexFormat}.pending`;

/** The safe names a Baton pending list in `dir` gives (none when there is none, or it is not Baton's). */
function pendingFiles(dir: string, entries: readonly string[]): string[] | null {
	if (!entries.includes(pendingFileName)) return null;
	try {
		const pending = JSON.parse(fs.readFileSync(path.join(dir, pendingFileName), 'utf8')) as { format?: unknown; files?: unknown };
		if (pending.format !== pendingFormat || !Array.isArray(pending.files)) return null;
		return pending.files.filter((f): f is string => typeof f === 'string' && unsafeFileReason(f) === null);
	} catch {
		return null;
	}
}

/** The files of the previous export in `dir` (empty when the folder is new or empty); refuses anything else. */
function previousExportFiles(dir: string): string[] {
	let entries: string[];
	try {
		const stat = fs.statSync(dir);
		if (!stat.isDirectory()) {
			throw new BatonError('invalidInput', `${dir} is a file, not a folder`);
		}
		entries = fs.readdirSync(dir);
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
		throw error;
	}
	if (entries.length === 0) return [];
	const refuse = (why: string): never => {
		throw new BatonError('invalidInput', `${dir} ${why}; export into a new or empty folder (Baton never overwrites files it did not write)`);
	};
	const pending = pendingFiles(dir, entries);
	const listed = entries.includes(indexFileName) ? indexedFiles(dir, refuse) : pending ? [] : refuse('is not empty');
	const allowed = new Set([indexFileName, ...listed.filter((f) => unsafeFileReason(f) === null), ...(pending ? [pendingFileName, ...pending] : [])]);
	entries = withoutCrashedWrites(dir, entries, allowed);
	const foreign = entries.filter((e) => !allowed.has(e) || !fs.lstatSync(path.join(dir, e)).isFile());
	if (foreign.length > 0) refuse(`holds files that are not part of a Baton export (${foreign.slice(0, 3).join(', ')}${foreign.length > 3 ? ', …' : ''})`);
	return [...new Set([...listed, ...(pending ?? [])])].filter((f) => allowed.has(f) && f !== indexFileName && entries.includes(f));
}

/** The files a Baton export index in `dir` lists; refuses an index Baton did not write. */
function indexedFiles(dir: string, refuse: (why: string) => never): string[] {
	let listed: string[];
	try {
		const index = JSON.parse(fs.readFileSync(path.join(dir, indexFileName), 'utf8')) as { format?: unknown; sessions?: unknown };
		if (index.format !== indexFormat || !Array.isArray(index.sessions)) refuse('holds an index.json that Baton did not write');
		listed = (index.sessions as { name?: unknown; file?: unknown }[]).map((e) => (typeof e.file === 'string' ? e.file : `${String(e.name)}.json`));
	} catch (error) {
		if (BatonError.is(error)) throw error;
		return refuse('holds an index.json that is not a Baton export');
	}
	return listed;
}

/**
 * The folder's entries once the temp files of dead writers of `allowed` files are removed (the rule
 * atomicWriteFile keeps: a live process's may be a write in progress and stays, and so refuses the folder).
 * Only beside a file Baton's index lists: any other name may be the user's.
 */
function withoutCrashedWrites(dir: string, entries: string[], allowed: ReadonlySet<string>): string[] {
	const written = new Set(
		entries.map((e) => /^(.+)\.tmp-[1-9][0-9]*$/.exec(e)?.[1]).filter((name): name is string => name !== undefined && allowed.has(name)),
	);
	for (const name of written) {
		removeStaleTemps(path.join(dir, name));
	}
	return written.size > 0 ? fs.readdirSync(dir) : entries;
}

/** Writes `files` (name → text) and then the index; removes what the previous export had and this one has not. */
export function writeExportFolder(dir: string, files: Map<string, string>, indexText: string): void {
	const previous = previousExportFiles(dir);
	for (const name of files.keys()) {
		const problem = unsafeFileReason(name);
		if (problem) throw new BatonError('invalidInput', `refusing to write ${name}: ${problem}`);
	}
	fs.mkdirSync(dir, { recursive: true });
	const pending = { format: pendingFormat, files: [...files.keys()] };
	atomicWriteFile(path.join(dir, pendingFileName), Buffer.from(JSON.stringify(pending), 'utf8'), ordinaryFileMode);
	for (const [name, text] of files) {
		atomicWriteFile(path.join(dir, name), Buffer.from(text, 'utf8'), ordinaryFileMode);
	}
	atomicWriteFile(path.join(dir, indexFileName), Buffer.from(indexText, 'utf8'), ordinaryFileMode);
	for (const stale of previous) {
		if (!files.has(stale)) fs.rmSync(path.join(dir, stale), { force: true });
	}
	fs.rmSync(path.join(dir, pendingFileName), { force: true });
}
