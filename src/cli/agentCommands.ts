/**
 * Agent commands: `baton hook`, `baton connect`, `baton transcripts …` and `baton mcp`.
 *
 * `baton hook [EVENT]` is what agents run (via the configuration `baton connect` writes). Its
 * contract differs from every other command: it always exits 0 and prints either the agent's answer
 * or nothing at all, whatever went wrong (that goes to `.baton/logs/hooks.log`), because a failing
 * hook breaks the agent (Claude reads exit code 2 as "block", Cline blocks on any non-zero exit).
 * `runHookCli` is that whole path; main.ts dispatches `hook` to it before its own option parsing.
 */
import { maxPayloadBytes, readStdin } from './hookStdin';
import { silentLogger, stderrLogger } from '../engine/ports';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { defaultAgentSettings, claudeHomeDir, readAgentSettings, type AgentSettings } from '../engine/agentConfig/agentSettings';
import type { DirtyClaim } from '../engine/checkpoints/dirtyPaths';
import { checkpointPortOf, criticalApprovalReason, type CheckpointPort } from '../engine/hooks/checkpointPort';
import { isShellTool } from '../engine/transcripts/editTools';
import { parseAgentName } from '../engine/agentKinds';
import type { HookEvent } from '../engine/hookEvent';
import { HookLog, hookLogFile } from '../engine/hooks/hookLog';
import { assignCopilotRun, copilotSessionFile } from '../engine/hooks/copilotRuns';
import { claimHookEvent } from '../engine/hooks/hookClaims';
import { clineCarryOn } from '../engine/hooks/hookResponses';
import { normaliseHookPayload } from '../engine/hooks/normaliseHookPayload';
import { aliasLinker, runHook, type HookOptions } from '../engine/hooks/runHook';
import { TranscriptArchive, type TranscriptInfo } from '../engine/transcripts/transcriptArchive';
import { renderTranscriptMarkdown } from '../engine/transcripts/transcriptMarkdown';
import { Engine } from '../engine/engine';
import { timelineHooks } from '../engine/timeline/timelineRecorder';
import { isCapturedTool } from '../engine/timeline/timelineTools';
import type { Logger } from '../engine/ports';
import { findWorkspaceRoot, isInitialized } from '../engine/workspace';
import { stringOption, UsageError, type Command } from './command';
import { connectCommand } from './connectCommand';
import type { EngineSource } from './warmEngines';

export interface HookIo {
	stdout: (text: string) => void;
	stderr: (text: string) => void;
	cwd: string;
	env: NodeJS.ProcessEnv;
	/** Defaults to process.stdin. */
	stdin?: NodeJS.ReadableStream & { isTTY?: boolean };
	/** The daemon's engines, kept open between calls: a hook it runs opens nothing. */
	engines?: EngineSource;
	/** The daemon takes a session end's work after the answer (the agent exits without waiting for it). */
	defer?: (work: Promise<unknown>) => void;
}

const hookUsage = 'baton hook [EVENT] [--agent claude|copilot|cline] [--workspace DIR]   (hook payload on stdin)';
const hookSummary = 'handle one agent hook (Claude Code, Copilot, Cline); always exits 0';

/**
 * `baton hook [EVENT] [--agent claude|copilot|cline] [--workspace DIR]`, payload on stdin. Always
 * resolves to 0. Unknown options are ignored rather than refused: a configuration written by a newer
 * Baton must not break an agent running an older one.
 */
