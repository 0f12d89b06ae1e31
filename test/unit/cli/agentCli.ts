/**
 * The `baton` CLI as agents run it: the built dist/cli.js (the launcher that sends `baton hook` to
 * dist/hook.js and everything else to dist/baton.js), or `BATON_TEST_CLI=/path/to/cli.js`.
 * `npm test` builds it first; run `npm run build` before running these tests alone.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export const repoRoot = path.resolve(__dirname, '../../..');

/** The path of the CLI. */
export async function agentCli(): Promise<string> {
	const cli = path.resolve(process.env['BATON_TEST_CLI'] ?? path.join(repoRoot, 'dist', 'cli.js'));
	if (!fs.existsSync(cli)) {
		throw new Error(`${cli} is missing: run \`npm run build\` first (npm test does)`);
	}
	return cli;
}

/**
 * Puts this build on PATH as `baton` (a link in `bin`): the hooks and MCP entries `baton connect`
 * writes call `baton`, never a path of this machine, as a teammate's clone would. Returns the PATH.
 */
export function batonOnPath(cli: string, bin: string): string {
	fs.mkdirSync(bin, { recursive: true });
	fs.symlinkSync(cli, path.join(bin, 'baton'));
	fs.chmodSync(cli, 0o755);
	return `${bin}:${process.env['PATH'] ?? ''}`;
}

export interface Run {
	code: number;
	stdout: string;
	stderr: string;
	/** The parsed stdout when it is one JSON line, else undefined. */
	json: Record<string, any> | undefined;
}

export interface RunOptions {
	input?: string;
	env?: Record<string, string>;
}

/** Runs the CLI as a process, the way an agent or a person does. */
export function runBaton(cli: string, cwd: string, args: string[], options: RunOptions = {}): Run {
	// The daemon is on by default: one a test starts goes idle soon after (and with its workspace).
	const env: NodeJS.ProcessEnv = { ...process.env, BATON_ACTOR: 'test:agents', BATON_DAEMON_IDLE_MS: '5000', ...options.env };
	delete env['CLAUDE_CONFIG_DIR'];
	const result = spawnSync(process.execPath, [cli, ...args], { cwd, encoding: 'utf8', input: options.input ?? '', env, timeout: 60_000 });
	let json: Record<string, any> | undefined;
	const lines = result.stdout.trim().split('\n');
	if (lines.length === 1 && lines[0]?.startsWith('{')) {
		try {
			json = JSON.parse(lines[0]) as Record<string, any>;
		} catch {
			json = undefined;
		}
	}
	return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr, json };
}

export const fixtureRoot = path.join(repoRoot, 'test/fixtures/hooks');
export type Dialect = 'claude' | 'copilot' | 'cline';

/** The fixtures' placeholders: the workspace and Claude's home at record time. */
const recordedWorkspace = '/home/dev/project';
const recordedClaudeHome = '/home/dev/.claude';

/**
 * A recorded payload with its paths moved into the test's workspace and Claude home (the encoded
 * project folder follows the workspace), and `overrides` applied on top.
 */
export function hookFixture(
	dialect: Dialect,
	name: string,
	where: { root: string; claudeHome: string },
	overrides: Record<string, unknown> = {},
): Record<string, any> {
	const raw = JSON.parse(fs.readFileSync(path.join(fixtureRoot, dialect, `${name}.json`), 'utf8')) as unknown;
	const encodedBefore = recordedWorkspace.replace(/[^A-Za-z0-9]/g, '-');
	const encodedAfter = where.root.replace(/[^A-Za-z0-9]/g, '-');
	const move = (value: unknown): unknown => {
		if (typeof value === 'string') {
			return value
				.replace(`${recordedClaudeHome}/projects/${encodedBefore}`, path.join(where.claudeHome, 'projects', encodedAfter))
				.replace(recordedClaudeHome, where.claudeHome)
				.replace(recordedWorkspace, where.root);
		}
		if (Array.isArray(value)) {
			return value.map(move);
		}
		if (value && typeof value === 'object') {
			return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, move(v)]));
		}
		return value;
	};
	return { ...(move(raw) as Record<string, any>), ...overrides };
}

export function fixtureNames(dialect: Dialect): string[] {
	return fs
		.readdirSync(path.join(fixtureRoot, dialect))
		.filter((f) => f.endsWith('.json'))
		.map((f) => f.slice(0, -5))
		.sort();
}

/** `.baton/logs/hooks.log` lines (empty when there is none). */
export function hookLogLines(root: string): string[] {
	try {
		return fs
			.readFileSync(path.join(root, '.baton', 'logs', 'hooks.log'), 'utf8')
			.trim()
			.split('\n')
			.filter(Boolean);
	} catch {
		return [];
	}
}
