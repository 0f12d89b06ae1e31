/**
 * Changing an agent's JSON configuration file the way a careful person would: read it, merge
 * Baton's part in (or out), and write it back only when something changed, in the file's own
 * indentation, after copying it to `<file>.baton-backup-<time>`. A file that is not JSON (or JSON
 * with comments, which Baton would lose) is an error that names the file, and it stays
 * byte-for-byte as it was.
 */
import fs from 'node:fs';
import path from 'node:path';
import { BatonError } from '../errors';

import type { WrittenFile } from './agentConfigShapes';

export type { WrittenFile } from './agentConfigShapes';

interface JsonFileChange {
	remove: boolean;
	now: () => number;
	/** The file is Baton's alone when nothing else is left in it: a removal deletes it (with a backup). */
	deleteWhenEmpty: boolean;
	/** How paths are reported (workspace-relative, or absolute outside it). */
	display: (file: string) => string;
	/** Only check: read, parse and merge (throwing what a real run throws), write nothing. */
	dryRun?: boolean;
	/** The file holds a secret: it, its temp file and its backups are 0600 from their creation (no moment when another user can read them). */
	private?: boolean;
}

/** Reads, merges and writes one JSON file. `merge` gets the parsed content (`{}` for a new file). */
export function changeJsonFile(file: string, merge: (value: unknown, file: string) => Record<string, unknown>, options: JsonFileChange): WrittenFile {
	const shown = options.display(file);
	let before: string | undefined;
	try {
		before = fs.readFileSync(file, 'utf8');
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
			throw new BatonError('configInvalid', `cannot read ${file}: ${(error as Error).message}`);
		}
	}
	if (before === undefined && options.remove) {
		return { path: shown, action: 'unchanged' };
	}
	let parsed: unknown = {};
	if (before !== undefined && before.trim()) {
		try {
			parsed = JSON.parse(before);
		} catch (error) {
			const comments = hasComments(before)
				? ' It holds comments, which Baton cannot keep when it rewrites the file: add Baton’s entry by hand or remove the comments.'
				: '';
			throw new BatonError('configInvalid', `${file} is not valid JSON (${(error as Error).message}); fix or move it, Baton changed nothing.${comments}`);
		}
	}
	const merged = merge(parsed, file);
	if (options.dryRun) {
		return { path: shown, action: sameJson(parsed, merged) && before !== undefined ? 'unchanged' : before === undefined ? 'created' : 'updated' };
	}
	const mode = options.private ? 0o600 : 0o666;
	// A backup is the file's bytes with its mode (copyFile keeps both).
	const keep = (): string => {
		const backup = backupOf(file, options.now());
		fs.copyFileSync(file, backup);
		return backup;
	};
	if (before !== undefined && options.deleteWhenEmpty && options.remove && Object.keys(merged).length === 0) {
		if (options.private) {
			// Nothing but Baton's entries and the secret: a copy would only keep the secret lying about.
			fs.rmSync(file);
			return { path: shown, action: 'removed' };
		}
		const backup = keep();
		fs.rmSync(file);
		return { path: shown, action: 'removed', backup: options.display(backup) };
	}
	// Taking Baton's entries out of a file it changed gives back the file as the user wrote it, bytes
	// and all, when that is what a backup holds (JSON.stringify cannot reproduce hand formatting).
	const text = (options.remove ? earlierBytes(file, merged) : undefined) ?? formatLike(merged, before);
	if (text === before || (before !== undefined && sameJson(parsed, merged))) {
		return { path: shown, action: 'unchanged' };
	}
	if (before === undefined) {
		fs.mkdirSync(path.dirname(file), { recursive: true });
		writeAtomically(file, text, mode);
		return { path: shown, action: 'created' };
	}
	const backup = keep();
	writeAtomically(file, text, mode);
	return { path: shown, action: 'updated', backup: options.display(backup) };
}

/** Workspace-relative with forward slashes inside the workspace, absolute outside it. */
export function displayPath(root: string): (file: string) => string {
	return (file) => {
		const relative = path.relative(root, file);
		return relative.startsWith('..') || path.isAbsolute(relative) ? file : relative.split(path.sep).join('/');
	};
}

/** `<file>.baton-backup-20260301T090000123Z` (unique per millisecond; a counter if taken). */
export function backupOf(file: string, nowMs: number): string {
	const stamp = new Date(nowMs).toISOString().replace(/[-:.]/g, '');
	let candidate = `${file}.baton-backup-${stamp}`;
	for (let i = 2; fs.existsSync(candidate); i++) {
		candidate = `${file}.baton-backup-${stamp}-${i}`;
	}
	return candidate;
}

/** Temp file and rename; `mode` for a file that is new (a file of Baton's own in `.baton/` passes the private mode). */
export function writeAtomically(file: string, text: string, mode = 0o666): void {
	const tmp = `${file}.baton-tmp-${process.pid}`;
	fs.rmSync(tmp, { force: true });
	fs.writeFileSync(tmp, text, { mode });
	fs.renameSync(tmp, file);
}

/** JSON in the file's own indentation (tabs or N spaces, default 2), with its final newline. */
function formatLike(value: unknown, before: string | undefined): string {
	const indent = before ? (/\n([ \t]+)["}\]]/.exec(before)?.[1] ?? '  ') : '  ';
	const finalNewline = before === undefined || before.endsWith('\n') || before.trim() === '';
	return `${JSON.stringify(value, null, indent)}${finalNewline ? '\n' : ''}`;
}

/** The newest backup of `file` whose content is `value`, as text. */
function earlierBytes(file: string, value: unknown): string | undefined {
	const dir = path.dirname(file);
	const prefix = `${path.basename(file)}.baton-backup-`;
	let names: string[];
	try {
		names = fs.readdirSync(dir).filter((n) => n.startsWith(prefix));
	} catch {
		return undefined;
	}
	for (const name of names.sort().reverse()) {
		try {
			const text = fs.readFileSync(path.join(dir, name), 'utf8');
			if (sameJson(JSON.parse(text), value)) {
				return text;
			}
		} catch {
			// Not JSON (a backup of a damaged file): not the one.
		}
	}
	return undefined;
}

function sameJson(a: unknown, b: unknown): boolean {
	return JSON.stringify(a) === JSON.stringify(b);
}

/** A `//` or `/* … *\/` comment outside strings (VS Code's own JSON files allow them). */
function hasComments(text: string): boolean {
	let inString = false;
	for (let i = 0; i < text.length; i++) {
		const c = text[i];
		if (inString) {
			if (c === '\\') {
				i++;
			} else if (c === '"') {
				inString = false;
			}
		} else if (c === '"') {
			inString = true;
		} else if (c === '/' && (text[i + 1] === '/' || text[i + 1] === '*')) {
			return true;
		}
	}
	return false;
}
