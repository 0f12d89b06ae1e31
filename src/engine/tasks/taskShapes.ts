/**
 * A task as the CLI's JSON and the wire show it. A leaf on purpose (types from other shape files
 * only), so the protocol can name it without pulling the engine in (docs/architecture.md §2).
 */
import type { Task } from '../storage/records';

/** A task with the ids of the tasks it waits for (its dependency rows, folded in). */
export interface TaskWithDependencies extends Task {
	dependsOn: string[];
}
