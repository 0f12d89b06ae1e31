/**
 * A cross-process write lock: a file created with O_EXCL that holds the owner's pid. A lock whose
 * pid no longer exists (on this host) is stale and is taken over. Waiters line up in a LockQueue and
 * only the first in line tries the lock: under load a random backoff let newcomers overtake the same
 * waiter again and again until it timed out.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { BatonError } from '../errors';
import { privateFileMode } from '../workspace';
import { writeRefused } from './fsUtil';
import { LockQueue } from './lockQueue';
import { isAlive } from './processAlive';
import { describeProcess, isStopped } from './lockHolder';

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
/** How often the first in line looks at the lock, and the others at the line. */
const firstPollMs = 2;
const queuedPollMs = 5;
/**
 * A holder stopped (SIGSTOP, Ctrl-Z) this long is reported at once instead of waited for: it holds
 * the lock until someone resumes or ends it, which no waiting does. Checked a few times a second.
 */
const stoppedHolderMs = 1_000;
const stoppedCheckMs = 100;
/** The default wait: this long while the lock stays with one holder, and up to `movingLineMs` in all while it passes from holder to holder. */
const defaultTimeoutMs = 15_000;
const movingLineMs = 120_000;
const thisHost = os.hostname();
let tokenCounter = 0;
const tokenPrefix = randomBytes(4).toString('hex');

export class LockFile {
	private token: string | undefined;
	private readonly instanceToken = `${tokenPrefix}${(++tokenCounter).toString(16)}`;
	private readonly ownerFile: string;
	private readonly queue: LockQueue;
	private ownerWritten = false;
	private linkable = true;
	/** How long the whole wait may go on while the line moves (0: `timeoutMs` bounds it). */
	private readonly movingLineMs: number;
	/** How long `acquire` waits; a hook bounds its first write by its budget, then waits as long as anyone (journalStore.setLockTimeout). */
	public timeoutMs: number;

	/**
	 * Without a timeout, the wait is patient with a busy line: many writers at once (thirty CLI
	 * processes under load) each hold the lock a moment and hand it on, and a waiter far back in that
	 * moving line is not refused for the line's length; it is refused when the lock stays with one
	 * holder for 15 s, or after 120 s in all. A timeout given (a hook's budget) bounds the whole wait.
	 */
	constructor(
		readonly file: string,
		timeoutMs?: number,
	) {
		this.timeoutMs = timeoutMs ?? defaultTimeoutMs;
		this.movingLineMs = timeoutMs === undefined ? movingLineMs : 0;
		this.ownerFile = `${file}.${process.pid}-${this.instanceToken}`;
		this.queue = new LockQueue(file, { pid: process.pid, host: thisHost, token: this.instanceToken });
	}

	/** Owner files left by processes that died (their pid is gone on this host). */
	static removeDeadOwnerFiles(file: string): void {
		const dir = path.dirname(file);
		const prefix = `${path.basename(file)}.`;
		let names: string[];
		try {
			names = fs.readdirSync(dir);
		} catch {
			return;
		}
		for (const name of names) {
			const match = name.startsWith(prefix) ? /^(\d+)-[0-9a-f]+$/.exec(name.slice(prefix.length)) : null;
			if (match && !isAlive(Number(match[1]))) {
				fs.rmSync(path.join(dir, name), { force: true });
			}
		}
	}

	get held(): boolean {
		return this.token !== undefined;
	}

	async acquire(): Promise<void> {
		const started = Date.now();
		const deadline = started + this.timeoutMs;
		// Fast path: nobody waits, so taking the lock now overtakes no one.
		if (this.queue.isEmpty() && this.tryAcquire()) {
			return;
		}
		this.queue.enqueue();
		const stopped = { pid: 0, since: 0, checkedAt: 0 };
		// Who held the lock when last looked, and when that changed (the line moved).
		const line = { token: '', movedAt: started };
		try {
			for (;;) {
				const { first, waiting } = this.queue.position();
				if (first && this.tryAcquire()) {
					return;
				}
				const now = Date.now();
				const moving = this.movingLineMs > 0 && now - started < this.movingLineMs && now - line.movedAt < this.timeoutMs;
				if (now > deadline && !moving) {
					throw this.timeoutError(now - started, waiting);
				}
				if (now - stopped.checkedAt >= stoppedCheckMs) {
					stopped.checkedAt = now;
					const token = readOwner(this.file)?.token ?? '';
					if (token !== line.token) {
						line.token = token;
						line.movedAt = now;
					}
					this.checkStoppedHolder(stopped, now);
				}
				await sleep(first ? firstPollMs : queuedPollMs);
			}
		} finally {
			this.queue.leave();
		}
	}

	/** Throws once the holder of the lock has been stopped (not merely busy) for `stoppedHolderMs`. */
	private checkStoppedHolder(stopped: { pid: number; since: number }, now: number): void {
		const owner = readOwner(this.file);
		if (!owner || owner.host !== thisHost || !isStopped(owner.pid)) {
			stopped.pid = 0;
			return;
		}
		if (stopped.pid !== owner.pid) {
			stopped.pid = owner.pid;
			stopped.since = now;
			return;
		}
		if (now - stopped.since >= stoppedHolderMs) {
			throw new BatonError(
				'locked',
				`${this.file} is held by pid ${owner.pid} (${describeProcess(owner.pid)}), which is stopped (SIGSTOP, or Ctrl-Z in its terminal); nothing was written. Resume it (\`kill -CONT ${owner.pid}\`, or \`fg\` in its terminal) or end it (\`kill ${owner.pid}\`: an acknowledged write is never lost), then run this again`,
				{ file: this.file, holderPid: owner.pid, stopped: true },
			);
		}
	}

