/**
 * `baton`: the command line for people and agent hooks. Every command takes --json (one JSON object
 * on stdout) and --workspace DIR. Exit codes: 0 done, 1 refused (`{"error":{code,message}}` under
 * --json, one line on stderr otherwise), 2 bad usage.
 */
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Engine } from '../engine/engine';
import { BatonError } from '../engine/errors';
import { stderrLogger } from './stderrLogger';
import { envSecretSource } from '../engine/secrets';
import { escapeControls, withoutNul } from '../engine/text/controlChars';
import { findWorkspaceRoot } from '../engine/workspace';
import { agentCommands, runHookCli } from './agentCommands';
import { checkpointCommands } from './checkpointCommands';
import { daemonCommands } from './daemonCommands';
import { interopCommands } from './interopCommands';
import { UsageError, type Command, type OptionSpec, type ParsedValues } from './command';
import { memoryCommands } from './memoryCommands';
import { provenanceCommands } from './provenanceCommands';
import { flushNotifications, notifyCommands } from './notifyCommands';
import { jsonLine } from './printable';
import { sessionCommands } from './sessionCommands';
import { syncCommands } from './syncCommands';
import { activeSessionsList } from './textFormat';
import { timelineCommands } from './timelineCommands';
import { searchCommands } from './searchCommands';
import { boardCommands } from './boardCommands';
import { trackerCommands } from './trackerCommands';
import { drainBeforeCommand } from './spoolBeforeCommand';
import { recordAnswer, recordedAnswer, runAsRequest, tagWrites, type RecordedAnswer } from './requestLedger';
import type { CliBundle, CommandIo } from '../hookHost/cliBundle';
import { drainSpool } from '../hookHost/hookRunner';
import { workspaceCommands } from './workspaceCommands';
import { terminalPrompt } from './terminalPrompt';
import { agentShellOf } from './agentShell';
import packageJson from '../../package.json';
import { maxOf } from '../engine/arrays';
import { isAgentKind } from '../engine/agentKinds';

type CliIo = CommandIo;

const commands: Command[] = [
	...daemonCommands,
	...workspaceCommands,
	...sessionCommands,
	...memoryCommands,
	...checkpointCommands,
	...trackerCommands,
	...interopCommands,
	...agentCommands,
	...notifyCommands,
	...timelineCommands,
	...searchCommands,
	...boardCommands,
	...provenanceCommands,
	...syncCommands,
];

/** Commands that do not deliver notifications on their way out (`mcp` runs for hours; `notify` manages them). */
const noFlush = new Set(['mcp', 'notify']);

const globalOptions: Record<string, OptionSpec> = {
	json: { type: 'boolean' },
	workspace: { type: 'string' },
	actor: { type: 'string' },
	help: { type: 'boolean', short: 'h' },
	version: { type: 'boolean' },
	/** Run in this process even when the workspace's daemon could answer (dist/cli.js reads it). */
	'no-daemon': { type: 'boolean' },
};

export async function runCli(argv: string[], io: CliIo): Promise<number> {
	// Agent hooks have their own contract (always exit 0, exact stdout, tolerant options): agentCommands.ts.
	if (argv[0] === 'hook') {
		return runHookCli(argv.slice(1), io);
	}
	// Events hooks spooled are recorded before the command runs (and outside its request's id).
	await drainBeforeCommand(argv, io);
	const requestId = io.requestId;
	return requestId ? runAsRequest(requestId, () => runOnce(argv, io, requestId)) : runCommandLine(argv, io);
}

/** A command with a client's request id: the recorded answer when it already ran, else a run that records one. */
async function runOnce(argv: string[], io: CliIo, requestId: string): Promise<number> {
	let stdout = '';
	let stderr = '';
	let ledger: ReturnType<typeof tagWrites> | undefined;
	let done: RecordedAnswer | undefined;
	const captured: CliIo = { ...io, stdout: (t) => void ((stdout += t), io.stdout(t)), stderr: (t) => void ((stderr += t), io.stderr(t)) };
	const code = await runCommandLine(argv, captured, {
		opened: async (engine, words) => {
			done = await recordedAnswer(engine, requestId);
			ledger = done ? undefined : tagWrites(engine, requestId, words);
			return done === undefined;
		},
		finished: async (engine, exitCode) => {
			ledger?.untag();
			if (ledger?.wrote()) {
				// A failure here costs only the exactly-once answer, never the command's own result.
				await recordAnswer(engine, requestId, { exitCode, stdout, stderr }).catch(() => undefined);
			}
		},
	});
	if (!done) {
		return code;
	}
	// Already done by a daemon that died before answering: its answer, not a second run.
	const answer: RecordedAnswer = done;
	if (answer.exitCode === undefined) {
		io.stderr('baton: this command already ran (in the workspace daemon, which stopped before recording its output); not running it again\n');
		return 0;
	}
	io.stdout(answer.stdout);
	io.stderr(answer.stderr);
	return answer.exitCode;
}

