/**
 * A pulled line is parsed once, as its fields and its body (sync/wireLines.ts), and the body's text
 * is kept for the insert. Whatever the line — Baton's own, or one a writer that is not Baton put in a
 * remote — the event must be exactly what `JSON.parse` of the whole line gives, and a kept text must
 * parse to that event's body; a line that is no JSON must fail as it did.
 */
import assert from 'node:assert/strict';
import test from 'node:test';
import { parseBatch, parseWireLine, type RefusedLine } from '../../../../src/engine/sync/wireLines';
import type { WireEvent } from '../../../../src/engine/shared/sharedEvents';

const baton = JSON.stringify({
	id: 'evt_01J0000000000000000000000_0000000b',
	kind: 'handoff.written',
	subject: 'ses_1',
	sessionId: 'ses_1',
	actor: 'agent:x',
	machine: '0000000b',
	machineName: 'b',
	author: null,
	at: '2026-03-01T10:00:00.000Z',
	body: { note: 'with "quotes", \\ and ,"body": inside', nested: { body: { deep: [1, 2.5, null] } }, astral: '🚀\u2028\u0001' },
});

const lines: Record<string, string> = {
	'Baton’s own line': baton,
	'a field before the body holding an object with a body key': '{"id":"e1","extra":{"a":1,"body":{"n":1}},"body":{"real":true}}',
	'a string field that spells ,"body": (escaped)': JSON.stringify({ id: 'e2', author: 'a","body":{"x":1}', body: { y: 2 } }),
	'a body key twice (the last wins)': '{"id":"e3","body":{"first":1},"kind":"k","body":{"second":2}}',
	'a body key twice, the first with a nested ,"body":': '{"id":"e4","body":{"a":{"b":1,"body":3}},"body":{"second":2}}',
	'the body before other fields': '{"id":"e5","body":{"a":1},"kind":"k"}',
	'space around the body': '{"id":"e6","body": {"a" : 1.0, "b":1e2}}',
	'space before the body key': '{"id":"e7", "body":{"a":1}}',
	'a body that is no object': '{"id":"e8","body":"text"}',
	'a body that is an array': '{"id":"e9","body":[1,{"body":2}]}',
	'own __proto__ keys': '{"id":"e10","__proto__":{"polluted":1},"body":{"__proto__":{"y":1}}}',
	'an empty head': '{,"body":{}}',
	'a head of space alone': '{ ,"body":{}}',
	'a head ending in a comma': '{"id":"e14",,"body":{}}',
	'space before the comma of the body key': '{"id":"e15" ,"body":{"a":1}}',
	'a truncated body': '{"id":"e11","body":{"a":',
	'an array line': '[1,"body",{"a":1}]',
	'a body followed by text': '{"id":"e12","body":{"a":1}} trailing}',
	'nested braces closed early': '{"id":"e13","x":{"body":1},"body":{"a":1}}}',
};

for (const [name, line] of Object.entries(lines)) {
	test(`a pulled line, ${name}: the event is JSON.parse's, and a kept body text parses to its body`, () => {
		let expected: unknown;
		try {
			expected = JSON.parse(line);
		} catch {
			assert.throws(() => parseWireLine(line), SyntaxError);
			return;
		}
		const parsed = parseWireLine(line);
		assert.deepStrictEqual(parsed.value, expected);
		assert.deepStrictEqual(Object.keys(parsed.value as object), Object.keys(expected as object), 'the members in the same order');
		if (parsed.bodyText !== undefined) {
			assert.deepStrictEqual(JSON.parse(parsed.bodyText), (expected as { body: unknown }).body);
		}
		assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
	});
}

test('Baton’s own line keeps its body’s text, which is the text the body serialises to', () => {
	const parsed = parseWireLine(baton);
	assert.equal(parsed.bodyText, JSON.stringify((JSON.parse(baton) as { body: unknown }).body));
});

test('a batch of good and broken lines: every good line is an event, every broken one refused by its line number, and the body texts kept are the events’ own', () => {
	const events: WireEvent[] = [];
	const refused: RefusedLine[] = [];
	const bodies = new Map<WireEvent, string>();
	parseBatch(
		[baton, '', lines['a truncated body'], lines['an array line'], lines['a body key twice (the last wins)']].join('\n'),
		'abc',
		events,
		refused,
		bodies,
	);
	assert.deepEqual(
		events.map((e) => e.id),
		['evt_01J0000000000000000000000_0000000b', 'e3'],
	);
	assert.deepEqual((events[1] as WireEvent).body, { second: 2 });
	// The body's text is kept for Baton's line, not for the one whose body is there twice (serialised at the insert).
	assert.equal(bodies.get(events[0] as WireEvent), JSON.stringify((events[0] as WireEvent).body));
	assert.equal(bodies.has(events[1] as WireEvent), false);
	assert.deepEqual(
		refused.map((r) => r.id),
		['abc:3', 'abc:4'],
	);
	assert.match((refused[0] as RefusedLine).reason, /^not JSON: /);
	assert.equal((refused[1] as RefusedLine).reason, 'not a JSON object (an event is one object per line)');
});