	/** Says who holds the lock now and how long the line is, as read at the moment of giving up. */
	private timeoutError(waitedMs: number, waiting: number): BatonError {
		const owner = readOwner(this.file);
		let holder: string;
		if (owner) {
			const since = fs.statSync(this.file, { throwIfNoEntry: false });
			holder = `held by pid ${owner.pid} on ${owner.host}${since ? ` (since ${Math.max(0, Math.round(Date.now() - since.ctimeMs))} ms ago)` : ''}`;
		} else {
			holder = fs.existsSync(this.file)
				? 'held by a process whose owner record cannot be read'
				: 'free this instant but was taken by others the whole time';
		}
		const others = Math.max(0, waiting - 1);
		const what = owner && owner.host === thisHost ? ` (${describeProcess(owner.pid)})` : '';
		const advice = owner
			? `run it again when pid ${owner.pid} is done; if it is stuck, end it (\`kill ${owner.pid}\`: an acknowledged write is never lost)`
			: 'run it again (many writers at once: fewer at a time finish sooner)';
		const limit = this.movingLineMs > 0 ? `limit ${this.timeoutMs} ms with one holder, ${this.movingLineMs} ms in all` : `limit ${this.timeoutMs} ms`;
		return new BatonError(
			'locked',
			`${this.file} is ${holder}${what}; gave up after waiting ${waitedMs} ms (${limit}) with ${others} other waiter(s) in line; nothing was written: ${advice}`,
			{
				file: this.file,
				holderPid: owner?.pid ?? null,
				waiting: others,
			},
		);
	}

	/**
	 * One attempt: true when this process now holds the lock. The lock is a hard link to a file of
	 * this instance's that names its owner: one atomic link() to take it, one unlink() to release it.
	 * File systems without hard links get the same lock through open(O_EXCL) + write.
	 */
	tryAcquire(): boolean {
		if (this.token) {
			throw new Error('lock already held by this instance');
		}
		const owner: LockOwner = { pid: process.pid, host: thisHost, token: this.instanceToken, at: Date.now() };
		try {
			if (this.linkable) {
				this.ensureOwnerFile(owner);
				fs.linkSync(this.ownerFile, this.file);
			} else {
				this.createLockFile(owner);
			}
		} catch (error) {
			const code = (error as NodeJS.ErrnoException).code;
			if (code === 'EEXIST') {
				this.removeIfStale();
				return false;
			}
			if (this.linkable && (code === 'EPERM' || code === 'ENOTSUP' || code === 'EOPNOTSUPP' || code === 'EXDEV')) {
				this.linkable = false;
				return this.tryAcquire();
			}
			throw writeRefused('create lock file', this.file, error);
		}
		this.token = owner.token;
		return true;
	}

	/** Removes this instance's owner file (the lock itself is released by release()). */
	dispose(): void {
		this.release();
		if (this.ownerWritten) {
			fs.rmSync(this.ownerFile, { force: true });
			this.ownerWritten = false;
		}
	}

	private ensureOwnerFile(owner: LockOwner): void {
		if (!this.ownerWritten) {
			try {
				fs.writeFileSync(this.ownerFile, JSON.stringify(owner), { mode: privateFileMode });
			} catch (error) {
				// A full disk creates the file and refuses its content: an empty owner file is of no use.
				fs.rmSync(this.ownerFile, { force: true });
				throw error;
			}
			this.ownerWritten = true;
		}
	}

	/** The lock without hard links: created exclusively, then written; one left empty is removed. */
	private createLockFile(owner: LockOwner): void {
		const fd = fs.openSync(this.file, 'wx', privateFileMode);
		try {
			fs.writeSync(fd, JSON.stringify(owner));
		} catch (error) {
			fs.closeSync(fd);
			fs.unlinkSync(this.file);
			throw error;
		}
		fs.closeSync(fd);
	}

	release(): void {
		if (!this.token) {
			return;
		}
		// No read-back before the unlink: while this process lives on this host nobody judges its
		// lock stale, so the file is still ours (and the write path saves a syscall per commit).
		try {
			fs.unlinkSync(this.file); // not rmSync: it stats and validates first, on every commit
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
				throw error;
			}
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
		if (!owner && !this.unreadableAndOld(stat)) {
			return;
		}
		if (owner && !isStale(owner, stat.ctimeMs)) {
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
		if (moved?.token !== owner?.token) {
			try {
				fs.linkSync(aside, this.file);
			} catch {
				// Someone holds a newer lock already; theirs stays.
			}
		}
		fs.rmSync(aside, { force: true });
	}

	/**
	 * An unreadable lock is stale only when it is still the same file (a lock released and re-taken
	 * in between is another inode, and its owner's file was written long ago: its mtime says nothing)
	 * and it has stayed unreadable past the grace period (a process died between create and write).
	 */
	private unreadableAndOld(first: fs.Stats): boolean {
		let now: fs.Stats;
		try {
			now = fs.statSync(this.file);
		} catch {
			return false; // released meanwhile
		}
		return now.ino === first.ino && now.dev === first.dev && readOwner(this.file) === undefined && Date.now() - now.mtimeMs > emptyLockGraceMs;
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

function isStale(owner: LockOwner, lockChangedMs: number): boolean {
	if (owner.host !== thisHost) {
		// The link's ctime is when the lock was taken (the owner file may be older).
		return Date.now() - lockChangedMs > foreignLockStaleMs;
	}
	return !isAlive(owner.pid);
}
