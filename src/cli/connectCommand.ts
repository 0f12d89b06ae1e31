/**
 * `baton connect claude|copilot|cline|codex|gemini [--remove] [--command CMD] [--mcp [--cline-mcp-settings FILE]]`:
 * the agent's project hooks (connectAgent.ts) and, with --mcp, Baton's MCP server in the agent's MCP
 * configuration (connectMcpServer.ts). Cline keeps its MCP servers in one file per editor installation,
 * outside the workspace: --mcp finds it when exactly one Cline is installed, else names the
 * candidates and asks for --cline-mcp-settings.
 */
import os from 'node:os';
import path from 'node:path';
import { batonLauncher } from '../engine/agentConfig/batonLauncher';
import { launcherHome, portableHookCommand, writeUserLauncher } from '../engine/agentConfig/userLauncher';
import { connectAgent, hookCommandFor, type WrittenFile } from '../engine/agentConfig/connectAgent';
import { batonCliPath } from './batonCliPath';
import { parseAgentName } from '../engine/agentKinds';
import { clineMcpSettingsCandidates } from '../engine/agentConfig/connectMcpServer';
import { initWorkspace } from '../engine/workspace';
import { stringOption, UsageError, type Command } from './command';

export const connectCommand: Command = {
	path: ['connect'],
	usage: 'baton connect claude|copilot|cline|codex|gemini [--remove] [--command CMD] [--mcp [--cline-mcp-settings FILE]]',
	summary: 'write (or with --remove take out) the agent’s project hook configuration calling `baton hook`; --mcp also its MCP server entry',
	options: { remove: { type: 'boolean' }, command: { type: 'string' }, mcp: { type: 'boolean' }, 'cline-mcp-settings': { type: 'string' } },
	positionals: [1, 1],
	needsInit: false,
	async run(ctx) {
		const agent = parseAgentName(ctx.args[0] as string);
		if (!agent) {
			throw new UsageError(`unknown agent "${ctx.args[0]}" (claude, copilot, cline, codex or gemini)`);
		}
		const remove = ctx.values['remove'] === true;
		const cliPath = batonCliPath();
		const given = stringOption(ctx.values, 'command');
		const portable = given ? { command: given } : hookCommandFor({ cliPath, execPath: process.execPath, env: ctx.env });
		const command = portable.command;
		let mcp: { launch: { command: string; args: string[]; env: Record<string, string> }; clineSettingsFile?: string } | undefined;
		if (ctx.values['mcp'] === true) {
			const clineSettingsFile = agent === 'cline' ? clineSettingsFileOf(stringOption(ctx.values, 'cline-mcp-settings'), ctx) : undefined;
			// Cline's MCP settings live outside the repository (this machine's path is fine there); the
			// other agents' MCP files are committed, so they get the portable `baton` too.
			const launch = agent === 'cline' ? batonLauncher({ cliPath, execPath: process.execPath, env: ctx.env }) : { command: 'baton', args: [], env: {} };
			mcp = { launch, ...(clineSettingsFile ? { clineSettingsFile } : {}) };
		} else if (stringOption(ctx.values, 'cline-mcp-settings')) {
			throw new UsageError('--cline-mcp-settings goes with --mcp');
		}
		if (!remove) {
			// Hooks need somewhere to record: connecting sets Baton up in the workspace too.
			initWorkspace(ctx.workspaceRoot);
		}
		const result = connectAgent(ctx.workspaceRoot, agent, { remove, command, now: Date.now, ...(mcp ? { mcp } : {}) });
		if (!remove && command === portableHookCommand) {
			// The hooks find this installation through the user's launcher where `baton` is not on PATH.
			writeUserLauncher(launcherHome(ctx.env, os.homedir()), batonLauncher({ cliPath, execPath: process.execPath, env: ctx.env }));
		}
		const line = (w: WrittenFile): string =>
			`${w.action.padEnd(9)} ${w.path}${w.backup ? `  (backup: ${w.backup})` : ''}${w.reason ? `  — ${w.reason}` : ''}`;
		return {
			json: {
				written: result.written,
				command: result.command,
				...(result.mcp ? { mcp: result.mcp } : {}),
				...(portable.warning && !remove ? { warning: portable.warning } : {}),
				notes: result.notes,
			},
			text: [
				...result.written.map(line),
				...(result.mcp ? [`${line(result.mcp)}${result.mcp.name ? `  (MCP server "${result.mcp.name}")` : ''}`] : []),
				remove ? '' : `Hooks run: ${result.command} hook <event>`,
				portable.warning && !remove ? `warning: ${portable.warning}` : '',
				...result.notes.map((n) => `to do: ${n}`),
			]
				.filter(Boolean)
				.join('\n'),
		};
	},
};

function clineSettingsFileOf(given: string | undefined, ctx: { cwd: string; env: NodeJS.ProcessEnv }): string {
	if (given) {
		return path.resolve(ctx.cwd, given);
	}
	const found = clineMcpSettingsCandidates(ctx.env, ctx.env['HOME'] || os.homedir());
	if (found.length === 1) {
		return found[0] as string;
	}
	throw new UsageError(
		found.length === 0
			? 'no Cline installation found (its cline_mcp_settings.json lives in the editor’s globalStorage/saoudrizwan.claude-dev/settings/); name it with --cline-mcp-settings FILE'
			: `several Cline installations found; pick one with --cline-mcp-settings:\n  ${found.join('\n  ')}`,
	);
}
