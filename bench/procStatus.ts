/** What /proc says of the processes a bench runs (Linux): their memory high-water, and which a daemon started. */
import fs from 'node:fs';
import path from 'node:path';

/** A process's RSS high-water mark (VmHWM), in bytes; NaN when it cannot be read. */
export function highWater(pid: number | undefined): number {
	if (!pid) return Number.NaN;
	try {
		const kb = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
		return kb ? Number(kb) * 1024 : Number.NaN;
	} catch {
		return Number.NaN;
	}
}

/** The live children of `pid` that run `baton import` (from /proc: the fourth field of each process's stat is its parent). */
function importChildrenOf(pid: number | undefined): number[] {
	if (!pid) return [];
	const children: number[] = [];
	for (const entry of fs.readdirSync('/proc')) {
		if (!/^\d+$/.test(entry)) continue;
		try {
			const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
			const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
			if (parent === pid && fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').includes('import')) children.push(Number(entry));
		} catch {
			// Gone meanwhile.
		}
	}
	return children;
}

/** Each `baton import` process `parent` starts, with its high-water as `watch()` last read it (call it often: a process that ended is gone). */
export function importHighWaters(parent: number | undefined): { watch: () => void; peaks: Map<number, number> } {
	const peaks = new Map<number, number>();
	const watch = (): void => {
		for (const pid of importChildrenOf(parent)) peaks.set(pid, Math.max(peaks.get(pid) ?? 0, highWater(pid) || 0));
	};
	return { watch, peaks };
}

/** The pid of the daemon serving `workspace`, from its endpoint file. */
export function daemonPid(workspace: string): number | undefined {
	try {
		const pid = (JSON.parse(fs.readFileSync(path.join(workspace, '.baton', 'daemon.json'), 'utf8')) as { pid?: unknown }).pid;
		return typeof pid === 'number' ? pid : undefined;
	} catch {
		return undefined;
	}
}
