/**
 * The search index kept on disk (docs/search.md, "Kept on disk"), on a real store, a real transcript
 * archive and the real cache file: a process that loads it answers as a fresh build does, after
 * catching up only what is new; a cache that is cut short, damaged, of another version, not a cache
 * or missing is rebuilt with a word in the log and never an error; a session deleted after the save
 * is not found; `rebuild` (what `baton doctor --reindex` runs) writes it again.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { sql } from 'drizzle-orm';
import { Engine } from '../../../../src/engine/engine';
import { readSearchCache, searchCacheFormat, writeSearchCache } from '../../../../src/engine/search/searchCache';
import { SearchIndex } from '../../../../src/engine/search/searchIndex';
import { SearchService } from '../../../../src/engine/search/searchService';
import type { SearchQuery, SearchResult } from '../../../../src/engine/search/searchShapes';
import { actor, closeBeforeRemoval, MemoryLogger, noGit } from '../../helpers';
import { prompt, world } from './searchWorld';

const queries: SearchQuery[] = [
	{ text: 'invoice' },
	{ text: 'rounding' },
	{ text: 'ledger' },
	{ text: 'billing.ts' },
	{ text: 'zebra' },
	{ text: 'refunds integer cents' },
	{ text: 'inv*' },
	{ text: 'write', agent: 'copilot' },
	{ text: 'invoice', file: 'src/billing.ts' },
];

/** The answer without its timing; hits of equal score in a stable order (a fresh build numbers records in another order). */
function answer(result: SearchResult): unknown {
	const hits = [...result.hits].sort((a, b) => b.score - a.score || a.kind.localeCompare(b.kind) || a.ref.localeCompare(b.ref));
	return { ...result, hits, tookMs: 0 };
}

async function answers(search: SearchService): Promise<unknown[]> {
	const out: unknown[] = [];
	for (const query of queries) out.push(answer(await search.search(query)));
	return out;
}

async function reopen(t: TestContext, root: string): Promise<{ engine: Engine; log: MemoryLogger }> {
	const log = new MemoryLogger();
	const engine = await Engine.open({ workspaceRoot: root, log, git: noGit });
	closeBeforeRemoval(t, engine);
	return { engine, log };
}

/** What a build that never saw a cache answers, in the same process as `engine`. */
async function fresh(t: TestContext, engine: Engine): Promise<unknown[]> {
	const service = new SearchService(engine.ctx, () => engine.transcripts(), null);
	t.after(() => service.close());
	return answers(service);
}

const cacheFile = (root: string) => path.join(root, '.baton', 'cache', 'search-index.db');
const rebuiltWord = (log: MemoryLogger) => log.lines.filter((l) => /saved index .* building it again/.test(l.message));

