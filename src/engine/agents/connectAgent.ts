/**
 * `baton connect claude|copilot|cline [--remove]`: writes the project-level hook configuration of an
 * agent so that it calls `baton hook <event>`, merging into what is there (hookConfigMerge.ts).
 * Idempotent: a second run changes nothing. Every file it changes is first copied to
 * `<file>.baton-backup-<time>`; a file it cannot read as the agent's format is an error and stays
 * byte-for-byte as it was.
 */
import fs from 'node:fs';
import path from 'node:path';
import { BatonError } from '../errors';
import type { AgentKind } from './hookEvent';
import { mergeClaudeHooks, mergeCopilotHooks, type HookSpec } from './hookConfigMerge';

export interface WrittenFile {
	/** Relative to the workspace. */
	path: string;
	action: 'created' | 'updated' | 'unchanged' | 'removed' | 'skipped';
	/** Relative to the workspace: the copy made before the file was changed. */
	backup?: string;
	/** Why a file was skipped. */
	reason?: string;
}

export interface ConnectResult {
	agent: AgentKind;
	written: WrittenFile[];
	/** The command the hooks run (before the event argument). */
	command: string;
}

export interface ConnectOptions {
	remove: boolean;
	/** The command that runs Baton's CLI, e.g. `baton` or `"/usr/bin/node" "/opt/baton/dist/cli.js"`. */
	command: string;
	now: () => number;
}

/** Claude Code: the events Baton listens to, the edit tools PostToolUse records, and what the approval gate stops. */
const claudeSpecs = (command: string): HookSpec[] => [
	{ event: 'SessionStart', command: `${command} hook session-start`, timeout: 15 },
	{ event: 'Stop', command: `${command} hook stop`, timeout: 15 },
	{ event: 'PreCompact', command: `${command} hook pre-compact`, timeout: 30 },
	{ event: 'SessionEnd', command: `${command} hook session-end`, timeout: 30 },
	{ event: 'PreToolUse', command: `${command} hook pre-tool-use`, timeout: 10, matcher: 'Edit|Write|MultiEdit|NotebookEdit|Bash' },
	{ event: 'PostToolUse', command: `${command} hook post-tool-use`, timeout: 10, matcher: 'Edit|Write|MultiEdit|NotebookEdit' },
];

/** VS Code agent hooks (PascalCase events; `Stop` is the session's end there). */
const copilotSpecs = (command: string): HookSpec[] => [
	{ event: 'SessionStart', command: `${command} hook session-start`, timeout: 15 },
	{ event: 'UserPromptSubmit', command: `${command} hook user-prompt-submit`, timeout: 10 },
	{ event: 'PreToolUse', command: `${command} hook pre-tool-use`, timeout: 10 },
	{ event: 'PostToolUse', command: `${command} hook post-tool-use`, timeout: 10 },
	{ event: 'PreCompact', command: `${command} hook pre-compact`, timeout: 30 },
	{ event: 'Stop', command: `${command} hook stop`, timeout: 30 },
];

/** Cline: one executable per hook name in `.clinerules/hooks/`. */
export const clineHookNames: Record<string, string> = {
	TaskStart: 'task-start',
	TaskResume: 'task-resume',
	TaskCancel: 'task-cancel',
	TaskComplete: 'task-complete',
	PreToolUse: 'pre-tool-use',
	PostToolUse: 'post-tool-use',
	UserPromptSubmit: 'user-prompt-submit',
	PreCompact: 'pre-compact',
};

/** The line that marks a Cline hook script as Baton's (and lets `--remove` find it). */
export const clineMarker = '# baton-hook: written by `baton connect cline`; `baton connect cline --remove` deletes it';

export function connectAgent(workspaceRoot: string, agent: AgentKind, options: ConnectOptions): ConnectResult {
	const written =
		agent === 'claude-code'
			? [writeJson(workspaceRoot, '.claude/settings.json', (value, file) => mergeClaudeHooks(value, claudeSpecs(options.command), { remove: options.remove, file }), options, false)]
			: agent === 'copilot'
				? [writeJson(workspaceRoot, '.github/hooks/baton.json', (value, file) => mergeCopilotHooks(value, copilotSpecs(options.command), { remove: options.remove, file }), options, true)]
				: writeClineScripts(workspaceRoot, options);
	return { agent, written, command: options.command };
}

/**
 * Reads, merges and writes one JSON file. `ownFile`: the file is Baton's alone (deleted when
 * nothing else is left in it after a removal).
 */