interface RequestHooks {
	/** The engine is open; false: the command already ran, skip it. */
	opened(engine: Engine, words: string): Promise<boolean>;
	/** The command ended (output printed), with its exit code. */
	finished(engine: Engine, exitCode: number): Promise<void>;
}

/** Thrown out of a command whose request already ran: unwinds it without output. */
class AlreadyDone extends Error {}

/**
 * Who runs the command: an agent when its shell tool runs it (agentShell.ts; neither `--actor` nor
 * BATON_ACTOR, which its shell inherits from the person's, makes that a person), else `--actor`,
 * BATON_ACTOR or this user at the CLI.
 */
function actorOf(values: Record<string, unknown>, env: NodeJS.ProcessEnv): string {
	const shell = agentShellOf(env);
	if (shell) {
		return `agent:${shell.agent}`;
	}
	return (typeof values['actor'] === 'string' && values['actor']) || env['BATON_ACTOR'] || `cli:${safeUser()}`;
}

/** The active session whose agent conversation runs this command through its shell tool (Command's `ownSession`). */
async function ownSessionOf(env: NodeJS.ProcessEnv, engine: Engine): Promise<string | undefined> {
	const shell = agentShellOf(env);
	const session = shell?.conversation && isAgentKind(shell.agent) ? await engine.briefings.byAlias(shell.agent, shell.conversation) : undefined;
	return session?.status === 'active' ? session.id : undefined;
}

/** Parses one command line, runs its command and prints the answer (or the usage, or the refusal); returns the exit code. */
async function runCommandLine(argv: string[], io: CliIo, request?: RequestHooks): Promise<number> {
	const json = argv.includes('--json');
	const slot: EngineSlot = { engine: undefined, shared: false, root: '' };
	try {
		const parsed = parseCommandLine(argv);
		const { command, values, args } = parsed;
		const [min, max] = command?.positionals ?? [0, 0];
		if (!command || values['help'] || args.length < min || args.length > max) {
			return answerUsage(io, parsed);
		}
		const { workspaceRoot, isInit } = workspaceOf(command, values, io);
		const actor = actorOf(values, io.env);
		const output = await command.run({
			values,
			args,
			workspaceRoot,
			cwd: io.cwd,
			actor,
			env: io.env,
			...(io.ask ? { ask: io.ask } : {}),
			engineKept: !!io.engines && !isInit,
			engine: () => openEngineOnce(slot, io, workspaceRoot, isInit, command, request),
			ownSession: async () => ownSessionOf(io.env, await openEngineOnce(slot, io, workspaceRoot, isInit, command, request)),
		});
		if (json || output.text) {
			// The one way out for a command's answer: stored text shows its control characters escaped.
			io.stdout(json ? `${jsonLine(output.json)}\n` : `${escapeControls(output.text)}\n`);
		}
		await afterAnswer(slot, command, output.exitCode ?? 0, request);
		return output.exitCode ?? 0;
	} catch (error) {
		return await answerFailure(error, json, io, slot.engine, request);
	} finally {
		if (!slot.shared) {
			slot.engine?.close();
		} else if (slot.engine) {
			io.engines?.release(slot.engine, slot.root);
		}
	}
}

/** The engine a command opened (at most one), whether it is the daemon's shared one, and its workspace. */
interface EngineSlot {
	engine: Engine | undefined;
	shared: boolean;
	root: string;
}

/** No command, `--help`, or the wrong number of arguments: the usage that fits (exit 0 when asked for, 2 otherwise). */
function answerUsage(io: CliIo, { command, values, group }: ReturnType<typeof parseCommandLine>): number {
	if (!command && group) {
		// `baton checkpoint` or `baton checkpoint --help`: the group's usage, not an error about a command.
		io.stdout(groupHelp(group));
		return values['help'] ? 0 : 2;
	}
	if (!command) {
		if (values['version']) {
			io.stdout(`${packageJson.version}\n`);
			return 0;
		}
		io.stdout(helpText());
		return values['help'] ? 0 : 2;
	}
	if (values['help']) {
		io.stdout(`usage: ${command.usage}\n  ${command.summary}\n`);
		return 0;
	}
	throw new UsageError(`usage: ${command.usage}`);
}

