/**
 * Which tool calls the timeline captures, and the one-line summary a step shows. Edits are obvious;
 * shell commands (Claude `Bash`, VS Code `run_in_terminal`, Cline `execute_command`, Copilot CLI
 * `bash`) and MCP tools can change any file, so they are captured too — that is where other tools'
 * file histories go blind. Read-only tools (Read, Grep, …) are not captured: they cost nothing.
 */
import path from 'node:path';
import { filesNamedBy, isEditTool, isShellTool, workspaceRelative } from '../transcripts/editTools';
import type { ToolUse } from '../hookEvent';

/** Claude `mcp__server__tool`, VS Code `mcp_server_tool`, Cline's `use_mcp_tool`. */
function isMcpTool(name: string): boolean {
	const key = name.trim().toLowerCase();
	return key.startsWith('mcp__') || key.startsWith('mcp_') || key === 'use_mcp_tool';
}

export function isCapturedTool(name: string): boolean {
	return isEditTool(name) || isShellTool(name) || isMcpTool(name);
}

const maxSummary = 300;

/**
 * What the call did, in one line: the command, the files, or the MCP call's arguments. Paths inside
 * the workspace are made relative to it: a shared record names no folder of this machine.
 */
export function toolSummary(tool: Pick<ToolUse, 'name' | 'input'>, workspaceRoot: string, cwd: string | null = null): string {
	const prefix = workspaceRoot.endsWith(path.sep) ? workspaceRoot : `${workspaceRoot}${path.sep}`;
	return rawSummary(tool, workspaceRoot, cwd).split(prefix).join('');
}

function rawSummary(tool: Pick<ToolUse, 'name' | 'input'>, workspaceRoot: string, cwd: string | null): string {
	const input = tool.input;
	if (isShellTool(tool.name)) {
		const command = input['command'] ?? input['cmd'] ?? input['value'];
		if (typeof command === 'string') {
			return clip(command.replace(/\s+/g, ' ').trim());
		}
	}
	if (isEditTool(tool.name)) {
		const files = filesNamedBy(input);
		if (files.length > 0) {
			return clip(files.map((f) => workspaceRelative(f, workspaceRoot, cwd)).join(', '));
		}
	}
	if (tool.name === 'use_mcp_tool') {
		const server = input['server_name'];
		const name = input['tool_name'];
		if (typeof server === 'string' && typeof name === 'string') {
			return clip(`${server}/${name} ${compactJson(input['arguments'])}`.trim());
		}
	}
	return clip(compactJson(input));
}

function compactJson(value: unknown): string {
	if (value === undefined) {
		return '';
	}
	try {
		return JSON.stringify(value) ?? '';
	} catch {
		return String(value);
	}
}

function clip(text: string): string {
	return text.length > maxSummary ? `${text.slice(0, maxSummary - 1)}…` : text;
}
