/** Whether a process holding something (a lock, a claim, a temp file) is still there to finish with it. */
import fs from 'node:fs';

/**
 * Whether a process with this pid is running (EPERM: alive, another user's). A zombie is not: a process
 * killed a moment ago stays one until its parent reaps it (a client that spawned the daemon reads its
 * claim before Node has reaped it), and it will never finish what it held.
 */
export function isAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
	} catch (error) {
		return (error as NodeJS.ErrnoException).code !== 'ESRCH';
	}
	return !isZombie(pid);
}

/** `Z` in /proc/<pid>/stat (Linux); false where there is no /proc. The state follows the command name, which may hold spaces and parentheses. */
function isZombie(pid: number): boolean {
	try {
		const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
		return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z';
	} catch {
		return false;
	}
}
