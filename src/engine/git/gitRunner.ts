/**
 * The one way Baton runs git (docs/architecture.md, "Git in one room"): a child process, through the
 * process's spawner when it has one (gitSpawner.ts). Every call gets an explicit environment from
 * gitEnv.ts, so variables inherited from a terminal or an agent hook (GIT_DIR, GIT_INDEX_FILE,
 * GIT_WORK_TREE, …) can never point git at the user's repository by accident.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { BatonError } from '../errors';
import { userRepoReadEnv } from './gitEnv';
import { activeGitSpawner, type GitChild } from './gitSpawner';

export interface GitRunOptions {
	cwd: string;
	env: NodeJS.ProcessEnv;
	/** A promise is written when it settles: git starts (and pays its start-up) while the input is computed. */
	input?: string | Buffer | Promise<string | Buffer>;
	/** Killed (SIGTERM, then SIGKILL) after this long. */
	timeoutMs?: number;
	/** Exit codes that are not failures (e.g. 1 for `check-ignore` when nothing is ignored). */
	okCodes?: readonly number[];
	/** Past this much output git is stopped and the call fails with {@link GitOutputTooLargeError}: nothing larger is held in memory. */
	maxStdoutBytes?: number;
}

export interface GitResult {
	stdout: Buffer;
	stderr: string;
	code: number;
}

/** The command a git call runs, for its messages: the first argument after git's own options (`-c key=value` and `-C dir` take the next one). */
export function gitCommand(args: readonly string[]): string {
	for (let i = 0; i < args.length; i++) {
		const arg = args[i] as string;
		if (arg === '-c' || arg === '-C') {
			i++;
		} else if (!arg.startsWith('-')) {
			return arg;
		}
	}
	return args[0] ?? '';
}

export class GitTimeoutError extends BatonError {
	constructor(args: readonly string[], timeoutMs: number) {
		super('gitFailed', `git ${gitCommand(args)} did not finish within ${timeoutMs} ms`, { args: [...args], timedOut: true });
	}
}

/** A call's output went past its `maxStdoutBytes`; git was stopped and what it printed was dropped. */
class GitOutputTooLargeError extends BatonError {
	constructor(args: readonly string[], maxStdoutBytes: number) {
		super('limitReached', `git ${gitCommand(args)} printed more than ${maxStdoutBytes} bytes`, { args: [...args], maxStdoutBytes });
	}
}

/** Runs git once: spawns it, stops it on timeout or too much output, writes its input, and settles with its output or a BatonError. */
export function runGit(args: readonly string[], options: GitRunOptions): Promise<GitResult> {
	return new Promise((resolve, reject) => {
		let child: GitChild;
		try {
			child = spawnGit(args, options);
		} catch (error) {
			reject(spawnError(error));
			return;
		}
		const timeout = stopOnTimeout(child, options.timeoutMs);
		const stdout = collectStdout(child, options.maxStdoutBytes);
		const err: Buffer[] = [];
		child.stderr?.on('data', (chunk: Buffer) => err.push(chunk));
		// git may exit before reading all of its input (a fatal error): that is reported by the exit code.
		child.stdin?.on('error', () => {});
		child.on('error', (error) => {
			timeout.clear();
			reject(spawnError(error));
		});
		child.on('close', (code, signal) => {
			timeout.clear();
			const stderr = Buffer.concat(err).toString('utf8');
			const exit = code ?? (signal ? 128 : 1);
			const failed = closeFailure(args, options, { timedOut: timeout.fired, tooLarge: stdout.tooLarge, exit, signal, stderr });
			if (failed) {
				reject(failed);
				return;
			}
			resolve({ stdout: Buffer.concat(stdout.chunks), stderr, code: exit });
		});
		writeInput(child, options.input);
	});
}

/** Starts git, through the spawner when this process uses one (gitSpawner.ts: a large process starts git slowly). */
function spawnGit(args: readonly string[], options: GitRunOptions): GitChild {
	return (
		activeGitSpawner()?.spawn('git', args, { cwd: options.cwd, env: options.env }) ??
		spawn('git', args, { cwd: options.cwd, env: options.env, stdio: ['pipe', 'pipe', 'pipe'], windowsHide: true })
	);
}