void describe('search index on disk', () => {
	void it('a new process loads it, catches up with what was written since, and answers as a fresh build', async (t) => {
		const { engine, root, clock, docs } = await world(t);
		await engine.search.search({ text: 'invoice' });
		engine.search.close();
		assert.ok('bytes' in readSearchCache(cacheFile(root)), 'saved when the process lets go of its index');
		assert.equal(fs.statSync(cacheFile(root)).mode & 0o077, 0, 'private');
		execFileSync('git', ['init', '-q'], { cwd: root });
		// Exits 1 when the path is not ignored: `.baton/`'s own .gitignore keeps it (and all of .baton) out of the repository and of sync.
		execFileSync('git', ['check-ignore', '-q', cacheFile(root)], { cwd: root });
		// Written after the save: the next process must catch up.
		await engine.sessions.recordDecision({ text: 'Name the mascot zebra', sessionId: docs.id, actor });
		await prompt(engine, root, clock, docs.id, 2, 'Draw the zebra mascot for the invoice page');

		const { engine: next, log } = await reopen(t, root);
		const loaded = await answers(next.search);
		assert.deepEqual(rebuiltWord(log), [], 'the cache was trusted');
		assert.deepEqual(loaded, await fresh(t, next));
		assert.deepEqual((await next.search.search({ text: 'zebra' })).hits.map((h) => h.kind).sort(), ['decision', 'prompt']);
	});

	void it('rebuilds, with a word in the log, a cache cut short, damaged, of another version, not a cache, or missing', async (t) => {
		const { engine, root } = await world(t);
		await engine.search.search({ text: 'invoice' });
		engine.search.close();
		const good = fs.readFileSync(cacheFile(root));
		const damages: [string, (bytes: Buffer) => Buffer | null, RegExp][] = [
			['cut short', (b) => b.subarray(0, Math.floor(b.length / 2)), /not a search cache, or cut short/],
			['a flipped byte', (b) => Buffer.from(b.map((v, i) => (i === 5000 ? v ^ 0xff : v))), /damaged/],
			['another version', (b) => Buffer.from(b.map((v, i) => (i === b.length - 32 ? searchCacheFormat + 1 : v))), /format \d+, this Baton reads/],
			['not a cache', () => Buffer.concat([Buffer.from('SQLite format 3\0'), Buffer.alloc(200, 1)]), /not a search cache/],
			['a sound file around bytes that are not the index', () => null, /cannot be read/],
			['empty', () => Buffer.alloc(0), /cut short/],
			['missing', () => Buffer.alloc(0), /missing/],
		];
		let reference: unknown[] | undefined;
		for (const [name, damage, said] of damages) {
			const bytes = damage(good);
			if (name === 'missing') fs.rmSync(cacheFile(root));
			else if (bytes === null) writeSearchCache(cacheFile(root), Buffer.from('not a database'));
			else fs.writeFileSync(cacheFile(root), bytes);
			const { engine: next, log } = await reopen(t, root);
			const got = await answers(next.search);
			reference ??= await fresh(t, next);
			assert.deepEqual(got, reference, name);
			const words = rebuiltWord(log);
			assert.equal(words.length, 1, `${name}: ${JSON.stringify(log.lines)}`);
			assert.match(words[0]?.message ?? '', said, name);
			assert.equal(words[0]?.level, name === 'missing' ? 'info' : 'warn', name);
			next.close();
			assert.ok('bytes' in readSearchCache(cacheFile(root)), `${name}: written again`);
		}
	});

	void it('never finds a session deleted after the save, nor its events and transcript', async (t) => {
		const { engine, root, billing, archive } = await world(t);
		assert.equal((await engine.search.search({ text: 'invoice' })).total, 7);
		engine.search.close();
		// What a pulled retraction does to the session and its events, with its records and transcript gone too.
		await engine.store.write((db) => {
			db.run(sql`DELETE FROM shared_events WHERE session_id = ${billing.id} OR subject = ${billing.id}`);
			for (const table of ['decisions', 'handoffs']) db.run(sql.raw(`DELETE FROM ${table} WHERE session_id = '${billing.id}'`));
			db.run(sql`DELETE FROM memory_entries WHERE source_session_id = ${billing.id}`);
			db.run(sql`DELETE FROM sessions WHERE id = ${billing.id}`);
		});
		await archive.setArchiving(billing.id, false, true);
		const { engine: next, log } = await reopen(t, root);
		for (const text of ['invoice', 'rounding', 'ledger', 'billing.ts', '10.005']) {
			const result = await next.search.search({ text });
			assert.deepEqual(
				result.hits.filter((h) => h.sessionId === billing.id || h.kind === 'transcript').map((h) => `${h.kind} ${h.excerpt}`),
				[],
				text,
			);
		}
		assert.deepEqual(rebuiltWord(log), []);
		assert.deepEqual(await answers(next.search), await fresh(t, next));
	});

	void it('rebuild drops the index and its cache and writes both again', async (t) => {
		const { engine, root } = await world(t);
		await engine.search.search({ text: 'invoice' });
		fs.mkdirSync(path.dirname(cacheFile(root)), { recursive: true });
		fs.writeFileSync(cacheFile(root), 'stale');
		const records = await engine.search.rebuild();
		assert.equal(records, engine.search.size);
		assert.ok(records > 0);
		assert.ok('bytes' in readSearchCache(cacheFile(root)));
		assert.equal((await engine.search.search({ text: 'invoice' })).total, 7);
	});
});

void describe('search index on disk: what is not a file', () => {
	// A plain read of a FIFO waits for a writer that never comes: the process would hang on its first search.
	void it('a FIFO where the cache should be is unreadable at once, not waited on', { skip: process.platform === 'win32' }, (t) => {
		const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-search-fifo-'));
		t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
		const file = path.join(dir, 'search-index.db');
		execFileSync('mkfifo', [file]);
		const script = `const { readSearchCache } = require(${JSON.stringify(path.resolve('src/engine/search/searchCache.ts'))}); process.stdout.write(JSON.stringify(readSearchCache(${JSON.stringify(file)})));`;
		const run = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { encoding: 'utf8', timeout: 20_000 });
		assert.equal(run.signal, null, 'read the FIFO without waiting for a writer');
		assert.equal(run.status, 0, run.stderr);
		assert.match((JSON.parse(run.stdout) as { problem: string }).problem, /unreadable \(.*a FIFO/);
	});
});