function writeJson(root: string, relative: string, merge: (value: unknown, file: string) => Record<string, unknown>, options: ConnectOptions, ownFile: boolean): WrittenFile {
	const file = path.join(root, relative);
	let before: string | undefined;
	try {
		before = fs.readFileSync(file, 'utf8');
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
			throw new BatonError('configInvalid', `cannot read ${file}: ${(error as Error).message}`);
		}
	}
	if (before === undefined && options.remove) {
		return { path: relative, action: 'unchanged' };
	}
	let parsed: unknown = {};
	if (before !== undefined && before.trim()) {
		try {
			parsed = JSON.parse(before);
		} catch (error) {
			throw new BatonError('configInvalid', `${file} is not valid JSON (${(error as Error).message}); fix or move it, Baton changed nothing`);
		}
	}
	const merged = merge(parsed, file);
	if (before !== undefined && ownFile && options.remove && Object.keys(merged).length === 0) {
		const backup = backupOf(file, options.now());
		fs.copyFileSync(file, backup);
		fs.rmSync(file);
		return { path: relative, action: 'removed', backup: path.relative(root, backup) };
	}
	// Taking Baton's entries out of a file it changed gives back the file as the user wrote it, bytes
	// and all, when that is what a backup holds (JSON.stringify cannot reproduce hand formatting).
	const text = (options.remove ? earlierBytes(file, merged) : undefined) ?? formatLike(merged, before);
	if (text === before || (before !== undefined && sameJson(parsed, merged))) {
		return { path: relative, action: 'unchanged' };
	}
	if (before === undefined) {
		fs.mkdirSync(path.dirname(file), { recursive: true });
		writeAtomically(file, text);
		return { path: relative, action: 'created' };
	}
	const backup = backupOf(file, options.now());
	fs.copyFileSync(file, backup);
	writeAtomically(file, text);
	return { path: relative, action: 'updated', backup: path.relative(root, backup) };
}

function writeClineScripts(root: string, options: ConnectOptions): WrittenFile[] {
	const dir = path.join(root, '.clinerules', 'hooks');
	const windows = process.platform === 'win32';
	const out: WrittenFile[] = [];
	for (const [hookName, arg] of Object.entries(clineHookNames)) {
		const relative = path.posix.join('.clinerules', 'hooks', windows ? `${hookName}.ps1` : hookName);
		const file = path.join(dir, windows ? `${hookName}.ps1` : hookName);
		let before: string | undefined;
		try {
			before = fs.readFileSync(file, 'utf8');
		} catch {
			before = undefined;
		}
		const ours = before?.includes(clineMarker) ?? false;
		if (before !== undefined && !ours) {
			out.push({ path: relative, action: 'skipped', reason: 'a hook of your own has this name; Baton leaves it alone (call `baton hook` from it to keep both)' });
			continue;
		}
		if (options.remove) {
			if (ours) {
				fs.rmSync(file);
				out.push({ path: relative, action: 'removed' });
			} else {
				out.push({ path: relative, action: 'unchanged' });
			}
			continue;
		}
		const script = windows
			? `${clineMarker}\n$input | & ${options.command} hook ${arg}\nexit 0\n`
			: `#!/bin/sh\n${clineMarker}\n# Cline pipes the hook's JSON to stdin; Baton answers on stdout and always exits 0.\nexec ${options.command} hook ${arg}\n`;
		if (before === script) {
			out.push({ path: relative, action: 'unchanged' });
			continue;
		}
		fs.mkdirSync(dir, { recursive: true });
		let backup: string | undefined;
		if (before !== undefined) {
			backup = backupOf(file, options.now());
			fs.copyFileSync(file, backup);
		}
		writeAtomically(file, script);
		fs.chmodSync(file, 0o755);
		out.push({ path: relative, action: before === undefined ? 'created' : 'updated', ...(backup ? { backup: path.relative(root, backup) } : {}) });
	}
	return out;
}

/** `<file>.baton-backup-20260301T090000123Z` (unique per millisecond; a counter if taken). */
function backupOf(file: string, nowMs: number): string {
	const stamp = new Date(nowMs).toISOString().replace(/[-:.]/g, '');
	let candidate = `${file}.baton-backup-${stamp}`;
	for (let i = 2; fs.existsSync(candidate); i++) {
		candidate = `${file}.baton-backup-${stamp}-${i}`;
	}
	return candidate;
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

function writeAtomically(file: string, text: string): void {
	const tmp = `${file}.baton-tmp-${process.pid}`;
	fs.writeFileSync(tmp, text);
	fs.renameSync(tmp, file);
}

/**
 * The command hooks run. `baton` when that name on PATH is this very installation (short, and it
 * survives upgrades); otherwise the absolute node binary and this CLI script, quoted, which works
 * from any cwd and whatever PATH the agent gives its hooks.
 */
export function hookCommandFor(input: { cliPath: string; execPath: string; env: NodeJS.ProcessEnv }): string {
	const cli = realpath(input.cliPath);
	for (const dir of (input.env['PATH'] ?? '').split(path.delimiter).filter(Boolean)) {
		for (const name of process.platform === 'win32' ? ['baton.cmd', 'baton.exe'] : ['baton']) {
			const candidate = path.join(dir, name);
			if (fs.existsSync(candidate) && realpath(candidate) === cli) {
				return 'baton';
			}
		}
	}
	return `${quote(input.execPath)} ${quote(cli)}`;
}

function realpath(file: string): string {
	try {
		return fs.realpathSync(file);
	} catch {
		return path.resolve(file);
	}
}

/** Double quotes for sh (escaping what sh expands inside them); Windows shells take the path as is. */
function quote(value: string): string {
	return process.platform === 'win32' ? `"${value}"` : `"${value.replace(/(["\\$`])/g, '\\$1')}"`;
}
