/**
 * A large import in a process of its own (issue 28, item 2; engine/interop/importService.ts says
 * when): the backend runs `baton import FORMAT PATH --json` with the daemon off, so that process
 * opens the store itself, takes the write lock for its one write as any other writer does, and gives
 * its memory back when it ends. Its answer is the report the engine would have given; a refusal
 * comes back with the child's own code and message; a process that ends without an answer (killed,
 * out of memory) is a `storageFailure` that says how it ended. It is never ended from here: once it
 * writes, its write is all or nothing, and a backend that goes away leaves it to finish.
 */
import { spawn } from 'node:child_process';
import { BatonError, isBatonErrorCode } from '../engine/errors';
import type { ImportProcess } from '../engine/interop/importService';
import type { ImportReport } from '../engine/interop/importTypes';
import type { Logger } from '../engine/ports';

/** The end of the child's stderr kept for a failure's message. */
const stderrTailChars = 2_000;

interface ImportProcessOptions {
	workspaceRoot: string;
	/** Baton's CLI script (`dist/cli.js`). */
	cliPath: string;
	log: Logger;
	/** The Node that runs it (default: this process's own; an editor's backend runs as Node, and its children do too). */
	execPath?: string;
}

export function importProcess(options: ImportProcessOptions): ImportProcess {
	return (input) =>
		new Promise<ImportReport>((resolve, reject) => {
			const args = [options.cliPath, 'import', input.format, input.path, '--json', '--workspace', options.workspaceRoot];
			const started = Date.now();
			const child = spawn(options.execPath ?? process.execPath, input.dryRun ? [...args, '--dry-run'] : args, {
				cwd: options.workspaceRoot,
				env: { ...process.env, BATON_NO_DAEMON: '1', BATON_ACTOR: input.actor },
				stdio: ['ignore', 'pipe', 'pipe'],
			});
			const out: Buffer[] = [];
			let err = '';
			child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
			child.stderr.on('data', (chunk: Buffer) => {
				err = (err + chunk.toString('utf8')).slice(-stderrTailChars);
			});
			child.on('error', (error) => reject(new BatonError('storageFailure', `could not start the import's own process: ${error.message}`)));
			child.on('close', (code, signal) => {
				const seconds = ((Date.now() - started) / 1000).toFixed(1);
				options.log.info(
					`${input.dryRun ? 'previewed' : 'imported'} ${input.path} in a process of its own (pid ${child.pid ?? '?'}, ${seconds} s, ${signal ?? `exit ${code}`})`,
				);
				try {
					resolve(answerOf(Buffer.concat(out).toString('utf8'), code, signal, err));
				} catch (error) {
					reject(error as Error);
				}
			});
		});
}

/** The child's report, its refusal as a BatonError, or how it ended without either. */
function answerOf(stdout: string, code: number | null, signal: NodeJS.Signals | null, stderr: string): ImportReport {
	let answer: unknown;
	try {
		answer = JSON.parse(stdout.trim().split('\n').pop() ?? '');
	} catch {
		answer = undefined;
	}
	if (isObject(answer) && isObject(answer['error']) && typeof answer['error']['message'] === 'string') {
		const errorCode = answer['error']['code'];
		throw new BatonError(typeof errorCode === 'string' && isBatonErrorCode(errorCode) ? errorCode : 'storageFailure', answer['error']['message']);
	}
	if (isObject(answer) && isObject(answer['added']) && Array.isArray(answer['errors'])) {
		return answer as unknown as ImportReport;
	}
	const how = signal ? `was ended by ${signal}` : `exited with ${code ?? 'no code'}`;
	const said = stderr.trim();
	throw new BatonError('storageFailure', `the import's own process ${how} without an answer${said ? `: ${said}` : ''}`);
}

function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}
