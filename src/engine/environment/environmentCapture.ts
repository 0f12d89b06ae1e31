/**
 * The environment around a checkpoint (docs/architecture.md §1): agent CLIs (version, binary hash), VS Code
 * and its extensions (passed in by the host), MCP servers, runtimes, lockfile packages and the git
 * state of the user's repository. Every probe runs in parallel against one deadline (about a
 * second); a probe that fails or runs late is recorded in `unknown`, and capture itself never throws.
 * A probe whose inputs did not change (a binary's path, size and times, a lockfile's stat, the
 * repository's state) is not run again: its answer comes from the environment cache.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { EnvironmentSnapshot } from '../storage/jsonShapes';
import { mkdirInExisting, privateFileMode } from '../workspace';
import { environmentCache, type EnvironmentCache } from './environmentCache';
import { readLockfiles } from './lockfilePackages';
import { readMcpServers } from './readMcpServers';
import { cachedGitState, type WorkspaceState } from './userGitState';
import { pushAll } from '../arrays';

/** What only the editor knows. */
export interface HostEnvironment {
	vscode?: { version: string | null; extensions: Record<string, string> | { id: string; version: string }[] };
}

interface CaptureOptions {
	workspaceRoot: string;
	timeoutMs: number;
	nowIso: string;
	host?: HostEnvironment | undefined;
	/** The environment git and the probed commands run with (for reading the user's repository: no optional locks). */
	gitEnv: NodeJS.ProcessEnv;
	/** PATH to look for agents and runtimes on; the process's own by default. */
	searchPath?: string | undefined;
	/** Where binary hashes are remembered between processes (by path, size and mtime). */
	hashCacheFile?: string | undefined;
	/** Where versions, parsed lockfiles and the git state are remembered between processes (by their inputs' fingerprints). */
	cacheFile?: string | undefined;
	/** What vouches for the work tree: the user's `git status` is reused while it, HEAD, the branch ref and the index stay the same. */
	workspaceState?: WorkspaceState | undefined;
}

const agentCommands = ['claude', 'codex', 'gemini', 'copilot', 'cursor-agent', 'aider'];

const runtimeProbes: { name: string; command: string | string[]; args: string[]; when?: string }[] = [
	{ name: 'node', command: 'node', args: ['--version'] },
	{ name: 'python', command: ['python3', 'python'], args: ['--version'] },
	{ name: 'git', command: 'git', args: ['--version'] },
	{ name: 'go', command: 'go', args: ['version'] },
	{ name: 'rustc', command: 'rustc', args: ['--version'] },
	{ name: 'ruby', command: 'ruby', args: ['--version'] },
	{ name: 'deno', command: 'deno', args: ['--version'] },
	{ name: 'bun', command: 'bun', args: ['--version'] },
	// Package managers only where their lockfile says they are used (npm alone costs ~200 ms).
	{ name: 'npm', command: 'npm', args: ['--version'], when: 'package-lock.json' },
	{ name: 'pnpm', command: 'pnpm', args: ['--version'], when: 'pnpm-lock.yaml' },
	{ name: 'yarn', command: 'yarn', args: ['--version'], when: 'yarn.lock' },
];

/** Binary hashes by path, size and mtime: a large agent binary is hashed once per process (and per version). */
const hashCache = new Map<string, string>();

