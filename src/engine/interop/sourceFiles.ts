/**
 * Reading the files an import names, with every failure turned into a record-level issue instead of
 * an exception: a missing file, a symbolic link, something too large, bytes that are not JSON.
 */
import fs from 'node:fs';
import { formatBytes } from '../text/byteSizes';
import type { ImportIssue } from './importTypes';

/** Larger sources are refused: the database stays small, and a runaway file should not exhaust memory. */
const maxSourceBytes = 64 * 1024 * 1024;

/** The file's bytes, or undefined with an issue for `record` (`field` names where the path came from). */
export function readSourceBytes(file: string, record: string, errors: ImportIssue[], field: string | null = null): Buffer | undefined {
	let stat: fs.Stats;
	try {
		stat = fs.lstatSync(file);
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		errors.push({ record, field, message: code === 'ENOENT' ? `${file} does not exist` : `${file} cannot be read (${code ?? (error as Error).message})` });
		return undefined;
	}
	if (stat.isSymbolicLink()) {
		errors.push({ record, field, message: `${file} is a symbolic link; imports read plain files only` });
		return undefined;
	}
	if (!stat.isFile()) {
		errors.push({ record, field, message: `${file} is not a file` });
		return undefined;
	}
	if (stat.size > maxSourceBytes) {
		errors.push({ record, field, message: `${file} is ${formatBytes(stat.size)}; imports read files up to ${formatBytes(maxSourceBytes)}` });
		return undefined;
	}
	return fs.readFileSync(file);
}

export function readSourceText(file: string, record: string, errors: ImportIssue[], field: string | null = null): string | undefined {
	return readSourceBytes(file, record, errors, field)?.toString('utf8');
}

/** Parsed JSON, or undefined with an issue naming the record. */
export function parseJsonText(text: string, record: string, errors: ImportIssue[]): unknown {
	try {
		return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text) as unknown;
	} catch (error) {
		errors.push({ record, field: null, message: `not valid JSON: ${(error as Error).message}` });
		return undefined;
	}
}

export function readJsonFile(file: string, record: string, errors: ImportIssue[], field: string | null = null): unknown {
	const text = readSourceText(file, record, errors, field);
	return text === undefined ? undefined : parseJsonText(text, record, errors);
}

export function isDirectory(file: string): boolean {
	try {
		return fs.statSync(file).isDirectory();
	} catch {
		return false;
	}
}
