/**
 * Baton on every machine of a team, whatever installed it there. Hook files are committed, so the
 * command in them must work in every clone and name nothing of one machine — yet a person who
 * installed only the extension has no `baton` on PATH. So:
 *
 * - each installation keeps a small launcher in the user's home, `~/.baton/bin/baton` (a shell
 *   script that runs this machine's Baton CLI with a Node found for it): the extension's backend
 *   writes it when it starts, and `baton connect` when it runs; it is written again when Baton moved
 *   (an update), and never when it already names a working CLI and this one is not newer;
 * - the committed command is `baton` where `baton` on PATH is this installation, else
 *   `"$(command -v baton || echo "$HOME/.baton/bin/baton")"`: the shell that runs the hook takes
 *   `baton` from PATH when there is one, else the user's launcher. Both forms hold no path of a
 *   machine. (Windows hooks run through PowerShell: there the command stays `baton`.)
 */
import fs from 'node:fs';
import path from 'node:path';
import { atomicWriteFile } from '../storage/fsUtil';
import { shellCommandOf, type BatonLauncher } from './batonLauncher';

/** The committed hook command where `baton` on PATH is not this installation (POSIX shells). */
export const portableHookCommand = '"$(command -v baton || echo "$HOME/.baton/bin/baton")"';

/** The launcher's path in a home folder. */
function userLauncherPath(home: string): string {
	return path.join(home, '.baton', 'bin', 'baton');
}

/** The home the launcher goes in: `BATON_LAUNCHER_HOME` (a test harness's own), else HOME. */
export function launcherHome(env: NodeJS.ProcessEnv, fallback: string): string {
	return env['BATON_LAUNCHER_HOME'] || env['HOME'] || fallback;
}

const marker = '# baton-launcher: written by Baton';

/**
 * Writes (or rewrites) the user's launcher to run `launcher` (batonLauncher.ts). Leaves a file that is
 * not Baton's alone. Returns what it did; never throws (the caller's work does not depend on it).
 */
export function writeUserLauncher(
	home: string,
	launcher: BatonLauncher,
	platform: NodeJS.Platform = process.platform,
): { path: string; action: 'created' | 'updated' | 'unchanged' | 'skipped'; reason?: string } {
	const file = userLauncherPath(home);
	if (platform === 'win32') {
		return { path: file, action: 'skipped', reason: 'Windows hooks run `baton` from PATH' };
	}
	const script = `#!/bin/sh\n${marker}; runs this machine's Baton CLI. Rewritten when Baton moves (an update).\nexec ${shellCommandOf(launcher, platform)} "$@"\n`;
	let before: string | undefined;
	try {
		before = fs.readFileSync(file, 'utf8');
	} catch {
		before = undefined;
	}
	if (before === script) {
		return { path: file, action: 'unchanged' };
	}
	if (before !== undefined && !before.includes(marker)) {
		return { path: file, action: 'skipped', reason: `${file} is not Baton's: left as it is` };
	}
	try {
		fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
		atomicWriteFile(file, Buffer.from(script));
		fs.chmodSync(file, 0o755);
		return { path: file, action: before === undefined ? 'created' : 'updated' };
	} catch (error) {
		return { path: file, action: 'skipped', reason: (error as Error).message };
	}
}
