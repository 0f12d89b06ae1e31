/**
 * What the readers of agents' own history files share (vscodeChatSessions.ts, clineTasks.ts): the
 * shape of a discovered file and of one file read, where VS Code-based editors keep their user data,
 * how a workspace path an agent recorded is compared with this workspace, and reads that never hang
 * or throw out of discovery (a FIFO, a device, a file too large, a name that is not a file: a warning).
 *
 * Also the one rule for symbolic links every listing of an agent's folders follows (these readers,
 * claudeProjects.ts, agentHistory/): a folder that is a symlink is looked into as a folder (`isFolder`),
 * and a file or folder whose real path leads out of the agent's own folder is skipped (`linkProblem`).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { AgentKind } from '../agentKinds';
import { addTokens, emptyTokens, type TokenCounts } from './costEstimate';
import { openRegularFile } from '../storage/regularFile';
import { ownMap } from '../storage/ownRecord';

export type Json = Record<string, unknown>;

export interface AgentFileOptions {
	homeDir: string;
	env: Record<string, string | undefined>;
	/** The product's own folders, in place of the defaults (user data dirs, global storage dirs, data dirs). */
	dirs?: string[];
	/** `process.platform` unless given (where the defaults live). */
	platform?: NodeJS.Platform;
	/** Files larger than this are listed with a warning and not read (default 64 MiB). */
	maxBytes?: number;
}

export interface DiscoveredAgentFile {
	agent: AgentKind;
	/** Which product wrote it (`vscode`, `cline`, `roo-code`, `cline-sdk`). */
	product: string;
	/** The agent's own session or task id. */
	agentSessionId: string;
	/** The file the reader reads. */
	path: string;
	/**
	 * `append`: lines are only added (a shrunken file was rewritten); `rewrite`: the whole file is written
	 * again on every change, so it is read whole. VS Code's JSONL is appended to, but its lines are
	 * mutations of the first line's state and it is compacted into one line now and then (`replay`).
	 */
	writes: 'append' | 'rewrite';
	/** True when a line means nothing without the lines before it: read the whole file on every change. */
	replay: boolean;
	/** Other files of the same session (`ui_messages`, `api_conversation_history`, `task_metadata`, `manifest`, …). */
	related: Record<string, string>;
	/** The workspace the agent recorded, as it wrote it. */
	workspace: string;
	/** The working directory, when the agent recorded one apart from its workspace. */
	cwd: string | null;
	size: number;
	mtimeMs: number;
}

export interface AgentDiscovery {
	files: DiscoveredAgentFile[];
	warnings: string[];
}

/** One file read: Claude-shaped records for the excerpt builder, and what the file says about its session. */
export interface AgentFileRead {
	records: Json[];
	title: string | null;
	cwd: string | null;
	firstAt: string | null;
	lastAt: string | null;
	model: string | null;
	/** By model (`unknown` when the file names none); empty when the format keeps no counts. */
	tokens: Record<string, TokenCounts>;
	/** Record or part kinds the reader does not know, with how many of each: kept out of the records, never fatal. */
	unknownKinds: Record<string, number>;
	warnings: string[];
}

export function emptyRead(): AgentFileRead {
	return { records: [], title: null, cwd: null, firstAt: null, lastAt: null, model: null, tokens: ownMap(), unknownKinds: ownMap(), warnings: [] };
}

export function countKind(read: AgentFileRead, kind: string): void {
	read.unknownKinds[kind] = (read.unknownKinds[kind] ?? 0) + 1;
}

export function addReadTokens(read: AgentFileRead, model: string | null, tokens: TokenCounts): void {
	addTokens((read.tokens[model ?? 'unknown'] ??= emptyTokens()), tokens);
}

/** A time as ISO 8601 from epoch milliseconds or an ISO string; null when it is neither. */
export function isoTime(value: unknown): string | null {
	if (typeof value === 'number' && Number.isFinite(value) && value > 0) {
		const date = new Date(value);
		return Number.isNaN(date.getTime()) ? null : date.toISOString();
	}
	if (typeof value === 'string' && value.trim()) {
		const date = new Date(value);
		return Number.isNaN(date.getTime()) ? null : date.toISOString();
	}
	return null;
}

