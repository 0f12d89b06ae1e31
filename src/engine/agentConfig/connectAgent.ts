/**
 * `baton connect claude|copilot|cline|codex|gemini [--remove]`: writes the project-level hook configuration of an
 * agent so that it calls `baton hook <event>`, merging into what is there (hookConfigMerge.ts).
 * Idempotent: a second run changes nothing. Every file it changes is first copied to
 * `<file>.baton-backup-<time>`; a file it cannot read as the agent's format is an error and stays
 * byte-for-byte as it was.
 */
import fs from 'node:fs';
import path from 'node:path';
import { findGitDirs } from '../workspace';
import { batonLauncher, shellCommandOf } from './batonLauncher';
import { hookPort, hookSecret, hookUrl, keepHookPort } from './hookEndpoint';
import { portableHookCommand } from './userLauncher';
import type { AgentKind } from '../agentKinds';
import { isBatonHookCommand, mergeClaudeHooks, mergeCopilotCliHooks, mergeCopilotHooks, type HookSpec } from './hookConfigMerge';
import { backupOf, changeJsonFile, displayPath, writeAtomically, type WrittenFile } from './jsonConfigFile';
import { connectMcpServer, mcpTargetFor, type McpLaunch } from './connectMcpServer';

export type { WrittenFile } from './jsonConfigFile';

interface ConnectResult {
	agent: AgentKind;
	written: WrittenFile[];
	/** The command the hooks run (before the event argument). */
	command: string;
	/** The agent's MCP configuration, when asked for (`mcp` option). */
	mcp: (WrittenFile & { name: string | null }) | null;
	/** What the person must still do for the agent to run the hooks (trusting the folder, the hooks). */
	notes: string[];
}

interface ConnectOptions {
	remove: boolean;
	/** The command that runs Baton's CLI, e.g. `baton` or `"/usr/bin/node" "/opt/baton/dist/cli.js"`. */
	command: string;
	now: () => number;
	/**
	 * Also add (or, with `remove`, take out) Baton's MCP server in the agent's MCP configuration:
	 * `launch` starts Baton's CLI; `clineSettingsFile` is Cline's global `cline_mcp_settings.json`.
	 */
	mcp?: { launch: McpLaunch; clineSettingsFile?: string };
}

/** Claude Code: the events Baton listens to (the committed `.claude/settings.json`: portable, a command each). */
const claudeSpecs = (command: string): HookSpec[] => [
	{ event: 'SessionStart', command: `${command} hook session-start`, timeout: 15 },
	{ event: 'Stop', command: `${command} hook stop`, timeout: 15 },
	{ event: 'UserPromptSubmit', command: `${command} hook user-prompt-submit`, timeout: 10 },
	{ event: 'PreCompact', command: `${command} hook pre-compact`, timeout: 30 },
	{ event: 'SessionEnd', command: `${command} hook session-end`, timeout: 30 },
	// The Agents board (src/engine/board): a permission prompt or a question waits for a person; a turn an error ended failed.
	{ event: 'Notification', command: `${command} hook notification`, timeout: 10 },
	{ event: 'PermissionRequest', command: `${command} hook permission-request`, timeout: 10 },
	{ event: 'StopFailure', command: `${command} hook stop-failure`, timeout: 10 },
];

/** The tools the timeline captures and the approval gate stops (Bash and MCP tools too: edits made through a shell are edits). */
const claudeToolMatcher = 'Edit|Write|MultiEdit|NotebookEdit|Bash|mcp__.*';

/**
 * Claude Code's tool calls, one hook each: `http` hooks straight to the workspace's warm backend (no
 * process per call), in the per-machine `.claude/settings.local.json` since they name this machine's
 * port and secret (docs/daemon.md, "HTTP hooks"). A call that fails fires PostToolUseFailure instead
 * of PostToolUse: a command that changed files and then exited non-zero is still a step.
 */
