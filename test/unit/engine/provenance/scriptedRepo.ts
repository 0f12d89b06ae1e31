/**
 * A user's repository driven by a script that knows the truth: every line of every file carries who
 * really wrote it (the agent's session and step, or a person). Files are written from that model, git
 * runs for real as the user would run it (with the script's clock as commit dates), and `truthOf`
 * answers for any line at the end.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export type Truth = { origin: 'agent'; session: string; step: number } | { origin: 'human' };

export interface ModelLine {
	text: string;
	truth: Truth;
}

export class ScriptedRepo {
	/** Per branch: path → lines. */
	private readonly models = new Map<string, Map<string, ModelLine[]>>();
	branch = 'main';
	ms = Date.parse('2026-03-01T09:00:00.000Z');

	/**
	 * With `realClock`, the script's clock is the real one (the capture run by real hook processes
	 * stamps steps with it): a tick waits for the next whole second, so a commit and the steps around
	 * it never share one (commit dates are whole seconds).
	 */
	constructor(
		readonly root: string,
		private readonly realClock = false,
	) {
		this.models.set('main', new Map());
		if (realClock) {
			this.ms = Date.now();
		}
	}

	tick(seconds = 60): void {
		if (!this.realClock) {
			this.ms += seconds * 1000;
			return;
		}
		const next = (Math.floor(this.ms / 1000) + 1) * 1000;
		const wait = next - Date.now();
		if (wait > 0) {
			Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, wait + 5);
		}
		this.ms = Date.now();
	}

	get files(): Map<string, ModelLine[]> {
		return this.models.get(this.branch)!;
	}

	env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
		const date = `@${Math.floor(this.ms / 1000)} +0000`;
		return {
			PATH: process.env['PATH'],
			HOME: this.root,
			GIT_CONFIG_NOSYSTEM: '1',
			GIT_CONFIG_GLOBAL: path.join(this.root, '.baton-test-gitconfig-none'),
			GIT_AUTHOR_NAME: 'Dana Dev',
			GIT_AUTHOR_EMAIL: 'dana@example.com',
			GIT_COMMITTER_NAME: 'Dana Dev',
			GIT_COMMITTER_EMAIL: 'dana@example.com',
			GIT_AUTHOR_DATE: date,
			GIT_COMMITTER_DATE: date,
			GIT_EDITOR: 'true',
			...extra,
		};
	}

	git(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): string {
		return execFileSync('git', args, { cwd: options.cwd ?? this.root, env: this.env(options.env), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
	}

	commit(message: string): string {
		this.tick();
		this.git(['add', '-A']);
		this.git(['commit', '-q', '-m', message]);
		return this.git(['rev-parse', 'HEAD']).trim();
	}

	/** Sets a file's lines (the truth travels with them) and writes it. */
	set(file: string, lines: ModelLine[]): void {
		this.files.set(file, lines);
		this.write(file);
	}

	write(file: string): void {
		const lines = this.files.get(file);
		const full = path.join(this.root, file);
		if (!lines) {
			fs.rmSync(full, { force: true });
			return;
		}
		fs.mkdirSync(path.dirname(full), { recursive: true });
		fs.writeFileSync(full, lines.map((l) => `${l.text}\n`).join(''));
	}

	addFunction(file: string, name: string, k: number, truth: Truth): void {
		const lines = [...(this.files.get(file) ?? [])];
		for (const text of [`export function ${name}(x: number): number {`, `\tconst y = x * ${k};`, `\treturn y + ${k};`, '}', '']) {
			lines.push({ text, truth });
		}
		this.set(file, lines);
	}

	/** Replaces the first line containing `needle`. */
	change(file: string, needle: string, text: string, truth: Truth): void {
		const lines = [...(this.files.get(file) ?? [])];
		const at = lines.findIndex((l) => l.text.includes(needle));
		if (at < 0) {
			throw new Error(`no line with ${needle} in ${file}`);
		}
		lines[at] = { text, truth };
		this.set(file, lines);
	}

	insertAfter(file: string, needle: string, texts: string[], truth: Truth): void {
		const lines = [...(this.files.get(file) ?? [])];
		const at = lines.findIndex((l) => l.text.includes(needle));
		if (at < 0) {
			throw new Error(`no line with ${needle} in ${file}`);
		}
		lines.splice(at + 1, 0, ...texts.map((text) => ({ text, truth })));
		this.set(file, lines);
	}

	/** `git checkout -b`: the new branch starts from this branch's files. */
	branchOff(name: string): void {
		this.git(['checkout', '-q', '-b', name]);
		this.models.set(name, new Map([...this.files].map(([f, lines]) => [f, [...lines]])));
		this.branch = name;
	}

	checkout(name: string): void {
		this.git(['checkout', '-q', name]);
		this.branch = name;
	}

	/** This branch takes `file` as it stands on `from` (what a cherry-pick or a merge of that file brings). */
	takeFile(from: string, file: string): void {
		const lines = this.models.get(from)?.get(file);
		if (!lines) {
			throw new Error(`${file} is not on ${from}`);
		}
		this.files.set(file, [...lines]);
	}

	/** The workspace must match the model: a script that drifted would test nothing. */
	assertWorkspaceMatches(): void {
		for (const [file, lines] of this.files) {
			const onDisk = fs.readFileSync(path.join(this.root, file), 'utf8');
			const expected = lines.map((l) => `${l.text}\n`).join('');
			if (onDisk !== expected) {
				throw new Error(`${file} on disk differs from the script's model`);
			}
		}
	}
}