/** Widens the read's first and last times with `at`. */
export function seeTime(read: AgentFileRead, at: string | null): void {
	if (!at) {
		return;
	}
	if (!read.firstAt || at < read.firstAt) {
		read.firstAt = at;
	}
	if (!read.lastAt || at > read.lastAt) {
		read.lastAt = at;
	}
}

/**
 * The user data folders of VS Code, VS Code Insiders, VSCodium and code-server on this platform
 * (`<dir>/User/workspaceStorage`, `<dir>/User/globalStorage` under each), or `options.dirs` when given.
 */
export function vscodeUserDataDirs(options: AgentFileOptions): string[] {
	if (options.dirs) {
		return options.dirs;
	}
	const platform = options.platform ?? process.platform;
	const home = options.homeDir;
	const products = ['Code', 'Code - Insiders', 'VSCodium'];
	let base: string;
	if (platform === 'win32') {
		base = options.env['APPDATA'] ?? path.join(home, 'AppData', 'Roaming');
	} else if (platform === 'darwin') {
		base = path.join(home, 'Library', 'Application Support');
	} else {
		base = options.env['XDG_CONFIG_HOME'] || path.join(home, '.config');
	}
	const dataHome = options.env['XDG_DATA_HOME'] || path.join(home, '.local', 'share');
	return [...products.map((p) => path.join(base, p)), path.join(dataHome, 'code-server')];
}

/** `file:///home/u/x` → `/home/u/x`, `file:///c%3A/Users/x` → `c:/Users/x`; null for other schemes or garbage. */
export function pathOfFileUri(uri: unknown): string | null {
	if (typeof uri !== 'string' || !uri.startsWith('file://')) {
		return null;
	}
	try {
		const url = new URL(uri);
		const decoded = decodeURIComponent(url.pathname);
		const local = /^\/[A-Za-z]:/.test(decoded) ? decoded.slice(1) : decoded;
		return url.host ? `//${url.host}${local}` : local;
	} catch {
		return null;
	}
}

/** A workspace path as it compares: forward slashes, no trailing slash, Windows drive paths in lower case. */
function comparable(p: string): string {
	let out = p.trim().replace(/\\/g, '/');
	if (out.length > 1) {
		out = out.replace(/\/+$/, '');
	}
	return /^[A-Za-z]:/.test(out) ? out.toLowerCase() : out;
}

/** The workspace root as it compares, itself and through its symlinks (`/tmp` → `/private/tmp`). */
export function workspaceForms(workspaceRoot: string): Set<string> {
	// A Windows drive path is compared as written on any platform (path.resolve would prefix a POSIX cwd).
	const forms = new Set([comparable(/^[A-Za-z]:[\\/]/.test(workspaceRoot) ? workspaceRoot : path.resolve(workspaceRoot))]);
	try {
		forms.add(comparable(fs.realpathSync(workspaceRoot)));
	} catch {
		// A workspace that is gone still matches by its name.
	}
	return forms;
}

export function sameWorkspace(forms: Set<string>, recorded: string | null | undefined): boolean {
	return typeof recorded === 'string' && recorded.trim() !== '' && forms.has(comparable(recorded));
}

/** A folder's entries; a missing folder is none, any other failure a warning. */
export function listDir(dir: string, warnings: string[]): fs.Dirent[] {
	try {
		return fs.readdirSync(dir, { withFileTypes: true });
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		if (code !== 'ENOENT' && code !== 'ENOTDIR') {
			warnings.push(`${dir}: not listed (${code ?? String(error)})`);
		}
		return [];
	}
}

/**
 * Whether `entry` of `dir` is a folder to look into: a folder, or a symlink to one, followed as a symlink
 * to a file is (where it leads is checked by `linkProblem`). A link in a loop is none: its stat fails.
 */
export function isFolder(dir: string, entry: fs.Dirent): boolean {
	return entry.isDirectory() || linkLeadsTo(dir, entry, (stat) => stat.isDirectory());
}

/**
 * Whether `entry` of `dir` is a file to read: a regular file, or a symlink to one (where it leads is
 * checked by `linkProblem`), as agent history reads one. A link to a folder or in a loop is none.
 */
export function isFileEntry(dir: string, entry: fs.Dirent): boolean {
	return entry.isFile() || linkLeadsTo(dir, entry, (stat) => stat.isFile());
}

