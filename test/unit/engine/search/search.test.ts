/**
 * Full-text search (docs/search.md) on a real store and a real transcript archive: every kind of
 * record is found with its excerpt, ranked; the index follows writes, transcript growth and purges
 * without a rebuild; the filters; and hostile queries never reach SQLite as syntax.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { inArray } from 'drizzle-orm';
import { BatonError } from '../../../../src/engine/errors';
import { ftsQuery } from '../../../../src/engine/search/ftsQuery';
import { SearchService } from '../../../../src/engine/search/searchService';
import type { SearchHit } from '../../../../src/engine/search/searchShapes';
import { machineIdentity } from '../../../../src/engine/shared/machineIdentity';
import { appendSharedEvents } from '../../../../src/engine/shared/sharedEvents';
import { sharedEvents } from '../../../../src/engine/storage/schema';
import { actor } from '../../helpers';
import { agentId, prompt, world } from './searchWorld';

function kinds(hits: readonly SearchHit[]): string[] {
	return hits.map((h) => h.kind).sort();
}

/** The text each range of a hit marks. */
function marks(hit: SearchHit): string[] {
	return hit.matches.map(([a, b]) => hit.excerpt.slice(a, b).toLowerCase());
}

void describe('search', () => {
	void it('finds prompts, handoffs, decisions, memory, steps and transcript text, each with the passage that matched', async (t) => {
		const { engine, billing } = await world(t);
		const result = await engine.search.search({ text: 'invoice' });
		// The handoff lists the session's decisions, and project memory learnt the decision when the session ended.
		assert.deepEqual(kinds(result.hits), ['decision', 'handoff', 'memory', 'prompt', 'session', 'transcript', 'transcript']);
		for (const hit of result.hits) {
			assert.ok(
				marks(hit).every((m) => m === 'invoice'),
				`${hit.kind}: ${hit.excerpt} marks ${JSON.stringify(hit.matches)}`,
			);
			assert.ok(hit.matches.length > 0);
			assert.equal(hit.sessionId, billing.id);
			assert.equal(hit.sessionName, 'Fix the invoice rounding');
			assert.doesNotMatch(hit.excerpt, /[\uE000\uE001\n]/);
		}
		assert.equal(result.total, 7);
		const scores = result.hits.map((h) => h.score);
		assert.deepEqual(
			scores,
			[...scores].sort((a, b) => b - a),
			'best first',
		);

		const handoff = await engine.search.search({ text: 'refunds integer cents' });
		assert.equal(handoff.hits[0]?.kind, 'handoff');
		assert.deepEqual(marks(handoff.hits[0] as SearchHit).sort(), ['cents', 'integer', 'refunds']);
		const memory = await engine.search.search({ text: 'truncates' });
		assert.deepEqual(kinds(memory.hits), ['memory', 'transcript']);
		const stepHit = (await engine.search.search({ text: 'billing.ts' })).hits.find((h) => h.kind === 'step');
		assert.equal(stepHit?.step, 1);
		assert.equal(stepHit?.agent, 'claude-code');
		const transcript = (await engine.search.search({ text: '10.005' })).hits[0];
		assert.equal(transcript?.kind, 'transcript');
		assert.equal(transcript?.transcriptId, agentId);
		assert.equal(transcript?.excerptIndex, 1, 'the second excerpt of the archive');
	});

	void it('ranks the record that says it most, and the title above the body', async (t) => {
		const { engine } = await world(t);
		await engine.sessions.recordDecision({ text: 'Rounding rounding rounding: one rule for rounding everywhere', actor });
		const hits = (await engine.search.search({ text: 'rounding' })).hits;
		assert.match(hits[0]?.excerpt ?? '', /one rule for rounding everywhere/);
		assert.ok((hits[0]?.score ?? 0) > (hits.at(-1)?.score ?? 0));
	});

	void it('ranks a word found in most records over its newest matches, and every other query as before', async (t) => {
		const { engine, root, clock, docs } = await world(t);
		await engine.store.write((db) =>
			appendSharedEvents(
				db,
				machineIdentity(root),
				Array.from({ length: 60 }, (_, i) => ({
					nowMs: clock.now() + i,
					event: {
						kind: 'timeline.prompt',
						subject: docs.id,
						sessionId: docs.id,
						actor: 'human',
						body: {
							turn: i + 2,
							text: i === 10 || i === 50 ? `common common common ${i}` : `a common word, number ${i} of many`,
							at: new Date(clock.now()).toISOString(),
						},
					},
				})),
			),
		);
		const exact = new SearchService(engine.ctx, () => engine.transcripts(), null, { exactUpTo: 1_000, sample: 1_000, countUpTo: 1_000 });
		const cut = new SearchService(engine.ctx, () => engine.transcripts(), null, { exactUpTo: 40, sample: 20, countUpTo: 40 });
		const counted = new SearchService(engine.ctx, () => engine.transcripts(), null, { exactUpTo: 40, sample: 20, countUpTo: 100 });
		t.after(() => (exact.close(), cut.close(), counted.close()));
		for (const text of ['invoice', 'rounding', 'number 7', 'billing.ts']) {
			assert.deepEqual(
				{ ...(await cut.search({ text })), tookMs: 0 },
				{ ...(await exact.search({ text })), tookMs: 0 },
				`${text}: under the cut, ranked exactly`,
			);
		}
		const all = await exact.search({ text: 'common', limit: 500 });
		assert.equal(all.total, 60);
		assert.equal(all.totalEstimated, undefined);
		const common = await cut.search({ text: 'common' });
		assert.equal(common.totalEstimated, true);
		assert.ok(common.total >= 41 && common.total <= 120, `an estimate near 60: ${common.total}`);
		const newest = new Set(
			all.hits
				.map((h) => h.ref)
				.sort()
				.slice(-20),
		);
		assert.deepEqual(common.hits.map((h) => h.ref).sort(), [...newest].sort(), 'the newest twenty matches');
		assert.match(common.hits[0]?.excerpt ?? '', /common common common 50/, 'the one that says it most first');
		assert.match(all.hits[0]?.excerpt ?? '', /common common common (10|50)/);
		const sampledButCounted = await counted.search({ text: 'common' });
		assert.deepEqual(
			{ total: sampledButCounted.total, estimated: sampledButCounted.totalEstimated },
			{ total: 60, estimated: undefined },
			'counted exactly up to countUpTo',
		);
		assert.deepEqual(
			sampledButCounted.hits.map((h) => h.ref),
			common.hits.map((h) => h.ref),
		);
		const scores = common.hits.map((h) => h.score);
		assert.deepEqual(
			scores,
			[...scores].sort((a, b) => b - a),
			'best first',
		);
	});

	void it('follows later writes, transcript growth, purges and deleted events without starting over', async (t) => {
		const { engine, root, clock, docs, archive, file, w, flushed } = await world(t);
		assert.equal((await engine.search.search({ text: 'zebra' })).total, 0);
		await engine.sessions.recordDecision({ text: 'Name the mascot zebra', sessionId: docs.id, actor });
		assert.deepEqual(kinds((await engine.search.search({ text: 'zebra' })).hits), ['decision']);
		const id = await prompt(engine, root, clock, docs.id, 2, 'Draw the zebra mascot');
		assert.deepEqual(kinds((await engine.search.search({ text: 'zebra' })).hits), ['decision', 'prompt']);
		await engine.sessions.rename({ id: docs.id, name: 'Zebra guide', actor });
		assert.deepEqual(kinds((await engine.search.search({ text: 'zebra' })).hits), ['decision', 'prompt', 'session']);

		w.user('Also paint the zebra stripes');
		w.flush(file, flushed);
		await archive.sync({ link: async () => null });
		const grown = await engine.search.search({ text: 'zebra' });
		assert.deepEqual(kinds(grown.hits), ['decision', 'prompt', 'session', 'transcript']);
		assert.equal(grown.hits.find((h) => h.kind === 'transcript')?.excerptIndex, 2);

		await engine.store.write((db) =>
			db
				.delete(sharedEvents)
				.where(inArray(sharedEvents.id, [id]))
				.run(),
		);
		assert.deepEqual(kinds((await engine.search.search({ text: 'zebra' })).hits), ['decision', 'session', 'transcript'], 'a retracted prompt is gone');
		const billing = (await engine.search.search({ text: 'ledger' })).hits.find((h) => h.kind === 'transcript')?.sessionId;
		assert.ok(billing);
		await archive.setArchiving(billing, false, true);
		assert.deepEqual(kinds((await engine.search.search({ text: 'zebra' })).hits), ['decision', 'session'], 'a purged transcript is gone');
	});

	void it('reads a long history in batches, each from the mark the last one reached', async (t) => {
		const { engine, root, clock, docs } = await world(t);
		const write = (from: number, n: number) =>
			engine.store.write((db) =>
				appendSharedEvents(
					db,
					machineIdentity(root),
					Array.from({ length: n }, (_, i) => ({
						nowMs: clock.now() + from + i,
						event: {
							kind: 'timeline.prompt',
							subject: docs.id,
							sessionId: docs.id,
							actor: 'human',
							body: { turn: from + i + 2, text: `batch prompt ${from + i}`, at: new Date(clock.now()).toISOString() },
						},
					})),
				),
			);
		await write(0, 12_345);
		const all = await engine.search.search({ text: 'batch prompt' });
		assert.equal(all.total, 12_345, 'every prompt past the 5,000-row batches');
		assert.equal(all.hits.length, 50);
		await write(12_345, 7);
		assert.equal((await engine.search.search({ text: 'batch' })).total, 12_352, 'the next search reads only what is new, and finds it');
		assert.deepEqual(kinds((await engine.search.search({ text: 'prompt 12351' })).hits), ['prompt']);
	});

	void it('filters by agent, file and time', async (t) => {
		const { engine, billing, docs } = await world(t);
		const byAgent = async (agent: string) => (await engine.search.search({ text: 'invoice write', agent })).hits;
		assert.equal((await engine.search.search({ text: 'write' })).hits.length > 0, true);
		assert.ok((await engine.search.search({ text: 'write', agent: 'Copilot' })).hits.every((h) => h.sessionId === docs.id));
		assert.equal((await engine.search.search({ text: 'invoice', agent: 'copilot' })).total, 0);
		assert.equal((await engine.search.search({ text: 'invoice', agent: 'Claude Code' })).total, 7);
		assert.deepEqual(await byAgent('nobody'), []);
		const touched = await engine.search.search({ text: 'invoice', file: 'src/billing.ts' });
		assert.equal(touched.total, 7, 'every record of the session that touched it');
		assert.ok(touched.hits.every((h) => h.sessionId === billing.id));
		assert.deepEqual(kinds((await engine.search.search({ text: 'ledger', file: 'src/ledger.ts' })).hits), ['memory'], 'a record naming the file');
		assert.equal((await engine.search.search({ text: 'invoice', file: 'src/other.ts' })).total, 0);
		const later = await engine.search.search({ text: 'invoice write getting started', since: '2026-03-02' });
		assert.equal(later.total, 0, 'phrases are ANDed');
		const since = await engine.search.search({ text: 'contributors', since: '2026-03-02' });
		assert.deepEqual(kinds(since.hits), ['prompt']);
		assert.equal((await engine.search.search({ text: 'invoice', since: '2026-03-02' })).total, 0);
		await assert.rejects(engine.search.search({ text: 'invoice', since: 'last tuesday' }), /--since takes a time/);
	});

	void it('reads hostile queries as words: quotes, operators, NUL, a huge paste', async (t) => {
		const { engine } = await world(t);
		for (const text of [
			'"invoice',
			'invoice"',
			'-invoice',
			'invoice -ledger',
			'inv*',
			'(invoice',
			'invoice)',
			'invoice\0',
			'\0invoice',
			'invoice:',
			"'invoice'",
			'^invoice',
			'{invoice}',
			`${'invoice '.repeat(5_000)}`,
			'invoice ' + '"'.repeat(1000),
		]) {
			const result = await engine.search.search({ text });
			assert.ok(result.total > 0, `${JSON.stringify(text.slice(0, 40))} finds the invoice`);
		}
		// FTS operators are words like any other, ANDed with the rest: none of these is in the store.
		for (const text of ['"invoice" OR ledger', 'invoice NEAR ledger', 'invoice NEAR/3 ledger', 'invoice AND', 'NOT invoice', 'title:invoice', 'NEAR']) {
			assert.equal((await engine.search.search({ text })).total, 0, text);
		}
		for (const text of ['', '   ', '"', '***', '\0', '-"()']) {
			await assert.rejects(engine.search.search({ text }), (e: unknown) => e instanceof BatonError && /nothing to search for/.test(e.message));
		}
		assert.deepEqual(ftsQuery('billing.ts "half-to" NEAR inv*').match, '"billing ts" "half to" "near" "inv*"');
	});
});