export async function runHookCli(argv: string[], io: HookIo): Promise<number> {
	const args = parseArgs({ args: argv, options: { agent: { type: 'string' }, workspace: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, strict: false, allowPositionals: true });
	if (args.values['help'] === true) {
		io.stdout(`usage: ${hookUsage}\n  ${hookSummary}\n`);
		return 0;
	}
	const eventArg = args.positionals.find((p) => p !== 'hook');
	const output = await runHookPayload({
		text: await readStdin(io.stdin ?? process.stdin),
		event: eventArg,
		agent: typeof args.values['agent'] === 'string' ? args.values['agent'] : undefined,
		workspace: typeof args.values['workspace'] === 'string' ? path.resolve(io.cwd, args.values['workspace']) : undefined,
		cwd: io.cwd,
		env: io.env,
		...(io.engines ? { engines: io.engines } : {}),
		...(io.defer ? { defer: io.defer } : {}),
	});
	if (output) {
		io.stdout(`${output}\n`);
	}
	return 0;
}

interface HookInput {
	text: string;
	event?: string | undefined;
	agent?: string | undefined;
	workspace?: string | undefined;
	cwd: string;
	env: NodeJS.ProcessEnv;
	engines?: EngineSource;
	defer?: (work: Promise<unknown>) => void;
}

/**
 * The hook's answer for one payload ('' for none). Never throws. Cline reads every hook's stdout as
 * `{cancel, contextModification?, errorMessage?}` and treats anything else as a failed hook, so a
 * Cline hook that has nothing to say still answers `{"cancel":false}`, whatever went wrong.
 */
export async function runHookPayload(input: HookInput): Promise<string> {
	const output = await hookAnswer(input);
	return output || !isClineCall(input) ? output : clineCarryOn();
}

async function hookAnswer(input: HookInput): Promise<string> {
	const started = Date.now();
	let log: HookLog | undefined;
	try {
		let raw: unknown;
		let problem: string | undefined;
		if (Buffer.byteLength(input.text) > maxPayloadBytes) {
			problem = `payload over ${maxPayloadBytes} bytes`;
		} else {
			try {
				raw = JSON.parse(input.text);
			} catch {
				problem = input.text.trim() ? 'stdin is not JSON' : 'no payload on stdin';
			}
		}
		const agent = input.agent ? parseAgentName(input.agent) : undefined;
		// Copilot CLI says so in every hook's environment, whichever hook file (and dialect) it ran.
		const host = input.env['COPILOT_CLI'] === '1' ? ('copilot-cli' as const) : undefined;
		const normalised = problem ? { ok: false as const, problem } : normaliseHookPayload(raw, { ...(input.event ? { event: input.event } : {}), ...(agent ? { agent } : {}), ...(host ? { host } : {}) });
		const root = workspaceOf(input, normalised.ok ? normalised.event.cwd : payloadCwd(raw));
		if (!root) {
			// Not a Baton workspace: nothing to record, nowhere to log, and nothing to tell the agent.
			return '';
		}
		log = new HookLog(hookLogFile(root));
		if (!normalised.ok) {
			log.warn(`ignored a malformed hook payload (${Buffer.byteLength(input.text)} bytes${input.event ? `, event argument ${input.event}` : ''}): ${normalised.problem}`);
			return '';
		}
		const payloadEvent = normalised.event;
		if (payloadEvent.kind === 'unknown') {
			log.info(`ignored unknown event ${payloadEvent.eventName} from ${payloadEvent.agent} ${payloadEvent.agentSessionId || '(no session id)'}`);
			return '';
		}
		if (isNoOp(payloadEvent)) {
			return '';
		}
		if (claimHookEvent(root, payloadEvent, raw) === 'duplicate') {
			log.info(`${payloadEvent.agent} ${payloadEvent.eventName} ${payloadEvent.agentSessionId || '(no session id)'}: already handled by another hook process (the host runs Baton's hook from more than one file)`);
			// Every host reads every file's answer: the first one's briefing is the one injected.
			return '';
		}
		// Copilot CLI sends no session id: its run is found from the sessionStart/sessionEnd bracketing.
		const assigned = assignCopilotRun(root, payloadEvent, Date.now());
		// Copilot CLI names its session file only on Stop; it is always ~/.copilot/session-state/<id>/events.jsonl.
		const event = assigned.host === 'copilot-cli' && !assigned.transcriptPath && assigned.agentSessionId ? { ...assigned, transcriptPath: copilotSessionFile(input.env, assigned.agentSessionId) } : assigned;
		const settings = settingsOf(root, log);
		const hookLog = log;
		const engine = input.engines
			? // In the daemon: its warm engine (re-reading only what other processes appended since); the
				// engine's warnings during this call go to the hook log, as a process's own would.
				await input.engines.acquire(root, { stderr: (text) => hookLog.warn(text.replace(/^baton: warning: /, '').trimEnd()), env: input.env })
			: await openForHook(root, log);
		const handle = async (): Promise<string> => {
			try {
				const actor = `hook:${event.agent}`;
				engine.checkpoints.dirty.lastClaim = undefined;
				const result = await runHook(engine, event, hookOptions(engine, { actor, settings, log: hookLog, env: input.env }));
				hookLog.info(
					`${event.agent} ${event.eventName} ${event.agentSessionId} → ${result.action}${result.sessionId ? ` ${result.sessionId}` : ''}${result.detail ? ` (${result.detail.slice(0, 200)})` : ''}${scanNote(engine.checkpoints.dirty.lastClaim)} in ${Date.now() - started} ms${deferred ? ' (after the answer)' : ''}`,
				);
				return result.stdout;
			} finally {
				if (input.engines) {
					input.engines.release(engine, root);
				} else {
					// The environment of a checkpoint the hook took is recorded after it: wait before closing.
					await engine.checkpoints.settled();
					engine.close();
				}
			}
		};
		// A session end answers nothing: in the daemon its handoff, checkpoint and transcript work run
		// after the answer, so the agent exits at once (the daemon's next command waits for them).
		const deferred = !!input.defer && event.kind === 'sessionEnd';
		if (deferred && input.defer) {
			input.defer(handle().catch((error: Error) => hookLog.error(`hook failed after ${Date.now() - started} ms: ${error.message}`)));
			return '';
		}
		return await handle();
	} catch (error) {
		log?.error(`hook failed after ${Date.now() - started} ms: ${(error as Error).message}`);
		return '';
	}
}

/** How this call's capture read the workspace, for the hook log: the watcher's paths or the full scan. */
function scanNote(claim: DirtyClaim | undefined): string {
	if (!claim) {
		return '';
	}
	return claim.kind === 'paths' ? `; read ${claim.paths.length} changed path${claim.paths.length === 1 ? '' : 's'} from the file watcher` : `; full scan (${claim.reason})`;
}

/** A hook process of its own opens the engine for this one call. */
function openForHook(root: string, log: Logger): Promise<Engine> {
	// sql.js's WASM: baseline code only. Optimising it in the background costs more than a hook runs
	// and delays the exit (measured: 300 → 150 ms per call). Never in the daemon, which runs for hours.
	setFlagsFromString('--liftoff-only');
	return Engine.open({ workspaceRoot: root, log, lockTimeoutMs: 5_000 });
}

/** The explicit `--agent cline`, or a payload in Cline's dialect (its `taskId`, `hookName` or `clineVersion`). */
function isClineCall(input: HookInput): boolean {
	if (input.agent) {
		return parseAgentName(input.agent) === 'cline';
	}
	try {
		const raw = JSON.parse(input.text) as unknown;
		return !!raw && typeof raw === 'object' && ['taskId', 'hookName', 'clineVersion'].some((k) => k in (raw as object));
	} catch {
		return false;
	}
}

/** Events that need nothing from the engine: tools that neither edit nor run commands. */
function isNoOp(event: HookEvent): boolean {
	// Tools the timeline captures (edits, shell commands, MCP tools) always need the engine.
	if (event.kind === 'postToolUse') {
		return !event.tool || (!isCapturedTool(event.tool.name) && (!event.tool.edit || event.tool.filesTouched.length === 0));
	}
	if (event.kind === 'preToolUse') {
		return !event.tool || !(event.tool.edit || isShellTool(event.tool.name) || isCapturedTool(event.tool.name));
	}
	return false;
}

function hookOptions(engine: Engine, input: { actor: string; settings: AgentSettings; log: Logger; env: NodeJS.ProcessEnv }): HookOptions {
	const port = checkpointPortOf(engine);
	const archive = transcriptArchive(engine.ctx.workspaceRoot, input.settings, input.log, input.env);
	return {
		actor: input.actor,
		settings: input.settings,
		archive,
		log: input.log,
		...(port ? checkpointHooks(port, input.actor) : {}),
		...(input.settings.timeline ? { timeline: timelineHooks(engine.ctx, { budgetMs: input.settings.timelineBudget, dirty: engine.checkpoints.dirty }) } : {}),
	};
}

/** Wires the hook points to the checkpoint feature; only when the workspace uses checkpoints. */
function checkpointHooks(port: CheckpointPort, actor: string): Pick<HookOptions, 'awaitingApproval' | 'onCheckpoint' | 'onMetrics'> {
	return {
		awaitingApproval: criticalApprovalReason(port),
		onCheckpoint: async (trigger, sessionId) => {
			if (trigger === 'compact') {
				// Always, even in a workspace that never had a checkpoint: a compaction loses context for
				// good, and the snapshot before it is the one way back (creating it sets the store up).
				await port.create({ trigger: 'compact', sessionId, message: 'before the agent compacted its context', actor });
			} else if (port.enabled === false) {
				return;
			} else if (port.maybePeriodic) {
				await port.maybePeriodic({ sessionId, actor });
			}
		},
		...(port.recordMetrics ? { onMetrics: async (sessionId: string, metrics: { costUsd: number; errorCount: number }) => port.recordMetrics?.({ sessionId, ...metrics, actor }) } : {}),
	};
}

export function transcriptArchive(root: string, settings: AgentSettings, log: Logger, env: NodeJS.ProcessEnv): TranscriptArchive {
	return new TranscriptArchive({ workspaceRoot: root, claudeHome: claudeHomeDir(settings, env, os.homedir()), log });
}

function settingsOf(root: string, log: Logger): AgentSettings {
	try {
		return readAgentSettings(root);
	} catch (error) {
		log.warn(`${(error as Error).message}; using the defaults`);
		return defaultAgentSettings();
	}
}

/** --workspace, else the Baton workspace around the agent's cwd, else around the process's cwd. */
function workspaceOf(input: HookInput, payloadCwd: string | null): string | undefined {
	if (input.workspace) {
		return isInitialized(input.workspace) ? input.workspace : undefined;
	}
	return (payloadCwd ? findWorkspaceRoot(payloadCwd) : undefined) ?? findWorkspaceRoot(input.cwd);
}

function payloadCwd(raw: unknown): string | null {
	if (raw && typeof raw === 'object') {
		const r = raw as Record<string, unknown>;
		const roots = r['workspaceRoots'];
		const cwd = typeof r['cwd'] === 'string' ? r['cwd'] : Array.isArray(roots) && typeof roots[0] === 'string' ? roots[0] : null;
		return cwd && path.isAbsolute(cwd) ? cwd : null;
	}
	return null;
}

function transcriptLine(t: TranscriptInfo): string {
	const tokens = Object.values(t.tokens).reduce((n, c) => n + c.input + c.output + c.cacheRead + c.cacheCreation, 0);
	const state = t.bootstrap ? 'bootstrap' : !t.sessionId ? 'unlinked' : !t.archiving ? 'archive off' : t.sharedFrom ? 'shared' : t.sourceMissing ? 'source deleted' : 'archived';
	return `${t.id.padEnd(44)}  ${(t.sessionId ?? '-').padEnd(27)}  ${state.padEnd(14)}  ${String(t.userRequests).padStart(4)} req  ${String(t.toolCalls).padStart(5)} tools  ${tokens.toLocaleString('en-US').padStart(12)} tok${t.title ? `  ${t.title}` : ''}`;
}

export const agentCommands: Command[] = [
	{
		path: ['hook'],
		usage: hookUsage,
		summary: hookSummary,
		options: { agent: { type: 'string' } },
		positionals: [0, 1],
		needsInit: false,
		async run(ctx) {
			// Reached only when main.ts does not dispatch `hook` to runHookCli first; same behaviour.
			const stdout = await runHookPayload({
				text: await readStdin(process.stdin),
				event: ctx.args[0],
				agent: stringOption(ctx.values, 'agent'),
				workspace: typeof ctx.values['workspace'] === 'string' ? ctx.workspaceRoot : undefined,
				cwd: ctx.cwd,
				env: ctx.env,
			});
			return { json: stdout ? (JSON.parse(stdout) as Record<string, unknown>) : {}, text: stdout };
		},
	},
	connectCommand,
	{
		path: ['transcripts', 'sync'],
		usage: 'baton transcripts sync [--session ID]',
		summary: 'archive excerpts of the workspace’s Claude Code transcripts linked to sessions',
		options: { session: { type: 'string' } },
		async run(ctx) {
			const engine = await ctx.engine();
			const sessionId = stringOption(ctx.values, 'session');
			if (sessionId) {
				await engine.briefings.get(sessionId);
			}
			const archive = transcriptArchive(ctx.workspaceRoot, readAgentSettings(ctx.workspaceRoot), engine.ctx.log, ctx.env);
			const report = await archive.sync({ link: aliasLinker(engine), ...(sessionId ? { sessionId } : {}) });
			const { synced, ...totals } = report;
			return {
				json: { ...totals, transcripts: synced },
				text: `Parsed ${totals.parsedBytes.toLocaleString('en-US')} bytes into ${totals.excerpts} excerpts from ${synced.length} transcript(s); ${totals.unlinked} unlinked, ${totals.bootstrap} bootstrap, ${totals.skipped} with archiving off${totals.pending ? `, ${totals.pending} with more to parse` : ''}.`,
			};
		},
	},
	{
		path: ['transcripts', 'list'],
		usage: 'baton transcripts list [--session ID]',
		summary: 'agent transcripts Baton knows, newest first',
		options: { session: { type: 'string' } },
		async run(ctx) {
			const sessionId = stringOption(ctx.values, 'session');
			const archive = transcriptArchive(ctx.workspaceRoot, readAgentSettings(ctx.workspaceRoot), stderrLogger, ctx.env);
			const transcripts = archive.list(sessionId ? { sessionId } : {});
			return { json: { transcripts }, text: transcripts.length ? transcripts.map(transcriptLine).join('\n') : 'No transcripts yet (run `baton transcripts sync`).' };
		},
	},
	{
		path: ['transcripts', 'show'],
		usage: 'baton transcripts show ID',
		summary: 'an archived transcript, readable (markdown); --json for the excerpts',
		positionals: [1, 1],
		async run(ctx) {
			const archive = transcriptArchive(ctx.workspaceRoot, readAgentSettings(ctx.workspaceRoot), silentLogger, ctx.env);
			const found = archive.read(ctx.args[0] as string);
			if (!found) {
				throw new UsageError(`no transcript ${ctx.args[0]} (see \`baton transcripts list\`)`);
			}
			const markdown = renderTranscriptMarkdown(found.info, found.excerpts, found.notes);
			return { json: { transcript: found.info, excerpts: found.excerpts, notes: found.notes, markdown }, text: markdown.trimEnd() };
		},
	},
	{
		path: ['transcripts', 'archive'],
		usage: 'baton transcripts archive --session ID --on|--off [--purge]',
		summary: 'turn archiving of a session’s transcripts on or off (--purge deletes what was archived)',
		options: { session: { type: 'string' }, on: { type: 'boolean' }, off: { type: 'boolean' }, purge: { type: 'boolean' } },
		async run(ctx) {
			const sessionId = stringOption(ctx.values, 'session');
			const on = ctx.values['on'] === true;
			const off = ctx.values['off'] === true;
			if (!sessionId || on === off) {
				throw new UsageError('transcripts archive needs --session ID and one of --on or --off');
			}
			const engine = await ctx.engine();
			await engine.briefings.get(sessionId);
			const archive = transcriptArchive(ctx.workspaceRoot, readAgentSettings(ctx.workspaceRoot), engine.ctx.log, ctx.env);
			const result = await archive.setArchiving(sessionId, on, ctx.values['purge'] === true);
			return { json: { sessionId, ...result }, text: `Archiving ${on ? 'on' : 'off'} for ${sessionId}${result.purged ? `; deleted ${result.purged} archived transcript(s)` : ''}.` };
		},
	},
	{
		path: ['mcp'],
		usage: 'baton mcp',
		summary: 'serve Baton’s tools to MCP clients over stdio (session start/end/status, briefing, handoff, decisions, checkpoints)',
		needsInit: false,
		async run(ctx) {
			// Loaded on demand: the MCP SDK is large, and hooks must start fast.
			const { runMcpServer } = await import('./mcpServer');
			await runMcpServer({ engine: ctx.engine, actor: ctx.actor, workspaceRoot: ctx.workspaceRoot });
			return { json: {}, text: '' };
		},
	},
];