export async function captureEnvironment(options: CaptureOptions): Promise<EnvironmentSnapshot> {
	const started = Date.now();
	const deadline = started + options.timeoutMs;
	const unknown: string[] = [];
	const searchPath = options.searchPath ?? process.env['PATH'] ?? '';
	const settle = async <T>(label: string, work: Promise<T>): Promise<T | undefined> => {
		try {
			return await withDeadline(work, deadline);
		} catch (error) {
			unknown.push(`${label}: ${(error as Error).message}`);
			return undefined;
		}
	};

	const cache = environmentCache(options.cacheFile);
	cache.refresh();
	const agents: EnvironmentSnapshot['agents'] = {};
	const runtimes: EnvironmentSnapshot['runtimes'] = {};
	const agentWork = agentCommands.map(async (name) => {
		const file = which(name, searchPath);
		if (!file) return;
		const [version, hash] = await Promise.all([
			settle(`agent ${name} version`, cachedVersion(file, ['--version'], deadline, cache)),
			settle(`agent ${name} binary hash`, hashBinary(file, options.hashCacheFile)),
		]);
		agents[name] = { version: version ?? null, path: file, binaryHash: hash ?? null };
	});
	const runtimeWork = runtimeProbes.map(async (probe) => {
		if (probe.when && !fs.existsSync(path.join(options.workspaceRoot, probe.when))) return;
		const file = (Array.isArray(probe.command) ? probe.command : [probe.command]).map((c) => which(c, searchPath)).find((f) => f !== null);
		if (!file) return;
		const version = await settle(`runtime ${probe.name}`, cachedVersion(file, probe.args, deadline, cache));
		if (version) runtimes[probe.name] = version;
	});
	// Not under the shared deadline: it may wait for the snapshot, then has its own `timeoutMs`.
	const gitWork = cachedGitState({
		workspaceRoot: options.workspaceRoot,
		gitEnv: options.gitEnv,
		workspaceState: options.workspaceState,
		cache,
		deadline,
		timeoutMs: options.timeoutMs,
	}).catch((error: unknown) => {
		unknown.push(`git state: ${(error as Error).message}`);
		return undefined;
	});
	// File reads are synchronous and small (bounded lockfiles); they run while the processes do.
	const mcp = readMcpServers(options.workspaceRoot);
	const lockfiles = readLockfiles(options.workspaceRoot, cache);
	pushAll(unknown, [...mcp.problems, ...lockfiles.problems]);
	const [git] = await Promise.all([gitWork, ...agentWork, ...runtimeWork]);
	cache.save();
	return {
		capturedAt: options.nowIso,
		durationMs: Date.now() - started,
		agents: sortKeys(agents),
		vscode: hostVscode(options.host),
		mcpServers: mcp.servers,
		runtimes: sortKeys(runtimes),
		packages: lockfiles.sets,
		git: git ?? null,
		unknown: unknown.sort(),
	};
}

function hostVscode(host: HostEnvironment | undefined): EnvironmentSnapshot['vscode'] {
	if (!host?.vscode) return null;
	const list = host.vscode.extensions;
	const extensions = Array.isArray(list) ? Object.fromEntries(list.map((e) => [e.id, e.version])) : { ...list };
	return { version: host.vscode.version, extensions: sortKeys(extensions) };
}

/** Where `name` would run from on `searchPath`, without spawning anything. */
function which(name: string, searchPath: string): string | null {
	const exts = process.platform === 'win32' ? (process.env['PATHEXT'] ?? '.EXE;.CMD;.BAT').split(';') : [''];
	for (const dir of searchPath.split(path.delimiter)) {
		if (!dir) continue;
		for (const ext of exts) {
			const file = path.join(dir, name + ext);
			try {
				fs.accessSync(file, fs.constants.X_OK);
				if (fs.statSync(file).isFile()) return file;
			} catch {
				// Not here.
			}
		}
	}
	return null;
}

function commandVersion(file: string, args: string[], deadline: number): Promise<string> {
	return new Promise((resolve, reject) => {
		execFile(
			file,
			args,
			{ timeout: Math.max(1, deadline - Date.now()), windowsHide: true, encoding: 'utf8', maxBuffer: 1 << 20 },
			(error, stdout, stderr) => {
				const text = `${stdout}\n${stderr}`.trim();
				if (error && !text) {
					reject(new Error(error.killed ? 'timed out' : error.message.split('\n')[0]));
					return;
				}
				if (!text) {
					// Also what a timeout that fired after the child exited (a busy event loop) leaves: its output
					// thrown away and no error. Never an answer to remember.
					reject(new Error('no output (timed out?)'));
					return;
				}
				const first = text.split('\n').find((l) => l.trim()) ?? '';
				resolve((/\d+\.\d+(?:\.\d+)?(?:[-+][\w.-]+)?/.exec(first)?.[0] ?? first).slice(0, 100));
			},
		);
	});
}