void describe('search index on disk: a catch-up that failed halfway', () => {
	// sql.js runs out of memory at history scale: a chunk of puts is rolled back while the feed has
	// already marked its records as indexed. Kept or saved, that index never finds them again.
	void it('is neither kept nor saved: the next search and the next process find every record', async (t) => {
		const { engine, root } = await world(t);
		const put = SearchIndex.prototype.put;
		let calls = 0;
		SearchIndex.prototype.put = function (this: SearchIndex, ...args: Parameters<SearchIndex['put']>) {
			if (++calls >= 2) throw new Error('out of memory');
			put.apply(this, args);
		};
		try {
			await assert.rejects(engine.search.search({ text: 'invoice' }), /out of memory/);
		} finally {
			SearchIndex.prototype.put = put;
		}
		const reference = await fresh(t, engine);
		assert.deepEqual(await answers(engine.search), reference, 'the same process');
		engine.search.close();
		const { engine: next } = await reopen(t, root);
		assert.deepEqual(await answers(next.search), reference, 'the next process');
	});
	// Only an index that came from the cache is retried from scratch: a failed first build is the search's error, not a saved index's.
	void it('of a first build is not blamed on a saved index', async (t) => {
		const { engine } = await world(t);
		const log = engine.ctx.log as MemoryLogger;
		const put = SearchIndex.prototype.put;
		let calls = 0;
		SearchIndex.prototype.put = function (this: SearchIndex, ...args: Parameters<SearchIndex['put']>) {
			if (++calls === 2) throw new Error('out of memory');
			put.apply(this, args);
		};
		try {
			await assert.rejects(engine.search.search({ text: 'invoice' }), /out of memory/);
		} finally {
			SearchIndex.prototype.put = put;
		}
		assert.deepEqual(
			log.lines.filter((l) => /saved index could not be brought up to date/.test(l.message)),
			[],
		);
		assert.equal((await engine.search.search({ text: 'invoice' })).total, 7);
	});
});

void describe('search index on disk: close() while a search loads it', () => {
	// close() is synchronous and found no index yet: the database the load then opened was kept by a closed service, never freed.
	void it('frees the database the load opened once that search ends', async (t) => {
		const { engine, root } = await world(t);
		await engine.search.search({ text: 'invoice' });
		engine.search.close();
		const opened: SearchIndex[] = [];
		const closed = new Set<SearchIndex>();
		const { load, create } = SearchIndex;
		const shut = SearchIndex.prototype.close;
		SearchIndex.load = async (bytes) => {
			const got = await load.call(SearchIndex, bytes);
			opened.push(got.index);
			return got;
		};
		SearchIndex.create = async () => {
			const index = await create.call(SearchIndex);
			opened.push(index);
			return index;
		};
		SearchIndex.prototype.close = function (this: SearchIndex) {
			closed.add(this);
			shut.call(this);
		};
		t.after(() => {
			Object.assign(SearchIndex, { load, create });
			SearchIndex.prototype.close = shut;
		});
		const service = new SearchService(engine.ctx, () => engine.transcripts(), { file: cacheFile(root), save: true });
		const running = service.search({ text: 'invoice' });
		service.close();
		assert.equal((await running).total, 7, 'the search in flight still answers');
		for (let tick = 0; tick < 20 && opened.some((i) => !closed.has(i)); tick++) await new Promise((resolve) => setTimeout(resolve, 10));
		assert.equal(opened.length, 1, 'loaded from the cache');
		assert.deepEqual(
			opened.map((i) => closed.has(i)),
			[true],
			'freed',
		);
		assert.equal(service.size, 0);
		assert.equal((await service.search({ text: 'invoice' })).total, 7, 'a later search loads it again');
		service.close();
		assert.equal(opened.length, 2);
		assert.ok(closed.has(opened[1] as SearchIndex));
	});
});

void describe('search index on disk: an archive file removed by hand', () => {
	const transcriptHits = (result: SearchResult) => result.hits.filter((h) => h.kind === 'transcript').map((h) => h.excerpt);
	// Issue #26 item 2: a session whose agent deleted its file stays readable from the archive, so it stays
	// searchable. Baton's own archive file removed by hand leaves index.json as it was: its excerpts have no source any more.
	void it('finds none of its excerpts, in this process and the next; the agent deleting its own file keeps them', async (t) => {
		const { engine, root, archive, file } = await world(t);
		assert.equal(transcriptHits(await engine.search.search({ text: '10.005' })).length, 1);
		fs.rmSync(file);
		await archive.sync({ link: async () => null });
		assert.equal(archive.list()[0]?.sourceMissing, true);
		assert.equal(transcriptHits(await engine.search.search({ text: '10.005' })).length, 1, "the agent's file gone: kept");
		engine.search.close();

		const archived = archive.list()[0]?.archivePath;
		assert.ok(archived);
		fs.rmSync(path.join(archive.dir, archived));
		const { engine: next } = await reopen(t, root);
		for (const search of [engine.search, next.search]) {
			const invoice = await search.search({ text: 'invoice' });
			assert.deepEqual(transcriptHits(invoice), []);
			assert.equal(invoice.total, 5);
			assert.deepEqual(transcriptHits(await search.search({ text: '10.005' })), []);
		}
		engine.search.close();
		const { engine: third } = await reopen(t, root);
		assert.deepEqual(transcriptHits(await third.search.search({ text: 'invoice' })), [], 'the cache saved without them');
	});
});
