/**
 * Which imported tasks are new, which Baton id each gets, and whether their parents and dependencies
 * resolve without a cycle.
 *
 * Id mapping (kept in `import_records`): a task imported before keeps the id it got then. A new task
 * keeps its source id when the source id is a Baton-style `T<n>` (CLEO's) that is free in the
 * workspace (id and sequence number); otherwise it gets the next `T<n>` and its description ends with
 * `Imported from <source> <id>.`, so the source id stays visible, and a warning reports the mapping.
 *
 * A parent or dependency naming a task that is neither in the import nor imported before is not an
 * error: other trackers allow it (Beads links across databases). It is kept as an external reference
 * at the end of the description, with a warning; only malformed records stop an import.
 */
import type { BatonDb } from '../storage/journalStore';
import type { Task } from '../storage/model';
import { taskDependencies, tasks } from '../storage/schema';
import type { ImportBatch, ImportedTask, ImportIssue, TaskRef } from './importTypes';
import { maxOf } from '../arrays';

export interface PlannedTask {
	source: ImportedTask;
	row: Task;
	dependsOn: string[];
	/** Where each dependency was named in the source, by Baton id. */
	dependencyRefs: Map<string, TaskRef>;
}

interface TaskPlan {
	added: PlannedTask[];
	unchanged: number;
	/** Source task id → Baton task id, for every task of the batch (new and imported before). */
	idOf: Map<string, string>;
	/** Baton task id → title, for the tasks this batch brings or names. */
	titleOf: Map<string, string>;
}

export function planTasks(
	db: BatonDb,
	batch: ImportBatch,
	previous: Map<string, { entityId: string; contentHash: string }>,
	errors: ImportIssue[],
	warnings: ImportIssue[],
): TaskPlan {
	const existing = db.select({ id: tasks.id, seq: tasks.seq, title: tasks.title, parentId: tasks.parentId }).from(tasks).all();
	const takenIds = new Set(existing.map((t) => t.id));
	const takenSeqs = new Set(existing.map((t) => t.seq));
	const titleOf = new Map(existing.map((t) => [t.id, t.title]));
	const idOf = new Map<string, string>();
	const fresh: ImportedTask[] = [];
	let unchanged = 0;
	for (const task of batch.tasks) {
		const before = previous.get(task.externalId);
		if (before) {
			idOf.set(task.externalId, before.entityId);
			unchanged++;
			if (before.contentHash !== task.contentHash) {
				warnings.push({
					record: task.record,
					field: null,
					message: `changed since it was imported as ${before.entityId}; imports only add, so Baton keeps its task as it is`,
				});
			}
		} else {
			fresh.push(task);
		}
	}
	allocateIds(fresh, takenIds, takenSeqs, idOf, warnings);
	const added: PlannedTask[] = [];
	for (const task of fresh) {
		const planned = plannedTask(task, idOf, batch.source, warnings);
		titleOf.set(planned.row.id, task.title);
		added.push(planned);
	}
	checkParents(added, existing, errors);
	checkCycles(db, added, errors);
	return { added, unchanged, idOf, titleOf };
}

/**
 * One new task's row: its parent and dependencies resolved to Baton ids (a reference to a task that is
 * neither in the batch nor imported before is kept in the description, with a warning), and a note
 * of its source id when it took another.
 */
function plannedTask(task: ImportedTask, idOf: Map<string, string>, source: string, warnings: ImportIssue[]): PlannedTask {
	const external: string[] = [];
	const resolve = (ref: TaskRef, what: string): string | undefined => {
		const id = idOf.get(ref.id);
		if (!id) {
			external.push(`${what} ${ref.id}`);
			warnings.push({
				record: ref.record,
				field: ref.field,
				message: `${what} ${ref.id} is neither in this import nor imported before from ${source}; kept as an external reference in the description`,
			});
		}
		return id;
	};
	const id = idOf.get(task.externalId) as string;
	const parentId = task.parent ? resolve(task.parent, 'parent') : null;
	const dependencyRefs = new Map<string, TaskRef>();
	for (const ref of task.dependsOn) {
		const dep = resolve(ref, 'dependency');
		if (dep && !dependencyRefs.has(dep)) dependencyRefs.set(dep, ref);
	}
	const dependsOn = [...dependencyRefs.keys()];
	const externalNote = external.length ? `External references (not in this import): ${external.join(', ')}.` : null;
	const note = id !== task.externalId ? `Imported from ${source} ${task.externalId}.` : null;
	return {
		source: task,
		dependsOn,
		dependencyRefs,
		row: {
			id,
			seq: Number(id.slice(1)),
			title: task.title,
			description: [task.description, externalNote, note].filter(Boolean).join('\n\n') || null,
			type: task.type,
			status: task.status,
			priority: task.priority,
			parentId: parentId ?? null,
			phase: task.phase,
			createdAt: task.createdAt,
			updatedAt: task.updatedAt,
			completedAt: task.completedAt,
			createdBySession: null,
			completedBySession: null,
		},
	};
}

