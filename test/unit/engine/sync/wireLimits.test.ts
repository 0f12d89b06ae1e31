/**
 * The limits a pulled event is held to (shared/wireLimits.ts) are the ones local input has: the
 * sync room cannot import them from where each is enforced, so this checks they are the same.
 */
import assert from 'node:assert/strict';
import test from 'node:test';
import { textLimits } from '../../../../src/engine/interop/textLimits';
import { maxFactFiles } from '../../../../src/engine/memory/factFiles';
import { maxFactLength } from '../../../../src/engine/memory/memoryRecords';
import { maxEventBodyBytes } from '../../../../src/engine/shared/sharedEvents';
import { maxWireLineChars, wireLimits, wireSizeProblem } from '../../../../src/engine/shared/wireLimits';
import { actor, openTestEngine } from '../../helpers';

test('the pulled limits are the local ones', async (t) => {
	assert.equal(wireLimits.sessionName, textLimits.sessionName);
	assert.equal(wireLimits.factText, maxFactLength);
	assert.equal(wireLimits.factFiles, maxFactFiles);
	assert.ok(maxWireLineChars > maxEventBodyBytes + 7 * wireLimits.field);
	// What the services take locally, and one character more they refuse.
	const { engine } = await openTestEngine(t);
	await assert.rejects(engine.sessions.start({ name: 'n'.repeat(wireLimits.sessionName + 1), actor }), /1 to 200 characters/);
	const started = await engine.sessions.start({ name: 'n'.repeat(wireLimits.sessionName), actor });
	await assert.rejects(
		engine.checkpoints.create({ sessionId: started.session.id, message: 'm'.repeat(wireLimits.checkpointText + 1), actor }),
		/at most 5,000 characters/,
	);
	await assert.rejects(
		engine.checkpoints.create({ sessionId: started.session.id, tags: ['t'.repeat(wireLimits.tag + 1)], actor }),
		/1 to 100 printable characters, at most 50/,
	);
	await assert.rejects(
		engine.checkpoints.create({ sessionId: started.session.id, tags: Array.from({ length: wireLimits.tagsAtCreate + 1 }, (_, i) => `t${i}`), actor }),
		/at most 50 of them/,
	);
});

test('fields a newer version adds and values at the limit pass; one character more is named', () => {
	const event = (kind: string, body: Record<string, unknown>) => ({
		id: 'evt_x',
		kind,
		subject: 's',
		sessionId: null,
		actor: 'a',
		machine: '0000000a',
		machineName: null,
		author: null,
		at: '2026-03-01T10:00:00.000Z',
		body,
	});
	assert.equal(wireSizeProblem(event('session.started', { name: 'n'.repeat(200), newerField: 'x'.repeat(10_000) })), null);
	assert.equal(wireSizeProblem(event('x.newer', { text: 'x'.repeat(100_000) })), null);
	assert.equal(wireSizeProblem(event('memory.fact', { text: 'x'.repeat(2_000), files: Array.from({ length: 50 }, () => 'f') })), null);
	assert.match(wireSizeProblem(event('memory.fact', { files: Array.from({ length: 51 }, () => 'f') })) ?? '', /^body\.files has 51 entries/);
	assert.match(
		wireSizeProblem(event('checkpoint.labels', { annotations: [{ text: 'x'.repeat(5_001) }] })) ?? '',
		/^body\.annotations\.0\.text has 5001 characters/,
	);
	assert.match(wireSizeProblem(event('checkpoint.recorded', { tags: ['t'.repeat(101)] })) ?? '', /^body\.tags\.0 has 101 characters/);
});
