/**
 * Putting a hook's event into the spool, and draining it: the daemon (between commands, and every
 * second while records wait), a command before it runs, and a hook in its own process before its
 * own event, each run the spooled events oldest first through the same code a live hook runs
 * (hookRunner.ts), one drainer at a time (`drain.lock`). A record leaves the spool once its event is
 * recorded (hookOnce.ts makes a second run of it change nothing); a spooled event's answer (a
 * briefing) is never given late: the log says it was lost.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../engine/ports';
import {
	addDrained,
	appendSpool,
	countDropped,
	listSpool,
	readSpoolRecord,
	spoolDir,
	spoolEnv,
	spoolMaxBytes,
	takeDrainLock,
	type SpoolRecord,
} from './hookSpool';

export interface HookOutcome {
	/** The hook's answer to its agent ('' for none). */
	stdout: string;
	/**
	 * done: ran (recorded, or nothing to record); recorded: another copy recorded it first; spooled:
	 * waits in the spool; dropped: could not even be spooled; retry: not recorded, try later (the
	 * journal lock, the budget); failed: the hook failed before recording anything.
	 */
	status: 'done' | 'recorded' | 'spooled' | 'dropped' | 'retry' | 'failed';
	note?: string;
}

interface DrainResult {
	drained: number;
	dropped: number;
	/** Records still waiting. */
	left: number;
	/** Another process is draining. */
	busy: boolean;
}

/** What the hook needs to spool its own event. */
interface SpoolInput {
	eventId: string;
	at: number;
	argv: string[];
	cwd: string;
	env: NodeJS.ProcessEnv;
	text: string;
	stderr?: (text: string) => void;
}

/** Spools the hook's event (or, when even that fails, drops it and says so on stderr and in the log). */
export function spoolOwn(root: string, input: SpoolInput, log: Logger, label: string, why: string): HookOutcome {
	const record: SpoolRecord = { eventId: input.eventId, at: input.at, argv: input.argv, cwd: input.cwd, env: spoolEnv(input.env), stdin: input.text };
	const result = appendSpool(root, record, spoolMaxBytes(input.env));
	if (result.ok) {
		log.warn(
			`${label}: spooled (${why}); the daemon or the next command records it${/SessionStart|sessionStart|session-start/.test(label) ? ', without the briefing this answer would have carried' : ''}`,
		);
		return { stdout: '', status: 'spooled' };
	}
	log.error(`${label}: event dropped (${why}, and ${result.reason})`);
	countDropped(root, input.eventId, result.reason);
	input.stderr?.(`baton: hook event not recorded: ${result.reason}\n`);
	return { stdout: '', status: 'dropped', note: result.reason };
}

/** Runs the spooled records oldest first, each through `run`, until the spool is empty, the deadline passes or one must wait. */
export async function drainHookSpool(
	root: string,
	options: { run(record: SpoolRecord): Promise<HookOutcome>; log: Logger; deadline?: number },
): Promise<DrainResult> {
	const first = listSpool(root);
	if (first.records.length === 0 && first.torn.length === 0) {
		return { drained: 0, dropped: 0, left: 0, busy: false };
	}
	const release = takeDrainLock(root);
	if (!release) {
		return { drained: 0, dropped: 0, left: first.records.length, busy: true };
	}
	const { log } = options;
	let drained = 0;
	let dropped = 0;
	try {
		const { records, torn } = listSpool(root);
		for (const name of torn) {
			log.warn(`spool: dropped ${name}, a record its hook never finished writing`);
			countDropped(root, name, 'torn temp file');
			fs.rmSync(path.join(spoolDir(root), name), { force: true });
			dropped++;
		}
		for (const name of records) {
			if (options.deadline !== undefined && Date.now() >= options.deadline) {
				break;
			}
			const file = path.join(spoolDir(root), name);
			const read = readSpoolRecord(file);
			if ('problem' in read) {
				log.warn(`spool: dropped ${name}: ${read.problem}`);
				countDropped(root, name, read.problem);
				fs.rmSync(file, { force: true });
				dropped++;
				continue;
			}
			const outcome = await options.run(read.record);
			if (outcome.status === 'retry') {
				break;
			}
			if (outcome.status === 'failed') {
				log.warn(`spool: dropped ${name} (${read.record.eventId}): its hook failed (${outcome.note ?? 'no detail'})`);
				countDropped(root, read.record.eventId, `hook failed: ${outcome.note ?? ''}`);
				dropped++;
			} else {
				drained++;
				if (outcome.stdout) {
					log.info(
						`spool: ${read.record.eventId} recorded late; its answer (${Buffer.byteLength(outcome.stdout)} bytes) was never given to the agent`,
					);
				}
			}
			fs.rmSync(file, { force: true });
			if (outcome.status !== 'failed') {
				addDrained(root, 1);
			}
		}
	} finally {
		release();
	}
	const left = listSpool(root).records.length;
	if (drained + dropped > 0) {
		log.info(`spool: drained ${drained}, dropped ${dropped}, ${left} left`);
	}
	return { drained, dropped, left, busy: false };
}
