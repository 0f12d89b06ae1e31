/**
 * Search (docs/search.md) over a workspace of `sessions` sessions, each with a handoff, a decision,
 * two prompts, three steps and an archived transcript of twenty excerpts, their words drawn from a
 * vocabulary of 3,000 with a Zipf law (so some words are everywhere and most are rare). Rows:
 * - warm: `engine.search.search` once its index is current, over a fixed mix of queries, next to
 *   the plainest search there is over the same texts held in memory (lower-cased substring test of
 *   every record), alternating A B A B; the target is the 50 ms median;
 * - after a write: one new prompt, then a search (the index catches up by its high-water mark);
 * - cold: the first search of a process (the index built from the store and the archive), next to
 *   reading the same rows and parsing every archive line with JSON.parse.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Engine } from '../src/engine/engine';
import { silentLogger } from '../src/engine/ports';
import { machineIdentity } from '../src/engine/shared/machineIdentity';
import { appendSharedEvent, appendSharedEvents } from '../src/engine/shared/sharedEvents';
import { emptyIndex, newTranscriptEntry } from '../src/engine/transcripts/transcriptIndex';
import { median, percentile, type BenchRow } from './stats';

function prng(seed: number): () => number {
	let a = seed;
	return () => {
		a = (a + 0x6d2b79f5) | 0;
		let t = Math.imul(a ^ (a >>> 15), 1 | a);
		t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

const syllables = ['ka', 'lo', 'mi', 'ren', 'sto', 'vu', 'bel', 'tra', 'qui', 'don', 'fes', 'gar', 'hul', 'jin', 'pol', 'zet'];
export const vocabulary = Array.from({ length: 3_000 }, (_, i) => {
	let word = '';
	for (let n = i + 17; n > 0; n = Math.floor(n / 16)) word += syllables[n % 16];
	return word;
});

function sentence(random: () => number, words: number): string {
	const out: string[] = [];
	for (let i = 0; i < words; i++) out.push(vocabulary[Math.min(vocabulary.length - 1, Math.floor(Math.exp(random() * Math.log(vocabulary.length))) - 1)] as string);
	return out.join(' ');
}

/** Seeds the store in one write (statements captured as the bulk writers do) and the archive's files. */
export async function seed(root: string, sessions: number): Promise<string[]> {
	const engine = await Engine.open({ workspaceRoot: root, log: silentLogger, create: true, git: { read: async () => null } });
	const random = prng(26);
	const texts: string[] = [];
	try {
		const store = engine.store;
		const machine = machineIdentity(root);
		let ms = Date.parse('2026-01-01T00:00:00Z');
		const index = emptyIndex();
		const dir = path.join(root, '.baton', 'transcripts');
		fs.mkdirSync(dir, { recursive: true });
		await store.write((db) => {
			const events: Parameters<typeof appendSharedEvents>[2][number][] = [];
			for (let i = 0; i < sessions; i++) {
				const id = `ses_${String(20260101000000 + i)}_${(i % 0xffffff).toString(16).padStart(6, '0')}`;
				const at = new Date(ms).toISOString();
				const name = sentence(random, 4);
				const note = sentence(random, 25);
				const decision = sentence(random, 12);
				texts.push(name, note, decision);
				store.execCaptured(
					`INSERT INTO sessions (id, name, status, scope_json, scope_key, agent, stats_json, resume_count, started_at, last_activity, ended_at, updated_at) VALUES (?, ?, 'ended', '{"type":"global"}', 'global', ?, '{}', 0, ?, ?, ?, ?)`,
					[id, name, i % 3 ? 'claude-code' : 'codex', at, at, at, at],
				);
				const handoff = { lastTask: null, tasksCompleted: [], tasksCreated: [], decisionsRecorded: 1, decisions: [], nextSuggested: [], openBlockers: [], openBugs: [], note, nextAction: null };
				store.execCaptured('INSERT INTO handoffs (session_id, handoff_json, created_at) VALUES (?, ?, ?)', [id, JSON.stringify(handoff), at]);
				store.execCaptured('INSERT INTO decisions (id, session_id, kind, text, rationale, task_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)', [`dec_${i}`, id, 'decision', decision, null, null, at]);
				for (let turn = 1; turn <= 2; turn++) {
					const text = sentence(random, 30);
					texts.push(text);
					events.push({ nowMs: ms++, event: { kind: 'timeline.prompt', subject: id, sessionId: id, actor: 'human', body: { turn, text, at } } });
				}
				for (let step = 1; step <= 3; step++) {
					const file = `src/${vocabulary[(i * 3 + step) % 400]}/${vocabulary[(i + step) % 900]}.ts`;
					const summary = `Edit ${file}`;
					texts.push(summary, file);
					const body = {
						step,
						turn: 1,
						toolUseId: null,
						actor: 'agent',
						tool: 'Edit',
						summary,
						startedAt: at,
						treeBefore: null,
						treeAfter: null,
						files: [{ path: file, change: 'modified', additions: 3, deletions: 1 }],
						captured: false,
						agent: 'claude-code',
					};
					events.push({ nowMs: ms++, event: { kind: 'timeline.step', subject: id, sessionId: id, actor: 'agent:claude-code', body } });
				}
				// The archive: twenty excerpts, as transcriptExcerpts.ts writes them.
				const lines: string[] = [];
				for (let n = 0; n < 20; n++) {
					const text = sentence(random, n % 2 ? 60 : 20);
					texts.push(text);
					lines.push(
						JSON.stringify(
							n % 5 === 4
								? { type: 'tool', at, name: 'Bash', id: `toolu_${n}`, files: [], edit: false, detail: text.slice(0, 300) }
								: { type: n % 2 ? 'assistant' : 'user', at, ...(n % 2 ? { model: 'claude-sonnet-4-5' } : {}), text },
						),
					);
				}
				const agentSessionId = `a${i.toString(16).padStart(8, '0')}-0000-4000-8000-000000000000`;
				const archivePath = `${agentSessionId}.jsonl`;
				const content = `${lines.join('\n')}\n`;
				fs.writeFileSync(path.join(dir, archivePath), content);
				const entry = newTranscriptEntry({ id: agentSessionId, agent: 'claude-code', agentSessionId, parentAgentSessionId: null, sourcePath: `/nowhere/${archivePath}`, agentType: null, description: null });
				Object.assign(entry, { sessionId: id, archivePath, archiveBytes: Buffer.byteLength(content), firstAt: at, lastAt: at });
				index.transcripts[`claude-code:${agentSessionId}`] = entry;
				ms += 60_000;
			}
			appendSharedEvents(db, machine, events);
		});
		fs.writeFileSync(path.join(dir, 'index.json'), `${JSON.stringify(index)}\n`);
		await store.compact();
	} finally {
		engine.close();
	}
	return texts;
}

