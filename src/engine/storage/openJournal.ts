import fs from 'node:fs';
import { BatonError } from '../errors';
import { writeAll, writeRefused } from './fsUtil';
import { acknowledgedOffset, decodeHeader, encodeAcknowledged, headerSize } from './journalFormat';

type JournalHeader = ReturnType<typeof decodeHeader>;

/**
 * The journal file, kept open between operations and reopened when its inode changes (compaction and
 * repair replace the file by rename, so an open descriptor would keep reading the old one).
 */
export class OpenJournal {
	private current: { fd: number; ino: number; dev: number; header: JournalHeader } | undefined;

	constructor(readonly file: string) {}

	/** Cheap unlocked check (one stat): was the journal replaced or did it grow past `offset`? */
	changedSince(offset: number): boolean {
		try {
			const st = fs.statSync(this.file);
			return !this.current || st.ino !== this.current.ino || st.dev !== this.current.dev || st.size !== offset;
		} catch {
			return true;
		}
	}

	/** Under the lock: the open journal and its current size, reopening it if the file was replaced. */
	handle(): { fd: number; size: number; header: JournalHeader } | undefined {
		let st: fs.Stats;
		try {
			st = fs.statSync(this.file);
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
				return undefined;
			}
			throw error;
		}
		if (!this.current || st.ino !== this.current.ino || st.dev !== this.current.dev) {
			this.close();
			const fd = fs.openSync(this.file, 'r+');
			const head = Buffer.alloc(headerSize);
			const read = fs.readSync(fd, head, 0, headerSize, 0);
			const fst = fs.fstatSync(fd);
			this.current = { fd, ino: fst.ino, dev: fst.dev, header: decodeHeader(head.subarray(0, read)) };
			return { fd, size: fst.size, header: this.current.header };
		}
		return { fd: this.current.fd, size: st.size, header: this.current.header };
	}

	/** The format version of the open journal's header (journalFormat.ts), read when it was opened. */
	version(): number | undefined {
		const header = (this.current ?? this.handle())?.header;
		return header && 'version' in header ? header.version : undefined;
	}

	/**
	 * Append + fdatasync at `offset`; on failure cut the journal back so a failed write never surfaces
	 * later. `offEventLoop`: the fdatasync runs in the thread pool, so writes arriving meanwhile can
	 * form the next batch; otherwise it runs on the spot, saving the round trip through the pool.
	 * Once durable, the header's acknowledged field is set to `lastSeq` in place, without a sync of its
	 * own: the next append's fdatasync carries it, and a crash before that leaves it behind, never ahead.
	 */
	async appendDurably(buf: Buffer, offset: number, offEventLoop: boolean, lastSeq: number): Promise<void> {
		// The caller caught up under the same lock just before: the open journal is current and ends at
		// offset (it said so, or it replaced the file and reset both).
		const fd = this.current?.fd ?? this.handle()?.fd;
		if (fd === undefined) {
			throw new BatonError('storageFailure', `${this.file} disappeared underneath the write lock`);
		}
		try {
			writeAll(fd, buf, offset);
			if (offEventLoop) {
				await new Promise<void>((resolve, reject) => fs.fdatasync(fd, (error) => (error ? reject(error) : resolve())));
			} else {
				fs.fdatasyncSync(fd);
			}
			writeAll(fd, encodeAcknowledged(lastSeq), acknowledgedOffset);
		} catch (error) {
			fs.ftruncateSync(fd, offset);
			throw writeRefused('write', this.file, error);
		}
	}

	close(): void {
		if (this.current) {
			fs.closeSync(this.current.fd);
			this.current = undefined;
		}
	}
}
