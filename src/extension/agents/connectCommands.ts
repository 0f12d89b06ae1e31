/**
 * `Baton: Connect Claude Code | Copilot Agent | Cline | Codex | Gemini CLI` and `Baton: Disconnect Agent…`: the backend
 * writes the agent's hooks (and, when the person agrees, Baton's MCP server entry); the editor shows
 * what changed — a diff against the backup for a file that was there, the new file otherwise — and
 * says so plainly when nothing changed. Callers (tests, keybindings) may pass `{ mcp, clineMcpSettings }`
 * to skip the questions.
 */
import path from 'node:path';
import * as vscode from 'vscode';
import type { AgentKindDto, ConnectAgentResult, WrittenFileDto } from '../../protocol/agentDto';
import { agentConnect } from '../../protocol/rpc';
import type { BatonWorkspace } from '../batonWorkspace';
import { command } from '../commands/commandSupport';
import { CommandIds, type CommandId } from '../ids';
import { showInformationMessage, showQuickPick, showWarningMessage } from '../messages';

interface AgentInfo {
	label: string;
	command: CommandId;
	/** Where its MCP servers live, as the person knows it. */
	mcpFile: string;
}

const agentInfo: Record<AgentKindDto, AgentInfo> = {
	'claude-code': { label: 'Claude Code', command: CommandIds.connectClaude, mcpFile: '.mcp.json' },
	copilot: { label: 'Copilot Agent', command: CommandIds.connectCopilot, mcpFile: '.vscode/mcp.json' },
	cline: { label: 'Cline', command: CommandIds.connectCline, mcpFile: 'Cline’s MCP settings' },
	codex: { label: 'Codex', command: CommandIds.connectCodex, mcpFile: '~/.codex/config.toml' },
	gemini: { label: 'Gemini CLI', command: CommandIds.connectGemini, mcpFile: '.gemini/settings.json' },
};

/** The file each agent's hooks go in, as the person knows it. */
const hookFile: Record<AgentKindDto, string> = {
	'claude-code': '.claude/settings.json',
	copilot: '.github/hooks/baton.json',
	cline: '.clinerules/hooks/',
	codex: '.codex/hooks.json',
	gemini: '.gemini/settings.json',
};

interface ConnectArgs {
	/** Also the MCP configuration (no question asked). */
	mcp?: boolean;
	/** Cline's `cline_mcp_settings.json` (default: beside this extension's global storage). */
	clineMcpSettings?: string;
}

interface Deps {
	workspace: BatonWorkspace;
	/** This extension's global storage: Cline's lies beside it. */
	globalStorageUri: vscode.Uri;
	/** VS Code already gets Baton's MCP server from the extension (the definition provider). */
	mcpProvided: () => boolean;
}

/** Cline (`saoudrizwan.claude-dev`) keeps its MCP servers in its own global storage, a sibling of ours. */
export function clineMcpSettingsPath(globalStorageUri: vscode.Uri): string {
	return path.join(path.dirname(globalStorageUri.fsPath), 'saoudrizwan.claude-dev', 'settings', 'cline_mcp_settings.json');
}

export function registerConnectCommands(deps: Deps): vscode.Disposable[] {
	const { workspace } = deps;
	const connect = (agent: AgentKindDto) => async (arg?: unknown) => run(deps, agent, false, arg && typeof arg === 'object' ? (arg as ConnectArgs) : {});
	return [
		command(CommandIds.connectClaude, connect('claude-code'), workspace.log),
		command(CommandIds.connectCopilot, connect('copilot'), workspace.log),
		command(CommandIds.connectCline, connect('cline'), workspace.log),
		command(CommandIds.connectCodex, connect('codex'), workspace.log),
		command(CommandIds.connectGemini, connect('gemini'), workspace.log),
		command(
			CommandIds.disconnectAgent,
			async (arg?: unknown) => {
				const given = arg && typeof arg === 'object' ? (arg as ConnectArgs & { agent?: AgentKindDto }) : {};
				const agent =
					given.agent ??
					(
						await showQuickPick(
							(Object.entries(agentInfo) as [AgentKindDto, AgentInfo][]).map(([kind, info]) => ({
								label: info.label,
								description: hookFile[kind],
								agent: kind,
							})),
							{ title: 'Disconnect Agent', placeHolder: 'Take Baton’s hooks (and its MCP server entry) out of which agent’s configuration?' },
						)
					)?.agent;
				return agent ? run(deps, agent, true, given) : undefined;
			},
			workspace.log,
		),
	];
}

async function run(deps: Deps, agent: AgentKindDto, remove: boolean, given: ConnectArgs): Promise<ConnectAgentResult | undefined> {
	const { workspace } = deps;
	const info = agentInfo[agent];
	if (!workspace.root) {
		void showWarningMessage('Open a folder first: agent hooks are written into the workspace.');
		return undefined;
	}
	const mcp = await askMcp(deps, agent, remove, given);
	if (mcp === undefined) {
		return undefined;
	}
	const result = await vscode.window.withProgress(
		{ location: vscode.ProgressLocation.Window, title: `Baton: ${remove ? 'disconnecting' : 'connecting'} ${info.label}…` },
		() =>
			workspace.request(agentConnect, {
				agent,
				remove,
				...(mcp ? { mcp: true, ...(mcp.clineMcpSettings ? { clineMcpSettings: mcp.clineMcpSettings } : {}) } : {}),
			}),
	);
	await workspace.refresh();
	await showWritten(workspace.root, info, remove, result);
	return result;
}

