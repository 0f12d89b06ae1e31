/**
 * Baton's shadow git store: `<workspace>/.baton/shadow.git`, a git directory of Baton's own whose
 * work tree is the workspace (docs/architecture.md §5). Every git call runs with GIT_DIR,
 * GIT_WORK_TREE and GIT_INDEX_FILE set explicitly, inherited GIT_* variables dropped, the user's
 * global and system config ignored, and `* -text -filter -ident -working-tree-encoding` so files are
 * stored byte for byte. The user's `.git`, index, refs, stash and config are never read or written
 * through it, and nested `.git` folders are never renamed.
 *
 * Operations on the index are serialized: within this process by a queue per shadow directory,
 * across processes (two windows, the CLI, agent hooks) by a lock file of the shadow's own.
 */
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { BatonError } from '../errors';
import { mkdirPrivate, privateFileMode } from '../workspace';
import { LockFile } from '../storage/lockFile';
import { hostEnv, userRepoEnv } from '../git/gitEnv';
import { runGit, type GitResult } from '../git/gitRunner';
import { forgetIgnoreVerdicts } from './ignoreVerdicts';

export const shadowDirName = 'shadow.git';

/** The recommended shadow config, appended to what `git init` probed. */
const shadowConfig = `
[core]
	autocrlf = false
	safecrlf = false
	quotePath = false
	untrackedCache = true
	compression = 1
	fsmonitor = false
	logAllRefUpdates = false
[gc]
	auto = 0
[commit]
	gpgsign = false
[diff]
	ignoreSubmodules = all
[status]
	submoduleSummary = false
[feature]
	manyFiles = true
[advice]
	addEmbeddedRepo = false
	detachedHead = false
`;

/** Byte-exact snapshots: no eol conversion, no clean/smudge filters (LFS), no ident or encodings. */
const shadowAttributes = '* -text -filter -ident -working-tree-encoding\n';

/** Bumped when the shadow's setup changes, so older shadows are brought up to date on open. */
const layoutVersion = 1;

interface GitCallOptions {
	input?: string | Buffer | Promise<string | Buffer>;
	timeoutMs?: number;
	okCodes?: readonly number[];
	/** Overrides for this call only (a temporary index, commit dates). */
	env?: Record<string, string>;
	/** See runGit: past this much output the call fails instead of holding it. */
	maxStdoutBytes?: number;
}

const queues = new Map<string, Promise<unknown>>();

export class ShadowRepo {
	readonly gitDir: string;
	readonly indexFile: string;
	/** An empty file: git's "global" config for every call, so the user's never applies. */
	readonly emptyConfig: string;
	private readonly lock: LockFile;
	private readonly baseEnv: NodeJS.ProcessEnv;
	private initialized = false;

	constructor(
		readonly workTree: string,
		batonDir: string,
		lockTimeoutMs = 10 * 60_000,
	) {
		this.gitDir = path.join(batonDir, shadowDirName);
		this.indexFile = path.join(this.gitDir, 'index');
		this.emptyConfig = path.join(this.gitDir, 'baton-empty.gitconfig');
		this.lock = new LockFile(path.join(this.gitDir, 'baton.lock'), lockTimeoutMs);
		this.baseEnv = hostEnv({
			GIT_DIR: this.gitDir,
			GIT_WORK_TREE: workTree,
			GIT_INDEX_FILE: this.indexFile,
			GIT_CONFIG_NOSYSTEM: '1',
			GIT_CONFIG_GLOBAL: this.emptyConfig,
			GIT_ATTR_NOSYSTEM: '1',
			GIT_NO_REPLACE_OBJECTS: '1',
			// $HOME/.config/git/{ignore,attributes} apply even with GIT_CONFIG_GLOBAL set.
			HOME: this.gitDir,
			XDG_CONFIG_HOME: this.gitDir,
			GIT_AUTHOR_NAME: 'Baton',
			GIT_AUTHOR_EMAIL: 'baton@localhost',
			GIT_COMMITTER_NAME: 'Baton',
			GIT_COMMITTER_EMAIL: 'baton@localhost',
			// The shadow is Baton's own: its ownership check must not depend on the user's global config.
			GIT_CONFIG_COUNT: '1',
			GIT_CONFIG_KEY_0: 'safe.directory',
			GIT_CONFIG_VALUE_0: '*',
		});
	}

