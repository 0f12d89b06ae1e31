/**
 * `.baton/logs/hooks.log`: one line per hook call that did something worth knowing (and every
 * malformed or unknown payload), because a hook may print nothing where the agent shows it. Bounded:
 * past `maxBytes` the file moves to `hooks.log.1` (replacing the older one). Lines carry ids, event
 * names and outcomes, never payload contents (prompts, tool inputs), so no secret lands here.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../ports';
import { batonDir, mkdirPrivate, privateFileMode } from '../workspace';

const hookLogMaxBytes = 256 * 1024;

export function hookLogFile(workspaceRoot: string): string {
	return path.join(batonDir(workspaceRoot), 'logs', 'hooks.log');
}

export class HookLog implements Logger {
	constructor(
		readonly file: string,
		private readonly now: () => number = Date.now,
		private readonly maxBytes = hookLogMaxBytes,
	) {}

	info(message: string): void {
		this.write('info', message);
	}

	warn(message: string): void {
		this.write('warn', message);
	}

	error(message: string): void {
		this.write('error', message);
	}

	/** Appends one line; never throws (a log that cannot be written must not fail the hook). */
	write(level: 'info' | 'warn' | 'error', message: string): void {
		const line = `${new Date(this.now()).toISOString()} ${level} pid=${process.pid} ${message.replace(/[\r\n]+/g, ' ').slice(0, 2_000)}\n`;
		try {
			mkdirPrivate(path.dirname(this.file));
			let size = 0;
			try {
				size = fs.statSync(this.file).size;
			} catch {
				// No log yet.
			}
			if (size + line.length > this.maxBytes) {
				fs.renameSync(this.file, `${this.file}.1`);
			}
			fs.appendFileSync(this.file, line, { mode: privateFileMode });
		} catch {
			// Out of disk, read-only workspace: the hook still answers.
		}
	}
}
