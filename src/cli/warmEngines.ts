/**
 * The daemon's engines, kept open between commands (one per workspace). A command's warnings go to
 * that command's stderr and its secrets come from its environment, never the daemon's. An engine is
 * reopened when its snapshot file was replaced or damaged behind its back (a restore, a repair, a
 * compaction elsewhere): a warm engine must answer as a fresh process would.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Engine } from '../engine/engine';
import type { Logger } from '../engine/ports';
import { envSecretSource } from '../engine/secrets';

interface WarmIo {
	stderr(text: string): void;
	env: NodeJS.ProcessEnv;
}

/** The command running now (the daemon runs one at a time). */
let current: WarmIo = { stderr: () => undefined, env: {} };
const opened = new WeakMap<Engine, Signature>();

const requestLogger: Logger = {
	info: () => {},
	warn: (message) => current.stderr(`baton: warning: ${message}\n`),
	error: (message) => current.stderr(`baton: error: ${message}\n`),
};

interface Signature {
	snapshot: string;
	journal: { ino: number; size: number; mtimeMs: number } | undefined;
}

function signatureOf(workspaceRoot: string): Signature {
	const snapshot = fs.statSync(path.join(workspaceRoot, '.baton', 'baton.db'), { throwIfNoEntry: false });
	const journal = fs.statSync(path.join(workspaceRoot, '.baton', 'baton.db.journal'), { throwIfNoEntry: false });
	return { snapshot: snapshot ? `${snapshot.ino}:${snapshot.size}:${snapshot.mtimeMs}` : 'none', journal: journal && { ino: journal.ino, size: journal.size, mtimeMs: journal.mtimeMs } };
}

/**
 * Still the files the engine read: the same snapshot, and the journal only grown (appends by other
 * processes, which the engine reads itself). A journal replaced, shortened or rewritten in place is
 * read again from the start, as a fresh process would.
 */
function unchanged(before: Signature | undefined, now: Signature): boolean {
	if (!before || before.snapshot !== now.snapshot || !before.journal || !now.journal) {
		return false;
	}
	return before.journal.ino === now.journal.ino && (now.journal.size > before.journal.size || now.journal.mtimeMs === before.journal.mtimeMs);
}

export async function warmEngine(engines: Map<string, Engine>, workspaceRoot: string, io: WarmIo): Promise<Engine> {
	current = io;
	const warm = engines.get(workspaceRoot);
	if (warm && unchanged(opened.get(warm), signatureOf(workspaceRoot))) {
		return warm;
	}
	engines.delete(workspaceRoot);
	warm?.close();
	const engine = await Engine.open({ workspaceRoot, log: requestLogger, secrets: { get: (name) => envSecretSource(current.env).get(name) } });
	opened.set(engine, signatureOf(workspaceRoot));
	engines.set(workspaceRoot, engine);
	return engine;
}

/** After a command: the engine may have compacted into a new snapshot itself, which is no reason to reopen. */
export function settleWarmEngine(engine: Engine, workspaceRoot: string): void {
	if (opened.has(engine)) {
		opened.set(engine, signatureOf(workspaceRoot));
	}
}
