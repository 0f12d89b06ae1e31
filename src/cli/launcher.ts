/**
 * dist/cli.js, the `baton` command. First it asks the workspace's daemon (see daemonClient.ts) to run
 * the command: a warm engine answers, and this process loads nothing but this file. When there is no
 * daemon to reach within a short budget, or `--no-daemon` / BATON_NO_DAEMON=1 says so, it runs the
 * command here as always: `baton hook …` loads dist/hook.js (what hooks need), the rest dist/baton.js.
 *
 * Both bundles load through a V8 code cache kept beside them (hookHost/codeCache.ts). V8 rejects a
 * cache made under other flags, so the flag hooks set (`--liftoff-only`, for sql.js's WASM) is set
 * before loading, in the run that writes the cache and in every run that reads it.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { setFlagsFromString } from 'node:v8';
import { callDaemon, daemonTimedOut, findBatonRoot } from './daemonClient';
import { hookBudgetMs, hookEventName } from '../hookHost/hookBudget';
import { listSpool, spoolEnv, spoolFromClient } from '../hookHost/hookSpool';
import { loadWithCodeCache } from '../hookHost/codeCache';
import type { CliBundle } from '../hookHost/cliBundle';
import { version } from '../../package.json';

/** A bundle's exports: dist/hook.js offers `main`, dist/baton.js the whole `CliBundle` too (hookHost/cliBundle.ts). */
type Entry = Pick<CliBundle, 'main'> & { cliBundle?: CliBundle };

/**
 * Commands that never go through the daemon: they create it, manage it, or talk stdio for hours, or
 * (doctor) repair the files the daemon's engine reads and may ask the person at the terminal first.
 */
const inProcessOnly = new Set(['init', 'mcp', 'daemon', 'doctor']);

const argv = process.argv.slice(2);
const hook = argv[0] === 'hook';
const root = daemonWorkspace();
if (root) {
	void viaDaemon(root);
} else {
	runHere();
}

function runHere(stdinText?: string, requestId?: string, hookCall?: { eventId: string; deadline: number }): void {
	if (hook) {
		setFlagsFromString('--liftoff-only');
	}
	if (stdinText === undefined && requestId === undefined) {
		loadCached(path.join(__dirname, hook ? 'hook.js' : 'baton.js')).main(argv);
		return;
	}
	// After a daemon that may have run the command (its id says whether it did), or with the hook's
	// payload already read from stdin for the daemon: the CLI's runner, given both.
	const cli = loadCached(path.join(__dirname, 'baton.js'));
	let abandoned = false;
	void cli.cliBundle
		?.runCli(argv, {
			stdout: (t) => process.stdout.write(t),
			stderr: (t) => process.stderr.write(t),
			cwd: process.cwd(),
			env: process.env,
			...(stdinText !== undefined ? { stdin: Readable.from([stdinText]) } : {}),
			...(requestId !== undefined ? { requestId } : {}),
			...(hookCall ? { ...hookCall, abandoned: () => (abandoned = true) } : {}),
		})
		.then((code) => {
			process.exitCode = code;
			if (abandoned) {
				// The event is spooled and answered; its run may still wait on the lock: exit now.
				process.exit(code);
			}
		});
}

/** The workspace whose daemon should run this command, or undefined to run it here. */
function daemonWorkspace(): string | undefined {
	// On by default; `--no-daemon`, BATON_NO_DAEMON=1 or BATON_DAEMON=0 run the command here and start nothing.
	if (
		process.env['BATON_DAEMON'] === '0' ||
		process.env['BATON_NO_DAEMON'] === '1' ||
		argv.includes('--no-daemon') ||
		argv.length === 0 ||
		inProcessOnly.has(argv[0] ?? '')
	) {
		return undefined;
	}
	// `sync retract` asks the person at a terminal first (unless --yes): the daemon has no terminal.
	if (argv[0] === 'sync' && argv[1] === 'retract' && !argv.includes('--yes') && process.stdin.isTTY) {
		return undefined;
	}
	const at = argv.findIndex((a) => a === '--workspace' || a.startsWith('--workspace='));
	const explicit = at < 0 ? undefined : argv[at]?.includes('=') ? argv[at]?.slice('--workspace='.length) : argv[at + 1];
	return findBatonRoot(explicit ? path.resolve(explicit) : process.cwd());
}