/** The workspace a command works in: --workspace, else the one around the current folder (`init`: the current folder itself). */
function workspaceOf(command: Command, values: ParsedValues, io: CliIo): { workspaceRoot: string; isInit: boolean } {
	const explicit = typeof values['workspace'] === 'string' ? path.resolve(io.cwd, values['workspace']) : undefined;
	const isInit = command.path[0] === 'init';
	// Claude Code starts a project's MCP servers wherever it was launched (the desktop app: in the
	// home folder) and names the project in CLAUDE_PROJECT_DIR, so the committed `.mcp.json` needs no path.
	const projectDir = command.path[0] === 'mcp' && io.env['CLAUDE_PROJECT_DIR'] ? path.resolve(io.cwd, io.env['CLAUDE_PROJECT_DIR']) : undefined;
	const start = projectDir ?? io.cwd;
	return { workspaceRoot: explicit ?? (isInit ? io.cwd : (findWorkspaceRoot(start) ?? start)), isInit };
}

/** The command's engine, opened on its first use: the daemon's shared one when it has engines (not for `init`), else one of its own. */
async function openEngineOnce(
	slot: EngineSlot,
	io: CliIo,
	workspaceRoot: string,
	isInit: boolean,
	command: Command,
	request: RequestHooks | undefined,
): Promise<Engine> {
	if (!slot.engine) {
		slot.shared = !!io.engines && !isInit;
		slot.root = workspaceRoot;
		slot.engine =
			io.engines && !isInit
				? await io.engines.acquire(workspaceRoot, io)
				: await Engine.open({ workspaceRoot, log: stderrLogger, create: isInit, secrets: envSecretSource(io.env) });
		if (request && !(await request.opened(slot.engine, command.path.join(' ')))) {
			throw new AlreadyDone();
		}
	}
	return slot.engine;
}

/** After the answer is printed: the request's record, the command's checkpoint settled, notifications delivered, upkeep. */
async function afterAnswer({ engine, shared }: EngineSlot, command: Command, exitCode: number, request: RequestHooks | undefined): Promise<void> {
	if (!engine) {
		return;
	}
	if (request) {
		await request.finished(engine, exitCode);
	}
	if (!shared) {
		// Output first, then the environment of a checkpoint it took (recorded after it): a short process must not lose it.
		await engine.checkpoints.settled();
	}
	// Output first: a slow channel delays the exit by at most flushBudgetMs, never the answer.
	if (!noFlush.has(command.path[0] ?? '')) {
		await flushNotifications(engine).catch((error: unknown) => stderrLogger.warn(`notifications: ${(error as Error).message}`));
	}
	await engine.maintain({ shortProcess: true });
}

/** A refusal as the command line words it (exit 2 for usage, 1 otherwise); a request that already ran ends quietly with 0. */
async function answerFailure(error: unknown, json: boolean, io: CliIo, engine: Engine | undefined, request: RequestHooks | undefined): Promise<number> {
	if (error instanceof AlreadyDone) {
		return 0;
	}
	const fail = (code: string, message: string, exit: number): number => {
		if (json) {
			io.stdout(`${jsonLine({ error: { code, message } })}\n`);
		} else {
			io.stderr(`baton: ${escapeControls(message)}\n`);
		}
		return exit;
	};
	const code =
		error instanceof UsageError
			? fail('usage', error.message, 2)
			: BatonError.is(error)
				? fail(error.code, await withActiveSessions(error.message, engine), 1)
				: fail('internal', `unexpected failure: ${(error as Error).stack ?? String(error)}`, 1);
	if (engine && request) {
		// A refusal after a first write (rare) is an answer too.
		await request.finished(engine, code);
	}
	return code;
}

