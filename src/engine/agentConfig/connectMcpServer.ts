/**
 * Baton's MCP server (`baton mcp`) in an agent's MCP configuration, merged like the hooks are:
 * the user's other servers stay as they are, Baton's entry is added, updated in place (keeping
 * fields the user added, such as Cline's `disabled` or `autoApprove`) or taken out; idempotent,
 * with a backup (jsonConfigFile.ts).
 *
 * - Claude Code: `<workspace>/.mcp.json`, `{"mcpServers":{"baton":{"type":"stdio","command","args","env"?}}}`.
 * - VS Code / Copilot: `<workspace>/.vscode/mcp.json`, `{"servers":{"baton":{"type":"stdio",…}}}`;
 *   `${workspaceFolder}` names the workspace, so the entry survives the folder moving.
 * - Cline: its global `cline_mcp_settings.json` (VS Code's globalStorage of `saoudrizwan.claude-dev`,
 *   `settings/`), `{"mcpServers":{"baton-<folder>":{"command","args","disabled","autoApprove"}}}`.
 *   One file serves every workspace, so each workspace gets an entry of its own, and only the entry
 *   whose `--workspace` is this workspace is Baton's to change.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { BatonError } from '../errors';
import type { AgentKind } from '../agentKinds';
import { changeJsonFile, displayPath, type WrittenFile } from './jsonConfigFile';
import { pushAll } from '../arrays';

type McpDialect = 'claude' | 'vscode' | 'cline';

interface McpTarget {
	dialect: McpDialect;
	file: string;
	/** Keys Baton may use, in order of preference. */
	names: string[];
	/** Set for a file every workspace shares: only an entry serving this workspace is Baton's. */
	workspace?: string;
}

/** How the agent starts `baton mcp` (from batonLauncher.ts). */
export interface McpLaunch {
	command: string;
	/** Arguments before `mcp` (the CLI script). */
	args: string[];
	env: Record<string, string>;
}

type Json = Record<string, unknown>;

const clineExtensionId = 'saoudrizwan.claude-dev';
const clineSettingsName = 'cline_mcp_settings.json';

/** Where an agent keeps its MCP servers. Cline's file lies outside the workspace: the caller names it. */
export function mcpTargetFor(agent: AgentKind, workspaceRoot: string, clineSettingsFile?: string): McpTarget {
	if (agent === 'claude-code') {
		return { dialect: 'claude', file: path.join(workspaceRoot, '.mcp.json'), names: ['baton'] };
	}
	if (agent === 'copilot') {
		return { dialect: 'vscode', file: path.join(workspaceRoot, '.vscode', 'mcp.json'), names: ['baton'] };
	}
	if (agent === 'gemini') {
		// Gemini CLI's `mcpServers` in its project settings take Claude's entry shape ({command, args, env}).
		return { dialect: 'claude', file: path.join(workspaceRoot, '.gemini', 'settings.json'), names: ['baton'] };
	}
	if (agent === 'codex') {
		throw new BatonError(
			'invalidInput',
			'Codex keeps its MCP servers in TOML (~/.codex/config.toml), which Baton does not write: add [mcp_servers.baton] with command = "baton" and args = ["mcp"] yourself, and connect without --mcp',
		);
	}
	if (!clineSettingsFile) {
		throw new BatonError(
			'invalidInput',
			`Cline keeps its MCP servers in ${clineSettingsName} in the editor's global storage, outside the workspace: name that file`,
		);
	}
	const slug =
		path
			.basename(workspaceRoot)
			.replace(/[^A-Za-z0-9_-]+/g, '-')
			.replace(/^-+|-+$/g, '')
			.slice(0, 40) || 'workspace';
	const hash = createHash('sha256').update(workspaceRoot).digest('hex').slice(0, 6);
	return { dialect: 'cline', file: path.resolve(clineSettingsFile), names: [`baton-${slug}`, `baton-${slug}-${hash}`], workspace: workspaceRoot };
}

/** Cline's MCP settings files that exist on this machine (Cline installed in VS Code, its forks, code-server, or Cline's CLI). */
export function clineMcpSettingsCandidates(env: NodeJS.ProcessEnv, homeDir: string, platform: NodeJS.Platform = process.platform): string[] {
	const userDirs: string[] = [];
	const editors = ['Code', 'Code - Insiders', 'VSCodium', 'Cursor'];
	const base =
		platform === 'darwin'
			? path.join(homeDir, 'Library', 'Application Support')
			: platform === 'win32'
				? (env['APPDATA'] ?? path.join(homeDir, 'AppData', 'Roaming'))
				: (env['XDG_CONFIG_HOME'] ?? path.join(homeDir, '.config'));
	pushAll(userDirs, [...editors.map((e) => path.join(base, e))]);
	userDirs.push(path.join(env['XDG_DATA_HOME'] ?? path.join(homeDir, '.local', 'share'), 'code-server'));
	const files = userDirs.map((dir) => path.join(dir, 'User', 'globalStorage', clineExtensionId, 'settings', clineSettingsName));
	files.push(path.join(homeDir, '.cline', 'data', 'settings', clineSettingsName));
	// Cline installed: its storage folder exists (the settings file itself appears on first use).
	return files.filter((file) => fs.existsSync(path.dirname(path.dirname(file))));
}

