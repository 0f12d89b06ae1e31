/**
 * Real git repositories in temp folders for the checkpoint tests, and exact fingerprints of folders
 * (bytes, modes, symlink targets, empty folders) to prove what an operation changed or did not.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { TestContext } from 'node:test';
import type { CreateCheckpointInput } from '../../../../src/engine/checkpoints/checkpointTypes';
import type { BatonConfigInput } from '../../../../src/engine/config';
import type { Engine } from '../../../../src/engine/engine';
import type { Checkpoint } from '../../../../src/engine/storage/model';
import { openTestEngine, type TestEngine } from '../../helpers';

const gitEnv = {
	...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('GIT_'))),
	GIT_CONFIG_GLOBAL: '/dev/null',
	GIT_CONFIG_NOSYSTEM: '1',
	GIT_AUTHOR_NAME: 'user',
	GIT_AUTHOR_EMAIL: 'user@example.invalid',
	GIT_COMMITTER_NAME: 'user',
	GIT_COMMITTER_EMAIL: 'user@example.invalid',
};

/**
 * A gate a fake binary waits at until the test opens it: a probe that answers only when told, so a
 * test proves order ("the checkpoint was recorded before the probe answered") instead of timing a
 * sleep, which a loaded machine stretches. `wait` is shell for the script; the wait also ends when
 * `dir` is removed, so a probe nobody released does not outlive its test.
 */
export function probeGate(dir: string, name = 'gate'): { wait: string; open: () => void; opened: () => boolean } {
	const file = path.join(dir, `${name}.open`);
	return {
		wait: `while [ ! -e '${file}' ] && [ -d '${dir}' ]; do sleep 0.05; done`,
		open: () => fs.writeFileSync(file, ''),
		opened: () => fs.existsSync(file),
	};
}

/** git as the user runs it in their own repository. */
export function userGit(cwd: string, ...args: string[]): string {
	return execFileSync('git', args, { cwd, env: gitEnv, encoding: 'utf8' });
}

export function write(root: string, rel: string, content: string | Buffer, mode?: number): void {
	const file = path.join(root, rel);
	fs.mkdirSync(path.dirname(file), { recursive: true });
	fs.writeFileSync(file, content);
	if (mode !== undefined) {
		fs.chmodSync(file, mode);
	}
}

export function read(root: string, rel: string): string {
	return fs.readFileSync(path.join(root, rel), 'utf8');
}

export function exists(root: string, rel: string): boolean {
	try {
		fs.lstatSync(path.join(root, rel));
		return true;
	} catch {
		return false;
	}
}

/**
 * A workspace that is the user's git repository with one commit, a nested repository of its own
 * (vendor/lib, with history), CRLF files under an `eol=crlf` attribute, an executable, a symlink,
 * an ignored folder and untracked work.
 */
export function makeWorkspace(root: string): void {
	write(root, 'src/app.ts', 'export const app = 1;\n');
	write(root, 'src/util.ts', 'export const util = 1;\n');
	write(root, 'docs/win.txt', 'line one\r\nline two\r\n');
	write(root, 'scripts/run.sh', '#!/bin/sh\necho run\n', 0o755);
	write(root, '.gitattributes', '*.txt text eol=crlf\n*.bin filter=lfs diff=lfs merge=lfs -text\n');
	write(root, '.gitignore', 'logs/\n*.tmp\n');
	fs.symlinkSync('../src/app.ts', path.join(root, 'scripts/link.ts'));
	write(root, 'logs/debug.log', 'ignored by the user\n');
	write(root, 'vendor/lib/lib.c', 'int lib(void) { return 1; }\n');
	write(root, 'vendor/lib/.gitignore', 'build/\n');
	write(root, 'vendor/lib/build/out.o', 'ignored by the nested repo\n');
	userGit(path.join(root, 'vendor/lib'), 'init', '-q', '-b', 'main');
	userGit(path.join(root, 'vendor/lib'), 'add', '-A');
	userGit(path.join(root, 'vendor/lib'), 'commit', '-qm', 'nested initial');
	write(root, 'vendor/lib/untracked-in-nested.c', 'int draft;\n');
	userGit(root, 'init', '-q', '-b', 'main');
	userGit(root, 'add', 'src', 'docs', 'scripts', '.gitattributes', '.gitignore');
	userGit(root, 'commit', '-qm', 'user initial');
	write(root, 'notes/untracked.md', 'my untracked notes\n');
}

/**
 * Everything under `dir` (optionally leaving out top-level names): type, mode, bytes hash or link
 * target, for files, symlinks and folders alike.
 */
export function fingerprint(dir: string, skip: readonly string[] = []): Map<string, string> {
	const out = new Map<string, string>();
	const walk = (rel: string): void => {
		for (const entry of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
			const child = rel ? `${rel}/${entry.name}` : entry.name;
			if (!rel && skip.includes(entry.name)) continue;
			const full = path.join(dir, child);
			const stat = fs.lstatSync(full);
			if (stat.isSymbolicLink()) {
				out.set(child, `link:${fs.readlinkSync(full)}`);
			} else if (stat.isDirectory()) {
				out.set(child, 'dir');
				walk(child);
			} else {
				out.set(child, `file:${(stat.mode & 0o777).toString(8)}:${createHash('sha256').update(fs.readFileSync(full)).digest('hex')}`);
			}
		}
	};
	walk('');
	return out;
}

/** Makes a folder impossible to change, even for root (immutable attribute), or returns false. */
export function freeze(dir: string): boolean {
	if (process.getuid?.() !== 0) {
		fs.chmodSync(dir, 0o555);
		return true;
	}
	try {
		execFileSync('chattr', ['+i', dir], { stdio: 'ignore' });
		return true;
	} catch {
		return false;
	}
}

export function thaw(dir: string): void {
	if (process.getuid?.() !== 0) {
		fs.chmodSync(dir, 0o755);
		return;
	}
	try {
		execFileSync('chattr', ['-i', dir], { stdio: 'ignore' });
	} catch {
		// Not frozen.
	}
}

/** An engine over a fresh workspace; environment probes see an empty PATH unless a test gives one (speed). */
export async function openCheckpointEngine(
	t: TestContext,
	options: { config?: BatonConfigInput; workspace?: boolean; searchPath?: string } = {},
): Promise<TestEngine> {
	const opened = await openTestEngine(t, options.config ? { config: options.config } : {});
	opened.engine.checkpoints.faults.searchPath = options.searchPath ?? '';
	if (options.workspace !== false) {
		makeWorkspace(opened.root);
	}
	return opened;
}

/** A checkpoint as it reads once its environment is recorded (capture finishes after the checkpoint's own write). */
export async function createSettled(engine: Engine, input: CreateCheckpointInput): Promise<Checkpoint> {
	const created = await engine.checkpoints.create(input);
	await engine.checkpoints.settled();
	return engine.checkpoints.get(created.id);
}

/** A small seeded generator: a failing round can be replayed from the seed in the message. */
export function random(seed: number): () => number {
	let s = seed >>> 0 || 1;
	return () => {
		s ^= s << 13;
		s ^= s >>> 17;
		s ^= s << 5;
		return (s >>> 0) / 2 ** 32;
	};
}

/** Every file (not folder) under root, relative, outside .git and .baton (and not .gitignore). */
export function files(root: string, rel = ''): string[] {
	const out: string[] = [];
	for (const entry of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
		const child = rel ? `${rel}/${entry.name}` : entry.name;
		if (entry.name === '.git' || child === '.baton' || entry.name === '.gitignore') continue;
		if (entry.isDirectory()) out.push(...files(root, child));
		else out.push(child);
	}
	return out;
}