function claudeHttpSpecs(port: number, secret: string): HookSpec[] {
	const http = (event: string) => ({ url: hookUrl(port, event), headers: { Authorization: `Bearer ${secret}` } });
	return [
		{ event: 'PreToolUse', command: '', timeout: 10, matcher: claudeToolMatcher, http: http('pre-tool-use') },
		{ event: 'PostToolUse', command: '', timeout: 10, matcher: claudeToolMatcher, http: http('post-tool-use') },
		{ event: 'PostToolUseFailure', command: '', timeout: 10, matcher: claudeToolMatcher, http: http('post-tool-use-failure') },
	];
}

/** Claude Code's per-machine settings file, which Claude itself keeps out of git. */
export const claudeLocalSettings = '.claude/settings.local.json';

/** VS Code agent hooks (PascalCase events; `Stop` is the session's end there). */
const copilotSpecs = (command: string): HookSpec[] => [
	{ event: 'SessionStart', command: `${command} hook session-start`, timeout: 15 },
	{ event: 'UserPromptSubmit', command: `${command} hook user-prompt-submit`, timeout: 10 },
	{ event: 'PreToolUse', command: `${command} hook pre-tool-use`, timeout: 10 },
	{ event: 'PostToolUse', command: `${command} hook post-tool-use`, timeout: 10 },
	{ event: 'PreCompact', command: `${command} hook pre-compact`, timeout: 30 },
	{ event: 'Stop', command: `${command} hook stop`, timeout: 30 },
];

/**
 * Copilot CLI and the Copilot cloud agent (`version: 1`, camelCase events). Their payloads carry no
 * event name, so the EVENT argument names it; `sessionEnd` is the end of the run.
 */
const copilotCliSpecs = (command: string): HookSpec[] => [
	{ event: 'sessionStart', command: `${command} hook sessionStart --agent copilot`, timeout: 15 },
	{ event: 'userPromptSubmitted', command: `${command} hook userPromptSubmitted --agent copilot`, timeout: 10 },
	{ event: 'preToolUse', command: `${command} hook preToolUse --agent copilot`, timeout: 10 },
	{ event: 'postToolUse', command: `${command} hook postToolUse --agent copilot`, timeout: 10 },
	{ event: 'postToolUseFailure', command: `${command} hook postToolUseFailure --agent copilot`, timeout: 10 },
	{ event: 'sessionEnd', command: `${command} hook sessionEnd --agent copilot`, timeout: 30 },
	{ event: 'permissionRequest', command: `${command} hook permissionRequest --agent copilot`, timeout: 10 },
	{ event: 'errorOccurred', command: `${command} hook errorOccurred --agent copilot`, timeout: 10 },
];

/**
 * Codex CLI (`.codex/hooks.json`, Claude's shape; timeouts in seconds). Its payloads are Claude's
 * snake_case plus `turn_id`, so `--agent codex` names it; `apply_patch` carries its patch in
 * `tool_input.command`, shell calls arrive as `Bash`. Codex runs a project's hooks only in a trusted
 * project, and each hook only once a person trusted it (`/hooks`): connectNotes says so.
 */
const codexSpecs = (command: string): HookSpec[] => [
	{ event: 'SessionStart', command: `${command} hook session-start --agent codex`, timeout: 15 },
	{ event: 'UserPromptSubmit', command: `${command} hook user-prompt-submit --agent codex`, timeout: 10 },
	{ event: 'PreToolUse', command: `${command} hook pre-tool-use --agent codex`, timeout: 10, matcher: 'Bash|apply_patch|mcp__.*' },
	{ event: 'PostToolUse', command: `${command} hook post-tool-use --agent codex`, timeout: 10, matcher: 'Bash|apply_patch|mcp__.*' },
	{ event: 'PreCompact', command: `${command} hook pre-compact --agent codex`, timeout: 30 },
	{ event: 'Stop', command: `${command} hook stop --agent codex`, timeout: 15 },
	{ event: 'SessionEnd', command: `${command} hook session-end --agent codex`, timeout: 30 },
	{ event: 'PermissionRequest', command: `${command} hook permission-request --agent codex`, timeout: 10 },
	{ event: 'StopFailure', command: `${command} hook stop-failure --agent codex`, timeout: 10 },
];

