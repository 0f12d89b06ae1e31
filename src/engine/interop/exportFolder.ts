/**
 * The folder an export writes to. Baton never overwrites a file it did not write: the folder must be
 * new, empty, or hold exactly a previous Baton export (its `index.json` with Baton's format marker and
 * only the files that index lists). Such an export is replaced: new files are written (atomically,
 * one by one), the new index last, then the previous export's files that are no longer listed are
 * removed. A temp file an export that crashed left beside a file the index lists (atomicWriteFile's
 * `<name>.tmp-<pid>` of a process that is gone) is removed before the folder is judged: it is that
 * export's own, and every later export refused the folder for it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { BatonError } from '../errors';
import { atomicWriteFile, ordinaryFileMode, removeStaleTemps } from '../storage/fsUtil';
import { unsafeFileReason } from './safeNames';
import { indexFileName, indexFormat } from './sessionFileFormat';

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
	if (!entries.includes(indexFileName)) refuse('is not empty');
	let listed: string[];
	try {
		const index = JSON.parse(fs.readFileSync(path.join(dir, indexFileName), 'utf8')) as { format?: unknown; sessions?: unknown };
		if (index.format !== indexFormat || !Array.isArray(index.sessions)) refuse('holds an index.json that Baton did not write');
		listed = (index.sessions as { name?: unknown; file?: unknown }[]).map((e) => (typeof e.file === 'string' ? e.file : `${String(e.name)}.json`));
	} catch (error) {
		if (BatonError.is(error)) throw error;
		return refuse('holds an index.json that is not a Baton export');
	}
	const allowed = new Set([indexFileName, ...listed.filter((f) => unsafeFileReason(f) === null)]);
	entries = withoutCrashedWrites(dir, entries, allowed);
	const foreign = entries.filter((e) => !allowed.has(e) || !fs.lstatSync(path.join(dir, e)).isFile());
	if (foreign.length > 0) refuse(`holds files that are not part of a Baton export (${foreign.slice(0, 3).join(', ')}${foreign.length > 3 ? ', …' : ''})`);
	return listed.filter((f) => allowed.has(f));
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
	for (const [name, text] of files) {
		atomicWriteFile(path.join(dir, name), Buffer.from(text, 'utf8'), ordinaryFileMode);
	}
	atomicWriteFile(path.join(dir, indexFileName), Buffer.from(indexText, 'utf8'), ordinaryFileMode);
	for (const stale of previous) {
		if (!files.has(stale)) fs.rmSync(path.join(dir, stale), { force: true });
	}
}
