/**
 * The world each real-agent test runs in: a temp folder with the agent's own HOME, a `bin` that puts
 * this build of Baton on PATH as `baton` (what the hooks `baton connect` writes call), and a git
 * repository with a Baton workspace connected to the agent. The agents are the pinned real CLIs
 * scripts/agents/install.mjs put in the cache dir (scripts/runAgentTests.mjs installs them first).
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';

export const repoRoot = path.resolve(__dirname, '../..');
export const agentsHome = process.env['BATON_AGENTS_HOME'] || path.join(os.homedir(), '.cache', 'baton-agents');
const bins = {
	claude: 'node_modules/@anthropic-ai/claude-code/bin/claude.exe',
	copilot: 'node_modules/@github/copilot/npm-loader.js',
	codex: 'node_modules/@openai/codex/bin/codex.js',
	gemini: 'node_modules/@google/gemini-cli/bundle/gemini.js',
	cline: 'node_modules/@cline/cli-linux-x64/bin/cline',
};
export type AgentName = keyof typeof bins;

export function agentBin(agent: AgentName): string {
	const bin = path.join(agentsHome, bins[agent]);
	if (!fs.existsSync(bin)) {
		throw new Error(`${bin} is missing: run \`node scripts/agents/install.mjs\` (scripts/runAgentTests.mjs does)`);
	}
	return bin;
}

export interface Run {
	code: number;
	stdout: string;
	stderr: string;
	ms: number;
}

export interface AgentWorld {
	dir: string;
	home: string;
	root: string;
	/** PATH with `baton` first. */
	path: string;
	env: Record<string, string>;
	/** `baton …` in the workspace (a process, as a person runs it). */
	baton: (args: string[], input?: string) => Run;
	/** `baton … --json`, parsed. */
	batonJson: (args: string[]) => Record<string, any>;
	git: (args: string[]) => string;
	/** The workspace's hook log. */
	hookLog: () => string;
}

/** git with a fixed identity and none of the machine's config. */
export function gitIn(cwd: string, args: readonly string[], env: Record<string, string> = {}): string {
	const result = spawnSync('git', [...args], {
		cwd,
		encoding: 'utf8',
		env: {
			PATH: process.env['PATH'] ?? '',
			HOME: cwd,
			GIT_CONFIG_NOSYSTEM: '1',
			GIT_AUTHOR_NAME: 'Dev',
			GIT_AUTHOR_EMAIL: 'dev@example.com',
			GIT_COMMITTER_NAME: 'Dev',
			GIT_COMMITTER_EMAIL: 'dev@example.com',
			...env,
		},
	});
	if (result.status !== 0) {
		throw new Error(`git ${args.join(' ')}: ${result.stderr}`);
	}
	return result.stdout.trim();
}

