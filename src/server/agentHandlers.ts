/**
 * The agents work over JSON-RPC: connecting agents (hooks and MCP entries written by the editor),
 * the MCP server definition the extension hands VS Code, archived transcripts and session summaries.
 *
 * An editor's backend runs on the editor's binary (VS Code's Electron as Node, or code-server's Node),
 * so what it writes into an agent's configuration comes from batonLauncher.ts in editor mode: a `node`
 * on PATH, never `process.execPath`. A daemon a terminal's `baton` started runs on that terminal's
 * Node, which it may name like the CLI does (`editorBinary` false).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { MessageConnection } from 'vscode-jsonrpc/node';
import { Engine } from '../engine/engine';
import { batonLauncher, type BatonLauncher } from '../engine/agentConfig/batonLauncher';
import { connectAgent, hookCommandFor } from '../engine/agentConfig/connectAgent';
import { launcherHome, writeUserLauncher } from '../engine/agentConfig/userLauncher';
import { aliasLinker } from '../engine/hooks/runHook';
import type { TranscriptArchive, TranscriptInfo } from '../engine/transcripts/transcriptArchive';
import { renderTranscriptMarkdown } from '../engine/transcripts/transcriptMarkdown';
import { BatonError } from '../engine/errors';
import type { Logger } from '../engine/ports';
import type { Session } from '../engine/storage/model';
import { batonDir } from '../engine/workspace';
import type { TranscriptDto } from '../protocol/agentDto';
import * as rpc from '../protocol/rpc';
import type { EngineHost } from './engineHost';
import { requestRegistrar } from './handlers';

interface AgentHandlerOptions {
	workspaceRoot: string;
	/** Baton's CLI script (`dist/cli.js`, beside this server's bundle). */
	cliPath: string;
	log: Logger;
	/** This process runs on the editor's own binary (an editor's backend, or a daemon started on it: `runsOnEditorBinary`). */
	editorBinary: boolean;
	/** Another process changed the transcript archive (a hook archived a turn): views reload. */
	onArchiveChange: () => void;
	pollMs?: number;
}

export function registerAgentHandlers(connection: MessageConnection, host: EngineHost, options: AgentHandlerOptions): { dispose(): void } {
	const on = requestRegistrar(connection, host);
	registerConnectHandlers(on, host, options, agentLaunchers(options));
	registerTranscriptHandlers(on, host, options);
	const watcher = watchArchive(path.join(batonDir(options.workspaceRoot), 'transcripts', 'index.json'), options.onArchiveChange, options.pollMs ?? 1_000);
	return { dispose: () => watcher.dispose() };
}

/**
 * The user's launcher is written (or found current) once per backend, 3 s after it starts: off the
 * start, since finding a Node runs `node --version`, which must not hold up a window's first requests.
 * Once per process, not per client: a daemon serves a connection per CLI command, and each used to
 * try again (and warn again) when its command outlasted the wait.
 */
export function refreshLauncherSoon(options: Pick<AgentHandlerOptions, 'cliPath' | 'log' | 'editorBinary'>): { dispose(): void } {
	const timer = setTimeout(agentLaunchers(options).refreshUserLauncher, 3_000);
	timer.unref();
	return { dispose: () => clearTimeout(timer) };
}

type Registrar = ReturnType<typeof requestRegistrar>;

interface AgentLaunchers {
	/** How this installation is run from an agent's configuration (persistent: from files that outlive this window). */
	launcher: (persistent: boolean) => BatonLauncher;
	/** Writes or updates the user's launcher, logging (never throwing) when it cannot. */
	refreshUserLauncher: () => void;
}

/** The launcher of this installation's CLI, and the user's launcher file that points at it. */
function agentLaunchers(options: Pick<AgentHandlerOptions, 'cliPath' | 'log' | 'editorBinary'>): AgentLaunchers {
	const launcher = (persistent: boolean): BatonLauncher => {
		if (!fs.existsSync(options.cliPath)) {
			throw new BatonError('invalidInput', `Baton's command line is missing at ${options.cliPath}; reinstall the extension (or run npm run build)`);
		}
		return batonLauncher({
			cliPath: options.cliPath,
			execPath: process.execPath,
			env: process.env,
			...(options.editorBinary ? { editor: { electron: process.versions.electron !== undefined } } : {}),
			persistent,
		});
	};
	// The user's launcher (userLauncher.ts): committed hooks find this installation through it on a
	// machine with no `baton` on PATH. Written soon after the backend starts, again when Baton moved, and on connect.
	const refreshUserLauncher = (): void => {
		try {
			const run = launcher(true);
			if (run.kind !== 'baton-on-path' && !run.warning) {
				const written = writeUserLauncher(launcherHome(process.env, os.homedir()), run);
				if (written.action === 'created' || written.action === 'updated') {
					options.log.info(`${written.action} ${written.path}: agent hooks run this installation through it`);
				} else if (written.action === 'skipped' && written.reason) {
					options.log.warn(`the launcher agent hooks use was not written: ${written.reason}`);
				}
			}
		} catch (error) {
			options.log.warn(`the launcher agent hooks use was not written: ${(error as Error).message}`);
		}
	};
	return { launcher, refreshUserLauncher };
}

