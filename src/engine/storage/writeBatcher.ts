export interface PendingWrite {
	fn: () => unknown;
	resolve: (value: unknown) => void;
	reject: (error: unknown) => void;
}

/** The writes one flush took, and whether other writers are about (see `WriteBatcher`). */
export interface TakenBatch {
	writes: PendingWrite[];
	/**
	 * More than one write was waiting, or one arrived while the previous batch was being written:
	 * the flush should wait for its fdatasync off the event loop so that the next writes can gather.
	 * A write alone is synced on the spot, without the thread-pool round trip that costs it
	 * (measured: about half a millisecond under load) and that no other write would use.
	 */
	company: boolean;
}

/**
 * Collects the writes that arrive while a group commit is queued or running: the first of them
 * schedules one flush, and the flush takes every write pending once it holds the lock (`take`), so
 * writes arriving while it waited for the lock join it.
 */
export class WriteBatcher {
	private pending: PendingWrite[] = [];
	private queued = false;
	private flushing = false;
	private arrivedWhileFlushing = false;

	constructor(
		private readonly schedule: (flush: () => Promise<void>) => void,
		private readonly flush: (take: () => TakenBatch) => Promise<void>,
	) {}

	add<T>(fn: () => T): Promise<T> {
		return new Promise<T>((resolve, reject) => {
			this.pending.push({ fn, resolve: resolve as (value: unknown) => void, reject });
			if (this.flushing) {
				this.arrivedWhileFlushing = true;
			}
			if (!this.queued) {
				this.queued = true;
				this.schedule(async () => {
					try {
						await this.flush(() => this.take());
					} finally {
						this.flushing = false;
					}
				});
			}
		});
	}

	private take(): TakenBatch {
		const taken = this.pending;
		this.pending = [];
		this.queued = false;
		this.flushing = true;
		const company = taken.length > 1 || this.arrivedWhileFlushing;
		this.arrivedWhileFlushing = false;
		// A batch is written once its writes are acknowledged (all after its sync): a caller that writes
		// again as soon as it hears back did not arrive while it was being written.
		const writes = taken.map((w) => ({
			fn: w.fn,
			resolve: (value: unknown) => {
				this.flushing = false;
				w.resolve(value);
			},
			reject: w.reject,
		}));
		return { writes, company };
	}
}
