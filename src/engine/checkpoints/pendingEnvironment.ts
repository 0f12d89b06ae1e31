/**
 * Environment capture off the checkpoint's critical path: the checkpoint is recorded as soon as its
 * snapshot is taken, with a pending environment when capture is still running, and a second write
 * puts the captured environment in its place. The pending snapshot is itself an honest record (every
 * category empty, `unknown` saying why), so a process that ends between the two writes leaves a
 * checkpoint whose environment is unknown with a reason, never a broken row. No domain event is
 * emitted for the second write: the environment is not shared, and the checkpoint's own events
 * already went out with the first.
 */
import { eq } from 'drizzle-orm';
import type { EngineContext } from '../context';
import type { EnvironmentSnapshot } from '../storage/jsonShapes';
import { checkpoints } from '../storage/schema';

export const pendingReason =
	'environment: still being captured when the checkpoint was recorded (one that stays pending was never finished: the process ended first)';

export function pendingEnvironment(nowIso: string): EnvironmentSnapshot {
	return {
		capturedAt: nowIso,
		durationMs: 0,
		agents: {},
		vscode: null,
		mcpServers: {},
		runtimes: {},
		packages: {},
		git: null,
		unknown: [pendingReason],
		pending: true,
	};
}

function isPendingEnvironment(env: EnvironmentSnapshot | null | undefined): boolean {
	return env?.pending === true;
}

/** A capture under way, with its result once it is there (read without waiting). */
export class RunningCapture {
	private result: { value: EnvironmentSnapshot | null } | undefined;

	constructor(readonly promise: Promise<EnvironmentSnapshot | null>) {
		void promise.then((value) => {
			this.result = { value };
		});
	}

	get finished(): { value: EnvironmentSnapshot | null } | undefined {
		return this.result;
	}
}

/** The second writes still running; a short process waits for them before it exits. */
export class EnvironmentAttacher {
	private readonly running = new Set<Promise<void>>();

	constructor(private readonly ctx: EngineContext) {}

	/** Records the captured environment of checkpoint `id` when capture finishes, in the background. */
	attach(id: string, capture: RunningCapture): void {
		const work = capture.promise
			.then((environment) =>
				this.ctx.store.write((db) => {
					const row = db.select({ environment: checkpoints.environment }).from(checkpoints).where(eq(checkpoints.id, id)).get();
					// Only a pending environment is replaced: the record of one already there is final.
					if (row && isPendingEnvironment(row.environment)) {
						db.update(checkpoints).set({ environment }).where(eq(checkpoints.id, id)).run();
					}
				}),
			)
			.catch((error: unknown) => {
				this.ctx.log.warn(`the environment of checkpoint ${id} was not recorded (${(error as Error).message}); it stays unknown`);
			});
		this.running.add(work);
		void work.finally(() => this.running.delete(work));
	}

	get pending(): number {
		return this.running.size;
	}

	/** Resolves once every environment started so far is recorded (or given up on). */
	async settled(): Promise<void> {
		while (this.running.size > 0) {
			await Promise.all([...this.running]);
		}
	}
}
