/**
 * How the daemon runs its clients' commands and hooks (docs/daemon.md, "Lanes"): two lanes, each one
 * command at a time in arrival order, a bound on the wait for a turn that refuses before anything
 * ran, and one command's run against the process's engine with the client's argv, cwd, environment
 * and stdin, logged in one line. daemon.ts owns the socket, the lifecycle and the hook endpoint.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import type { CliBundle } from '../hookHost/cliBundle';
import type { EngineSource } from '../hookHost/warmEngines';
import type { CliRunParams, CliRunResult } from '../protocol/rpc';

/** The process's warm engine as commands see it: the hook host's EngineSource, and what the daemon's log and secrets need. */
export interface DaemonEngines extends EngineSource {
	/** Engines opened and lent so far (the log line says whether a command found the engine warm). */
	readonly opened: number;
	readonly lent: number;
	/** Runs one command as that client: what it does on its own behalf uses its environment's secrets only. */
	asCommand<T>(env: NodeJS.ProcessEnv, fn: () => Promise<T>): Promise<T>;
}
type RunCli = CliBundle['runCli'];

/** What the runner needs of the daemon. */
interface CommandRunnerDeps {
	log(level: 'debug' | 'info' | 'warn' | 'error', message: string): void;
	/** The CLI whose `runCli` executes commands, loaded on first use (bundledCli.ts, hookHost/cliBundle.ts). */
	cli: () => CliBundle;
	engines: DaemonEngines;
	/** A hook said an agent's session starts or ends (its id, when the payload names one). */
	onAgentSession(hook: 'session-start' | 'session-end', sessionId: string | undefined): void;
}