function parseCommandLine(argv: string[]): { command: Command | undefined; values: ParsedValues; args: string[]; group?: string } {
	// First pass with every known option, to tell option values from the command words.
	const union: Record<string, OptionSpec> = { ...globalOptions };
	for (const command of commands) {
		Object.assign(union, command.options);
	}
	let loose: string[];
	try {
		loose = parseArgs({ args: argv, options: union, strict: false, allowPositionals: true }).positionals;
	} catch (error) {
		throw new UsageError((error as Error).message);
	}
	const command = [...commands].sort((a, b) => b.path.length - a.path.length).find((c) => c.path.every((word, i) => loose[i] === word));
	if (!command && loose.length > 0) {
		const group = loose[0] ?? '';
		if (commands.some((c) => c.path.length > 1 && c.path[0] === group)) {
			if (loose.length === 1) {
				return { command: undefined, values: looseValues(argv, union), args: [], group };
			}
			throw new UsageError(`unknown command "${loose.slice(0, 2).join(' ')}"\n${groupHelp(group).trimEnd()}`);
		}
		throw new UsageError(`unknown command "${loose.slice(0, 2).join(' ')}"; run \`baton --help\``);
	}
	try {
		const parsed = parseArgs({ args: argv, options: { ...globalOptions, ...command?.options }, strict: true, allowPositionals: true });
		// A NUL means nothing in a name or a note; the daemon's clients send argv as JSON, which can hold one.
		return { command, values: withoutNul(parsed.values as ParsedValues), args: withoutNul(parsed.positionals.slice(command?.path.length ?? 0)) };
	} catch (error) {
		throw new UsageError(`${optionProblem(error as Error, command)}${command ? `\nusage: ${command.usage}` : ''}`);
	}
}

/** An engine refusal that asks "which one" gets the list to choose from (unless it already has it). */
async function withActiveSessions(message: string, engine: Engine | undefined): Promise<string> {
	if (!engine || !/sessions are active; say which one/.test(message) || message.includes('active sessions:')) {
		return message;
	}
	try {
		return `${message}\n${activeSessionsList(await engine.briefings.active())}`;
	} catch {
		return message;
	}
}

function looseValues(argv: string[], options: Record<string, OptionSpec>): ParsedValues {
	return parseArgs({ args: argv, options, strict: false, allowPositionals: true }).values as ParsedValues;
}

/** The parser's own wording ("Unknown option '--x'. To specify a positional…") turned into one plain sentence. */
function optionProblem(error: Error, command: Command | undefined): string {
	const flag = /'(-{1,2}[^'\s]+)/.exec(error.message)?.[1];
	const name = command ? command.path.join(' ') : 'baton';
	const code = (error as { code?: string }).code;
	if (flag && code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
		return `${name} does not take the option ${flag}`;
	}
	if (flag && code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
		return `${name}: the option ${flag.split(' ')[0]} needs a value`;
	}
	if (flag && code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') {
		return `${name}: unexpected argument ${flag}`;
	}
	return `${name}: ${error.message.split('. ')[0]}`;
}

/** Usage of every command in a group (`baton session`, `baton checkpoint`, …). */
function groupHelp(group: string): string {
	const members = commands.filter((c) => c.path[0] === group);
	return [
		`usage: baton ${group} <command> [options] [--json] [--workspace DIR]`,
		'',
		...members.flatMap((c) => [`  ${c.usage}`, `      ${c.summary}`]),
		'',
		`Run \`baton ${group} <command> --help\` for one command.`,
		'',
	].join('\n');
}

function helpText(): string {
	const width = maxOf(
		commands.map((c) => c.path.join(' ').length),
		-Infinity,
	);
	return [
		'baton — durable sessions for AI coding agents',
		'',
		'usage: baton <command> [options] [--json] [--workspace DIR]',
		'',
		...commands.map((c) => `  ${c.path.join(' ').padEnd(width)}  ${c.summary}`),
		'',
		'Run `baton <command> --help` for its options. Data lives in <workspace>/.baton/.',
		'',
	].join('\n');
}

function safeUser(): string {
	try {
		return os.userInfo().username;
	} catch {
		return 'unknown';
	}
}

/** The `baton` command in this process (dist/cli.js calls it for everything but `baton hook`). */
export function main(argv: string[] = process.argv.slice(2)): void {
	const ask = terminalPrompt();
	void runCli(argv, {
		stdout: (t) => process.stdout.write(t),
		stderr: (t) => process.stderr.write(t),
		cwd: process.cwd(),
		env: process.env,
		...(ask ? { ask } : {}),
	}).then((code) => {
		process.exitCode = code;
	});
}

/** What the daemon and the launcher load this bundle for (declared in hookHost/cliBundle.ts, checked here). */
export const cliBundle: CliBundle = { main, runCli, drainSpool };
