/**
 * What a lock's holder is, as far as this host can tell (Linux's /proc; elsewhere nothing is known):
 * whether it is stopped — SIGSTOP, Ctrl-Z — rather than busy, and which Baton process it is, so that a
 * refusal names what held the lock.
 */
import fs from 'node:fs';

/** True when the process is stopped or traced (state T or t in /proc/PID/stat). */
export function isStopped(pid: number): boolean {
	try {
		const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
		// The state follows the command name in parentheses, which may itself hold spaces or parentheses.
		const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
		return state === 'T' || state === 't';
	} catch {
		return false;
	}
}

/** "the workspace daemon", "an editor window's backend", "baton task add", or "a process" when unknown. */
export function describeProcess(pid: number): string {
	let args: string[];
	try {
		args = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
	} catch {
		return 'a process';
	}
	if (args.includes('--daemon')) {
		return 'the workspace daemon';
	}
	const script = args.findIndex((a) => /(?:^|[/\\])(?:backend|server|cli|baton|hook)\.js$/.test(a) || /(?:^|[/\\])baton$/.test(a));
	if (script < 0) {
		return 'a process';
	}
	if (/(?:backend|server)\.js$/.test(args[script] ?? '')) {
		return "an editor window's backend";
	}
	// Command words only: an option's value may be a secret.
	const words = args
		.slice(script + 1)
		.filter((a) => /^[a-z][a-z-]*$/.test(a))
		.slice(0, 2);
	return `baton ${words.join(' ')}`.trim();
}