/** A world with a committed `a.txt` and `src/app.ts`, Baton initialised; not yet connected. */
export function agentWorld(t: Pick<TestContext, 'after'>, prefix: string): AgentWorld {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), `baton-real-${prefix}-`));
	// The workspace's daemon (and a hook the agent left behind) may still be writing its logs when the test ends:
	// stop it first, and let the removal retry what appeared while it ran.
	let stopDaemon = (): void => undefined;
	t.after(() => {
		stopDaemon();
		fs.rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
	});
	const home = path.join(dir, 'home');
	const bin = path.join(dir, 'bin');
	const root = path.join(dir, 'project');
	for (const d of [home, bin, root]) {
		fs.mkdirSync(d, { recursive: true });
	}
	const cli = path.join(repoRoot, 'dist', 'cli.js');
	if (!fs.existsSync(cli)) {
		throw new Error(`${cli} is missing: run \`npm run build\` first (npm test does)`);
	}
	fs.symlinkSync(cli, path.join(bin, 'baton'));
	fs.chmodSync(cli, 0o755);
	const PATH = `${bin}:${process.env['PATH'] ?? ''}`;
	const env: Record<string, string> = {
		PATH,
		HOME: home,
		USER: 'dev',
		LANG: 'C.UTF-8',
		TERM: 'dumb',
		NO_COLOR: '1',
		BATON_ACTOR: 'test:real-agents',
		// One daemon per workspace, as on a developer's machine; it goes idle soon after the test.
		BATON_DAEMON_IDLE_MS: '5000',
		GIT_CONFIG_NOSYSTEM: '1',
		GIT_AUTHOR_NAME: 'Dev',
		GIT_AUTHOR_EMAIL: 'dev@example.com',
		GIT_COMMITTER_NAME: 'Dev',
		GIT_COMMITTER_EMAIL: 'dev@example.com',
	};
	const git = (args: string[]) => gitIn(root, args);
	git(['init', '-q', '-b', 'main']);
	fs.writeFileSync(path.join(root, '.gitignore'), '.baton/\n');
	fs.writeFileSync(path.join(root, 'a.txt'), 'alpha\n');
	fs.mkdirSync(path.join(root, 'src'));
	fs.writeFileSync(path.join(root, 'src', 'app.ts'), 'export function total(a: number, b: number): number {\n\treturn a + b;\n}\n');
	git(['add', '.']);
	git(['commit', '-qm', 'init']);
	const baton = (args: string[], input?: string): Run => {
		const started = Date.now();
		const result = spawnSync(process.execPath, [cli, ...args], { cwd: root, encoding: 'utf8', input: input ?? '', env, timeout: 120_000 });
		return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr, ms: Date.now() - started };
	};
	const batonJson = (args: string[]): Record<string, any> => {
		const run = baton([...args, '--json']);
		if (run.code !== 0) {
			throw new Error(`baton ${args.join(' ')} exited ${run.code}: ${run.stderr}${run.stdout}`);
		}
		return JSON.parse(run.stdout) as Record<string, any>;
	};
	stopDaemon = () => void baton(['daemon', 'stop']);
	const init = baton(['init']);
	if (init.code !== 0) {
		throw new Error(`baton init: ${init.stderr}`);
	}
	const hookLog = (): string => {
		try {
			return fs.readFileSync(path.join(root, '.baton', 'logs', 'hooks.log'), 'utf8');
		} catch {
			return '';
		}
	};
	return { dir, home, root, path: PATH, env, baton, batonJson, git, hookLog };
}

/** Runs a program to its end (no TTY, stdin closed), with a deadline. */
export function runProgram(
	command: string,
	args: readonly string[],
	options: { cwd: string; env: Record<string, string>; timeoutMs?: number; input?: string },
): Promise<Run> {
	const started = Date.now();
	return new Promise((resolve, reject) => {
		const child = spawn(command, [...args], { cwd: options.cwd, env: options.env, stdio: ['pipe', 'pipe', 'pipe'] });
		let stdout = '';
		let stderr = '';
		child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
		child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
		const timer = setTimeout(() => {
			child.kill('SIGKILL');
			reject(
				new Error(
					`${path.basename(command)} ${args.join(' ').slice(0, 200)} ran past ${options.timeoutMs ?? 180_000} ms\nstdout: ${stdout.slice(-3000)}\nstderr: ${stderr.slice(-3000)}`,
				),
			);
		}, options.timeoutMs ?? 180_000);
		child.on('error', (error) => {
			clearTimeout(timer);
			reject(error);
		});
		child.on('close', (code) => {
			clearTimeout(timer);
			resolve({ code: code ?? -1, stdout, stderr, ms: Date.now() - started });
		});
		child.stdin.end(options.input ?? '');
	});
}

/** Warnings and errors in a hook log (lines that are not `info`). */
export function hookLogProblems(log: string): string[] {
	return log.split('\n').filter((line) => line.trim() && !/^\S+ info /.test(line));
}

/** Lines of a hook log that say an event was handled (the `→ action` of each call). */
export function handledLines(log: string): string[] {
	return log.split('\n').filter((line) => line.includes(' → '));
}

/** Baton's briefing as the model received it (the system prompt names the work tree's files too, so only this part counts). */
export function briefingIn(text: string): string {
	const start = text.indexOf('Baton briefing');
	const end = text.indexOf('(Full briefing', start);
	return start < 0 ? '' : text.slice(start, end < 0 ? undefined : end);
}
