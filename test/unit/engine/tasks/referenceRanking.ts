import type { Task } from '../../../../src/engine/storage/model';
import { isOpen } from '../../../../src/engine/tasks/taskGraph';

const priorityWeight: Record<Task['priority'], number> = { critical: 4, high: 3, medium: 2, low: 1 };

/**
 * The ranking as it was before the one-pass leverage: a full search over dependents per task. Kept
 * here, not in the product, as the definition the fast version must match exactly.
 */
export class ReferenceRanking {
	private readonly byId = new Map<string, Task>();
	private readonly dependents = new Map<string, string[]>();
	private readonly dependsOn = new Map<string, string[]>();

	constructor(tasks: readonly Task[], deps: readonly { taskId: string; dependsOnId: string }[]) {
		for (const task of tasks) {
			this.byId.set(task.id, task);
		}
		for (const dep of deps) {
			(this.dependsOn.get(dep.taskId) ?? this.dependsOn.set(dep.taskId, []).get(dep.taskId))?.push(dep.dependsOnId);
			(this.dependents.get(dep.dependsOnId) ?? this.dependents.set(dep.dependsOnId, []).get(dep.dependsOnId))?.push(dep.taskId);
		}
	}

	leverage(id: string): number {
		const seen = new Set<string>();
		const stack = [...(this.dependents.get(id) ?? [])];
		while (stack.length > 0) {
			const next = stack.pop() as string;
			if (seen.has(next)) {
				continue;
			}
			seen.add(next);
			stack.push(...(this.dependents.get(next) ?? []));
		}
		let count = 0;
		for (const waiting of seen) {
			const task = this.byId.get(waiting);
			if (task && isOpen(task)) {
				count++;
			}
		}
		return count;
	}

	ranked(): string[] {
		const blocked = (t: Task) =>
			(this.dependsOn.get(t.id) ?? []).some((d) => {
				const dep = this.byId.get(d);
				return dep !== undefined && isOpen(dep);
			});
		const candidates = [...this.byId.values()].filter((t) => (t.status === 'pending' || t.status === 'active') && t.type !== 'epic' && !blocked(t));
		const score = (t: Task) => priorityWeight[t.priority] * 10 + this.leverage(t.id) * 3 + (t.type === 'bug' ? 2 : 0);
		const scores = new Map(candidates.map((t) => [t.id, score(t)]));
		return candidates.sort((a, b) => (scores.get(b.id) as number) - (scores.get(a.id) as number) || a.seq - b.seq).map((t) => t.id);
	}
}