/** Whether `entry` is a symlink whose target passes `kind` (false for a link in a loop or to nothing). */
function linkLeadsTo(dir: string, entry: fs.Dirent, kind: (stat: fs.Stats) => boolean): boolean {
	if (!entry.isSymbolicLink()) return false;
	try {
		return kind(fs.statSync(path.join(dir, entry.name)));
	} catch {
		return false;
	}
}

function realOr(file: string): string {
	try {
		return fs.realpathSync(file);
	} catch {
		return path.resolve(file);
	}
}

/**
 * Real paths of folders, each resolved once (`realpathSync` lstats every part of a path): one per
 * discovery, whose thousands of files share a few folders. A folder turned into a symlink during that
 * one pass is seen by the open, which follows no link on the file itself (`openRegularFile`).
 */
export class RealFolders {
	private readonly known = new Map<string, string>();

	of(dir: string): string {
		let real = this.known.get(dir);
		if (real === undefined) {
			real = realOr(dir);
			this.known.set(dir, real);
		}
		return real;
	}
}

/**
 * Why `file` (a file or a folder) must not be read for the links on its way (a sentence), or null: its
 * real path, not only its own link, must lie in `within` (the agent's own folder, itself wherever its
 * links lead), since a folder on the way may be a symlink too (`isFolder` follows them). `notALink`:
 * the caller's lstat of `file` found no symlink, so its real path is its folder's and its name (with
 * `folders`, each folder's real path is resolved once).
 */
export function linkProblem(file: string, within: string, folders?: RealFolders, notALink = false): string | null {
	const target = notALink && folders ? path.join(folders.of(path.dirname(file)), path.basename(file)) : realOr(file);
	const root = folders ? folders.of(within) : realOr(within);
	if (target === root || target.startsWith(`${root}${path.sep}`)) return null;
	let own = false;
	try {
		own = fs.lstatSync(file).isSymbolicLink();
	} catch {
		// Gone meanwhile: said as a folder on its way.
	}
	return own ? `it is a symlink that leads out of ${within}` : `a folder on its path is a symlink that leads out of ${within}`;
}

/** Size and time of a regular file, or null with a warning (a FIFO, a device, a folder where a file should be). */
export function regularFileStat(file: string, warnings: string[]): fs.Stats | null {
	try {
		const stat = fs.statSync(file);
		if (!stat.isFile()) {
			warnings.push(`${file}: not a regular file, skipped`);
			return null;
		}
		return stat;
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		if (code !== 'ENOENT') {
			warnings.push(`${file}: not read (${code ?? String(error)})`);
		}
		return null;
	}
}

/** A regular file's text, at most `maxBytes`; null with a warning otherwise. Never blocks on a FIFO. */
export function readTextFile(file: string, maxBytes: number, warnings: string[]): string | null {
	try {
		const { fd, stat } = openRegularFile(file);
		try {
			if (stat.size > maxBytes) {
				warnings.push(`${file}: ${stat.size} bytes, over the ${maxBytes}-byte limit: not read`);
				return null;
			}
			const buffer = Buffer.alloc(stat.size);
			let read = 0;
			while (read < buffer.length) {
				const n = fs.readSync(fd, buffer, read, buffer.length - read, read);
				if (n === 0) {
					break;
				}
				read += n;
			}
			return buffer.toString('utf8', 0, read);
		} finally {
			fs.closeSync(fd);
		}
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		if (code !== 'ENOENT') {
			warnings.push(`${file}: not read (${error instanceof Error ? error.message : String(error)})`);
		}
		return null;
	}
}

/** A small JSON file (a workspace.json, a history item, a manifest), or null with a warning when it is not JSON. */
export function readJsonFile(file: string, maxBytes: number, warnings: string[]): unknown {
	const text = readTextFile(file, maxBytes, warnings);
	if (text === null) {
		return null;
	}
	try {
		return JSON.parse(text) as unknown;
	} catch (error) {
		warnings.push(`${file}: not JSON (${error instanceof Error ? error.message : String(error)})`);
		return null;
	}
}

export const defaultMaxBytes = 64 * 1024 * 1024;

/** An id taken from a file or folder name: printable, no path separators, at most 200 characters. */
export function isSafeId(id: string): boolean {
	if (id.length === 0 || id.length > 200 || id === '.' || id === '..' || id.includes('/') || id.includes('\\')) {
		return false;
	}
	for (let i = 0; i < id.length; i++) {
		const code = id.charCodeAt(i);
		if (code < 0x20 || code === 0x7f) {
			return false;
		}
	}
	return true;
}
