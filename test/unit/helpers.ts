import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import type { BatonConfigInput } from '../../src/engine/config';
import { Engine } from '../../src/engine/engine';
import type { Clock, Logger } from '../../src/engine/ports';
import type { SecretSource } from '../../src/engine/secrets';
import type { GitStateReader } from '../../src/engine/sessions/gitState';

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

/** A fresh folder under the OS temp dir, removed when the test ends. */
export function tempDir(t: TestContext, prefix = 'baton-test-'): string {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
	// A workspace's daemon (on by default) may still be writing there, its environment capture or log,
	// until it sees its endpoint gone and stops: ENOTEMPTY mid-removal is retried, not a failure.
	t.after(() => fs.rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }));
	return dir;
}

export const noGit: GitStateReader = { read: async () => null };

export interface TestEngine {
	engine: Engine;
	clock: FakeClock;
	log: MemoryLogger;
	root: string;
}

export async function openTestEngine(t: TestContext, options: { root?: string; config?: BatonConfigInput; clock?: FakeClock; git?: GitStateReader; secrets?: SecretSource } = {}): Promise<TestEngine> {
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
	});
	t.after(() => engine.close());
	return { engine, clock, log, root };
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