/** Connecting and disconnecting agents, and the MCP server definition the extension hands VS Code. */
function registerConnectHandlers(on: Registrar, host: EngineHost, options: AgentHandlerOptions, { launcher, refreshUserLauncher }: AgentLaunchers): void {
	const root = options.workspaceRoot;
	on(rpc.agentConnect, async (params) => {
		if (host.readOnly) {
			throw new BatonError('invalidInput', 'this workspace is not trusted: Baton writes no agent configuration into it');
		}
		const remove = params.remove === true;
		let run: BatonLauncher;
		try {
			run = launcher(true);
		} catch (error) {
			if (!remove) {
				throw error;
			}
			// Taking Baton out needs no working launcher: its entries are recognised by shape.
			run = { kind: 'baton-on-path', command: 'baton', args: [], env: {} };
		}
		if (!remove) {
			// Hooks need somewhere to record: connecting sets Baton up in the workspace too.
			await host.write(async () => undefined, true);
			refreshUserLauncher();
		}
		// Hook files and `.mcp.json` are committed: they call `baton` from PATH, never a path of this
		// machine (a teammate's clone must work). Only Cline's MCP settings, outside the repository, may
		// name this installation.
		const portable = remove ? { command: 'baton' } : hookCommandFor({ cliPath: options.cliPath, execPath: process.execPath, env: process.env });
		const mcpLaunch = params.agent === 'cline' ? run : { kind: 'baton-on-path' as const, command: 'baton', args: [], env: {} };
		const result = connectAgent(root, params.agent, {
			remove,
			command: portable.command,
			now: Date.now,
			...(params.mcp ? { mcp: { launch: mcpLaunch, ...(params.clineMcpSettings ? { clineSettingsFile: params.clineMcpSettings } : {}) } } : {}),
		});
		options.log.info(
			`${remove ? 'disconnected' : 'connected'} ${params.agent}: ${[...result.written, ...(result.mcp ? [result.mcp] : [])].map((w) => `${w.action} ${w.path}`).join(', ')}`,
		);
		return {
			agent: params.agent,
			workspaceRoot: root,
			written: result.written,
			mcp: result.mcp,
			command: result.command,
			launcher: run.kind,
			warning: remove ? null : (portable.warning ?? run.warning ?? null),
			notes: result.notes,
		};
	});

	on(rpc.mcpDefinition, async () => {
		const run = launcher(false);
		return { command: run.command, args: [...run.args, 'mcp', '--workspace', root], env: run.env, cwd: root, launcher: run.kind };
	});
}

/** Archived transcripts: the list, one as Markdown, and a sync of the agents' transcripts into the archive. */
function registerTranscriptHandlers(on: Registrar, host: EngineHost, options: AgentHandlerOptions): void {
	const archive = (): TranscriptArchive => Engine.transcriptArchive(options.workspaceRoot, { log: options.log });
	const sessionsById = async (): Promise<Map<string, Session>> =>
		host.initialized ? new Map((await (await host.get()).briefings.list({ limit: 100_000 })).map((s) => [s.id, s])) : new Map();

	on(rpc.transcriptList, async (params) => {
		const sessions = await sessionsById();
		return {
			transcripts: archive()
				.list(params.sessionId ? { sessionId: params.sessionId } : {})
				.map((t) => toTranscriptDto(t, sessions)),
		};
	});

	on(rpc.transcriptShow, async (params) => {
		const found = archive().read(params.id);
		if (!found) {
			throw new BatonError('notFound', `no transcript ${params.id} in this workspace`);
		}
		return { transcript: toTranscriptDto(found.info, await sessionsById()), markdown: renderTranscriptMarkdown(found.info, found.excerpts, found.notes) };
	});

	on(rpc.transcriptSync, () =>
		host.write(async (engine) => {
			const report = await archive().sync({ link: aliasLinker(engine) });
			return { transcripts: report.synced.length, parsedBytes: report.parsedBytes, excerpts: report.excerpts, unlinked: report.unlinked };
		}),
	);
}

/** Hooks archive transcripts in their own processes, writing only the index file: one stat per tick notices it. */
function watchArchive(file: string, onChange: () => void, pollMs: number): { dispose(): void } {
	const stamp = (): number => {
		try {
			return fs.statSync(file).mtimeMs;
		} catch {
			return 0;
		}
	};
	let last = stamp();
	const timer = setInterval(() => {
		const now = stamp();
		if (now !== last) {
			last = now;
			onChange();
		}
	}, pollMs);
	timer.unref();
	return { dispose: () => clearInterval(timer) };
}

function toTranscriptDto(t: TranscriptInfo, sessions: Map<string, Session>): TranscriptDto {
	const session = t.sessionId ? sessions.get(t.sessionId) : undefined;
	return {
		id: t.id,
		agent: t.agent,
		agentSessionId: t.agentSessionId,
		parentAgentSessionId: t.parentAgentSessionId,
		sessionId: t.sessionId,
		sessionName: session?.name ?? null,
		sessionStatus: session?.status ?? null,
		title: t.title,
		agentType: t.agentType,
		description: t.description,
		firstAt: t.firstAt,
		lastAt: t.lastAt,
		userRequests: t.userRequests,
		assistantMessages: t.assistantMessages,
		toolCalls: t.toolCalls,
		errors: t.errors,
		compactions: t.compactions,
		tokens: Object.values(t.tokens).reduce((n, c) => n + c.input + c.output + c.cacheRead + c.cacheCreation, 0),
		costUsd: t.costUsd,
		archiveBytes: t.archiveBytes,
		sourceMissing: t.sourceMissing,
		sharedFrom: t.sharedFrom ? { machineName: t.sharedFrom.machineName, author: t.sharedFrom.author } : null,
		bootstrap: t.bootstrap,
		archiving: t.archiving,
		filesTouched: t.filesTouched.length,
	};
}
