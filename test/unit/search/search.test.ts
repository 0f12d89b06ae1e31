/**
 * Full-text search (docs/search.md) on a real store and a real transcript archive: every kind of
 * record is found with its excerpt, ranked; the index follows writes, transcript growth and purges
 * without a rebuild; the filters; and hostile queries never reach SQLite as syntax.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { inArray } from 'drizzle-orm';
import type { Engine } from '../../../src/engine/engine';
import { BatonError } from '../../../src/engine/errors';
import { ftsQuery } from '../../../src/engine/search/ftsQuery';
import type { SearchHit } from '../../../src/engine/search/searchShapes';
import { machineIdentity } from '../../../src/engine/shared/machineIdentity';
import { appendSharedEvent } from '../../../src/engine/shared/sharedEvents';
import { sharedEvents } from '../../../src/engine/storage/schema';
import { claudeProjectDir } from '../../../src/engine/transcripts/claudeProjects';
import { TranscriptArchive } from '../../../src/engine/transcripts/transcriptArchive';
import { TranscriptWriter } from '../agents/transcriptWriter';
import { actor, openTestEngine, tempDir, type FakeClock } from '../helpers';

const agentId = '6f1c2a9e-3b7d-4c21-9e8a-5d4f0b7a1c33';

async function prompt(engine: Engine, root: string, clock: FakeClock, sessionId: string, turn: number, text: string): Promise<string> {
	return engine.store.write((db) => appendSharedEvent(db, machineIdentity(root), clock.now(), { kind: 'timeline.prompt', subject: sessionId, sessionId, actor: 'human', body: { turn, text, at: new Date(clock.now()).toISOString() } }).id);
}

async function step(engine: Engine, root: string, clock: FakeClock, sessionId: string, n: number, summary: string, files: string[]): Promise<string> {
	const body = {
		step: n,
		turn: 1,
		toolUseId: `toolu_${n}`,
		actor: 'agent',
		tool: 'Edit',
		summary,
		startedAt: new Date(clock.now()).toISOString(),
		treeBefore: null,
		treeAfter: null,
		files: files.map((p) => ({ path: p, change: 'modified', additions: 1, deletions: 0 })),
		captured: false,
		agent: 'claude-code',
	};
	return engine.store.write((db) => appendSharedEvent(db, machineIdentity(root), clock.now(), { kind: 'timeline.step', subject: sessionId, sessionId, actor: 'agent:claude-code', body }).id);
}

function kinds(hits: readonly SearchHit[]): string[] {
	return hits.map((h) => h.kind).sort();
}

/** The text each range of a hit marks. */
function marks(hit: SearchHit): string[] {
	return hit.matches.map(([a, b]) => hit.excerpt.slice(a, b).toLowerCase());
}

async function world(t: TestContext) {
	const base = tempDir(t, 'baton-search-');
	const root = path.join(base, 'shop');
	fs.mkdirSync(root);
	const { engine, clock } = await openTestEngine(t, { root });
	const { session: billing } = await engine.sessions.start({ name: 'Fix the invoice rounding', agent: 'claude-code', agentIdentifier: agentId, actor });
	clock.advance(60_000);
	await prompt(engine, root, clock, billing.id, 1, 'The invoice total is off by a cent when VAT applies; fix the rounding in billing.ts');
	await step(engine, root, clock, billing.id, 1, 'Edit src/billing.ts', ['src/billing.ts']);
	await engine.sessions.recordDecision({ text: 'Round half to even at the invoice total only', rationale: 'banker’s rounding matches the ledger', sessionId: billing.id, actor });
	await engine.memory.record({ kind: 'gotcha', text: 'The ledger export truncates amounts instead of rounding', files: ['src/ledger.ts'], actor });
	clock.advance(60_000);
	await engine.sessions.end({ id: billing.id, note: 'Rounding fixed; the refund path still uses floats', nextAction: 'Move refunds to integer cents', actor });
	clock.advance(86_400_000);
	const { session: docs } = await engine.sessions.start({ name: 'Write the onboarding guide', agent: 'copilot', actor });
	await prompt(engine, root, clock, docs.id, 1, 'Write a getting-started page for new contributors');
	// Claude's transcript of the billing session, archived as a hook would.
	const claudeHome = path.join(base, 'claude');
	const file = path.join(claudeProjectDir(claudeHome, root), `${agentId}.jsonl`);
	fs.mkdirSync(path.dirname(file), { recursive: true });
	const w = new TranscriptWriter(agentId, root);
	w.user('Why does the invoice total differ from the ledger?');
	w.assistant([{ text: 'The ledger truncates while the invoice rounds: a subtotal of 10.005 shows both ways.' }], { input_tokens: 10, output_tokens: 5 });
	const flushed = w.flush(file);
	const archive = new TranscriptArchive({ workspaceRoot: root, claudeHome, log: { info() {}, warn() {}, error() {} } });
	await archive.sync({ link: async (_agent, id) => (id === agentId ? billing.id : null) });
	return { engine, clock, root, billing, docs, archive, file, w, flushed };
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
