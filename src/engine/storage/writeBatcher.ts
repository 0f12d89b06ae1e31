export interface PendingWrite {
	fn: () => unknown;
	resolve: (value: unknown) => void;
	reject: (error: unknown) => void;
}

/**
 * Collects the writes that arrive while a group commit is queued or running: the first of them
 * schedules one flush, and the flush takes every write pending once it holds the lock (`take`), so
 * writes arriving while it waited for the lock join it.
 */
export class WriteBatcher {
	private pending: PendingWrite[] = [];
	private queued = false;

	constructor(
		private readonly schedule: (flush: () => Promise<void>) => void,
		private readonly flush: (take: () => PendingWrite[]) => Promise<void>,
	) {}

	add<T>(fn: () => T): Promise<T> {
		return new Promise<T>((resolve, reject) => {
			this.pending.push({ fn, resolve: resolve as (value: unknown) => void, reject });
			if (!this.queued) {
				this.queued = true;
				this.schedule(() =>
					this.flush(() => {
						const batch = this.pending;
						this.pending = [];
						this.queued = false;
						return batch;
					}),
				);
			}
		});
	}
}
