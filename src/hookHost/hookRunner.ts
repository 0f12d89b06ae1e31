/**
 * `baton hook`, the hook host. Its contract differs from every other command: it always exits 0 and
 * prints either the agent's answer or nothing at all, whatever went wrong (that goes to
 * `.baton/logs/hooks.log`), because a failing hook breaks the agent (Claude reads exit code 2 as
 * "block", Cline blocks on any non-zero exit). main.ts dispatches `hook` to `runHookCli` before its
 * own option parsing.
 *
 * A hook never loses its event and never waits past its budget (docs/daemon.md, "The hook spool"):
 * in its own process it waits for the journal lock only until its deadline, and an event it cannot
 * record by then goes to the spool (hookSpool.ts), which the daemon or the next command drains in
 * order. Every copy of an event is applied at most once (hookOnce.ts).
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { parseAgentName } from '../engine/agentKinds';
import { Engine } from '../engine/engine';
import { BatonError } from '../engine/errors';
import type { HookEvent } from '../engine/hookEvent';
import { assignCopilotRun, copilotSessionFile } from '../engine/hooks/copilotRuns';
import { claimHookEvent, hookEventId } from '../engine/hooks/hookClaims';
import { HookLog, hookLogFile } from '../engine/hooks/hookLog';
import { clineCarryOn } from '../engine/hooks/hookResponses';
import { normaliseHookPayload } from '../engine/hooks/normaliseHookPayload';
import { runHook } from '../engine/hooks/runHook';
import { isCapturedTool } from '../engine/timeline/timelineTools';
import { isShellTool } from '../engine/transcripts/editTools';
import { findWorkspaceRoot, isInitialized } from '../engine/workspace';
import { hookBudgetMs, hookEventName } from './hookBudget';
import { hookOptions, scanNote } from '../engine/hooks/hookOptions';
import { agentSettingsOrDefaults } from '../engine/agentConfig/agentSettings';
import { Abandoned, AlreadyRecorded, EventOnce } from './hookOnce';
import { replayMissedCalls } from '../engine/hooks/hookReplay';
import { drainHookSpool, spoolOwn, type HookOutcome } from './hookSpoolDrain';
import type { SpoolRecord } from './hookSpool';
import { maxPayloadBytes, readStdin } from './hookStdin';
import type { EngineSource } from './warmEngines';

interface HookIo {
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
	/** The client's id for this call (dist/cli.js makes one; see hookOnce.ts). */
	eventId?: string;
	/** In a process of its own: when the event must be handed over (ms since the epoch); default now + budget. */
	deadline?: number;
	/** The event was spooled while its run still waited: the process should exit once it has answered. */
	abandoned?: () => void;
}

export const hookUsage = 'baton hook [EVENT] [--agent claude|copilot|cline] [--workspace DIR]   (hook payload on stdin)';
export const hookSummary = 'handle one agent hook (Claude Code, Copilot, Cline); always exits 0';

/**
 * `baton hook [EVENT] [--agent claude|copilot|cline] [--workspace DIR]`, payload on stdin. Always
 * resolves to 0. Unknown options are ignored rather than refused: a configuration written by a newer
 * Baton must not break an agent running an older one.
 */
export async function runHookCli(argv: string[], io: HookIo): Promise<number> {
	const args = parseHookArgs(argv, io.cwd);
	if (args.help) {
		io.stdout(`usage: ${hookUsage}\n  ${hookSummary}\n`);
		return 0;
	}
	const text = await readStdin(io.stdin ?? process.stdin);
	const deadline = io.engines ? undefined : (io.deadline ?? Date.now() + hookBudgetMs(io.env, hookEventName(argv, text)));
	const own = io.engines ? undefined : new OwnEngine(deadline ?? Date.now());
	let abandoned = false;
	const input: HookInput = {
		...args.input,
		text,
		cwd: io.cwd,
		env: io.env,
		argv: ['hook', ...argv],
		eventId: io.eventId ?? randomUUID(),
		at: Date.now(),
		engines: io.engines ?? (own as OwnEngine),
		stderr: io.stderr,
		...(deadline !== undefined ? { deadline } : {}),
		...(io.defer ? { defer: io.defer } : {}),
		abandoned: () => {
			abandoned = true;
			io.abandoned?.();
		},
	};
	const output = await runHookPayload(input);
	if (output.stdout) {
		io.stdout(`${output.stdout}\n`);
	}
	if (!abandoned) {
		// An abandoned run may still wait on the lock: the process exits instead (io.abandoned).
		await own?.close();
	}
	return 0;
}

