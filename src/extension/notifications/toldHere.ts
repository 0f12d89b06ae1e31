/** How long a command's own message stands in for the backend's notice of the same event. */
const echoWindowMs = 2 * 60_000;

/**
 * Events this window already told the person about (it did them and said so), so the backend's
 * `editor` notification of the same event does not raise a second toast. Keys are
 * `<event>:<subject id>`, e.g. `session.completed:s_…`; each stands in once.
 */
export class ToldHere {
	private readonly told = new Map<string, number>();

	/** Called before the request that causes the event: its notice can arrive before the reply. */
	mark(event: string, subjectId: string): void {
		this.prune();
		this.told.set(`${event}:${subjectId}`, Date.now());
	}

	/** True (once) when this window already told the person about this event. */
	consume(event: string, subjectId: string | undefined): boolean {
		this.prune();
		const key = `${event}:${subjectId ?? ''}`;
		return subjectId !== undefined && this.told.delete(key);
	}

	private prune(): void {
		const oldest = Date.now() - echoWindowMs;
		for (const [key, at] of this.told) {
			if (at < oldest) this.told.delete(key);
		}
	}
}
