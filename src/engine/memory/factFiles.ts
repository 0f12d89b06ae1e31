/**
 * The files a fact is about: workspace-relative, `/`-separated paths (a later change to one of them
 * marks the fact stale). Paths outside the workspace are refused: Baton cannot watch them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { BatonError } from '../errors';

export const maxFactFiles = 50;

/** Validated, de-duplicated, workspace-relative paths; `field` names the input in errors. */
export function normaliseFactFiles(files: readonly string[], workspaceRoot: string, field = 'files'): string[] {
	if (files.length > maxFactFiles) {
		throw new BatonError('invalidInput', `memory ${field}: at most ${maxFactFiles} files per fact (got ${files.length})`);
	}
	const out: string[] = [];
	files.forEach((raw, i) => {
		const file = raw.trim().replace(/\\/g, '/');
		if (!file || file.length > 1_000) {
			throw new BatonError('invalidInput', `memory ${field}[${i}]: a path of 1 to 1,000 characters`);
		}
		const relative = path.relative(workspaceRoot, path.resolve(workspaceRoot, file));
		if (!relative || relative.startsWith('..') || path.isAbsolute(relative)) {
			throw new BatonError('invalidInput', `memory ${field}[${i}]: ${raw} is outside the workspace`);
		}
		const clean = relative.split(path.sep).join('/');
		if (!out.includes(clean)) {
			out.push(clean);
		}
	});
	return out;
}

/** Path-like words (`src/app.ts`, `package.json`) a text names that exist in the workspace, at most 10. */
export function pathsMentionedIn(text: string, workspaceRoot: string): string[] {
	const out: string[] = [];
	for (const raw of text.split(/[\s`'"()[\]{}<>,;]+/)) {
		const word = raw.replace(/[.:!?]+$/, '').replace(/^\.\//, '');
		if (out.length >= 10 || !/^[\w@./-]+$/.test(word) || !(word.includes('/') || /\.\w{1,8}$/.test(word)) || word.split('/').includes('..')) {
			continue;
		}
		const relative = path.relative(workspaceRoot, path.resolve(workspaceRoot, word));
		if (!relative || relative.startsWith('..') || path.isAbsolute(relative)) {
			continue;
		}
		const clean = relative.split(path.sep).join('/');
		if (!out.includes(clean) && fs.existsSync(path.join(workspaceRoot, clean))) {
			out.push(clean);
		}
	}
	return out;
}
