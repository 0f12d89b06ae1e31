/**
 * A page of the session list reads its own rows by index (#28 item 2): newest first with ties by id,
 * the first page and a page after a cursor each walk `sessions_started_idx` (started_at, id) and sort
 * nothing. Ordered by started_at alone, SQLite read and sorted every session for a page of one — the
 * cold daemon's first `session list --limit 1` at 10,000 sessions spent 0.4 s there. The statements
 * are the ones the engine prepared for the list (recorded as sql.js prepares them), planned by the
 * same database.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openTestEngine } from '../../helpers';

void describe('session list pages by index', () => {
	void it('plans the first page and a page after a cursor on the (started_at, id) index, with no sort', async (t) => {
		const { engine } = await openTestEngine(t);
		const store = engine.store;
		await store.write(() => {
			for (let i = 0; i < 2_000; i++) {
				// Pairs share a start time: the id orders them.
				const at = new Date(Date.UTC(2025, 0, 1) + Math.floor(i / 2) * 60_000).toISOString();
				const id = `ses_${String(20250101000000 + i)}_${(i % 0xffffff).toString(16).padStart(6, '0')}`;
				store.execCaptured(
					`INSERT INTO sessions (id, name, status, scope_json, scope_key, stats_json, resume_count, started_at, last_activity, ended_at, updated_at) VALUES (?, ?, 'ended', '{"type":"global"}', 'global', '{}', 0, ?, ?, ?, ?)`,
					[id, `session ${i}`, at, at, at, at],
				);
			}
		});
		const sqlite = store.sqlite;
		const prepared: string[] = [];
		const prepare = sqlite.prepare.bind(sqlite);
		sqlite.prepare = (statement: string, params?: Parameters<typeof prepare>[1]) => {
			prepared.push(statement);
			return prepare(statement, params);
		};
		const first = await engine.briefings.list({ limit: 3 });
		const after = await engine.briefings.list({ limit: 3, after: first[2]?.id as string });
		sqlite.prepare = prepare;
		assert.deepEqual(
			first.map((s) => s.name),
			['session 1999', 'session 1998', 'session 1997'],
		);
		assert.deepEqual(
			after.map((s) => s.name),
			['session 1996', 'session 1995', 'session 1994'],
		);
		const pages = [...new Set(prepared.filter((s) => /from "sessions"/.test(s) && /order by/i.test(s)))];
		assert.equal(pages.length, 2, prepared.join('\n'));
		for (const page of pages) {
			const params = Array.from(page.matchAll(/\?/g), () => 1);
			const plan = (sqlite.exec(`EXPLAIN QUERY PLAN ${page}`, params)[0]?.values ?? []).map((row) => String(row[3]));
			assert.ok(
				plan.some((d) => d.includes('sessions_started_idx')),
				`${page}\n${plan.join('; ')}`,
			);
			assert.ok(!plan.some((d) => d.includes('TEMP B-TREE')), `${page}\n${plan.join('; ')}`);
		}
	});
});