/** Baton ids for the batch's new tasks: each keeps its own CLEO id when it is free, the rest take the next free numbers. */
function allocateIds(fresh: readonly ImportedTask[], takenIds: Set<string>, takenSeqs: Set<number>, idOf: Map<string, string>, warnings: ImportIssue[]): void {
	// Free CLEO ids first, so an allocated number never takes an id a later task could have kept.
	for (const task of fresh) {
		const seq = task.preferredId ? Number(task.preferredId.slice(1)) : NaN;
		if (task.preferredId && !takenIds.has(task.preferredId) && !takenSeqs.has(seq)) {
			idOf.set(task.externalId, task.preferredId);
			takenIds.add(task.preferredId);
			takenSeqs.add(seq);
		}
	}
	let next = maxOf(takenSeqs, 0) + 1;
	for (const task of fresh) {
		if (!idOf.has(task.externalId)) {
			while (takenSeqs.has(next) || takenIds.has(`T${next}`)) next++;
			idOf.set(task.externalId, `T${next}`);
			if (task.preferredId) {
				warnings.push({ record: task.record, field: 'id', message: `${task.preferredId} is already taken in this workspace; imported as T${next}` });
			}
			takenSeqs.add(next);
			takenIds.add(`T${next}`);
		}
	}
}

/** A task may not be its own ancestor: follow parents (new and existing) from every new task. */
function checkParents(added: PlannedTask[], existing: { id: string; parentId: string | null }[], errors: ImportIssue[]): void {
	const parentOf = new Map(existing.map((t) => [t.id, t.parentId]));
	for (const t of added) parentOf.set(t.row.id, t.row.parentId);
	for (const t of added) {
		const seen = new Set<string>([t.row.id]);
		for (let at = t.row.parentId; at; at = parentOf.get(at) ?? null) {
			if (seen.has(at)) {
				if (at === t.row.id && t.source.parent) {
					errors.push({
						record: t.source.parent.record,
						field: t.source.parent.field,
						message: `parent ${t.source.parent.id} makes ${t.source.externalId} its own ancestor`,
					});
				}
				break;
			}
			seen.add(at);
		}
	}
}

/** Dependencies may not form a cycle: a depth-first search over existing and new edges; each cycle is reported on a new edge in it. */
function checkCycles(db: BatonDb, added: PlannedTask[], errors: ImportIssue[]): void {
	const edges = new Map<string, string[]>();
	const link = (from: string, to: string): void => void (edges.get(from) ?? edges.set(from, []).get(from))?.push(to);
	for (const d of db.select().from(taskDependencies).all()) link(d.taskId, d.dependsOnId);
	const fresh = new Map<string, PlannedTask>();
	for (const t of added) {
		fresh.set(t.row.id, t);
		for (const dep of t.dependsOn) link(t.row.id, dep);
	}
	const state = new Map<string, 1 | 2>();
	const reported = new Set<string>();
	for (const start of fresh.keys()) {
		if (state.has(start)) continue;
		const stack: { id: string; next: number }[] = [{ id: start, next: 0 }];
		state.set(start, 1);
		while (stack.length) {
			const top = stack[stack.length - 1] as { id: string; next: number };
			const out = edges.get(top.id) ?? [];
			if (top.next >= out.length) {
				state.set(top.id, 2);
				stack.pop();
				continue;
			}
			const to = out[top.next++] as string;
			if (state.get(to) === 1) {
				const path = [...stack.slice(stack.findIndex((f) => f.id === to)).map((f) => f.id), to];
				reportCycle(path, fresh, errors, reported);
			} else if (!state.has(to)) {
				state.set(to, 1);
				stack.push({ id: to, next: 0 });
			}
		}
	}
}

function reportCycle(path: string[], fresh: Map<string, PlannedTask>, errors: ImportIssue[], reported: Set<string>): void {
	for (let i = 0; i + 1 < path.length; i++) {
		const task = fresh.get(path[i] as string);
		const ref = task?.dependencyRefs.get(path[i + 1] as string);
		if (task && ref && !reported.has(task.row.id)) {
			reported.add(task.row.id);
			errors.push({ record: task.source.record, field: ref.field, message: `dependencies form a cycle: ${path.join(' → ')} (Baton ids)` });
			return;
		}
	}
}