/** Whether to touch the MCP configuration too: `false`, `{…}` for yes, undefined when the person cancelled. */
async function askMcp(deps: Deps, agent: AgentKindDto, remove: boolean, given: ConnectArgs): Promise<false | { clineMcpSettings?: string } | undefined> {
	const info = agentInfo[agent];
	const clineFile = agent === 'cline' ? (given.clineMcpSettings ?? clineMcpSettingsPath(deps.globalStorageUri)) : undefined;
	const yes = clineFile ? { clineMcpSettings: clineFile } : {};
	if (agent === 'codex') {
		// Codex keeps its MCP servers in TOML (~/.codex/config.toml): Baton writes only its hooks there.
		return false;
	}
	if (given.mcp !== undefined) {
		return given.mcp ? yes : false;
	}
	if (remove && agent !== 'cline') {
		// Only an entry that starts Baton is ever taken out: nothing of the user's to ask about.
		return yes;
	}
	if (!remove && agent === 'copilot' && deps.mcpProvided()) {
		// VS Code already lists Baton's MCP server (the extension provides it): a file entry would be a duplicate.
		return false;
	}
	if (!remove) {
		const picked = await showQuickPick(
			[
				{
					label: '$(check) Hooks and MCP server',
					description: `also add Baton to ${info.mcpFile}`,
					detail: 'The agent can then start, end and brief sessions, record decisions and ask for approvals through Baton’s tools.',
					mcp: true,
				},
				{ label: '$(dash) Hooks only', mcp: false },
			],
			{ title: `Connect ${info.label}`, placeHolder: 'Baton writes the agent’s hooks. Also add Baton’s MCP server?' },
		);
		if (!picked) {
			return undefined;
		}
		if (!picked.mcp) {
			return false;
		}
	}
	if (clineFile) {
		// Outside the workspace and shared by every workspace: never changed without asking.
		const choice = await showWarningMessage(
			remove ? `Also take Baton’s MCP server out of Cline’s settings?` : `Change Cline’s MCP settings?`,
			{
				modal: true,
				detail: `Cline keeps its MCP servers in one file for all workspaces, outside this one:\n${clineFile}\nBaton ${remove ? 'removes only the entry serving this workspace' : 'adds an entry for this workspace only'} and keeps a backup of the file.`,
			},
			remove ? 'Remove It' : 'Change Cline’s Settings',
		);
		return choice ? yes : false;
	}
	return yes;
}

const changed = (w: WrittenFileDto): boolean => w.action === 'created' || w.action === 'updated' || w.action === 'removed';

/** Opens what changed (a diff against the backup, or the new file) and lists every file in one message. */
async function showWritten(root: string, info: AgentInfo, remove: boolean, result: ConnectAgentResult): Promise<void> {
	const files = [...result.written, ...(result.mcp ? [result.mcp] : [])];
	const uri = (p: string): vscode.Uri => vscode.Uri.file(path.isAbsolute(p) ? p : path.join(root, p));
	if (result.warning) {
		void showWarningMessage(result.warning);
	}
	const skipped = files.filter((w) => w.action === 'skipped').map((w) => `${w.path} skipped: ${w.reason ?? ''}`);
	if (!files.some(changed)) {
		void showInformationMessage(
			[remove ? `${info.label} was not connected: nothing to remove.` : `${info.label} was already connected: nothing changed.`, ...skipped].join(' '),
		);
		return;
	}
	// The hook configuration and the MCP file; of Cline's eight scripts, the first.
	// Not Claude's settings.local.json: it holds this workspace's hook secret, which no tab should show.
	const shown = files
		.filter((w) => changed(w) && w.action !== 'removed' && !w.path.endsWith('settings.local.json'))
		.filter((w, i, all) => !w.path.startsWith('.clinerules/') || all.findIndex((x) => x.path.startsWith('.clinerules/')) === i);
	// New files first, diffs last: the change to a file the person already had ends up in front.
	shown.sort((a, b) => Number(!!a.backup) - Number(!!b.backup));
	for (const w of shown) {
		if (w.action === 'updated' && w.backup) {
			await vscode.commands.executeCommand(
				'vscode.diff',
				uri(w.backup),
				uri(w.path),
				`${path.basename(w.path)} (before ↔ ${remove ? 'Baton removed' : 'Baton connected'})`,
				{ preview: false },
			);
		} else {
			await vscode.window.showTextDocument(uri(w.path), { preview: false });
		}
	}
	const list = files.filter(changed).map((w) => `${w.action} ${w.path}${w.backup ? ' (backup kept)' : ''}`);
	void showInformationMessage(`${remove ? 'Disconnected' : 'Connected'} ${info.label}: ${list.join(', ')}.${skipped.length ? ` ${skipped.join(' ')}` : ''}`);
	if (result.notes.length > 0) {
		// Without these steps the agent skips the hooks without a word: a message that stays until read.
		void showWarningMessage(
			`${info.label} runs Baton’s hooks only once you trust them.`,
			{ modal: false, detail: result.notes.join('\n') },
			'Copy Steps',
		).then((choice) => {
			if (choice) {
				void vscode.env.clipboard.writeText(result.notes.join('\n'));
			}
		});
	}
}
