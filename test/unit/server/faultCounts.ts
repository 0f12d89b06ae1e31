/**
 * What the fault tests count for every write a client made: acknowledged (exit 0, and it is stored),
 * refused (a non-zero exit with a message, and nothing stored), spooled (handed to the hook spool:
 * CLI commands never are, so it stays 0 here) and lost (acknowledged but not stored). A refused write
 * that is stored anyway, or stored twice, is counted too: both are as wrong as a lost one.
 */
import { spawnSync } from 'node:child_process';
import type { Result } from './daemonProcesses';
import { daemonEnv } from './daemonProcesses';

export interface FaultCounts {
	acknowledged: number;
	refused: number;
	spooled: number;
	lost: number;
	refusedButStored: number;
	storedTwice: number;
}

/** The task titles the workspace holds, read in a process of its own (no daemon). */
export function storedTitles(cli: string, root: string): string[] {
	const list = spawnSync(process.execPath, [cli, '--no-daemon', 'task', 'list', '--json'], { cwd: root, env: daemonEnv(), encoding: 'utf8' });
	if (list.status !== 0) {
		throw new Error(`task list failed: ${list.stderr}`);
	}
	return (JSON.parse(list.stdout) as { tasks: { title: string }[] }).tasks.map((task) => task.title);
}

/** `results[i]` was `baton task add --title <titles[i]>`. */
export function countWrites(results: Result[], titles: string[], stored: string[]): FaultCounts {
	const counts: FaultCounts = { acknowledged: 0, refused: 0, spooled: 0, lost: 0, refusedButStored: 0, storedTwice: 0 };
	results.forEach((result, i) => {
		const copies = stored.filter((title) => title === titles[i]).length;
		if (copies > 1) {
			counts.storedTwice++;
		}
		if (result.code === 0) {
			counts.acknowledged++;
			if (copies === 0) {
				counts.lost++;
			}
		} else {
			counts.refused++;
			if (copies > 0) {
				counts.refusedButStored++;
			}
		}
	});
	return counts;
}
