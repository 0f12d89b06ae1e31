import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import type { BatonConfigInput } from '../../src/engine/config';
import { Engine } from '../../src/engine/engine';
import type { Clock, Logger } from '../../src/engine/ports';
import type { SecretSource } from '../../src/engine/secrets';
import type { GitStateReader } from '../../src/engine/sessions/gitState';
import { removeTestFolder } from '../harness/daemons.mjs';

/** A clock tests move by hand: time is the one thing we fake, never storage. */
export class FakeClock implements Clock {
	constructor(public ms = Date.parse('2026-03-01T09:00:00.000Z')) {}
	now(): number {
		return this.ms;
	}
	advance(ms: number): void {
		this.ms += ms;
	}
}

export class MemoryLogger implements Logger {
	readonly lines: { level: 'info' | 'warn' | 'error'; message: string }[] = [];
	info(message: string): void {
		this.lines.push({ level: 'info', message });
	}
	warn(message: string): void {
		this.lines.push({ level: 'warn', message });
	}
	error(message: string): void {
		this.lines.push({ level: 'error', message });
	}
	warnings(): string[] {
		return this.lines.filter((l) => l.level === 'warn').map((l) => l.message);
	}
}

const stoppers = new WeakMap<TestContext, (() => Promise<void>)[]>();

/**
 * Stops something the test started that writes into its temp folders (a backend it forked) before
 * those folders are removed. A test's after hooks run in the order they were registered and a hook
 * that throws skips the rest: a temp folder is made first, so its removal ran while the backend still
 * wrote there, failed (ENOTEMPTY), and left the backend running, which kept the test file's process
 * alive for ever. `stop` runs once, before any temp folder of the test goes (and as an after hook of
 * its own, for a test without one).
 */
export function stopBeforeRemoval(t: TestContext, stop: () => Promise<void>): void {
	let done: Promise<void> | undefined;
	const once = (): Promise<void> => (done ??= stop());
	stoppers.set(t, [...(stoppers.get(t) ?? []), once]);
	t.after(once);
}

/** Ends a child process: SIGTERM, then SIGKILL if it has not exited within 10 s. */
export async function stopChild(child: ChildProcess): Promise<void> {
	if (child.exitCode !== null || child.signalCode !== null) {
		return;
	}
	const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
	child.kill('SIGTERM');
	const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
	await exited;
	clearTimeout(timer);
}

/** A fresh folder under the OS temp dir, removed when the test ends. */
export function tempDir(t: TestContext, prefix = 'baton-test-'): string {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
	t.after(async () => {
		// What the test started that writes there stops first (its backends, newest first).
		for (const stop of [...(stoppers.get(t) ?? [])].reverse()) {
			await stop();
		}
		// A workspace's daemon (on by default for the CLI and hooks) keeps writing there, its late
		// environment capture or its log, until it idles out: stop it before the folder goes.
		await removeTestFolder(dir);
	});
	return dir;
}

export const noGit: GitStateReader = { read: async () => null };

export interface TestEngine {
	engine: Engine;
	clock: FakeClock;
	log: MemoryLogger;
	root: string;
}

export async function openTestEngine(
	t: TestContext,
	options: {
		root?: string;
		config?: BatonConfigInput;
		clock?: FakeClock;
		git?: GitStateReader;
		secrets?: SecretSource;
		syncPageEvents?: number;
		syncGroupBytes?: number;
	} = {},
): Promise<TestEngine> {
	const root = options.root ?? tempDir(t);
	const clock = options.clock ?? new FakeClock();
	const log = new MemoryLogger();
	const engine = await Engine.open({
		workspaceRoot: root,
		log,
		clock,
		create: true,
		git: options.git ?? noGit,
		...(options.config ? { config: options.config } : {}),
		...(options.secrets ? { secrets: options.secrets } : {}),
		...(options.syncPageEvents ? { syncPageEvents: options.syncPageEvents } : {}),
		...(options.syncGroupBytes ? { syncGroupBytes: options.syncGroupBytes } : {}),
	});
	closeBeforeRemoval(t, engine);
	return { engine, clock, log, root };
}

/**
 * Closes `engine` when the test ends, before its temp folders go: closing saves the search index, and
 * a checkpoint's environment capture still running writes its cache when it ends; either, after the
 * removal, put a folder back that nothing removed.
 */
export function closeBeforeRemoval(t: TestContext, engine: Engine): void {
	stopBeforeRemoval(t, async () => {
		await engine.checkpoints.settled();
		engine.close();
	});
}

/** Zeros 400 bytes of the store's snapshot in `dir` (past its header): damage its checksum finds. Returns the snapshot's path. */
export function damageSnapshot(dir: string): string {
	const dbFile = path.join(dir, 'baton.db');
	const bytes = fs.readFileSync(dbFile);
	bytes.fill(0, 200, 600);
	fs.writeFileSync(dbFile, bytes);
	return dbFile;
}

/** Every file under `dir` with its bytes, to prove an operation changed nothing. */
export function snapshotFiles(dir: string): Map<string, string> {
	const out = new Map<string, string>();
	const walk = (d: string): void => {
		for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
			const full = path.join(d, entry.name);
			if (entry.isDirectory()) {
				walk(full);
			} else {
				out.set(path.relative(dir, full), fs.readFileSync(full).toString('base64'));
			}
		}
	};
	walk(dir);
	return out;
}

export const actor = 'test:runner';

/** A task row for tests that write to the store directly. */
export function taskRow(n: number) {
	return {
		id: `T${n}`,
		seq: n,
		title: `task ${n}`,
		type: 'task' as const,
		status: 'pending' as const,
		priority: 'medium' as const,
		createdAt: '2026-01-01T00:00:00.000Z',
		updatedAt: '2026-01-01T00:00:00.000Z',
	};
}

/** A character a terminal would obey, or that would reorder what it shows: what no text output may hold raw (src/engine/text/controlChars.ts). */
// eslint-disable-next-line no-control-regex -- matching them is the point
export const rawControl = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
