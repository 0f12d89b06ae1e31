/**
 * Whether a process runs, for the files the hook host and the daemon's client leave behind them (a
 * spool's drain lock, a daemon's start claim). Node built-ins only: dist/cli.js bundles it.
 */
import fs from 'node:fs';

/** Whether a process with this pid runs (EPERM: alive, another user's; a zombie is not). The launcher's own copy of the engine's `isAlive` (lockQueue.ts): dist/cli.js bundles no engine code. */
export function pidAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === 'EPERM';
	}
	// A zombie (killed, not yet reaped by its parent: this client, when it spawned it) serves nothing.
	try {
		const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
		return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
	} catch {
		return true;
	}
}
