/**
 * Who starts the workspace's daemon when none answers: the one client that creates
 * `.baton/daemon.starting` (a link of a finished file, so it fails when the claim exists) spawns it and
 * writes the child's pid into the claim; every other client waits for that daemon instead of spawning
 * one of its own. Sixteen clients arriving at once used to spawn sixteen daemons (fifteen lost the
 * election inside and exited) and, past their 300 ms budget, ran sixteen engines in process besides.
 *
 * A claim is stale when its daemon died (it could not start: waiting longer helps nobody), when its
 * client died before spawning, or past `staleMs` (a start never takes that long). Node built-ins only:
 * dist/cli.js bundles it.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pidAlive } from '../hookHost/pidAlive';

interface Claim {
	/** The client that spawns. */
	pid: number;
	/** The daemon it spawned, once it has. */
	daemon?: number;
	at: number;
}

/** A start that has not produced a daemon after this long is abandoned (the next client spawns again). */
const staleMs = 30_000;

function claimFile(root: string): string {
	return path.join(root, '.baton', 'daemon.starting');
}

function readClaim(root: string): Claim | undefined {
	try {
		const value = JSON.parse(fs.readFileSync(claimFile(root), 'utf8')) as Partial<Claim>;
		return typeof value.pid === 'number' && typeof value.at === 'number' ? (value as Claim) : undefined;
	} catch {
		return undefined;
	}
}

/** What the claim says now: nobody starts a daemon, one is being started, or the one started died. */
export function startState(root: string): 'none' | 'starting' | 'failed' {
	const claim = readClaim(root);
	if (!claim) {
		// Missing, or being written this instant (it is linked whole, so only a foreign file reads so).
		return fs.existsSync(claimFile(root)) ? 'starting' : 'none';
	}
	if (Date.now() - claim.at > staleMs) {
		return 'none';
	}
	if (claim.daemon !== undefined) {
		// It may have lost the election to a daemon that is starting now (an editor's backend): wait for that one.
		return pidAlive(claim.daemon) || electedStarting(root) ? 'starting' : 'failed';
	}
	return pidAlive(claim.pid) ? 'starting' : 'none';
}

/** A daemon holds the start lock (`.baton/daemon.lock`, daemonEndpoint.ts) and is alive. */
function electedStarting(root: string): boolean {
	try {
		const holder = JSON.parse(fs.readFileSync(path.join(root, '.baton', 'daemon.lock'), 'utf8')) as { pid?: unknown };
		return typeof holder.pid === 'number' && pidAlive(holder.pid);
	} catch {
		return false;
	}
}

/**
 * True when this client won the right to spawn the daemon. A stale claim is moved aside first; a
 * claim that cannot be written (a full disk) is an error: no daemon could start there either.
 */
export function claimStart(root: string): boolean {
	const file = claimFile(root);
	const mine = `${file}.${process.pid}`;
	fs.writeFileSync(mine, JSON.stringify({ pid: process.pid, at: Date.now() } satisfies Claim), { mode: 0o600 });
	try {
		for (let attempt = 0; attempt < 2; attempt++) {
			try {
				fs.linkSync(mine, file);
				return true;
			} catch (error) {
				if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
					throw error;
				}
			}
			if (startState(root) !== 'none') {
				return false;
			}
			fs.rmSync(file, { force: true });
		}
		return false;
	} finally {
		fs.rmSync(mine, { force: true });
	}
}

/** Spawns the daemon, detached, its output in `.baton/logs/daemon.log`; the claim then names it. */
export function spawnDaemon(root: string, serverScript: string, version: string): void {
	const logs = path.join(root, '.baton', 'logs');
	// The store's private modes (engine/workspace.ts privateDirMode/privateFileMode), written out: the
	// hook client bundles no engine code (launcherBundle.test.ts).
	fs.mkdirSync(logs, { recursive: true, mode: 0o700 });
	const log = fs.openSync(path.join(logs, 'daemon.log'), 'a', 0o600);
	let pid: number | undefined;
	try {
		const child = spawn(process.execPath, [serverScript, '--daemon', '--workspace', root, '--baton-version', version], {
			detached: true,
			stdio: ['ignore', log, log],
			cwd: root,
			env: process.env,
		});
		child.unref();
		pid = child.pid;
	} finally {
		fs.closeSync(log);
	}
	const claim = readClaim(root);
	if (pid !== undefined && claim?.pid === process.pid) {
		const temp = `${claimFile(root)}.${process.pid}.tmp`;
		fs.writeFileSync(temp, JSON.stringify({ ...claim, daemon: pid } satisfies Claim), { mode: 0o600 });
		fs.renameSync(temp, claimFile(root));
	}
}

/** The spawner's claim is done with once its daemon answers (or it gave up). */
export function releaseClaim(root: string): void {
	if (readClaim(root)?.pid === process.pid) {
		fs.rmSync(claimFile(root), { force: true });
	}
}