	/** True once a shadow store exists for the workspace: checkpoints are in use here. */
	exists(): boolean {
		return fs.existsSync(path.join(this.gitDir, 'HEAD'));
	}

	/** The isolated "global" config must exist before the first git call that names it. */
	ensureEmptyConfig(): void {
		if (!fs.existsSync(this.emptyConfig)) {
			mkdirPrivate(this.gitDir);
			fs.writeFileSync(this.emptyConfig, '', { mode: privateFileMode });
		}
	}

	/** Environment for reading a repository of the user's (nested repos, git state) without writing to it. */
	userRepoEnv(): NodeJS.ProcessEnv {
		return userRepoEnv(this.emptyConfig);
	}

	/**
	 * Runs `fn` holding the shadow's lock (this process's queue, then the cross-process lock file).
	 * The lock's timeout bounds the whole wait, the queue included: in the daemon a hook's capture
	 * waits behind a long checkpoint of the same process only for its budget, not the checkpoint's length.
	 */
	async withLock<T>(fn: () => Promise<T>): Promise<T> {
		const previous = queues.get(this.gitDir) ?? Promise.resolve();
		const started = Date.now();
		const bound = this.lock.timeoutMs;
		let gaveUp = false;
		const turn = async (): Promise<T> => {
			if (gaveUp) {
				throw new BatonError('locked', 'gave up waiting for the checkpoint store');
			}
			return this.runLocked(fn, Math.max(1, bound - (Date.now() - started)));
		};
		const run = previous.then(turn, turn);
		const tail = run.catch(() => undefined);
		queues.set(this.gitDir, tail);
		let timer: NodeJS.Timeout | undefined;
		const waited = new Promise<never>((_, reject) => {
			timer = setTimeout(() => {
				gaveUp = true;
				reject(
					new BatonError(
						'locked',
						`the checkpoint store is busy in this process (a snapshot or restore holds it); gave up after waiting ${Date.now() - started} ms (limit ${bound} ms); nothing was written`,
					),
				);
			}, bound);
		});
		try {
			// The timer only counts the wait for this process's turn: once it began, it runs to its end.
			return await Promise.race([
				previous
					.then(
						() => clearTimeout(timer),
						() => clearTimeout(timer),
					)
					.then(() => run),
				waited,
			]);
		} finally {
			clearTimeout(timer);
			if (queues.get(this.gitDir) === tail) {
				queues.delete(this.gitDir);
			}
		}
	}

	private async runLocked<T>(fn: () => Promise<T>, timeoutMs: number): Promise<T> {
		mkdirPrivate(this.gitDir);
		LockFile.removeDeadOwnerFiles(this.lock.file);
		const full = this.lock.timeoutMs;
		this.lock.timeoutMs = Math.min(full, timeoutMs);
		try {
			await this.lock.acquire();
		} finally {
			this.lock.timeoutMs = full;
		}
		try {
			await this.clearStaleLocks();
			return await fn();
		} finally {
			this.lock.dispose();
		}
	}

	/** One repack at a time across processes; snapshots go on meanwhile. */
	async withMaintenanceLock<T>(fn: () => Promise<T>): Promise<T> {
		const lock = new LockFile(path.join(this.gitDir, 'baton-maintenance.lock'), 1_000);
		if (!lock.tryAcquire()) {
			throw new BatonError('locked', 'another process is already packing the checkpoint store');
		}
		try {
			return await fn();
		} finally {
			lock.dispose();
		}
	}

	/** git in the shadow. The caller holds the lock for anything that writes. */
	git(args: readonly string[], options: GitCallOptions = {}): Promise<GitResult> {
		return runGit(args, {
			cwd: this.workTree,
			env: options.env ? { ...this.baseEnv, ...options.env } : this.baseEnv,
			...(options.input !== undefined ? { input: options.input } : {}),
			...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
			...(options.okCodes ? { okCodes: options.okCodes } : {}),
			...(options.maxStdoutBytes !== undefined ? { maxStdoutBytes: options.maxStdoutBytes } : {}),
		});
	}

