import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
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
	const result = spawnSync(process.execPath, [cliPath, ...args], { cwd, encoding: 'utf8', env: { ...process.env, BATON_ACTOR: 'test:cli' } });
	let json: Record<string, any> = {};
	if (args.includes('--json') && result.stdout.trim()) {
		const lines = result.stdout.trim().split('\n');
		assert.equal(lines.length, 1, `--json prints one line: ${result.stdout}`);
		json = JSON.parse(lines[0] as string);
	}
	return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr, json };
}
