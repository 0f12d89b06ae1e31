/**
 * Copilot CLI and the Copilot cloud agent send hook payloads without any session id. What still
 * identifies a run is its bracketing: a `sessionStart` opens it and a `sessionEnd` closes it, in one
 * working directory, and every call in between belongs to it. So Baton keeps, per working directory,
 * the run that is open (`.baton/agents/copilot-runs.json`) and gives it an id of its own,
 * `copilot-cli-<start timestamp>`, which becomes the durable session's alias like any agent's id:
 *
 * - `sessionStart` with source `new`/`startup` opens a new run (one left open by a crash is replaced);
 * - `sessionStart` with source `resume` reopens the last run of that directory: same id, so the
 *   same durable session continues;
 * - any other event belongs to the open run; with none open (hooks connected mid-run, a lost file) a
 *   run is adopted from that call, and the usual lookup (the most recently active Copilot session)
 *   decides where it goes;
 * - `sessionEnd` belongs to the open run and closes it; it stays as the directory's last run.
 *
 * Two Copilot CLI processes in the same directory at once cannot be told apart from their payloads:
 * they share the run that was opened last.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { batonDir, mkdirPrivate, privateFileMode } from '../workspace';
import type { HookEvent } from '../hookEvent';
import { writeAtomically } from '../agentConfig/jsonConfigFile';

interface RunRecord {
	id: string;
	openedAt: number;
	lastSeenAt: number;
}

interface RunsFile {
	version: 1;
	/** Keyed by the resolved working directory. */
	open: Record<string, RunRecord>;
	last: Record<string, RunRecord>;
}

function copilotRunsFile(workspaceRoot: string): string {
	return path.join(batonDir(workspaceRoot), 'agents', 'copilot-runs.json');
}

/** The event with `agentSessionId` set to its run's id (and, for a resume, the run it resumes). */
export function assignCopilotRun(workspaceRoot: string, event: HookEvent, now: number): HookEvent {
	if (!event.anonymous) {
		return event;
	}
	const file = copilotRunsFile(workspaceRoot);
	const runs = readRuns(file);
	const key = path.resolve(event.cwd ?? workspaceRoot);
	const at = event.anonymous.timestamp ?? now;
	const open = runs.open[key];
	let run: RunRecord;
	if (event.kind === 'sessionStart') {
		run = { id: `copilot-cli-${at}`, openedAt: at, lastSeenAt: at };
	} else if (event.kind === 'resume') {
		run = open ?? runs.last[key] ?? { id: `copilot-cli-${at}`, openedAt: at, lastSeenAt: at };
	} else {
		run = open ?? { id: `copilot-cli-${at}`, openedAt: at, lastSeenAt: at };
	}
	run = { ...run, lastSeenAt: Math.max(run.lastSeenAt, at) };
	if (event.kind === 'sessionEnd') {
		delete runs.open[key];
		runs.last[key] = run;
	} else {
		runs.open[key] = run;
	}
	writeRuns(file, runs);
	return { ...event, agentSessionId: run.id };
}

function readRuns(file: string): RunsFile {
	try {
		const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<RunsFile>;
		if (parsed && typeof parsed === 'object' && parsed.open && parsed.last) {
			return { version: 1, open: { ...parsed.open }, last: { ...parsed.last } };
		}
	} catch {
		// None yet, or unreadable: start afresh (only the mapping of open runs is lost).
	}
	return { version: 1, open: {}, last: {} };
}

function writeRuns(file: string, runs: RunsFile): void {
	mkdirPrivate(path.dirname(file));
	writeAtomically(file, `${JSON.stringify(runs, null, '\t')}\n`, privateFileMode);
}

/** Copilot CLI's session file for `sessionId` (`$COPILOT_HOME`, else `~/.copilot`), or null when there is none. */
export function copilotSessionFile(env: NodeJS.ProcessEnv, sessionId: string): string | null {
	if (!/^[A-Za-z0-9-]{1,128}$/.test(sessionId)) {
		return null;
	}
	const home = env['COPILOT_HOME'] || path.join(env['HOME'] || os.homedir(), '.copilot');
	const file = path.join(home, 'session-state', sessionId, 'events.jsonl');
	return fs.existsSync(file) ? file : null;
}