/** The daemon's command runner: `run` takes a `cli/run` or `hook/run`; the lanes are shared with the spool's drain. */
export function commandRunner(deps: CommandRunnerDeps): { run(params: CliRunParams, hook: boolean): Promise<CliRunResult>; lanes: Record<LaneName, Lane> } {
	let runCli: RunCli | undefined;
	const loadCli = (): RunCli => (runCli ??= deps.cli().runCli);
	const queueBound = Number(process.env['BATON_DAEMON_QUEUE_MS'] ?? '');
	const queueMs = Number.isFinite(queueBound) && queueBound > 0 ? queueBound : 60_000;
	// Two lanes, each one command at a time in arrival order: long work (a large checkpoint, sync,
	// import, a repair) runs in its own, so hooks and short commands keep answering beside it.
	const lanes: Record<LaneName, Lane> = { short: newLane(), long: newLane() };

	const run = (params: CliRunParams, hook: boolean): Promise<CliRunResult> => {
		const argv = hook && params.argv[0] !== 'hook' ? ['hook', ...params.argv] : params.argv;
		if (hook && (argv[1] === 'session-start' || argv[1] === 'session-end')) {
			deps.onAgentSession(argv[1], sessionIdOf(params.stdin));
		}
		// The command words only: options may carry secrets, and the environment always does.
		const words = argv
			.filter((a) => !a.startsWith('-'))
			.slice(0, 2)
			.join(' ');
		const lane = lanes[laneOf(argv)];
		// A command waits for its turn at most `queueMs` (hooks: their client's spool bounds them); past
		// it, it is refused before it did anything, naming the command that holds its lane.
		let refused = false;
		let refuse: (answer: CliRunResult) => void = () => undefined;
		const refusal = new Promise<CliRunResult>((resolve) => (refuse = resolve));
		lane.waiting++;
		const turnTimer = hook
			? undefined
			: setTimeout(() => {
					refused = true;
					const running = lane.running;
					const holder = running
						? `behind \`baton ${running.words}\` (running for ${Math.round((Date.now() - running.since) / 1000)} s) and ${Math.max(0, lane.waiting - 1)} other command(s)`
						: `behind ${Math.max(0, lane.waiting - 1)} other command(s)`;
					deps.log('warn', `cli/run ${words} refused: no turn within ${queueMs} ms ${holder.replace(/`/g, '')}`);
					refuse({
						stdout: '',
						stderr: `baton: not run: it waited ${Math.round(queueMs / 1000)} s for its turn in the workspace daemon, ${holder}; nothing was done. Run it again, or in a process of its own with --no-daemon\n`,
						exitCode: 1,
					});
				}, queueMs);
		// One command at a time per lane: commands were written for a process of their own, and the
		// journal's lock serialises writers anyway.
		const next = lane.queue.then(async () => {
			clearTimeout(turnTimer);
			lane.waiting--;
			if (refused) {
				return { answer: undefined, deferred: undefined };
			}
			lane.running = { words, since: Date.now() };
			try {
				return await runOne(deps, loadCli, params, hook, argv, words, lane === lanes.long);
			} finally {
				lane.running = undefined;
			}
		});
		// Work a command handed over after answering holds its lane: the next command sees its result.
		lane.queue = next.then((r) => r.deferred).catch(() => undefined);
		return Promise.race([next.then((r) => r.answer ?? refusal), refusal]);
	};

	return { run, lanes };
}

/** One command's run against the process's engine, with the client's argv, cwd, environment and stdin; logged in one line. */
async function runOne(
	deps: CommandRunnerDeps,
	loadCli: () => RunCli,
	params: CliRunParams,
	hook: boolean,
	argv: string[],
	words: string,
	long: boolean,
): Promise<{ answer: CliRunResult; deferred: Promise<unknown> | undefined }> {
	const engines = deps.engines;
	if (process.env['BATON_TEST_FAULTS'] === '1' && Number(params.env['BATON_TEST_COMMAND_HOLDS_MS'] ?? 0) > 0) {
		// Fault injection for the queue-bound test (a daemon started with BATON_TEST_FAULTS=1 only): a command that takes long.
		await new Promise((resolve) => setTimeout(resolve, Number(params.env['BATON_TEST_COMMAND_HOLDS_MS'])));
	}
	if (process.env['BATON_TEST_FAULTS'] === '1' && Number(params.env['BATON_TEST_COMMAND_SPINS_MS'] ?? 0) > 0) {
		// Fault injection for the busy-daemon test: one long synchronous step (the event loop answers nothing, the CPU works).
		const until = Date.now() + Number(params.env['BATON_TEST_COMMAND_SPINS_MS']);
		while (Date.now() < until) {
			// Spinning on purpose.
		}
	}
	const runCommand = loadCli();
	if (process.env['BATON_TEST_FAULTS'] === '1' && params.env['BATON_TEST_DAEMON_SLOW_MS']) {
		// Fault injection for the spool test (a daemon started with BATON_TEST_FAULTS=1 only): a daemon
		// busy past the client's budget, which still runs the request once it gets to it.
		await new Promise((resolve) => setTimeout(resolve, Number(params.env['BATON_TEST_DAEMON_SLOW_MS'])));
	}
	const began = Date.now();
	// Long work says when it begins, and how long it held the event loop at most (what the lanes
	// cannot help: every client waits that long), measured by Node's own event loop delay monitor.
	const loop = long ? monitorEventLoopDelay({ resolution: 10 }) : undefined;
	if (loop) {
		loop.enable();
		deps.log('debug', `cli/run ${words} began in the long lane`);
	}
	let stdout = '';
	let stderr = '';
	const openedBefore = engines.opened;
	const lentBefore = engines.lent;
	let deferred: Promise<unknown> | undefined;
	const exitCode = await engines.asCommand(params.env, () =>
		runCommand(argv, {
			stdout: (t) => void (stdout += t),
			stderr: (t) => void (stderr += t),
			cwd: params.cwd,
			// The client's environment, never the daemon's: actor, secrets and agent homes come from it.
			env: { ...params.env },
			stdin: Readable.from([params.stdin ?? '']),
			engines,
			...(params.requestId ? { requestId: params.requestId } : {}),
			...(params.eventId ? { eventId: params.eventId } : {}),
			defer: (work) => {
				deferred = work;
			},
		}),
	);
	if (process.env['BATON_TEST_FAULTS'] === '1' && params.env['BATON_TEST_DAEMON_DIES_BEFORE_ANSWER'] === '1') {
		// Fault injection for the exactly-once test (a daemon started with BATON_TEST_FAULTS=1 only): the
		// command is done and recorded, and its answer never leaves.
		process.kill(process.pid, 'SIGKILL');
	}
	// Whether the command found the engine warm or had to open it (first use, or files replaced).
	const opened = engines.opened > openedBefore;
	loop?.disable();
	// A hook that came over HTTP gets its line from the endpoint (hookHttp.ts: `hook/http …`).
	const logged = params.env['BATON_HOOK_TRANSPORT'] === 'http' ? () => undefined : deps.log;
	logged(
		'debug',
		`${hook ? 'hook/run' : 'cli/run'} ${words} → exit ${exitCode} in ${Date.now() - began} ms${opened ? ' (opened the engine)' : engines.lent > lentBefore ? ' (warm engine)' : ''}${deferred ? ' (answered; the rest runs after)' : ''}${loop ? ` (event loop held up to ${Math.round(loop.max / 1e6)} ms at a stretch)` : ''}`,
	);
	return { answer: { stdout, stderr, exitCode }, deferred };
}

/** The agent's session id in a hook payload (`session_id`), if it has one. */
function sessionIdOf(stdin: string | undefined): string | undefined {
	try {
		const id = (JSON.parse(stdin ?? '') as { session_id?: unknown }).session_id;
		return typeof id === 'string' && id ? id : undefined;
	} catch {
		return undefined;
	}
}

type LaneName = 'short' | 'long';

/** One lane of the daemon: its queue, the command running in it and how many wait (for a refusal that names what held it). */
interface Lane {
	queue: Promise<unknown>;
	running: { words: string; since: number } | undefined;
	waiting: number;
}

function newLane(): Lane {
	return { queue: Promise.resolve(), running: undefined, waiting: 0 };
}

/**
 * Commands whose work can take minutes on a large workspace or a slow remote: snapshots of the whole
 * tree and restores, sync, import and export (`import agents` reads every agent's history), repairs,
 * and search (its first run in a process builds the index: tens of seconds at 10,000 sessions, see
 * docs/search.md). Everything else (hooks included) is short.
 */
const longCommands = new Set([
	'checkpoint create',
	'checkpoint rollback',
	'timeline prune',
	'sync push',
	'sync pull',
	'sync retract',
	'import',
	'export',
	'provenance import',
	'provenance export',
	'transcripts sync',
	'issue sync',
	'doctor',
	'search',
]);

export function laneOf(argv: readonly string[]): LaneName {
	const words = argv.filter((a) => !a.startsWith('-'));
	if (words[0] === 'hook') {
		return 'short';
	}
	return longCommands.has(words.slice(0, 2).join(' ')) || longCommands.has(words[0] ?? '') ? 'long' : 'short';
}