/**
 * What people look for: content words from common to rare (ranks 40 to 2,500 of the Zipf
 * vocabulary), two words, a phrase, a prefix, a file name, and a word that is nowhere. A word in
 * nearly every record (rank 1, a stopword in real text) has a row of its own.
 */
const queries = [
	vocabulary[40],
	vocabulary[120],
	vocabulary[300],
	vocabulary[700],
	vocabulary[1_500],
	vocabulary[2_500],
	`${vocabulary[60]} ${vocabulary[200]}`,
	`"${vocabulary[45]} ${vocabulary[46]}"`,
	`${vocabulary[800]?.slice(0, 5)}*`,
	`${vocabulary[130]}.ts`,
	'nothingmatchesthis',
].map(String);
const everywhere = String(vocabulary[0]);

function scan(texts: readonly string[], query: string): number {
	const words = query
		.toLowerCase()
		.split(/[^\p{L}\p{N}]+/u)
		.filter(Boolean);
	let hits = 0;
	for (const text of texts) {
		const lower = text.toLowerCase();
		if (words.every((w) => lower.includes(w))) hits++;
	}
	return hits;
}

export async function benchSearch(quick: boolean): Promise<BenchRow[]> {
	const sessions = quick ? 1_000 : 10_000;
	const root = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-bench-search-'));
	try {
		const texts = await seed(root, sessions);
		const open = () => Engine.open({ workspaceRoot: root, log: silentLogger, git: { read: async () => null } });
		const engine = await open();
		try {
			let t = performance.now();
			await engine.search.search({ text: String(vocabulary[0]) });
			const cold = performance.now() - t;
			t = performance.now();
			await engine.store.read(() => undefined);
			const rows = engine.store.sqlite.exec('SELECT name FROM sessions UNION ALL SELECT handoff_json FROM handoffs UNION ALL SELECT text FROM decisions UNION ALL SELECT body_json FROM shared_events');
			let parsed = rows[0]?.values.length ?? 0;
			for (const name of fs.readdirSync(path.join(root, '.baton', 'transcripts'))) {
				if (!name.endsWith('.jsonl')) continue;
				for (const line of fs.readFileSync(path.join(root, '.baton', 'transcripts', name), 'utf8').split('\n')) if (line) parsed += JSON.parse(line) ? 1 : 0;
			}
			const coldBase = performance.now() - t;

			let commonShare = 0;
			const ours: number[] = [];
			const base: number[] = [];
			const ratios: number[] = [];
			const rounds = quick ? 3 : 10;
			for (let round = 0; round < rounds; round++) {
				for (const query of queries) {
					const one = async (): Promise<number> => {
						const s = performance.now();
						await engine.search.search({ text: query });
						return performance.now() - s;
					};
					const other = (): number => {
						const s = performance.now();
						scan(texts, query);
						return performance.now() - s;
					};
					const [a, b] = round % 2 ? [other(), await one()].reverse() : [await one(), other()];
					ours.push(a as number);
					base.push(b as number);
					ratios.push((a as number) / (b as number));
				}
			}
			const common: number[] = [];
			const commonBase: number[] = [];
			for (let round = 0; round < (quick ? 3 : 5); round++) {
				let s = performance.now();
				const found = await engine.search.search({ text: everywhere });
				common.push(performance.now() - s);
				s = performance.now();
				scan(texts, everywhere);
				commonBase.push(performance.now() - s);
				commonShare = found.total / engine.search.size;
			}
			const after: number[] = [];
			const warmAgain: number[] = [];
			const machine = machineIdentity(root);
			for (let i = 0; i < (quick ? 3 : 10); i++) {
				await engine.store.write((db) =>
					appendSharedEvent(db, machine, Date.now(), { kind: 'timeline.prompt', subject: 'ses_x', sessionId: 'ses_x', actor: 'human', body: { turn: i + 1, text: `fresh words ${i}`, at: new Date().toISOString() } }),
				);
				let s = performance.now();
				await engine.search.search({ text: String(vocabulary[300]) });
				after.push(performance.now() - s);
				s = performance.now();
				await engine.search.search({ text: String(vocabulary[300]) });
				warmAgain.push(performance.now() - s);
			}
			const records = engine.search.size;
			const label = `${sessions.toLocaleString('en-US')} sessions, ${records.toLocaleString('en-US')} records`;
			const warm = median(ours);
			return [
				{
					name: `search warm (${label}, ${queries.length} queries)`,
					ours: warm,
					oursP99: percentile(ours, 99),
					baseline: median(base),
					baselineName: 'substring scan in memory',
					ratio: median(ratios),
					target: '≤ 50 ms median',
					passed: warm <= 50,
				},
				{
					name: `search for a word in ${Math.round(commonShare * 100)}% of the records (${label})`,
					ours: median(common),
					oursP99: percentile(common, 99),
					baseline: median(commonBase),
					baselineName: 'substring scan in memory',
					ratio: median(common) / median(commonBase),
					target: 'report',
				},
				{
					name: `search after one new prompt (${label})`,
					ours: median(after),
					oursP99: percentile(after, 99),
					baseline: median(warmAgain),
					baselineName: 'the same search warm',
					ratio: median(after) / median(warmAgain),
					target: 'report',
				},
				{
					name: `search index cold build (${label}, ${parsed.toLocaleString('en-US')} read)`,
					ours: cold,
					oursP99: Number.NaN,
					baseline: coldBase,
					baselineName: 'rows read + JSON.parse per archive line',
					ratio: cold / coldBase,
					target: 'report',
				},
			];
		} finally {
			engine.close();
		}
	} finally {
		fs.rmSync(root, { recursive: true, force: true });
	}
}

if (require.main === module) {
	void benchSearch(process.argv.includes('--quick')).then((rows) => console.log(rows));
}
