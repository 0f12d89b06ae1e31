import type { BatonConfig } from './config';
import { DomainEvents } from './events';
import type { Clock, Logger } from './ports';
import type { JournalStore } from './storage/journalStore';
import { taskDependencies, tasks } from './storage/schema';
import { TaskGraph } from './tasks/taskGraph';

/** What every engine service shares: the store, the host's ports, the configuration. */
export class EngineContext {
	private graphCache: { key: string; graph: TaskGraph } | undefined;
	/** Told of every change inside its write (see events.ts). */
	readonly events = new DomainEvents();

	constructor(
		readonly store: JournalStore,
		readonly clock: Clock,
		readonly log: Logger,
		readonly config: BatonConfig,
		readonly workspaceRoot: string,
	) {}

	nowIso(): string {
		return new Date(this.clock.now()).toISOString();
	}

	/** The task graph as of the data applied so far; rebuilt only when a tasks table changed. */
	graph(): TaskGraph {
		const key = `${this.store.tableVersion('tasks')}:${this.store.tableVersion('task_dependencies')}`;
		if (this.graphCache?.key !== key) {
			const db = this.store.db;
			this.graphCache = { key, graph: new TaskGraph(db.select().from(tasks).all(), db.select().from(taskDependencies).all()) };
		}
		return this.graphCache.graph;
	}
}
