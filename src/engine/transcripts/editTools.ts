/**
 * Which agent tools change files, and which files a tool call names. The three agents name their
 * tools differently (Claude `Edit`, VS Code `replace_string_in_file`, Cline `replace_in_file`), and
 * VS Code also forwards Claude's names, so the list holds all of them. Bash and terminal commands are
 * not edits here: what they change is only known from the workspace (checkpoints capture that).
 */
import path from 'node:path';

/** Lower-cased tool names that write files. */
const editToolNames: ReadonlySet<string> = new Set([
	// Claude Code
	'edit',
	'write',
	'multiedit',
	'notebookedit',
	// Codex-style patches, also offered by VS Code and Cline
	'apply_patch',
	'applypatch',
	// VS Code (Copilot agent mode) and Copilot CLI
	'editfiles',
	'create_file',
	'replace_string_in_file',
	'multi_replace_string_in_file',
	'insert_edit_into_file',
	'edit_notebook_file',
	'create_new_jupyter_notebook',
	'create',
	'str_replace_editor',
	// Cline
	'write_to_file',
	'replace_in_file',
	'new_rule',
	// Gemini CLI
	'write_file',
	'replace',
]);

export function isEditTool(name: string): boolean {
	return editToolNames.has(name.trim().toLowerCase());
}

const pathKeys = ['file_path', 'filePath', 'notebook_path', 'notebookPath', 'path', 'target_file', 'targetFile'];

/**
 * Every file a tool call's input names, in order, de-duplicated: the usual path keys, VS Code's
 * `files` array and `replacements[].filePath`, and the file headers of an `apply_patch` text.
 */
export function filesNamedBy(input: unknown): string[] {
	const out: string[] = [];
	const add = (value: unknown): void => {
		if (typeof value === 'string' && value.trim() && value.length < 4096 && !out.includes(value.trim())) {
			out.push(value.trim());
		}
	};
	if (!input || typeof input !== 'object') {
		return out;
	}
	const record = input as Record<string, unknown>;
	for (const key of pathKeys) {
		add(record[key]);
	}
	if (Array.isArray(record['files'])) {
		record['files'].forEach(add);
	}
	for (const list of [record['replacements'], record['edits']]) {
		if (Array.isArray(list)) {
			for (const item of list) {
				if (item && typeof item === 'object') {
					for (const key of pathKeys) {
						add((item as Record<string, unknown>)[key]);
					}
				}
			}
		}
	}
	for (const key of ['input', 'patch', 'diff']) {
		const text = record[key];
		if (typeof text === 'string' && text.includes('*** ')) {
			patchFiles(text).forEach(add);
		}
	}
	// Codex sends its apply_patch call's patch text as `tool_input.command`.
	const command = record['command'];
	if (typeof command === 'string' && command.includes('*** Begin Patch')) {
		patchFiles(command).forEach(add);
	}
	return out;
}

/** Files named by an apply_patch text (`*** Add File: x`, `*** Update File: x`, `*** Delete File: x`, `*** Move to: y`). */
export function patchFiles(text: string): string[] {
	const out: string[] = [];
	for (const match of text.matchAll(/^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+)$/gm)) {
		const file = (match[1] as string).trim();
		if (file && !out.includes(file)) {
			out.push(file);
		}
	}
	return out;
}

/**
 * A file as Baton records it: relative to the workspace (with `/`) when inside it, absolute when
 * not. Relative inputs are taken relative to the agent's cwd.
 */
export function workspaceRelative(file: string, workspaceRoot: string, cwd?: string | null): string {
	const absolute = path.resolve(cwd ?? workspaceRoot, file);
	const relative = path.relative(workspaceRoot, absolute);
	if (relative && !relative.startsWith('..') && !path.isAbsolute(relative)) {
		return relative.split(path.sep).join('/');
	}
	return absolute;
}

/** The files an edit tool call touched, workspace-relative; none for tools that do not edit. */
export function filesTouchedBy(toolName: string, input: unknown, workspaceRoot: string, cwd?: string | null): string[] {
	if (!isEditTool(toolName)) {
		return [];
	}
	return [...new Set(filesNamedBy(input).map((f) => workspaceRelative(f, workspaceRoot, cwd)))];
}

/** Tools that run commands: they can change anything, so the approval gate stops them like edits. */
const shellToolNames: ReadonlySet<string> = new Set([
	'bash',
	'run_in_terminal',
	'runinterminal',
	'execute_command',
	'shell',
	'powershell',
	'terminal',
	'run_shell_command',
	'exec_command',
]);

export function isShellTool(name: string): boolean {
	return shellToolNames.has(name.trim().toLowerCase());
}