async function viaDaemon(workspace: string): Promise<void> {
	const stdin = hook ? await readAll(process.stdin) : undefined;
	// A hook hands its event over within its budget (docs/daemon.md, "The hook spool"): to the daemon, else in process, else to the spool.
	const hookBudget = stdin === undefined ? 0 : hookBudgetMs(process.env, hookEventName(argv.slice(1), stdin));
	const deadline = hook ? Date.now() + hookBudget : undefined;
	const eventId = hook ? randomUUID() : undefined;
	const budget = Number(process.env['BATON_DAEMON_BUDGET_MS'] ?? '');
	const answer = Number(process.env['BATON_DAEMON_ANSWER_MS'] ?? '');
	// The bounds of docs/daemon.md: a daemon being started gets 10 s, a silent one 5 s; a hook never past its own budget.
	const reach = Number.isFinite(budget) && budget > 0 ? budget : 10_000;
	const env: Record<string, string> = {};
	for (const [key, value] of Object.entries(process.env)) {
		if (value !== undefined) {
			env[key] = value;
		}
	}
	// Commands (not hooks) carry an id the daemon records with their first write (see requestLedger.ts).
	const requestId = hook ? undefined : randomUUID();
	const result = (await callDaemon(
		workspace,
		hook ? 'hook/run' : 'cli/run',
		{ argv, cwd: process.cwd(), env, ...(stdin !== undefined ? { stdin } : {}), ...(requestId ? { requestId } : {}), ...(eventId ? { eventId } : {}) },
		{
			start: true,
			budgetMs: deadline === undefined ? reach : Math.min(reach, deadline - Date.now()),
			...(Number.isFinite(answer) && answer > 0 ? { answerMs: answer } : {}),
			notice: (message) => tell(workspace, message),
			serverScript: path.join(__dirname, 'backend.js'),
			version,
			sameVersion: true,
			...(deadline !== undefined ? { deadline } : {}),
		},
	).catch(() => undefined)) as { stdout: string; stderr: string; exitCode: number } | typeof daemonTimedOut | undefined;
	const spoolNow =
		hook && eventId && stdin !== undefined && deadline !== undefined && (!result || result === daemonTimedOut)
			? spoolReason(workspace, result === daemonTimedOut, deadline, hookBudget)
			: undefined;
	if (spoolNow && eventId && stdin !== undefined) {
		// The spooled copy is recorded at most once with any run the daemon still makes of it (hookOnce.ts).
		process.stderr.write(
			spoolFromClient(workspace, { eventId, at: Date.now(), argv, cwd: process.cwd(), env: spoolEnv(process.env), stdin }, process.env, spoolNow),
		);
		if (isClineHook(stdin)) {
			process.stdout.write('{"cancel":false}\n');
		}
		process.exit(0);
	}
	if (!result || result === daemonTimedOut) {
		runHere(stdin, requestId, eventId && deadline !== undefined ? { eventId, deadline } : undefined);
		return;
	}
	process.stdout.write(result.stdout);
	process.stderr.write(result.stderr);
	process.exitCode = result.exitCode;
}

/** A command tells the person at its terminal; a hook (whose stderr its agent may show) the hooks' log. */
function tell(workspace: string, message: string): void {
	if (!hook) {
		process.stderr.write(`baton: ${message}\n`);
		return;
	}
	try {
		fs.appendFileSync(path.join(workspace, '.baton', 'logs', 'hooks.log'), `${new Date().toISOString()} warn pid=${process.pid} ${message}\n`, {
			mode: 0o600,
		});
	} catch {
		// Out of disk: the hook still answers.
	}
}

/**
 * Why a hook the daemon did not answer goes straight to the spool instead of running here: the daemon
 * has it and may still run it; earlier events wait in the spool (this one would only queue behind
 * them, after opening the engine); or less than half the budget is left, and opening the engine costs
 * about that on a loaded machine. Undefined: run it here, within what is left.
 */
function spoolReason(workspace: string, daemonHasIt: boolean, deadline: number, budget: number): string | undefined {
	if (daemonHasIt) {
		return 'the daemon did not answer within the budget';
	}
	if (listSpool(workspace).records.length > 0) {
		return 'no daemon answered, and earlier events wait in the spool';
	}
	return deadline - Date.now() < budget / 2 ? 'no daemon answered within half the budget' : undefined;
}

/** Cline reads every hook's stdout and takes anything but `{"cancel":false}` for a failed hook (hookResponses.ts). */
function isClineHook(payload: string): boolean {
	const at = argv.indexOf('--agent');
	const agent = at >= 0 ? argv[at + 1] : argv.find((a) => a.startsWith('--agent='))?.slice('--agent='.length);
	return agent !== undefined ? agent === 'cline' : /"(taskId|hookName|clineVersion)"\s*:/.test(payload);
}

function readAll(stream: NodeJS.ReadableStream): Promise<string> {
	return new Promise((resolve) => {
		const chunks: Buffer[] = [];
		stream.on('data', (c: Buffer) => chunks.push(c));
		stream.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
		stream.on('error', () => resolve(Buffer.concat(chunks).toString('utf8')));
	});
}

function loadCached(file: string): Entry {
	// A hook that fell back after the daemon loads baton.js under --liftoff-only, a command without it:
	// one cache per flag set, or each would reject (and rewrite) the other's. Written at exit, when the
	// functions the command ran are compiled too, so the next run finds them in the cache.
	const loaded = loadWithCodeCache<Entry>(file, module, hook ? '.liftoff' : '');
	if (!loaded.cached) {
		process.once('exit', loaded.save);
	}
	return loaded.exports;
}
