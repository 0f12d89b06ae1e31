/**
 * Which tasks a session scope covers. A question about the task graph, so it lives with the tasks:
 * the task service (focus) and the sessions (briefings, handoffs, scope overlap) both ask it, and
 * the sessions sit above the tasks.
 */
import type { SessionScope } from '../storage/jsonShapes';
import type { TaskGraph } from './taskGraph';

/** The task ids a scope covers, or `undefined` for global (everything). */
export function scopeTaskIds(scope: SessionScope, graph: TaskGraph): ReadonlySet<string> | undefined {
	switch (scope.type) {
		case 'global':
			return undefined;
		case 'task':
			return new Set([scope.rootTaskId ?? '', ...graph.childrenOf(scope.rootTaskId ?? '')]);
		case 'epicPhase': {
			const phase = scope.phaseFilter;
			return new Set([...graph.subtree(scope.rootTaskId ?? '')].filter((id) => id === scope.rootTaskId || graph.byId.get(id)?.phase === phase));
		}
		case 'custom':
			return scope.explicitTaskIds?.length ? new Set(scope.explicitTaskIds) : graph.subtree(scope.rootTaskId ?? '');
		default:
			return graph.subtree(scope.rootTaskId ?? '');
	}
}
