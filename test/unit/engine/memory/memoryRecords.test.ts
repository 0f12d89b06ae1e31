/**
 * Project memory's facts on a real engine: de-duplication by the normalised fingerprint (variants
 * collapse and confirm, different facts stay apart), confirm and retire, filters, and refusals that
 * name the field.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { eq } from 'drizzle-orm';
import { BatonError } from '../../../../src/engine/errors';
import { memoryFingerprint } from '../../../../src/engine/memory/memoryFingerprint';
import { auditLog, memoryEntries } from '../../../../src/engine/storage/schema';
import { actor, openTestEngine } from '../../helpers';

void describe('memory fingerprint', () => {
	void it('collapses case, whitespace, punctuation, quotes and trailing periods', () => {
		const variants = [
			'Run the tests with --runInBand.',
			'run  the tests with "--runInBand"',
			'RUN THE TESTS WITH `--runInBand`!',
			'  Run the tests with --runInBand…  ',
			'- Run the tests, with --runInBand',
		];
		const prints = new Set(variants.map(memoryFingerprint));
		assert.deepEqual([...prints], ['run the tests with runinband']);
		assert.equal(memoryFingerprint('Don’t edit `dist/`!'), memoryFingerprint("don't edit dist"));
		assert.equal(memoryFingerprint('ｓｒｃ/app.ts fails'), 'src/app.ts fails', 'NFKC: full-width letters');
	});

	void it('keeps facts apart that differ in words, numbers, in-word punctuation or symbols', () => {
		const distinct = [
			'use port 8080',
			'use port 8081',
			'src/app.ts is generated',
			'src/app.js is generated',
			'cost < $5',
			'cost > $5',
			'retry x-1 times',
			'retry x 1 times',
		];
		assert.equal(new Set(distinct.map(memoryFingerprint)).size, distinct.length);
	});
});

void describe('memory records', () => {
	void it('record a fact once: a variant confirms it, merges its files and clears its stale mark', async (t) => {
		const { engine, clock } = await openTestEngine(t);
		const { session } = await engine.sessions.start({ name: 'learns', actor });
		const first = await engine.memory.record({
			kind: 'gotcha',
			text: 'The build needs NODE_OPTIONS=--max-old-space-size=4096.',
			files: ['package.json'],
			sourceSessionId: session.id,
			actor,
		});
		assert.equal(first.duplicate, false);
		assert.match(first.entry.id, /^mem_\d{14}_[0-9a-f]{6}$/);
		assert.deepEqual(
			{ ...first.entry, id: '' },
			{
				id: '',
				kind: 'gotcha',
				text: 'The build needs NODE_OPTIONS=--max-old-space-size=4096.',
				fingerprint: 'the build needs node_options=--max-old-space-size=4096',
				sourceSessionId: session.id,
				source: 'manual',
				files: ['package.json'],
				confirmations: 1,
				createdAt: '2026-03-01T09:00:00.000Z',
				lastConfirmedAt: '2026-03-01T09:00:00.000Z',
				staleSince: null,
				staleReason: null,
				retiredAt: null,
			},
		);
		await engine.store.write((db) =>
			db
				.update(memoryEntries)
				.set({ staleSince: '2026-03-01T09:30:00.000Z', staleReason: 'package.json changed' })
				.where(eq(memoryEntries.id, first.entry.id))
				.run(),
		);
		clock.advance(3_600_000);
		const again = await engine.memory.record({
			kind: 'gotcha',
			text: 'the build needs  NODE_OPTIONS=--max-old-space-size=4096',
			files: ['./scripts/build.sh', 'package.json'],
			actor,
		});
		assert.equal(again.duplicate, true);
		assert.equal(again.entry.id, first.entry.id);
		assert.equal(again.entry.confirmations, 2);
		assert.equal(again.entry.lastConfirmedAt, '2026-03-01T10:00:00.000Z');
		assert.equal(again.entry.staleSince, null);
		assert.equal(again.entry.staleReason, null);
		assert.deepEqual(again.entry.files, ['package.json', 'scripts/build.sh']);
		assert.equal(again.entry.text, first.entry.text, 'the first wording stays');
		assert.equal((await engine.memory.list()).length, 1);

		const other = await engine.memory.record({ kind: 'gotcha', text: 'The build needs NODE_OPTIONS=--max-old-space-size=8192.', actor });
		assert.equal(other.duplicate, false, 'a different number is a different fact');
		const asKnowledge = await engine.memory.record({ kind: 'knowledge', text: 'The build needs NODE_OPTIONS=--max-old-space-size=4096', actor });
		assert.equal(asKnowledge.duplicate, false, 'the fingerprint is unique per kind');
		assert.equal((await engine.memory.list()).length, 3);
		const operations = await engine.store.read((db) =>
			db
				.select()
				.from(auditLog)
				.all()
				.map((a) => a.operation)
				.filter((o) => o.startsWith('memory.')),
		);
		assert.deepEqual(operations, ['memory.record', 'memory.confirm', 'memory.record', 'memory.record']);
	});

	void it('confirm and retire; a retired fact comes back only by hand', async (t) => {
		const { engine, clock } = await openTestEngine(t);
		const { session } = await engine.sessions.start({ name: 's', actor });
		const { entry } = await engine.memory.record({
			kind: 'knowledge',
			text: 'Money is integers in minor units',
			sourceSessionId: session.id,
			source: 'decision',
			actor,
		});
		clock.advance(60_000);
		const confirmed = await engine.memory.confirm(entry.id, actor);
		assert.equal(confirmed.confirmations, 2);
		assert.equal(confirmed.lastConfirmedAt, '2026-03-01T09:01:00.000Z');

		const retired = await engine.memory.retire(entry.id, actor);
		assert.equal(retired.retiredAt, '2026-03-01T09:01:00.000Z');
		assert.deepEqual(await engine.memory.retire(entry.id, actor), retired, 'retiring twice changes nothing');
		assert.deepEqual(await engine.memory.list(), [], 'retired facts are left out');
		assert.deepEqual(
			(await engine.memory.list({ includeRetired: true })).map((e) => e.id),
			[entry.id],
		);
		await assert.rejects(engine.memory.confirm(entry.id, actor), (e: unknown) => BatonError.is(e, 'invalidInput') && /was retired/.test(e.message));

		await engine.sessions.end({ id: session.id, actor });
		const { session: other } = await engine.sessions.start({ name: 'other', actor });
		const automatic = await engine.memory.record({
			kind: 'knowledge',
			text: 'money is integers in minor units.',
			sourceSessionId: other.id,
			source: 'decision',
			actor,
		});
		assert.equal(automatic.duplicate, true);
		assert.notEqual(automatic.entry.retiredAt, null, 'extraction never revives what a person retired');
		const manual = await engine.memory.record({ kind: 'knowledge', text: 'Money is integers in minor units!', actor });
		assert.equal(manual.entry.retiredAt, null, 'a person recording it again brings it back');
		assert.equal(manual.entry.confirmations, 3);

		const own = await engine.memory.record({
			kind: 'knowledge',
			text: 'Money is integers in minor units',
			sourceSessionId: session.id,
			source: 'decision',
			actor,
		});
		assert.equal(own.entry.confirmations, 3, 'a session does not confirm its own extracted fact');
	});

	void it('lists gotchas first, then by confirmations, with kind, stale and session filters', async (t) => {
		const { engine, clock } = await openTestEngine(t);
		const { session } = await engine.sessions.start({ name: 's', actor });
		const k1 = await engine.memory.record({ kind: 'knowledge', text: 'knowledge once', actor });
		clock.advance(1_000);
		const k2 = await engine.memory.record({ kind: 'knowledge', text: 'knowledge twice', sourceSessionId: session.id, actor });
		await engine.memory.confirm(k2.entry.id, actor);
		const g = await engine.memory.record({ kind: 'gotcha', text: 'a gotcha', actor });
		assert.deepEqual(
			(await engine.memory.list()).map((e) => e.id),
			[g.entry.id, k2.entry.id, k1.entry.id],
		);
		assert.deepEqual(
			(await engine.memory.list({ kind: 'knowledge' })).map((e) => e.id),
			[k2.entry.id, k1.entry.id],
		);
		assert.deepEqual(
			(await engine.memory.list({ sessionId: session.id })).map((e) => e.id),
			[k2.entry.id],
		);
		await engine.store.write((db) =>
			db.update(memoryEntries).set({ staleSince: '2026-03-02T00:00:00.000Z', staleReason: 'x' }).where(eq(memoryEntries.id, k1.entry.id)).run(),
		);
		assert.deepEqual(
			(await engine.memory.list({ stale: true })).map((e) => e.id),
			[k1.entry.id],
		);
		assert.deepEqual(
			(await engine.memory.list({ stale: false })).map((e) => e.id),
			[g.entry.id, k2.entry.id],
		);
	});

	void it('refuses bad input with the field named, and writes nothing', async (t) => {
		const { engine } = await openTestEngine(t);
		const refusal = async (input: Parameters<typeof engine.memory.record>[0], pattern: RegExp, code: 'invalidInput' | 'notFound' = 'invalidInput') =>
			assert.rejects(engine.memory.record(input), (e: unknown) => BatonError.is(e, code) && pattern.test(e.message));
		await refusal({ kind: 'gotcha', text: '   ', actor }, /memory text: 1 to 2,000 characters/);
		await refusal({ kind: 'gotcha', text: 'x'.repeat(2_001), actor }, /memory text: 1 to 2,000 characters \(got 2001\)/);
		await refusal({ kind: 'gotcha', text: '…!?', actor }, /has no words/);
		await refusal({ kind: 'trivia' as 'gotcha', text: 'x', actor }, /memory kind must be one of knowledge, gotcha \(got "trivia"\)/);
		await refusal(
			{ kind: 'gotcha', text: 'x', source: 'rumour' as 'manual', actor },
			/memory source must be one of manual, decision, handoff, transcript, import/,
		);
		await refusal(
			{ kind: 'gotcha', text: 'x', files: ['src/a.ts', '../outside.ts'], actor },
			/memory files\[1\]: \.\.\/outside\.ts is outside the workspace/,
		);
		await refusal({ kind: 'gotcha', text: 'x', files: ['/etc/passwd'], actor }, /memory files\[0\]: \/etc\/passwd is outside the workspace/);
		await refusal(
			{ kind: 'gotcha', text: 'x', sourceSessionId: 'ses_20260101000000_abcdef', actor },
			/session ses_20260101000000_abcdef does not exist/,
			'notFound',
		);
		await assert.rejects(
			engine.memory.confirm('mem_nope', actor),
			(e: unknown) => BatonError.is(e, 'notFound') && /memory entry mem_nope does not exist/.test(e.message),
		);
		assert.deepEqual(await engine.memory.list({ includeRetired: true }), []);
	});
});
