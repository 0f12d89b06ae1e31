/**
 * The `baton` CLI as agents run it, with the agent commands wired in: an esbuild bundle of the real
 * src/cli/main.ts (the same options as esbuild.mjs), to which the build applies exactly the wiring
 * the agents work asks of main.ts (`mainWiring`) when main.ts does not have it yet. Once main.ts has
 * it, the bundle is main.ts unchanged. `BATON_TEST_CLI=/path/to/cli.js` runs the tests against a
 * given build instead (e.g. dist/cli.js).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as esbuild from 'esbuild';

export const repoRoot = path.resolve(__dirname, '../../..');

/** The change main.ts needs (see the agents report): [text in main.ts, replacement]. */
export const mainWiring: [string, string][] = [
	["import { checkpointCommands } from './checkpointCommands';", "import { agentCommands, runHookCli } from './agentCommands';\nimport { checkpointCommands } from './checkpointCommands';"],
	['const commands: Command[] = [...workspaceCommands, ...sessionCommands, ...checkpointCommands];', 'const commands: Command[] = [...workspaceCommands, ...sessionCommands, ...checkpointCommands, ...agentCommands];'],
	[
		"export async function runCli(argv: string[], io: CliIo): Promise<number> {\n",
		"export async function runCli(argv: string[], io: CliIo): Promise<number> {\n\t// Agent hooks have their own contract (always exit 0, exact stdout, tolerant options): agentCommands.ts.\n\tif (argv[0] === 'hook') {\n\t\treturn runHookCli(argv.slice(1), io);\n\t}\n",
	],
	['\t\tio.stdout(json ? `${JSON.stringify(output.json)}\\n` : `${output.text}\\n`);\n', '\t\tif (json || output.text) {\n\t\t\tio.stdout(json ? `${JSON.stringify(output.json)}\\n` : `${output.text}\\n`);\n\t\t}\n'],
];

const wireAgentCommands: esbuild.Plugin = {
	name: 'wire-agent-commands',
	setup(build) {
		build.onLoad({ filter: /[\\/]src[\\/]cli[\\/]main\.ts$/ }, (args) => {
			let contents = fs.readFileSync(args.path, 'utf8');
			if (!contents.includes('agentCommands')) {
				for (const [from, to] of mainWiring) {
					if (!contents.includes(from)) {
						throw new Error(`src/cli/main.ts no longer contains ${JSON.stringify(from)}: update mainWiring in test/unit/agents/agentCli.ts`);
					}
					contents = contents.replace(from, to);
				}
			}
			return { contents, loader: 'ts' };
		});
	},
};

let built: Promise<string> | undefined;

/** The path of the CLI bundle (built once per test process). */
export function agentCli(): Promise<string> {
	built ??= buildAgentCli();
	return built;
}

async function buildAgentCli(): Promise<string> {
	if (process.env['BATON_TEST_CLI']) {
		return path.resolve(process.env['BATON_TEST_CLI']);
	}
	const out = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-agent-cli-'));
	process.on('exit', () => fs.rmSync(out, { recursive: true, force: true }));
	await esbuild.build({
		absWorkingDir: repoRoot,
		entryPoints: ['src/cli/main.ts'],
		outfile: path.join(out, 'cli.js'),
		bundle: true,
		platform: 'node',
		format: 'cjs',
		target: 'node20',
		mainFields: ['module', 'main'],
		banner: { js: '#!/usr/bin/env node' },
		logLevel: 'silent',
		plugins: [wireAgentCommands],
	});
	fs.copyFileSync(path.join(repoRoot, 'node_modules/sql.js/dist/sql-wasm.wasm'), path.join(out, 'sql-wasm.wasm'));
	return path.join(out, 'cli.js');
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
	const env: NodeJS.ProcessEnv = { ...process.env, BATON_ACTOR: 'test:agents', ...options.env };
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
export function hookFixture(dialect: Dialect, name: string, where: { root: string; claudeHome: string }, overrides: Record<string, unknown> = {}): Record<string, any> {
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
		return fs.readFileSync(path.join(root, '.baton', 'logs', 'hooks.log'), 'utf8').trim().split('\n').filter(Boolean);
	} catch {
		return [];
	}
}
