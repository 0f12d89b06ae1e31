/**
 * The bodies of the event kinds Baton derives state from, as its writers make them (sync/localEvents.ts,
 * sync/recordEvents.ts): the fields the projection reads, each with its type. A pulled event of one of
 * these kinds whose body does not fit is refused at the merge, by name and with the field that is
 * wrong. Deriving from it would put a number where a view expects a list — one such event from a
 * broken writer made every later export of the machine that pulled it throw — or flip a record's
 * state on a value nobody wrote.
 *
 * Loose on purpose: fields a newer version adds pass, and so do values a newer version may add to an
 * open set (a session status, a checkpoint decision, a task's type): the projection derives nothing
 * from a value it does not know. Events of other kinds are not looked at (kept, with a warning).
 */
import { scopeTypes } from '../storage/jsonShapes';

/**
 * A field's expected type. Every field may be missing; `text` may also be null, `text!` not (its
 * column holds a value always); `count` is a number of zero or more (a file count, lines, bytes, a
 * cost: a negative one was never written by Baton, and would be shown and summed as it came);
 * `[spec]` is a list (or null) of such values; an object spec is an
 * object (or null) with those fields. Checked by hand: this runs on every pulled event, and zod's
 * parse of 10,000 bodies (the rebuild bench's) took 4 ms warm and 41 ms in a process's first pull,
 * this 2 ms and 12 ms.
 */
type Spec = 'text' | 'text!' | 'number' | 'count' | 'boolean' | 'scope' | readonly [Spec] | { readonly [field: string]: Spec };

const texts = ['text!'] as const;
const taskRef = { id: 'text!', title: 'text!' } as const;
const annotations = [{ at: 'text!', user: 'text!', text: 'text!' }] as const;
// durationMs and sessionAgeMs stay numbers: both are differences of wall-clock times, which a clock set back makes negative.
const fileStats = {
	added: 'count',
	modified: 'count',
	deleted: 'count',
	totalFiles: 'count',
	linesAdded: 'count',
	linesRemoved: 'count',
	skipped: [{ path: 'text!', size: 'count', reason: 'text!' }],
	skippedTotal: 'count',
	degraded: 'boolean',
	degradedReason: 'text',
	nestedRepos: texts,
	durationMs: 'number',
} as const;

const bodies: Record<string, Spec> = {
	'session.started': {
		name: 'text',
		scope: 'scope',
		agent: 'text',
		previousId: 'text',
		parentId: 'text',
		startedAt: 'text',
		focus: { note: 'text', nextAction: 'text', blockedReason: 'text' },
	},
	'session.status': { status: 'text', reason: 'text', at: 'text' },
	'session.renamed': { name: 'text', at: 'text' },
	'handoff.written': {
		lastTask: taskRef,
		tasksCompleted: [taskRef],
		tasksCreated: [taskRef],
		decisionsRecorded: 'count',
		decisions: [{ id: 'text!', text: 'text!', rationale: 'text' }],
		nextSuggested: [taskRef],
		openBlockers: texts,
		openBugs: [{ id: 'text!', title: 'text!', priority: 'text!' }],
		note: 'text',
		nextAction: 'text',
	},
	'handoff.consumed': { bySessionId: 'text', at: 'text' },
	'checkpoint.recorded': {
		files: fileStats,
		metrics: { costUsd: 'count', errorCount: 'count', sessionAgeMs: 'number' },
		treeOid: 'text',
		commitOid: 'text',
		parentCheckpointId: 'text',
		trigger: 'text',
		message: 'text',
		tags: texts,
		annotations,
		approvalStatus: 'text',
		approvalPolicy: 'text',
		escalationReasons: texts,
		createdAt: 'text',
	},
	'checkpoint.decided': { status: 'text', note: 'text', by: 'text', at: 'text' },
	'decision.recorded': { kind: 'text', text: 'text', rationale: 'text', taskId: 'text', createdAt: 'text' },
	'checkpoint.labels': { addTags: texts, removeTags: texts, tags: texts, annotations },
	'memory.fact': { kind: 'text', fingerprint: 'text', text: 'text', source: 'text', files: texts, createdAt: 'text', retiredAt: 'text' },
	'memory.confirmed': { at: 'text' },
	// The task's columns that hold a value always (a null would fail the whole pull's write).
	'task.changed': {
		title: 'text!',
		description: 'text',
		type: 'text!',
		status: 'text!',
		priority: 'text!',
		parentId: 'text',
		phase: 'text',
		createdAt: 'text!',
		updatedAt: 'text!',
		completedAt: 'text',
		createdBySession: 'text',
		completedBySession: 'text',
	},
	'import.recorded': { source: 'text', entityType: 'text', externalId: 'text', entityId: 'text', contentHash: 'text', importedAt: 'text' },
};