function parseHookArgs(argv: string[], cwd: string): { help: boolean; input: Pick<HookInput, 'event' | 'agent' | 'workspace'> } {
	const args = parseArgs({
		args: argv,
		options: { agent: { type: 'string' }, workspace: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
		strict: false,
		allowPositionals: true,
	});
	return {
		help: args.values['help'] === true,
		input: {
			event: args.positionals.find((p) => p !== 'hook'),
			agent: typeof args.values['agent'] === 'string' ? args.values['agent'] : undefined,
			workspace: typeof args.values['workspace'] === 'string' ? path.resolve(cwd, args.values['workspace']) : undefined,
		},
	};
}

interface HookInput {
	text: string;
	event?: string | undefined;
	agent?: string | undefined;
	workspace?: string | undefined;
	cwd: string;
	env: NodeJS.ProcessEnv;
	/** The hook's arguments as the spool records them (`hook EVENT --agent …`). */
	argv: string[];
	eventId: string;
	/** When the hook received the event (a drained one: when it was spooled). */
	at: number;
	engines: EngineSource & { bind?(): void; unbind?(): void };
	stderr?: (text: string) => void;
	deadline?: number;
	/** A spooled copy run by a drain: no claim, no drain ahead of it, never spooled again. */
	drained?: boolean;
	defer?: (work: Promise<unknown>) => void;
	abandoned?: () => void;
}

/**
 * The hook's answer for one payload ('' for none) and what became of its event. Never throws. Cline
 * reads every hook's stdout as `{cancel, contextModification?, errorMessage?}` and treats anything
 * else as a failed hook, so a Cline hook that has nothing to say still answers `{"cancel":false}`.
 */
async function runHookPayload(input: HookInput): Promise<HookOutcome> {
	const outcome = await hookAnswer(input);
	return outcome.stdout || input.drained || !isClineCall(input) ? outcome : { ...outcome, stdout: clineCarryOn() };
}

/** Runs a spooled record as its hook would have run (drainHookSpool's runner). */
function runRecord(record: SpoolRecord, engines: HookInput['engines'], deadline: number | undefined): Promise<HookOutcome> {
	const args = parseHookArgs(record.argv[0] === 'hook' ? record.argv.slice(1) : record.argv, record.cwd);
	return runHookPayload({
		...args.input,
		text: record.stdin,
		cwd: record.cwd,
		env: record.env,
		argv: record.argv,
		eventId: record.eventId,
		at: record.at,
		engines,
		drained: true,
		...(deadline !== undefined ? { deadline } : {}),
	});
}

/** Drains the workspace's spool with these engines (the daemon, between commands; a command before it runs). */
export function drainSpool(root: string, engines: EngineSource, deadline?: number): ReturnType<typeof drainHookSpool> {
	return drainHookSpool(root, {
		log: new HookLog(hookLogFile(root)),
		run: (record) => runRecord(record, engines, deadline),
		...(deadline !== undefined ? { deadline } : {}),
	});
}

const done = (stdout = ''): HookOutcome => ({ stdout, status: 'done' });

async function hookAnswer(input: HookInput): Promise<HookOutcome> {
	let log: HookLog | undefined;
	try {
		const { raw, problem } = parsePayload(input.text);
		const agent = input.agent ? parseAgentName(input.agent) : undefined;
		// Copilot CLI says so in every hook's environment, whichever hook file (and dialect) it ran.
		const host = input.env['COPILOT_CLI'] === '1' ? ('copilot-cli' as const) : undefined;
		const normalised = problem
			? { ok: false as const, problem }
			: normaliseHookPayload(raw, { ...(input.event ? { event: input.event } : {}), ...(agent ? { agent } : {}), ...(host ? { host } : {}) });
		const root = workspaceOf(input, normalised.ok ? normalised.event.cwd : payloadCwd(raw));
		if (!root) {
			// Not a Baton workspace: nothing to record, nowhere to log, and nothing to tell the agent.
			return done();
		}
		log = new HookLog(hookLogFile(root));
		if (!normalised.ok) {
			log.warn(
				`ignored a malformed hook payload (${Buffer.byteLength(input.text)} bytes${input.event ? `, event argument ${input.event}` : ''}): ${normalised.problem}`,
			);
			return done();
		}
		const payloadEvent = normalised.event;
		if (payloadEvent.kind === 'unknown') {
			log.warn(`ignored unknown event ${payloadEvent.eventName} from ${payloadEvent.agent} ${payloadEvent.agentSessionId || '(no session id)'}`);
			return done();
		}
		if (isNoOp(payloadEvent)) {
			return done();
		}
		const label = `${payloadEvent.agent} ${payloadEvent.eventName} ${payloadEvent.agentSessionId || '(no session id)'}`;
		if (!input.drained) {
			// Events spooled before this one are recorded first; while some still wait, this one waits behind them.
			const ahead = await drainSpool(root, input.engines, input.deadline);
			if (ahead.left > 0) {
				// Nothing of this process's own is pending: it answers and exits (a drained run it gave up on may still wait).
				input.abandoned?.();
				return spoolOwn(root, input, log, label, `${ahead.left} earlier event(s) still in the spool`);
			}
			if (claimHookEvent(root, payloadEvent, raw) === 'duplicate') {
				log.info(`${label}: already handled by another hook process (the host runs Baton's hook from more than one file)`);
				// Every host reads every file's answer: the first one's briefing is the one injected.
				return done();
			}
		}
		// Copilot CLI sends no session id: its run is found from the sessionStart/sessionEnd bracketing.
		const assigned = assignCopilotRun(root, payloadEvent, input.at);
		// Copilot CLI names its session file only on Stop; it is always ~/.copilot/session-state/<id>/events.jsonl.
		const event =
			assigned.host === 'copilot-cli' && !assigned.transcriptPath && assigned.agentSessionId
				? { ...assigned, transcriptPath: copilotSessionFile(input.env, assigned.agentSessionId) }
				: assigned;
		if (event.kind === 'stop') {
			await replayTurn(root, event, raw, input, log);
		}
		const once = new EventOnce(
			hookEventId(payloadEvent, raw, input.eventId),
			`hook ${event.eventName}`,
			() => input.engines.unbind?.(),
			testPause(input, log, label),
		);
		return await runEvent(root, event, once, input, log);
	} catch (error) {
		log?.error(`hook failed: ${(error as Error).message}`);
		return { stdout: '', status: 'failed', note: (error as Error).message };
	}
}

/**
 * Fault injection for the exactly-once test, inert unless the process runs with BATON_TEST_FAULTS=1
 * (a daemon started so) and the hook's own environment names BATON_TEST_HOOK_PAUSE_MS: a live event
 * the daemon runs stops that long after its first write, so a test can SIGKILL the daemon in the middle of it.
 */
function testPause(input: HookInput, log: HookLog, label: string): (() => Promise<void>) | undefined {
	const ms = Number(input.env['BATON_TEST_HOOK_PAUSE_MS'] ?? 0);
	if (process.env['BATON_TEST_FAULTS'] !== '1' || !(ms > 0) || input.drained || input.engines instanceof OwnEngine) {
		return undefined;
	}
	return () => {
		log.info(`${label}: paused ${ms} ms after its first write (BATON_TEST_HOOK_PAUSE_MS)`);
		return new Promise((resolve) => setTimeout(resolve, ms));
	};
}

/** The turn's tool calls whose hook never arrived (Claude's http hooks with no backend), recorded from its transcript first (hookReplay.ts). */
async function replayTurn(root: string, stop: HookEvent, raw: unknown, input: HookInput, log: HookLog): Promise<void> {
	const recorded = async (id: string): Promise<boolean> => {
		const engine = await input.engines.acquire(root, { stderr: () => undefined, env: input.env });
		try {
			return await engine.store.read(() => (engine.store.sqlite.exec('SELECT 1 FROM client_requests WHERE id = ?', [id])[0]?.values.length ?? 0) > 0);
		} finally {
			input.engines.release(engine, root);
		}
	};
	const replayed = await replayMissedCalls(stop, raw, recorded, (event, text, eventId) =>
		runHookPayload({ ...input, event, text, eventId, argv: ['hook', event], drained: true }),
	);
	if (replayed > 0) {
		log.info(
			`${stop.agent} ${stop.eventName} ${stop.agentSessionId}: ${replayed} tool call(s) whose hook never reached Baton recorded from the transcript`,
		);
	}
}

function parsePayload(text: string): { raw: unknown; problem?: string } {
	if (Buffer.byteLength(text) > maxPayloadBytes) {
		return { raw: undefined, problem: `payload over ${maxPayloadBytes} bytes` };
	}
	try {
		return { raw: JSON.parse(text) };
	} catch {
		return { raw: undefined, problem: text.trim() ? 'stdin is not JSON' : 'no payload on stdin' };
	}
}

/** Runs the event once (hookOnce.ts); in a process of its own, within its deadline or into the spool. */
async function runEvent(root: string, event: HookEvent, once: EventOnce, input: HookInput, log: HookLog): Promise<HookOutcome> {
	const started = Date.now();
	const label = `${event.agent} ${event.eventName} ${event.agentSessionId}`;
	// A session end and a tool call's result (over HTTP) answer nothing: in the daemon their work runs after the
	// answer, so the agent goes on at once (the daemon's next command or hook waits for it: a call's capture stays in order).
	const deferred = !!input.defer && (event.kind === 'sessionEnd' || (event.kind === 'postToolUse' && input.env['BATON_HOOK_TRANSPORT'] === 'http'));
	const handle = async (): Promise<string> => {
		input.engines.bind?.();
		// In the daemon: its warm engine; the engine's warnings during this call go to the hook log, as a process's own would.
		const engine = await input.engines.acquire(root, { stderr: (text) => log.warn(text.replace(/^baton: warning: /, '').trimEnd()), env: input.env });
		try {
			return await once.run(engine, async () => {
				engine.checkpoints.dirty.lastClaim = undefined;
				const result = await runHook(
					engine,
					event,
					hookOptions(engine, { actor: `hook:${event.agent}`, settings: agentSettingsOrDefaults(root, log), log, env: input.env }),
				);
				log.info(
					`${label} → ${result.action}${result.sessionId ? ` ${result.sessionId}` : ''}${result.detail ? ` (${result.detail.slice(0, 200)})` : ''}${scanNote(engine.checkpoints.dirty.lastClaim)} in ${Date.now() - started} ms${deferred ? ' (after the answer)' : ''}${input.drained ? ` (drained from the spool, spooled ${new Date(input.at).toISOString()})` : ''}`,
				);
				return result.stdout;
			});
		} finally {
			input.engines.release(engine, root);
		}
	};
	const outcome = (): Promise<HookOutcome> =>
		handle().then(done, (error: Error): HookOutcome => {
			if (error instanceof AlreadyRecorded) {
				log.info(`${label}: ${error.message}`);
				return { stdout: '', status: 'recorded' };
			}
			if (error instanceof Abandoned) {
				return { stdout: '', status: 'retry', note: error.message };
			}
			// Nothing of it is recorded (its writes are one, undone whole): a lock held too long is waited out by the spool.
			const retry = !once.started && BatonError.is(error, 'locked');
			log[retry ? 'warn' : 'error'](`${label}: hook failed after ${Date.now() - started} ms, nothing of it recorded: ${error.message}`);
			return { stdout: '', status: retry ? 'retry' : 'failed', note: error.message };
		});
	if (deferred && input.defer) {
		input.defer(outcome());
		return done();
	}
	const work = outcome();
	const first = input.deadline === undefined ? await work : await beforeDeadline(work, input.deadline);
	if (first === undefined && !once.started) {
		// Past the budget and nothing recorded yet: stop waiting (its first write would now refuse) and spool it.
		once.abandoned = true;
		input.abandoned?.();
		return input.drained
			? { stdout: '', status: 'retry', note: 'budget' }
			: spoolOwn(root, input, log, label, `not recorded within its ${Date.now() - input.at} ms budget`);
	}
	const result = first ?? (await work);
	if (result.status === 'retry' && !input.drained) {
		input.abandoned?.();
		return spoolOwn(root, input, log, label, result.note ?? 'the journal was locked');
	}
	return result;
}

function beforeDeadline<T>(work: Promise<T>, deadline: number): Promise<T | undefined> {
	return new Promise((resolve) => {
		const timer = setTimeout(() => resolve(undefined), Math.max(0, deadline - Date.now()));
		void work.then((value) => {
			clearTimeout(timer);
			resolve(value);
		});
	});
}

/**
 * A hook process's own engine: opened once for its drain and its event, its lock waits bounded by
 * the deadline until the event's first write (then the usual wait: the event is this process's).
 */
class OwnEngine implements EngineSource {
	private engine: Promise<Engine> | undefined;

	constructor(private readonly deadline: number) {}

	acquire(workspaceRoot: string): Promise<Engine> {
		// sql.js's WASM: baseline code only. Optimising it in the background costs more than a hook runs
		// and delays the exit (measured: 300 → 150 ms per call). Never in the daemon, which runs for hours.
		setFlagsFromString('--liftoff-only');
		this.engine ??= Engine.open({ workspaceRoot, log: new HookLog(hookLogFile(workspaceRoot)), lockTimeoutMs: this.remaining() });
		return this.engine;
	}

	release(): void {
		// Kept for the next event of this process; closed by close().
	}

	/** Before each event: its lock waits end at the deadline. */
	bind(): void {
		void this.engine?.then((e) => (e.store.lock.timeoutMs = this.remaining())).catch(() => undefined);
	}

	unbind(): void {
		void this.engine?.then((e) => (e.store.lock.timeoutMs = 15_000)).catch(() => undefined);
	}

	async close(): Promise<void> {
		const engine = await this.engine?.catch(() => undefined);
		if (engine) {
			// The environment of a checkpoint the hook took is recorded after it: wait before closing.
			await engine.checkpoints.settled();
			engine.close();
		}
	}

	private remaining(): number {
		return Math.max(1, this.deadline - Date.now());
	}
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
