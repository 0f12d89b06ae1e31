/**
 * Who may use the daemon's one engine right now. Commands and hooks share it (many at once: a long
 * checkpoint beside short commands); closing and opening it again (its files were replaced, or a
 * window brought other settings) needs it to themselves. Shared holders enter unless a reopen waits
 * or runs; a reopen waits for the holders inside to leave and keeps newcomers out meanwhile, so two
 * requests that both find the engine stale reopen it once, and nobody's engine is closed under them.
 */
export class EngineGate {
	private holders = 0;
	/** Settles when the exclusive work queued last is done (undefined: none waits or runs). */
	private exclusiveTail: Promise<void> | undefined;
	private emptied: (() => void)[] = [];

	/** How many hold the engine now. */
	get held(): number {
		return this.holders;
	}

	/** Enters as a shared holder once no reopen waits or runs. Pair with leave(). */
	async enter(): Promise<void> {
		while (this.exclusiveTail) {
			await this.exclusiveTail;
		}
		this.holders++;
	}

	leave(): void {
		if (this.holders === 0) {
			return;
		}
		this.holders--;
		if (this.holders === 0) {
			for (const resolve of this.emptied.splice(0)) {
				resolve();
			}
		}
	}

	/**
	 * Runs `fn` with nobody else holding the engine: after the holders inside left, before anyone
	 * waiting enters. Exclusive runs queue behind each other in order.
	 */
	exclusive<T>(fn: () => Promise<T>): Promise<T> {
		const before = this.exclusiveTail ?? Promise.resolve();
		const run = before.then(async () => {
			if (this.holders > 0) {
				await new Promise<void>((resolve) => this.emptied.push(resolve));
			}
			return fn();
		});
		const tail: Promise<void> = run.then(
			() => undefined,
			() => undefined,
		);
		this.exclusiveTail = tail;
		void tail.then(() => {
			if (this.exclusiveTail === tail) {
				this.exclusiveTail = undefined;
			}
		});
		return run;
	}
}