/**
 * Gemini CLI (`.gemini/settings.json` → `hooks`, Claude's shape with timeouts in milliseconds).
 * `BeforeAgent` carries the prompt, `AfterAgent` ends a turn. `PreCompress` is left out: Gemini CLI
 * fires it before every model request, and a compaction checkpoint per request is noise.
 */
const geminiSpecs = (command: string): HookSpec[] => [
	{ event: 'SessionStart', command: `${command} hook session-start --agent gemini`, timeout: 15_000 },
	{ event: 'BeforeAgent', command: `${command} hook user-prompt-submit --agent gemini`, timeout: 10_000 },
	{ event: 'BeforeTool', command: `${command} hook pre-tool-use --agent gemini`, timeout: 10_000, matcher: 'write_file|replace|run_shell_command|mcp_.*' },
	{ event: 'AfterTool', command: `${command} hook post-tool-use --agent gemini`, timeout: 10_000, matcher: 'write_file|replace|run_shell_command|mcp_.*' },
	{ event: 'AfterAgent', command: `${command} hook stop --agent gemini`, timeout: 15_000 },
	{ event: 'SessionEnd', command: `${command} hook session-end --agent gemini`, timeout: 30_000 },
	{ event: 'Notification', command: `${command} hook notification --agent gemini`, timeout: 10_000 },
];

/** What a person must still do for the agent to run the hooks (said when connecting; docs/agents in README). */
function connectNotes(agent: AgentKind, workspaceRoot: string): string[] {
	if (agent === 'codex') {
		return [
			`Codex runs a project's hooks only in a trusted project: add [projects."${workspaceRoot}"] trust_level = "trusted" to ~/.codex/config.toml (or answer yes when Codex asks to trust this folder).`,
			'Codex then asks you to review and trust each new or changed hook: open /hooks in Codex and trust Baton’s (until then Codex skips them without a word).',
		];
	}
	if (agent === 'gemini') {
		return [
			`Gemini CLI runs a project's hooks only in a trusted folder: trust this one when Gemini CLI asks, or add "${workspaceRoot}": "TRUST_FOLDER" to ~/.gemini/trustedFolders.json.`,
		];
	}
	if (agent === 'copilot') {
		return [
			`Copilot CLI runs a repository's hooks only in a trusted folder: trust this one when it asks, or add it to "trustedFolders" in ~/.copilot/config.json.`,
		];
	}
	if (agent === 'claude-code' && !findGitDirs(workspaceRoot)) {
		// With no repository there is no .git/info/exclude to keep the secret's file out of a first commit yet.
		return [
			`${claudeLocalSettings} holds this workspace's hook secret and this folder is no git repository yet: once it is one, Baton adds the file to .git/info/exclude when Claude Code next starts a session here (or Baton's backend starts); keep it out of any commit made before that.`,
		];
	}
	return [];
}

