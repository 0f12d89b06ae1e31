/** Real processes for the daemon tests: the built CLI and server, and what /proc says about them. */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { agentCli } from '../cli/agentCli';
import { tempDir } from '../helpers';

export interface Result {
	code: number | null;
	stdout: string;
	stderr: string;
}

/** Env of every run: a budget long enough that a loaded machine still reaches the daemon. */
export function daemonEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = { ...process.env, BATON_ACTOR: 'test:daemon', BATON_DAEMON_BUDGET_MS: '20000', BATON_DAEMON_IDLE_MS: '30000' };
	delete env['BATON_NO_DAEMON'];
	return { ...env, ...extra };
}

/** `baton ARGS` as a child process, asynchronously (so several can race). */
export function baton(cli: string, cwd: string, args: string[], options: { input?: string; env?: Record<string, string> } = {}): Promise<Result> {
	return new Promise((resolve) => {
		const child = spawn(process.execPath, [cli, ...args], { cwd, env: daemonEnv(options.env), stdio: ['pipe', 'pipe', 'pipe'] });
		let stdout = '';
		let stderr = '';
		child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
		child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
		child.stdin.end(options.input ?? '');
		child.on('close', (code) => resolve({ code, stdout, stderr }));
	});
}

/** A fresh initialised workspace whose daemon (if any) is killed when the test ends. */
export async function daemonWorkspace(t: TestContext): Promise<{ cli: string; root: string }> {
	const cli = await agentCli();
	const root = fs.realpathSync(tempDir(t, 'baton-daemon-'));
	spawnSync('git', ['init', '-q', root]);
	const init = spawnSync(process.execPath, [cli, 'init'], { cwd: root, env: daemonEnv(), encoding: 'utf8' });
	if (init.status !== 0) {
		throw new Error(`baton init failed: ${init.stderr}`);
	}
	t.after(() => {
		for (const pid of daemonPids(root)) {
			try {
				process.kill(pid, 'SIGKILL');
			} catch {
				// Already gone.
			}
		}
	});
	return { cli, root };
}

/** Live `server.js --daemon` processes serving this workspace, from /proc. */
export function daemonPids(root: string): number[] {
	const pids: number[] = [];
	for (const entry of fs.readdirSync('/proc')) {
		if (!/^\d+$/.test(entry)) {
			continue;
		}
		try {
			const args = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
			const state = /^State:\s+(\w)/m.exec(fs.readFileSync(`/proc/${entry}/status`, 'utf8'))?.[1];
			if (state !== 'Z' && args.includes('--daemon') && args[args.indexOf('--workspace') + 1] === root) {
				pids.push(Number(entry));
			}
		} catch {
			// Exited while we looked.
		}
	}
	return pids;
}

export function endpoint(root: string): { pid: number; socket: string; instance: string } | undefined {
	try {
		return JSON.parse(fs.readFileSync(path.join(root, '.baton', 'daemon.json'), 'utf8')) as { pid: number; socket: string; instance: string };
	} catch {
		return undefined;
	}
}

/** Socket inodes of the TCP/TCP6 listeners on this machine (state 0A = LISTEN). */
export function tcpListenerInodes(): Set<string> {
	const inodes = new Set<string>();
	for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
		const lines = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim().split('\n').slice(1) : [];
		for (const line of lines) {
			const cells = line.trim().split(/\s+/);
			if (cells[3] === '0A' && cells[9]) {
				inodes.add(cells[9]);
			}
		}
	}
	return inodes;
}

/** The socket inodes a process holds open. */
export function socketInodes(pid: number): string[] {
	return fs
		.readdirSync(`/proc/${pid}/fd`)
		.map((fd) => {
			try {
				return /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
			} catch {
				return undefined;
			}
		})
		.filter((inode): inode is string => inode !== undefined);
}

export async function waitFor(condition: () => boolean, ms: number): Promise<boolean> {
	const deadline = Date.now() + ms;
	while (Date.now() < deadline) {
		if (condition()) {
			return true;
		}
		await new Promise((resolve) => setTimeout(resolve, 50));
	}
	return condition();
}

/** Claude Code's payload for a Write tool call (before or after it) of `file`, as its hook sends it. */
export function claudeToolCall(root: string, session: string, phase: 'PreToolUse' | 'PostToolUse', id: string, file: string): string {
	const input = { file_path: path.join(root, file), content: `export const id = '${id}';\n` };
	return JSON.stringify({
		session_id: session,
		cwd: root,
		hook_event_name: phase,
		tool_name: 'Write',
		tool_input: input,
		...(phase === 'PostToolUse' ? { tool_response: { type: 'create', filePath: input.file_path } } : {}),
		tool_use_id: id,
		transcript_path: path.join(root, 'none.jsonl'),
	});
}
