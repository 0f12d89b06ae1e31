/** The body check a pulled event passes before it becomes rows (src/engine/shared/eventBodies.ts). */
import assert from 'node:assert/strict';
import test from 'node:test';
import { bodyProblem } from '../../../../src/engine/shared/eventBodies';
import { scopeLabel } from '../../../../src/engine/sessions/overview';

test('wrong types are refused with the field named; missing fields, nulls where a column allows them, and fields or scope types a newer version adds pass', () => {
	const passes: [string, unknown][] = [
		['session.started', {}],
		['session.started', { name: 'parser', scope: { type: 'epic', rootTaskId: 'T1' }, agent: null, addedLater: { any: 1 } }],
		['session.started', { scope: { type: 'milestone', rootTaskId: 'T1', window: 'Q3' } }],
		['session.status', { status: 'paused-for-review' }],
		[
			'checkpoint.recorded',
			{
				files: { added: 1, skipped: [{ path: 'big.bin', size: 9, reason: 'too large' }], linesAdded: null },
				metrics: { costUsd: 0, errorCount: 0, sessionAgeMs: -1_000 },
				tags: [],
				annotations: [{ at: 'now', user: 'dana', text: 'ok' }],
			},
		],
		['task.changed', { title: 'Ship it', description: null, status: 'someday' }],
		['handoff.written', { decisions: [{ id: 'dec_1', text: 'kept it', rationale: null }], lastTask: null }],
		['a.kind.from.a.newer.version', { anything: [1, 'two'] }],
	];
	for (const [kind, body] of passes) {
		assert.equal(bodyProblem(kind, body), null, `${kind} ${JSON.stringify(body)}`);
	}
	const refused: [string, unknown, string][] = [
		['session.started', { scope: 'global' }, 'scope: expected a scope'],
		['session.started', { scope: { type: 7 } }, 'scope: expected a scope'],
		['session.started', { scope: {} }, 'scope: expected a scope'],
		['session.started', { scope: { type: 'epic\nphase' } }, 'scope: expected a scope'],
		['session.started', { scope: { type: 'epic', rootTaskId: 5 } }, 'scope.rootTaskId: expected a string'],
		['session.started', { scope: { type: 'custom', explicitTaskIds: ['T1', 2] } }, 'scope.explicitTaskIds.1: expected a string'],
		['session.started', { name: 42 }, 'name: expected a string'],
		['checkpoint.recorded', { files: 'z' }, 'files: expected an object'],
		['checkpoint.recorded', { files: { skipped: [{ path: 3 }] } }, 'files.skipped.0.path: expected a string'],
		['checkpoint.recorded', { tags: 5 }, 'tags: expected a list'],
		['checkpoint.recorded', { tags: ['a', null] }, 'tags.1: expected a value'],
		['checkpoint.labels', { annotations: [{ at: 'now', user: 'dana', text: 5 }] }, 'annotations.0.text: expected a string'],
		['task.changed', { title: null }, 'title: expected a string'],
		['handoff.written', { decisions: 'none' }, 'decisions: expected a list'],
		['memory.fact', { fingerprint: 12 }, 'fingerprint: expected a string'],
		['checkpoint.recorded', { metrics: { costUsd: Number.NaN } }, 'metrics.costUsd: expected a number'],
		['checkpoint.recorded', { metrics: { costUsd: -5 } }, 'metrics.costUsd: expected a number of zero or more'],
		['checkpoint.recorded', { files: { added: -1 } }, 'files.added: expected a number of zero or more'],
		['checkpoint.recorded', { files: { skipped: [{ path: 'a', size: -9, reason: 'x' }] } }, 'files.skipped.0.size: expected a number of zero or more'],
		['handoff.written', { decisionsRecorded: -2 }, 'decisionsRecorded: expected a number of zero or more'],
	];
	for (const [kind, body, problem] of refused) {
		const said = bodyProblem(kind, body) ?? '';
		assert.ok(said.startsWith(`its ${kind} body does not fit: ${problem}`), `${kind} ${JSON.stringify(body)}: ${said}`);
	}
});

test('a scope type this version does not know is labelled by its own name, even one named like an Object member', () => {
	const titles = new Map([['T1', 'Checkout']]);
	assert.equal(
		scopeLabel('milestone:T1', (id) => titles.get(id)),
		'milestone T1 · Checkout',
	);
	assert.equal(
		scopeLabel('constructor:T1', (id) => titles.get(id)),
		'constructor T1 · Checkout',
	);
	assert.equal(
		scopeLabel('epic:T1', (id) => titles.get(id)),
		'Epic T1 · Checkout',
	);
});