/** A scope's fields besides its type (checked once the type is a name). */
const scopeFields: Spec = { rootTaskId: 'text', phaseFilter: 'text', explicitTaskIds: texts };

/** A body field's text, or null when the field is absent or not a string (the projection reads bodies a newer version may have written). */
export function bodyText(value: unknown): string | null {
	return typeof value === 'string' ? value : null;
}

/** Whether a session's scope type is one this version knows (the projection warns of the others). */
export function knownScopeType(type: unknown): boolean {
	return typeof type === 'string' && (scopeTypes as readonly string[]).includes(type);
}

/** Where `value` does not fit `spec` (a path and what was expected), or null. A missing (undefined) value fits. */
function misfit(spec: Spec, value: unknown, at: string): string | null {
	if (value === undefined) {
		return null;
	}
	if (spec === 'text!') {
		return typeof value === 'string' ? null : `${at}: expected a string`;
	}
	if (value === null) {
		return null;
	}
	switch (spec) {
		case 'text':
			return typeof value === 'string' ? null : `${at}: expected a string`;
		case 'number':
			return typeof value === 'number' && Number.isFinite(value) ? null : `${at}: expected a number`;
		case 'count':
			return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? null : `${at}: expected a number of zero or more`;
		case 'boolean':
			return typeof value === 'boolean' ? null : `${at}: expected true or false`;
		case 'scope': {
			// A type this version does not know (a newer version's) is kept: the session shows under its
			// scope key, and a scope's tasks default to its root task's subtree (scopeTaskIds).
			const type = typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>)['type'] : undefined;
			if (typeof type !== 'string' || !/^[A-Za-z][\w-]{0,63}$/.test(type)) {
				return `${at}: expected a scope (an object whose type is one of ${scopeTypes.join(', ')}, or a newer version's)`;
			}
			return misfit(scopeFields, value, at);
		}
	}
	if (Array.isArray(spec)) {
		if (!Array.isArray(value)) {
			return `${at}: expected a list`;
		}
		const item = (spec as readonly [Spec])[0];
		for (let i = 0; i < value.length; i++) {
			const problem = value[i] === undefined || value[i] === null ? `${at}.${i}: expected a value` : misfit(item, value[i], `${at}.${i}`);
			if (problem) {
				return problem;
			}
		}
		return null;
	}
	if (typeof value !== 'object' || Array.isArray(value)) {
		return `${at}: expected an object`;
	}
	for (const field in spec as Record<string, Spec>) {
		const problem = misfit((spec as Record<string, Spec>)[field] as Spec, (value as Record<string, unknown>)[field], at ? `${at}.${field}` : field);
		if (problem) {
			return problem;
		}
	}
	return null;
}

/** Why the body of an event of a kind Baton derives from does not fit that kind, or null (it fits, or the kind is another). */
export function bodyProblem(kind: string, body: unknown): string | null {
	const spec = Object.hasOwn(bodies, kind) ? bodies[kind] : undefined;
	if (!spec) {
		return null;
	}
	const problem = misfit(spec, body, '');
	return problem ? `its ${kind} body does not fit: ${problem}` : null;
}