/** Cline: one executable per hook name in `.clinerules/hooks/`. */
const clineHookNames: Record<string, string> = {
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
const clineMarker = '# baton-hook: written by `baton connect cline`; `baton connect cline --remove` deletes it';

export function connectAgent(workspaceRoot: string, agent: AgentKind, options: ConnectOptions): ConnectResult {
	const json = (relative: string, merge: (value: unknown, file: string) => Record<string, unknown>, deleteWhenEmpty: boolean, dryRun = false): WrittenFile =>
		changeJsonFile(path.join(workspaceRoot, relative), merge, {
			remove: options.remove,
			now: options.now,
			deleteWhenEmpty,
			display: displayPath(workspaceRoot),
			dryRun,
		});
	const hooks = (dryRun: boolean): WrittenFile[] =>
		agent === 'claude-code'
			? [
					json(
						'.claude/settings.json',
						(value, file) => mergeClaudeHooks(value, claudeSpecs(options.command), { remove: options.remove, file }),
						false,
						dryRun,
					),
					claudeLocal(workspaceRoot, { remove: options.remove, now: options.now, dryRun }),
				]
			: agent === 'codex'
				? [
						json(
							'.codex/hooks.json',
							(value, file) => mergeClaudeHooks(value, codexSpecs(options.command), { remove: options.remove, file }),
							true,
							dryRun,
						),
					]
				: agent === 'gemini'
					? [
							json(
								'.gemini/settings.json',
								(value, file) => mergeClaudeHooks(value, geminiSpecs(options.command), { remove: options.remove, file }),
								false,
								dryRun,
							),
						]
					: agent === 'copilot'
						? [
								// VS Code's agent hooks and Copilot CLI / the cloud agent both read .github/hooks/*.json,
								// each in its own form: one file per host.
								json(
									'.github/hooks/baton.json',
									(value, file) => mergeCopilotHooks(value, copilotSpecs(options.command), { remove: options.remove, file }),
									true,
									dryRun,
								),
								json(
									'.github/hooks/baton-cli.json',
									(value, file) => mergeCopilotCliHooks(value, copilotCliSpecs(options.command), { remove: options.remove, file }),
									true,
									dryRun,
								),
							]
						: dryRun
							? []
							: writeClineScripts(workspaceRoot, options);
	const mcpTarget = options.mcp ? mcpTargetFor(agent, workspaceRoot, options.mcp.clineSettingsFile) : undefined;
	const mcp = (dryRun: boolean) =>
		mcpTarget && options.mcp ? connectMcpServer(workspaceRoot, mcpTarget, options.remove ? null : options.mcp.launch, { now: options.now, dryRun }) : null;
	// Every file is read and merged before any is written: one the agent cannot read stops it all.
	hooks(true);
	mcp(true);
	return { agent, written: hooks(false), command: options.command, mcp: mcp(false), notes: options.remove ? [] : connectNotes(agent, workspaceRoot) };
}

/**
 * Writes (or with `remove` takes out) Baton's http hooks in `.claude/settings.local.json`, for the
 * workspace's kept port (or `port`) and secret: 0600, since it holds the secret, and kept out of git
 * in `.git/info/exclude` too (this machine's, never committed). A file Baton created is deleted
 * again on `remove`; one that was there gets its own bytes back.
 */
function claudeLocal(workspaceRoot: string, options: { remove: boolean; now: () => number; dryRun?: boolean; port?: number }): WrittenFile {
	const file = path.join(workspaceRoot, claudeLocalSettings);
	const port = options.port ?? hookPort(workspaceRoot);
	const specs = options.remove ? [] : claudeHttpSpecs(port, hookSecret(workspaceRoot));
	const written = changeJsonFile(file, (value, name) => mergeClaudeHooks(value, specs, { remove: options.remove, file: name }), {
		remove: options.remove,
		now: options.now,
		deleteWhenEmpty: true,
		display: displayPath(workspaceRoot),
		dryRun: options.dryRun ?? false,
		private: true,
	});
	if (!options.dryRun && !options.remove && fs.existsSync(file)) {
		fs.chmodSync(file, 0o600);
		excludeFromGit(workspaceRoot, claudeLocalSettings, true);
		// The port the file names is the one the next backend asks for first.
		keepHookPort(workspaceRoot, port);
	} else if (!options.dryRun && options.remove && !fs.existsSync(file)) {
		// Disconnect leaves the clone's ignore list as it found it once the file is gone, and its backups (which hold the secret too).
		excludeFromGit(workspaceRoot, claudeLocalSettings, false);
	}
	return written;
}

/**
 * Keeps `.claude/settings.local.json` true for the endpoint listening now, in a workspace connected
 * to Claude Code (Baton's SessionStart command in `.claude/settings.json`): a fresh clone gets its
 * http hooks, a port that had to change is followed. Claude reads its settings when it starts, so
 * a change takes effect at the next start (docs/daemon.md, "HTTP hooks"). Returns what it did.
 */
export function refreshClaudeLocal(workspaceRoot: string, port: number): WrittenFile | undefined {
	let settings: unknown;
	try {
		settings = JSON.parse(fs.readFileSync(path.join(workspaceRoot, '.claude', 'settings.json'), 'utf8'));
	} catch {
		return undefined;
	}
	const starts = (settings as { hooks?: { SessionStart?: { hooks?: { command?: unknown }[] }[] } } | null)?.hooks?.SessionStart;
	const connected =
		Array.isArray(starts) &&
		starts.some(
			(group) =>
				Array.isArray(group?.hooks) && group.hooks.some((h) => isBatonHookCommand(h?.command) && String(h.command).endsWith(' hook session-start')),
		);
	return connected ? claudeLocal(workspaceRoot, { remove: false, now: Date.now, port }) : undefined;
}

/**
 * Adds `**\/<relative>*` to the repository's `.git/info/exclude` (this clone's own ignore list) unless
 * it is there: the file, its backups (`.baton-backup-…`) and temp files, all holding the secret. With
 * `add` false, takes that line (and the file-only line of earlier versions) out again once none of
 * them is left.
 */
function excludeFromGit(workspaceRoot: string, relative: string, add: boolean): void {
	const dirs = findGitDirs(workspaceRoot);
	if (!dirs) {
		return;
	}
	const file = path.join(dirs.commonDir, 'info', 'exclude');
	const line = `**/${relative}*`;
	let text: string;
	try {
		text = fs.readFileSync(file, 'utf8');
	} catch {
		text = '';
	}
	const lines = text.split('\n');
	if (!add) {
		const name = path.basename(relative);
		let left: string[] = [];
		try {
			left = fs.readdirSync(path.join(workspaceRoot, path.dirname(relative)));
		} catch {
			// No folder: nothing of the file is left.
		}
		const ours = [line, `**/${relative}`];
		if (!left.some((n) => n.startsWith(name)) && lines.some((l) => ours.includes(l))) {
			fs.writeFileSync(file, lines.filter((l) => !ours.includes(l)).join('\n'));
		}
		return;
	}
	if (!lines.includes(line)) {
		fs.mkdirSync(path.dirname(file), { recursive: true });
		fs.appendFileSync(file, `${text && !text.endsWith('\n') ? '\n' : ''}${line}\n`);
	}
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
			out.push({
				path: relative,
				action: 'skipped',
				reason: 'a hook of your own has this name; Baton leaves it alone (call `baton hook` from it to keep both)',
			});
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

/**
 * The command the hooks run. The files it goes into are committed (`.claude/settings.json`,
 * `.github/hooks/…`, `.clinerules/hooks/…`, `.codex/…`, `.gemini/…`) and run by every teammate who
 * pulls them, in every clone: so never an absolute path of this machine. `baton` when `baton` on PATH
 * is this installation; else the portable form (userLauncher.ts) that takes `baton` from PATH when
 * there is one and the user's launcher `~/.baton/bin/baton` otherwise — which the extension writes
 * when it starts and `baton connect` when it runs, so a person who installed only the extension has
 * working hooks. On Windows (PowerShell) only `baton` from PATH works, and a warning says so.
 * (`--command` still lets a person write anything they like.)
 */
export function hookCommandFor(input: { cliPath: string; execPath: string; env: NodeJS.ProcessEnv; platform?: NodeJS.Platform }): {
	command: string;
	warning?: string;
} {
	const launcher = batonLauncher(input);
	if (launcher.kind === 'baton-on-path') {
		return { command: 'baton' };
	}
	if ((input.platform ?? process.platform) !== 'win32') {
		return { command: portableHookCommand };
	}
	return {
		command: 'baton',
		warning: `\`baton\` on PATH is not this installation (${shellCommandOf(launcher)}): on Windows the hooks call \`baton\` from PATH, so put a baton.cmd that runs it on PATH here and on every machine that uses this repository.`,
	};
}