/** After `timeoutMs` (if given) git is stopped; `fired` tells the close handler why it ended, `clear` stops the timers. */
function stopOnTimeout(child: GitChild, timeoutMs: number | undefined): { fired: boolean; clear: () => void } {
	let killTimer: NodeJS.Timeout | undefined;
	const state = {
		fired: false,
		clear: () => {
			clearTimeout(timer);
			clearTimeout(killTimer);
		},
	};
	const timer =
		timeoutMs !== undefined
			? setTimeout(
					() => {
						state.fired = true;
						child.kill('SIGTERM');
						// git removes its lock files on SIGTERM; SIGKILL only if it does not go.
						killTimer = setTimeout(() => child.kill('SIGKILL'), 2_000);
					},
					Math.max(1, timeoutMs),
				)
			: undefined;
	return state;
}

/** Keeps git's output; past `maxStdoutBytes` git is killed, what it printed dropped, and `tooLarge` set. */
function collectStdout(child: GitChild, maxStdoutBytes: number | undefined): { chunks: Buffer[]; tooLarge: boolean } {
	const state = { chunks: [] as Buffer[], tooLarge: false };
	let outBytes = 0;
	child.stdout?.on('data', (chunk: Buffer) => {
		if (state.tooLarge) {
			return;
		}
		outBytes += chunk.length;
		if (maxStdoutBytes !== undefined && outBytes > maxStdoutBytes) {
			state.tooLarge = true;
			state.chunks.length = 0;
			child.kill('SIGKILL');
			return;
		}
		state.chunks.push(chunk);
	});
	return state;
}

/** Why a finished git call failed (timed out, too much output, an exit code not in `okCodes`), or undefined when it did not. */
function closeFailure(
	args: readonly string[],
	options: GitRunOptions,
	end: { timedOut: boolean; tooLarge: boolean; exit: number; signal: NodeJS.Signals | null; stderr: string },
): BatonError | undefined {
	if (end.timedOut) {
		return new GitTimeoutError(args, options.timeoutMs ?? 0);
	}
	if (end.tooLarge) {
		return new GitOutputTooLargeError(args, options.maxStdoutBytes ?? 0);
	}
	const { exit, signal, stderr } = end;
	if (exit !== 0 && !(options.okCodes ?? []).includes(exit)) {
		return new BatonError(
			'gitFailed',
			`git ${gitCommand(args)} failed (exit ${exit}${signal ? `, ${signal}` : ''}): ${stderr.trim().split('\n').slice(-3).join(' / ') || 'no message'}`,
			{
				args: [...args],
				code: exit,
				stderr,
			},
		);
	}
	return undefined;
}

/** Writes the input and closes git's stdin; a promised input is written when it settles (git is stopped if it rejects). */
function writeInput(child: GitChild, input: GitRunOptions['input']): void {
	if (input instanceof Promise) {
		input.then(
			(value) => child.stdin?.end(value),
			() => child.kill('SIGTERM'),
		);
	} else if (input !== undefined) {
		child.stdin?.end(input);
	} else {
		child.stdin?.end();
	}
}

function spawnError(error: unknown): BatonError {
	const code = (error as NodeJS.ErrnoException).code;
	return new BatonError(
		'gitFailed',
		code === 'ENOENT' ? 'git is not installed or not on PATH; checkpoints need git 2.32 or later' : `could not run git: ${(error as Error).message}`,
	);
}

/** NUL-separated output (`-z`) as strings; the trailing empty field is dropped. */
export function splitNul(buffer: Buffer): string[] {
	if (buffer.length === 0) {
		return [];
	}
	const parts = buffer.toString('utf8').split('\0');
	if (parts[parts.length - 1] === '') {
		parts.pop();
	}
	return parts;
}

/** The user's hooks folder (`git rev-parse --git-path hooks`, so `core.hooksPath` is honoured). Read-only. */
export async function userHooksDir(repo: string): Promise<string> {
	try {
		const out = await runGit(['-C', repo, 'rev-parse', '--git-path', 'hooks'], { cwd: repo, env: userRepoReadEnv(), timeoutMs: 10_000 });
		return path.resolve(repo, out.stdout.toString('utf8').trim());
	} catch (error) {
		throw new BatonError('invalidInput', `${repo} is not a git repository: ${(error as Error).message}`);
	}
}
