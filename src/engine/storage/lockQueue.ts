/**
 * The waiting line of a LockFile: a folder of ticket files next to the lock, one per waiting
 * instance, named by a ticket number taken with O_EXCL (the highest present plus one). Only the
 * waiter with the lowest live ticket tries the lock, so it is handed on in arrival order instead of
 * to whoever's random backoff happens to end first.
 *
 * A ticket names its owner (pid, host); one whose process is gone (on this host) is removed by any
 * waiter, one from another host that its owner stopped refreshing is stale after a minute, and one
 * left unreadable by a crash between create and write is stale after a grace period.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { mkdirPrivate, privateFileMode } from '../workspace';
import { writeRefused } from './fsUtil';
import { isAlive } from './processAlive';

interface TicketOwner {
	pid: number;
	host: string;
	token: string;
}

const thisHost = os.hostname();
const ticketDigits = 12;
const unreadableGraceMs = 2_000;
const foreignStaleMs = 60_000;
/** Waiters touch their ticket this often so that other hosts do not judge it stale. */
const refreshMs = 5_000;
const staleCheckMs = 100;

export class LockQueue {
	readonly dir: string;
	private ticket: string | undefined;
	private refreshedAt = 0;
	private checkedAt = 0;

	constructor(
		lockFile: string,
		private readonly owner: TicketOwner,
	) {
		this.dir = `${lockFile}.queue`;
	}

	/** True when nobody waits (the fast path may then try the lock without a ticket). */
	isEmpty(): boolean {
		// The folder exists only while someone waits: one access() answers the common case without
		// the thrown ENOENT (and its stack trace) that listing a missing folder costs on every write.
		if (!fs.existsSync(this.dir)) {
			return true;
		}
		try {
			return fs.readdirSync(this.dir).length === 0;
		} catch {
			return true;
		}
	}

	get holdsTicket(): boolean {
		return this.ticket !== undefined;
	}

	/** Takes the next ticket number: the highest present plus one, created exclusively. */
	enqueue(): void {
		if (this.ticket) {
			return;
		}
		for (let attempt = 0; attempt < 1_000; attempt++) {
			const next = this.tickets().reduce((max, t) => Math.max(max, Number(t)), 0) + 1;
			const name = String(next).padStart(ticketDigits, '0');
			let fd: number;
			try {
				fd = fs.openSync(path.join(this.dir, name), 'wx', privateFileMode);
			} catch (error) {
				const code = (error as NodeJS.ErrnoException).code;
				if (code === 'ENOENT') {
					mkdirPrivate(this.dir);
					continue;
				}
				if (code === 'EEXIST') {
					continue;
				}
				throw writeRefused('take a ticket in', this.dir, error);
			}
			try {
				fs.writeSync(fd, JSON.stringify(this.owner));
			} catch (error) {
				// A full disk: an empty ticket would hold up everyone behind it for its grace period.
				fs.closeSync(fd);
				fs.rmSync(path.join(this.dir, name), { force: true });
				throw writeRefused('take a ticket in', this.dir, error);
			}
			fs.closeSync(fd);
			this.ticket = name;
			this.refreshedAt = Date.now();
			return;
		}
		throw new Error(`cannot take a ticket in ${this.dir}`);
	}

	/**
	 * Is this instance first in line? Removes stale tickets ahead of it on the way. Also returns how
	 * many live tickets there are (for an honest timeout message).
	 */
	position(): { first: boolean; waiting: number } {
		const now = Date.now();
		if (this.ticket && now - this.refreshedAt > refreshMs) {
			try {
				fs.utimesSync(path.join(this.dir, this.ticket), now / 1000, now / 1000);
			} catch {
				// Removed as stale by someone else: take a new ticket (at the back) rather than cut in.
				this.ticket = undefined;
				this.enqueue();
			}
			this.refreshedAt = now;
		}
		let names = this.tickets();
		if (this.ticket && !names.includes(this.ticket)) {
			// Judged stale by mistake (a number reused just after a dead waiter's ticket was removed):
			// back in line rather than waiting forever for a ticket that is gone.
			this.ticket = undefined;
			this.enqueue();
			names = this.tickets();
		}
		const mine = this.ticket;
		let ahead = mine ? names.filter((t) => t < mine) : names;
		let removed = 0;
		// Reading every ticket ahead on every poll costs more CPU than the waiting saves: the owners
		// of the tickets ahead are checked a few times a second.
		if (ahead.length > 0 && now - this.checkedAt > staleCheckMs) {
			this.checkedAt = now;
			const live = ahead.filter((t) => !this.removeIfStale(t));
			removed = ahead.length - live.length;
			ahead = live;
		}
		return { first: mine !== undefined && ahead.length === 0, waiting: names.length - removed };
	}

	/** Leaves the line (after taking the lock, or on giving up); removes the folder when it is empty. */
	leave(): void {
		if (!this.ticket) {
			return;
		}
		fs.rmSync(path.join(this.dir, this.ticket), { force: true });
		this.ticket = undefined;
		try {
			fs.rmdirSync(this.dir);
		} catch {
			// Someone else is waiting (or just made the folder): it stays.
		}
	}

	/** Ticket names in order. */
	private tickets(): string[] {
		let names: string[];
		try {
			names = fs.readdirSync(this.dir);
		} catch {
			return [];
		}
		return names.filter((n) => /^\d+$/.test(n)).sort();
	}

	/** True when the ticket was stale and is gone now. */
	private removeIfStale(name: string): boolean {
		const file = path.join(this.dir, name);
		let owner: TicketOwner | undefined;
		try {
			const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<TicketOwner>;
			if (typeof parsed.pid === 'number' && typeof parsed.token === 'string') {
				owner = { pid: parsed.pid, host: String(parsed.host ?? ''), token: parsed.token };
			}
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
				return true; // left meanwhile
			}
		}
		const mtime = fs.statSync(file, { throwIfNoEntry: false })?.mtimeMs;
		if (mtime === undefined) {
			return true;
		}
		const age = Date.now() - mtime;
		const stale = owner ? (owner.host === thisHost ? !isAlive(owner.pid) : age > foreignStaleMs) : age > unreadableGraceMs;
		if (stale) {
			fs.rmSync(file, { force: true });
		}
		return stale;
	}
}