/**
 * sha256 of the resolved binary (symlinks followed). A hash that misses this capture's deadline
 * keeps going and lands in the cache (memory and `cacheFile`), so a later checkpoint has it: a
 * native agent binary can be 200 MB.
 */
function hashBinary(file: string, cacheFile: string | undefined): Promise<string> {
	const real = fs.realpathSync(file);
	const stat = fs.statSync(real);
	const key = `${real}\0${stat.size}\0${stat.mtimeMs}`;
	const stored = readHashCache(cacheFile)[real];
	const cached = hashCache.get(key) ?? (stored?.size === stat.size && stored.mtimeMs === stat.mtimeMs ? stored.hash : undefined);
	if (cached) return Promise.resolve(cached);
	let running = hashing.get(key);
	if (!running) {
		running = (async () => {
			const hash = createHash('sha256');
			for await (const chunk of fs.createReadStream(real)) hash.update(chunk as Buffer);
			const value = `sha256:${hash.digest('hex')}`;
			hashCache.set(key, value);
			writeHashCache(cacheFile, real, { size: stat.size, mtimeMs: stat.mtimeMs, hash: value });
			return value;
		})().finally(() => hashing.delete(key));
		hashing.set(key, running);
	}
	return running;
}

interface CachedHash {
	size: number;
	mtimeMs: number;
	hash: string;
}

const hashing = new Map<string, Promise<string>>();

function readHashCache(cacheFile: string | undefined): Record<string, CachedHash> {
	if (!cacheFile) return {};
	try {
		return JSON.parse(fs.readFileSync(cacheFile, 'utf8')) as Record<string, CachedHash>;
	} catch {
		return {};
	}
}

function writeHashCache(cacheFile: string | undefined, binary: string, entry: CachedHash): void {
	if (!cacheFile) return;
	try {
		// Binaries that are gone are dropped, so the file stays small.
		const entries = Object.entries({ ...readHashCache(cacheFile), [binary]: entry }).filter(([file]) => fs.existsSync(file));
		mkdirInExisting(path.dirname(cacheFile));
		fs.writeFileSync(cacheFile, `${JSON.stringify(Object.fromEntries(entries), null, 1)}\n`, { mode: privateFileMode });
	} catch {
		// A cache: losing it costs one more hash.
	}
}

/** A binary's version, asked once per binary file (path, size, mtime): a probe spawns a process. */
async function cachedVersion(file: string, args: string[], deadline: number, cache: EnvironmentCache): Promise<string> {
	let key: string | undefined;
	try {
		const real = fs.realpathSync(file);
		const stat = fs.statSync(real);
		key = `${real}\0${stat.ino}\0${stat.size}\0${stat.mtimeMs}\0${stat.ctimeMs}\0${args.join(' ')}`;
	} catch {
		// Unstattable: ask every time.
	}
	const hit = key === undefined ? undefined : cache.version(key);
	if (hit !== undefined) return hit;
	const version = await commandVersion(file, args, deadline);
	if (key !== undefined) cache.setVersion(key, version);
	return version;
}

function withDeadline<T>(work: Promise<T>, deadline: number): Promise<T> {
	let timer: NodeJS.Timeout | undefined;
	const late = new Promise<never>((_, reject) => {
		timer = setTimeout(() => reject(new Error('timed out')), Math.max(0, deadline - Date.now()));
	});
	return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

function sortKeys<T>(record: Record<string, T>): Record<string, T> {
	return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
