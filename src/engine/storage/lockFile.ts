/**
 * A cross-process write lock: a file created with O_EXCL that holds the owner's pid. A lock whose
 * pid no longer exists (on this host) is stale and is taken over. Waiting backs off with jitter so
 * that one busy writer cannot starve the others.
 */
import fs from 'node:fs';
import os from 'node:os';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { BatonError } from '../errors';

interface LockOwner {
	pid: number;
	host: string;
	token: string;
	at: number;
}

/** A lock file left empty by a process that died between create and write is stale after this. */
const emptyLockGraceMs = 2_000;
/** A lock held by a pid on another host cannot be probed; it is considered stale after this. */
const foreignLockStaleMs = 60_000;

export class LockFile {
	private token: string | undefined;

	constructor(
		readonly file: string,
		private readonly timeoutMs = 15_000,
	) {}

	get held(): boolean {
		return this.token !== undefined;
	}

	async acquire(): Promise<void> {
		const deadline = Date.now() + this.timeoutMs;
		let delay = 1;
		for (;;) {
			if (this.tryAcquire()) {
				return;
			}
			if (Date.now() > deadline) {
				const owner = readOwner(this.file);
				throw new BatonError(
					'locked',
					`${this.file} is held by ${owner ? `pid ${owner.pid} on ${owner.host}` : 'another process'} for more than ${this.timeoutMs} ms`,
				);
			}
			await sleep(delay + Math.random() * delay);
			delay = Math.min(delay * 2, 25);
		}
	}

	/** One attempt: true when this process now holds the lock. */
	tryAcquire(): boolean {
		if (this.token) {
			throw new Error('lock already held by this instance');
		}
		const token = randomBytes(8).toString('hex');
		const owner: LockOwner = { pid: process.pid, host: os.hostname(), token, at: Date.now() };
		let fd: number;
		try {
			fd = fs.openSync(this.file, 'wx');
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
				throw new BatonError('storageFailure', `cannot create lock file ${this.file}: ${(error as Error).message}`);
			}
			this.removeIfStale();
			return false;
		}
		try {
			fs.writeSync(fd, JSON.stringify(owner));
		} finally {
			fs.closeSync(fd);
		}
		this.token = token;
		return true;
	}

	release(): void {
		if (!this.token) {
			return;
		}
		const owner = readOwner(this.file);
		// Only ever remove our own lock: a stale-lock takeover by someone else must not be undone.
		if (owner?.token === this.token) {
			fs.rmSync(this.file, { force: true });
		}
		this.token = undefined;
	}

	private removeIfStale(): void {
		let stat: fs.Stats;
		try {
			stat = fs.statSync(this.file);
		} catch {
			return;
		}
		const owner = readOwner(this.file);
		const stale = owner ? isStale(owner) : Date.now() - stat.mtimeMs > emptyLockGraceMs;
		if (!stale) {
			return;
		}
		// Move the stale lock aside under a unique name, then check we moved the one we judged: a
		// plain unlink could delete a fresh lock that another process created in between.
		const aside = `${this.file}.stale-${process.pid}-${randomBytes(4).toString('hex')}`;
		try {
			fs.renameSync(this.file, aside);
		} catch {
			return;
		}
		const moved = readOwner(aside);
		if (owner && moved?.token !== owner.token) {
			try {
				fs.linkSync(aside, this.file);
			} catch {
				// Someone holds a newer lock already; theirs stays.
			}
		}
		fs.rmSync(aside, { force: true });
	}
}

function readOwner(file: string): LockOwner | undefined {
	try {
		const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<LockOwner>;
		if (typeof parsed.pid === 'number' && typeof parsed.token === 'string') {
			return { pid: parsed.pid, host: String(parsed.host ?? ''), token: parsed.token, at: Number(parsed.at ?? 0) };
		}
	} catch {
		// Missing, empty or half-written: no owner we can name.
	}
	return undefined;
}

function isStale(owner: LockOwner): boolean {
	if (owner.host !== os.hostname()) {
		return Date.now() - owner.at > foreignLockStaleMs;
	}
	try {
		process.kill(owner.pid, 0);
		return false;
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === 'ESRCH';
	}
}
