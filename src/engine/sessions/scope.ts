/**
 * Session scopes: what part of the task graph a session works on. `global` covers everything; the
 * others are rooted at a task. The scope key (`epic:T1`) groups sessions into chains.
 */
import { BatonError } from '../errors';
import { scopeTypes, type SessionScope } from '../storage/jsonShapes';
import type { TaskGraph } from '../tasks/taskGraph';
import { scopeTaskIds } from '../tasks/scopeTaskIds';

const taskIdPattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** `global`, `epic:T1`, `task:T4`, `subtree:T2`, `taskGroup:T3`, `epicPhase:T1:core`, `custom:T9` or `custom:T1,T2,T3`. */
/** Every scope form `parseScope` reads, as usage lines and errors name them (one list, so none drifts). */
export const scopeForms = ['global', 'epic:ID', 'task:ID', 'subtree:ID', 'taskGroup:ID', 'epicPhase:ID:PHASE', 'custom:ID[,ID…]'] as const;

export function parseScope(text: string): SessionScope {
	const trimmed = text.trim();
	if (trimmed === 'global' || trimmed === '') {
		return { type: 'global' };
	}
	const [type, id, phase, ...rest] = trimmed.split(':');
	if (!type || !(scopeTypes as readonly string[]).includes(type) || type === 'global' || !id || rest.length > 0) {
		throw new BatonError('invalidScope', `invalid scope "${text}" (use ${scopeForms.slice(0, -1).join(', ')} or ${scopeForms[scopeForms.length - 1]})`);
	}
	const scopeType = type as SessionScope['type'];
	if (scopeType === 'custom' && id.includes(',')) {
		const ids = id
			.split(',')
			.map((s) => s.trim())
			.filter(Boolean);
		ids.forEach(assertTaskId);
		return { type: 'custom', explicitTaskIds: [...new Set(ids)].sort() };
	}
	assertTaskId(id);
	if (scopeType === 'epicPhase') {
		if (!phase) {
			throw new BatonError('invalidScope', `scope "${text}" needs a phase: epicPhase:ID:PHASE`);
		}
		return { type: 'epicPhase', rootTaskId: id, phaseFilter: phase };
	}
	if (phase !== undefined) {
		throw new BatonError('invalidScope', `invalid scope "${text}": only epicPhase takes a phase`);
	}
	return { type: scopeType, rootTaskId: id };
}

function assertTaskId(id: string): void {
	if (!taskIdPattern.test(id)) {
		throw new BatonError('invalidScope', `invalid task id "${id}" in scope`);
	}
}

export function scopeKey(scope: SessionScope): string {
	switch (scope.type) {
		case 'global':
			return 'global';
		case 'epicPhase':
			return `epicPhase:${scope.rootTaskId ?? ''}:${scope.phaseFilter ?? ''}`;
		case 'custom':
			return scope.explicitTaskIds?.length ? `custom:${scope.explicitTaskIds.join(',')}` : `custom:${scope.rootTaskId ?? ''}`;
		default:
			return `${scope.type}:${scope.rootTaskId ?? ''}`;
	}
}

/** Problems with a scope's root task; what happens to them depends on `scopeValidation`. */
export function validateScope(scope: SessionScope, graph: TaskGraph): string[] {
	const problems: string[] = [];
	const ids = scope.explicitTaskIds ?? (scope.rootTaskId ? [scope.rootTaskId] : []);
	for (const id of ids) {
		const task = graph.byId.get(id);
		if (!task) {
			problems.push(`scope ${scopeKey(scope)} names task ${id}, which does not exist`);
		} else if ((scope.type === 'epic' || scope.type === 'epicPhase') && task.type !== 'epic') {
			problems.push(`scope ${scopeKey(scope)} needs an epic, but ${id} is a ${task.type}`);
		}
	}
	return problems;
}

type ScopeRelation = 'same' | 'nested' | 'overlap' | 'disjoint';

/** How two scopes' task sets relate. Global coexists with everything but another global. */
export function relateScopes(a: SessionScope, b: SessionScope, graph: TaskGraph): ScopeRelation {
	if (scopeKey(a) === scopeKey(b)) {
		return 'same';
	}
	if (a.type === 'global' || b.type === 'global') {
		return 'disjoint';
	}
	const setA = scopeTaskIds(a, graph) ?? new Set<string>();
	const setB = scopeTaskIds(b, graph) ?? new Set<string>();
	let shared = 0;
	for (const id of setA) {
		if (setB.has(id)) {
			shared++;
		}
	}
	if (shared === 0) {
		return 'disjoint';
	}
	if (shared === setA.size && shared === setB.size) {
		return 'same';
	}
	return shared === setA.size || shared === setB.size ? 'nested' : 'overlap';
}