	async gitText(args: readonly string[], options: GitCallOptions = {}): Promise<string> {
		return (await this.git(args, options)).stdout.toString('utf8').trim();
	}

	/**
	 * Creates the shadow (once) and keeps its excludes in line with the configuration. Needs the lock.
	 * True when the excludes file was (re)written: what counts as a workspace file may have changed.
	 */
	async ensureInit(excludes: readonly string[]): Promise<boolean> {
		const marker = path.join(this.gitDir, 'baton-shadow.json');
		if (!this.initialized) {
			let version = 0;
			try {
				version = (JSON.parse(fs.readFileSync(marker, 'utf8')) as { version?: number }).version ?? 0;
			} catch {
				// No marker yet: a new (or half-created) shadow.
			}
			if (version !== layoutVersion || !this.exists()) {
				mkdirPrivate(this.gitDir);
				fs.writeFileSync(this.emptyConfig, '', { mode: privateFileMode });
				// No template: no sample hooks, nothing Baton did not ask for. Also over a store whose
				// creation was killed half-way (HEAD written, objects or refs not yet): git init finishes it
				// and leaves what exists alone.
				await this.git(['init', '-q', '--template=']);
				fs.appendFileSync(path.join(this.gitDir, 'config'), shadowConfig);
				fs.mkdirSync(path.join(this.gitDir, 'info'), { recursive: true });
				fs.writeFileSync(path.join(this.gitDir, 'info', 'attributes'), shadowAttributes);
				fs.writeFileSync(marker, `${JSON.stringify({ version: layoutVersion, createdBy: 'baton' })}\n`);
			}
			this.initialized = true;
		}
		const exclude = excludeFileText(excludes);
		const file = path.join(this.gitDir, 'info', 'exclude');
		let current = '';
		try {
			current = fs.readFileSync(file, 'utf8');
		} catch {
			// Written below.
		}
		if (current !== exclude) {
			fs.writeFileSync(file, exclude);
			forgetIgnoreVerdicts(this.gitDir);
			return true;
		}
		return false;
	}

	/** Points `ref` (under refs/baton/) at `sha`: a loose ref file, written atomically. Needs the lock. */
	writeRef(ref: string, sha: string): void {
		if (!/^refs\/baton\/[A-Za-z0-9_/.-]+$/.test(ref) || ref.includes('..')) {
			throw new Error(`invalid shadow ref ${ref}`);
		}
		const file = path.join(this.gitDir, ref);
		fs.mkdirSync(path.dirname(file), { recursive: true });
		const temp = `${file}.baton-tmp`;
		fs.writeFileSync(temp, `${sha}\n`);
		fs.renameSync(temp, file);
	}

	/**
	 * Lock files git leaves when it is killed (a crashed window, a killed CLI). We hold the shadow's
	 * own lock, so no Baton process is using them; a git that outlived its Baton gets a few seconds.
	 */
	private async clearStaleLocks(): Promise<void> {
		for (const name of ['index.lock', 'HEAD.lock', 'config.lock', 'packed-refs.lock', 'baton-restore.index.lock']) {
			const file = path.join(this.gitDir, name);
			for (let waited = 0; ; waited += 100) {
				let stat: fs.Stats;
				try {
					stat = fs.statSync(file);
				} catch {
					break;
				}
				if (Date.now() - stat.mtimeMs > 5_000 || waited >= 5_000) {
					fs.rmSync(file, { force: true });
					break;
				}
				await sleep(100);
			}
		}
	}
}

function excludeFileText(excludes: readonly string[]): string {
	return [
		"# Written by Baton: what its checkpoints leave out, on top of the workspace's .gitignore files.",
		'# Change it with the `checkpoints.excludes` setting, not here.',
		'.baton/',
		...excludes.map((e) => e.trim()).filter((e) => e && !e.startsWith('#')),
		'',
	].join('\n');
}