/**
 * The arguments that start Baton's MCP server for a workspace, in the dialect's words. Files people
 * commit name no path of this machine: VS Code expands `${workspaceFolder}`, and Claude Code starts a
 * project's servers inside the project, where `baton` finds the workspace from its working folder as
 * it does for every command. Only Cline's file, which lives outside the workspace and serves every
 * workspace, has to name the folder.
 */
function mcpServerArgs(target: McpTarget, launch: McpLaunch, workspaceRoot: string): string[] {
	if (target.dialect === 'claude') return [...launch.args, 'mcp'];
	return [...launch.args, 'mcp', '--workspace', target.dialect === 'vscode' ? '${workspaceFolder}' : workspaceRoot];
}

/** An entry that starts Baton's CLI with `mcp` (whatever launcher wrote it). */
function isBatonMcpEntry(entry: unknown): boolean {
	if (!isObject(entry) || !Array.isArray(entry['args'])) {
		return false;
	}
	const args = entry['args'].filter((a): a is string => typeof a === 'string');
	const program = [entry['command'], ...args.slice(0, args.indexOf('mcp'))].filter((w): w is string => typeof w === 'string');
	return args.includes('mcp') && program.some((w) => /(?:^|[/\\])(?:baton(?:\.cmd|\.exe)?|cli\.js)$/.test(w));
}

function workspaceOf(entry: Json): string | undefined {
	const args = entry['args'] as unknown[];
	const at = args.indexOf('--workspace');
	return at >= 0 && typeof args[at + 1] === 'string' ? (args[at + 1] as string) : undefined;
}

interface McpMerge {
	config: Json;
	/** The key Baton's entry has (or had, for a removal); null when there is none. */
	name: string | null;
	/** Why nothing was changed although something was asked. */
	conflict?: string;
}

/** The configuration with Baton's server set (or, `launch` null, removed): a new object, the input untouched. */
function mergeMcpServer(config: unknown, target: McpTarget, launch: McpLaunch | null, workspaceRoot: string): McpMerge {
	const root = structuredClone(config);
	const key = target.dialect === 'vscode' ? 'servers' : 'mcpServers';
	if (!isObject(root)) {
		throw new BatonError('configInvalid', `${target.file} does not hold a JSON object; Baton changed nothing`);
	}
	const servers = root[key] ?? {};
	if (!isObject(servers)) {
		throw new BatonError('configInvalid', `${target.file}: "${key}" is not an object; Baton changed nothing`);
	}
	const mine = (name: string): boolean => {
		const entry = servers[name];
		return isBatonMcpEntry(entry) && (!target.workspace || workspaceOf(entry as Json) === target.workspace);
	};
	if (!launch) {
		const name = target.names.find(mine) ?? null;
		if (name) {
			delete servers[name];
			finish(root, key, servers);
		}
		return { config: root, name };
	}
	const name = target.names.find(mine) ?? target.names.find((n) => servers[n] === undefined || (!target.workspace && isBatonMcpEntry(servers[n])));
	if (!name) {
		return { config: root, name: null, conflict: `a server of yours is named "${target.names[0]}"; Baton left it alone` };
	}
	const existing = isObject(servers[name]) ? (servers[name] as Json) : undefined;
	const { ELECTRON_RUN_AS_NODE: _old, ...userEnv } = isObject(existing?.['env']) ? (existing['env'] as Record<string, string>) : {};
	const env = { ...userEnv, ...launch.env };
	const args = mcpServerArgs(target, launch, workspaceRoot);
	// An existing entry keeps its keys, their order and whatever the user added; a new one is written in the dialect's usual order.
	const entry: Json = existing
		? { ...existing, command: launch.command, args, env }
		: target.dialect === 'cline'
			? { command: launch.command, args, env, disabled: false, autoApprove: [] }
			: { type: 'stdio', command: launch.command, args, env };
	if (Object.keys(env).length === 0) {
		delete entry['env'];
	}
	servers[name] = entry;
	root[key] = servers;
	return { config: root, name };
}

function finish(root: Json, key: string, servers: Json): void {
	if (Object.keys(servers).length > 0) {
		root[key] = servers;
	} else {
		delete root[key];
	}
}

/** Writes (or takes out) Baton's entry in the target file. A file left empty after a removal is deleted, with a backup. */
export function connectMcpServer(
	workspaceRoot: string,
	target: McpTarget,
	launch: McpLaunch | null,
	options: { now: () => number; dryRun?: boolean },
): WrittenFile & { name: string | null } {
	let outcome: McpMerge | undefined;
	const written = changeJsonFile(
		target.file,
		(value) => {
			outcome = mergeMcpServer(value, target, launch, workspaceRoot);
			return outcome.config;
		},
		{
			remove: launch === null,
			now: options.now,
			deleteWhenEmpty: target.dialect !== 'cline',
			display: displayPath(workspaceRoot),
			dryRun: options.dryRun ?? false,
		},
	);
	if (outcome?.conflict) {
		return { ...written, action: 'skipped', reason: outcome.conflict, name: null };
	}
	return { ...written, name: outcome?.name ?? null };
}

function isObject(value: unknown): value is Json {
	return !!value && typeof value === 'object' && !Array.isArray(value);
}
