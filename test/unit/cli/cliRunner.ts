import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';

/** The bundled CLI, as agents and hooks run it (npm test builds it first). */
export const cliPath = path.resolve(__dirname, '../../../dist/cli.js');

export interface Run {
	code: number;
	stdout: string;
	stderr: string;
	json: Record<string, any>;
}

/** Runs `baton ARGS` in `cwd`; with --json, checks that exactly one JSON line was printed. */
export function baton(cwd: string, ...args: string[]): Run {
	const result = spawnSync(process.execPath, [cliPath, ...args], {
		cwd,
		encoding: 'utf8',
		env: { ...process.env, BATON_ACTOR: 'test:cli', BATON_DAEMON_IDLE_MS: '5000' },
	});
	let json: Record<string, any> = {};
	if (args.includes('--json') && result.stdout.trim()) {
		const lines = result.stdout.trim().split('\n');
		assert.equal(lines.length, 1, `--json prints one line: ${result.stdout}`);
		json = JSON.parse(lines[0] as string);
	}
	return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr, json };
}

/**
 * `baton ARGS` without blocking this process's event loop (needed when the test itself hosts a
 * peer the CLI talks to), with extra environment (`BATON_*` secrets) and optional stdin.
 */
export function batonAsync(cwd: string, args: string[], options: { env?: NodeJS.ProcessEnv; input?: string } = {}): Promise<Run & { ms: number }> {
	const started = Date.now();
	return new Promise((resolve) => {
		const child = spawn(process.execPath, [cliPath, ...args], {
			cwd,
			env: { ...process.env, BATON_ACTOR: 'test:cli', BATON_DAEMON_IDLE_MS: '5000', ...options.env },
		});
		let stdout = '';
		let stderr = '';
		child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
		child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
		child.stdin.end(options.input ?? '');
		child.on('close', (code) => {
			let json: Record<string, any> = {};
			if (args.includes('--json') && stdout.trim()) {
				json = JSON.parse(stdout.trim().split('\n')[0] as string) as Record<string, any>;
			}
			resolve({ code: code ?? -1, stdout, stderr, json, ms: Date.now() - started });
		});
	});
}
