/**
 * `baton import agents` (issue 26, item 6): 1,000 sessions per format in a HOME laid out as each agent
 * lays it out, imported into a fresh workspace, next to the plainest read of the same files: every file
 * read and every line given to JSON.parse. Runs alternate (baseline, import, baseline, …); each import
 * starts from a workspace without `.baton` so it does the whole work again. Target ≤ 2×.
 *
 * Sizes (a real session is rarely a few lines): Codex rollouts and Copilot CLI session folders are the
 * real samples of test/fixtures/real (one request of a person each, run by the real CLIs: 24 lines and
 * 15 KB, 36 lines and 19 KB), each with its own id. Claude Code and Gemini CLI sessions are as long as
 * those runs, 30 records, with the record mix and sizes of the reference transcript generator
 * (shared reference `probes/jsonl/gen-transcript.mjs`, tech-measurements §5: 30% assistant turns
 * calling a tool, 30% tool results of 100–3,100 characters of which 4% are whole files of 20–170 KB,
 * 20% assistant text of 100–2,600, 17% requests of 20–420, compactions and summaries), seeded so every
 * run lays out the same bytes: about 80 KB a session, in each agent's own record shape.
 */
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Engine } from '../src/engine/engine';
import { silentLogger } from '../src/engine/ports';
import type { HistoryAgent } from '../src/engine/agentHistory/historySources';
import { median, percentile, type BenchRow } from './stats';

const real = path.resolve(__dirname, '..', 'test', 'fixtures', 'real');

/** Writes `count` sessions of `agent` for `root` under `home`; returns the files written. */
export function layOut(agent: HistoryAgent, home: string, root: string, count: number): string[] {
	const files: string[] = [];
	const write = (file: string, text: string): void => {
		fs.mkdirSync(path.dirname(file), { recursive: true });
		fs.writeFileSync(file, text);
		files.push(file);
	};
	const codex = fs.readFileSync(path.join(real, 'codex-rollout', 'rollout-0.171.0-apply-patch.jsonl'), 'utf8').replaceAll('/home/dev/project', root);
	const copilot = fs.readFileSync(path.join(real, 'copilot-cli-session', 'events.jsonl'), 'utf8');
	const copilotYaml = fs.readFileSync(path.join(real, 'copilot-cli-session', 'workspace.yaml'), 'utf8');
	const copilotId = 'a88f76da-cc2b-48a7-bce5-29305a80223e';
	for (let i = 0; i < count; i++) {
		const id = randomUUID();
		const at = new Date(Date.parse('2026-11-01T00:00:00Z') + i * 60_000).toISOString();
		if (agent === 'codex') {
			write(
				path.join(home, '.codex', 'sessions', '2026', '11', '01', `rollout-2026-11-01T00-00-00-${id}.jsonl`),
				codex.replaceAll('01a22197-dbd8-7241-af6b-96b66b737258', id),
			);
		} else if (agent === 'copilot') {
			const dir = path.join(home, '.copilot', 'session-state', id);
			write(path.join(dir, 'events.jsonl'), copilot.replaceAll(copilotId, id));
			fs.writeFileSync(path.join(dir, 'workspace.yaml'), copilotYaml.replaceAll(copilotId, id).replace(/^cwd: .*$/m, `cwd: ${root}`));
		} else if (agent === 'claude-code') {
			const encoded = root.replace(/[^A-Za-z0-9]/g, '-');
			write(path.join(home, '.claude', 'projects', encoded, `${id}.jsonl`), claudeSession(id, root, at, i));
		} else if (agent === 'gemini') {
			const projectHash = createHash('sha256').update(root).digest('hex');
			write(
				path.join(home, '.gemini', 'tmp', projectHash.slice(0, 12), 'chats', `session-2026-11-01T00-00-${id.slice(0, 8)}.jsonl`),
				geminiSession(id, projectHash, root, at, i),
			);
		}
	}
	return files;
}

const recordsPerSession = 30;

/** The reference generator's PRNG and text (probes/jsonl/gen-transcript.mjs), seeded per session. */
function textMaker(seed: number): { rand: () => number; text: (n: number) => string } {
	let state = seed;
	const rand = (): number => {
		state = (state + 0x6d2b79f5) | 0;
		let t = Math.imul(state ^ (state >>> 15), 1 | state);
		t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
	const words =
		'the file function returns error value test build config module import export update change fix add remove check run result data user session tool edit read write'.split(
			' ',
		);
	const uni = ['café', 'naïve', '日本語のテキスト', 'emoji 🚀✅', 'Ünïcödé', 'Привет'];
	const text = (n: number): string => {
		let out = '';
		while (out.length < n)
			out += (rand() < 0.02 ? uni[Math.floor(rand() * uni.length)] : words[Math.floor(rand() * words.length)]) + (rand() < 0.1 ? '\n' : ' ');
		return out;
	};
	return { rand, text };
}

/** A tool result's text: 100–3,100 characters, or 4% of the time a whole file of 20–170 KB. */
const toolOutput = ({ rand, text }: ReturnType<typeof textMaker>): string => text(rand() < 0.04 ? 20_000 + rand() * 150_000 : 100 + rand() * 3_000);

/** A Claude Code transcript of `recordsPerSession` records: a request, then the reference generator's mix. */
function claudeSession(sessionId: string, root: string, at: string, seed: number): string {
	const maker = textMaker(seed + 7);
	const { rand, text } = maker;
	let parent: string | null = null;
	const base = (n: number) => ({
		parentUuid: parent,
		isSidechain: false,
		userType: 'external',
		cwd: root,
		sessionId,
		version: '2.1.197',
		gitBranch: 'main',
		uuid: (parent = randomUUID()),
		timestamp: new Date(Date.parse(at) + n * 1000).toISOString(),
	});
	const lines = [
		JSON.stringify({ ...base(0), type: 'user', message: { role: 'user', content: `fix the rounding in invoice ${seed}: ${text(20 + rand() * 400)}` } }),
	];
	for (let n = 1; n < recordsPerSession; n++) {
		const r = rand();
		let record: object;
		if (r < 0.3) {
			const input = { file_path: `${root}/src/f${Math.floor(rand() * 500)}.ts`, old_string: text(rand() * 300), new_string: text(rand() * 300) };
			const content = [
				{ type: 'text', text: text(50 + rand() * 600) },
				{ type: 'tool_use', id: `toolu_${seed}_${n}`, name: 'Edit', input },
			];
			record = {
				...base(n),
				type: 'assistant',
				requestId: `req_${n}`,
				message: {
					id: `msg_${seed}_${n}`,
					type: 'message',
					role: 'assistant',
					model: 'claude-sonnet-4-5',
					content,
					stop_reason: 'tool_use',
					usage: {
						input_tokens: Math.floor(rand() * 5000),
						output_tokens: Math.floor(rand() * 800),
						cache_read_input_tokens: Math.floor(rand() * 50000),
					},
				},
			};
		} else if (r < 0.6) {
			const result = { tool_use_id: `toolu_${seed}_${n - 1}`, type: 'tool_result', content: toolOutput(maker), is_error: rand() < 0.05 };
			record = {
				...base(n),
				type: 'user',
				message: { role: 'user', content: [result] },
				toolUseResult: { stdout: text(rand() * 500), stderr: '', interrupted: false },
			};
		} else if (r < 0.8) {
			record = {
				...base(n),
				type: 'assistant',
				message: {
					id: `msg_${seed}_${n}`,
					type: 'message',
					role: 'assistant',
					model: 'claude-sonnet-4-5',
					content: [{ type: 'text', text: text(100 + rand() * 2500) }],
					stop_reason: 'end_turn',
					usage: { input_tokens: 10, output_tokens: 300 },
				},
			};
		} else if (r < 0.97) {
			record = { ...base(n), type: 'user', message: { role: 'user', content: text(20 + rand() * 400) } };
		} else if (r < 0.99) {
			record = { ...base(n), type: 'system', subtype: 'compact_boundary', content: 'Conversation compacted', level: 'info' };
		} else {
			record = { type: 'summary', summary: text(80), leafUuid: parent };
		}
		lines.push(JSON.stringify(record));
	}
	return `${lines.join('\n')}\n`;
}

/** A Gemini CLI chat (chatRecordingTypes.ts shapes): its header, a request, then the same mix as Gemini's records (a tool call carries its result). */
function geminiSession(sessionId: string, projectHash: string, root: string, at: string, seed: number): string {
	const maker = textMaker(seed + 11);
	const { rand, text } = maker;
	const time = (n: number): string => new Date(Date.parse(at) + n * 1000).toISOString();
	const tokens = () => ({
		input: Math.floor(rand() * 5000),
		output: Math.floor(rand() * 800),
		cached: Math.floor(rand() * 50000),
		thoughts: 0,
		tool: 0,
		total: 0,
	});
	const lines = [
		JSON.stringify({ sessionId, projectHash, startTime: at, lastUpdated: at, kind: 'main' }),
		JSON.stringify({ id: 'm0', timestamp: at, type: 'user', content: [{ text: `write b${seed}.txt: ${text(20 + rand() * 400)}` }] }),
	];
	for (let n = 1; n < recordsPerSession - 1; n++) {
		const r = rand();
		let record: object;
		if (r < 0.6) {
			const args = { file_path: `${root}/src/f${Math.floor(rand() * 500)}.ts`, old_string: text(rand() * 300), new_string: text(rand() * 300) };
			const output = toolOutput(maker);
			const call = {
				id: `c${n}`,
				name: 'replace',
				args,
				result: [{ functionResponse: { id: `c${n}`, name: 'replace', response: { output } } }],
				status: rand() < 0.05 ? 'error' : 'success',
				timestamp: time(n),
				resultDisplay: output.slice(0, 200),
			};
			record = {
				id: `m${n}`,
				timestamp: time(n),
				type: 'gemini',
				content: text(50 + rand() * 600),
				thoughts: [],
				tokens: tokens(),
				model: 'gemini-2.5-pro',
				toolCalls: [call],
			};
		} else if (r < 0.8) {
			record = {
				id: `m${n}`,
				timestamp: time(n),
				type: 'gemini',
				content: text(100 + rand() * 2500),
				thoughts: [],
				tokens: tokens(),
				model: 'gemini-2.5-pro',
			};
		} else {
			record = { id: `m${n}`, timestamp: time(n), type: 'user', content: [{ text: text(20 + rand() * 400) }] };
		}
		lines.push(JSON.stringify(record));
	}
	return `${lines.join('\n')}\n`;
}

/** The plain read: every file, every non-empty line through JSON.parse. */
export function plainRead(files: readonly string[]): number {
	let records = 0;
	for (const file of files) {
		for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
			if (line) {
				JSON.parse(line);
				records++;
			}
		}
	}
	return records;
}

/**
 * What keeping a copy costs at all: the plain read, and each file's bytes written into a folder of its
 * own (a folder and a file made per session, as the archive keeps them; no database, no index). The
 * target leaves the import the difference to 2× for everything else.
 */
export function readAndCopy(files: readonly string[], into: string): number {
	fs.rmSync(into, { recursive: true, force: true });
	let records = 0;
	files.forEach((file, i) => {
		const text = fs.readFileSync(file, 'utf8');
		for (const line of text.split('\n')) {
			if (line) {
				JSON.parse(line);
				records++;
			}
		}
		const folder = path.join(into, String(i));
		fs.mkdirSync(folder, { recursive: true });
		fs.writeFileSync(path.join(folder, path.basename(file)), text);
	});
	return records;
}

async function importOnce(root: string, home: string, agent: HistoryAgent): Promise<{ ms: number; imported: number }> {
	fs.rmSync(path.join(root, '.baton'), { recursive: true, force: true });
	const engine = await Engine.open({ workspaceRoot: root, log: silentLogger, create: true, git: { read: async () => null } });
	try {
		const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, CODEX_HOME: path.join(home, '.codex'), CLAUDE_CONFIG_DIR: path.join(home, '.claude') };
		delete env['GEMINI_CLI_HOME'];
		delete env['BATON_CLAUDE_HOME'];
		const started = performance.now();
		const report = await engine.agentHistory.import({ agents: [agent], dryRun: false, actor: 'bench', env, homeDir: home });
		const ms = performance.now() - started;
		return { ms, imported: report.agents[agent]?.imported ?? Number.NaN };
	} finally {
		engine.close();
	}
}

export async function benchImport(quick: boolean): Promise<BenchRow[]> {
	const count = quick ? 100 : 1_000;
	const rounds = quick ? 2 : 3;
	const rows: BenchRow[] = [];
	for (const agent of ['claude-code', 'codex', 'gemini', 'copilot'] as HistoryAgent[]) {
		const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-import-bench-'));
		try {
			const root = path.join(dir, 'project');
			const home = path.join(dir, 'home');
			fs.mkdirSync(root, { recursive: true });
			const files = layOut(agent, home, root, count);
			const ours: number[] = [];
			const base: number[] = [];
			const ratios: number[] = [];
			const copies: number[] = [];
			let imported = Number.NaN;
			for (let r = 0; r < rounds; r++) {
				const b0 = performance.now();
				plainRead(files);
				const b = performance.now() - b0;
				const c0 = performance.now();
				readAndCopy(files, path.join(dir, 'copy'));
				copies.push((performance.now() - c0) / b);
				const run = await importOnce(root, home, agent);
				imported = run.imported;
				ours.push(run.ms);
				base.push(b);
				ratios.push(run.ms / b);
			}
			const ratio = median(ratios);
			rows.push({
				name: `import agents: ${count} ${agent} sessions (${Number.isFinite(imported) ? imported : '?'} imported)`,
				ours: median(ours),
				oursP99: percentile(ours, 99),
				baseline: median(base),
				baselineName: 'read + JSON.parse per line',
				ratio,
				target: '≤ 2×',
				passed: ratio <= 2 && imported === count,
			});
			rows.push({
				name: `import agents: ${count} ${agent} sessions, the floor of a copy per session (read + JSON.parse + a folder and a file each)`,
				ours: median(copies) * median(base),
				oursP99: Number.NaN,
				baseline: median(base),
				baselineName: 'read + JSON.parse per line',
				ratio: median(copies),
				target: 'measured',
			});
		} finally {
			fs.rmSync(dir, { recursive: true, force: true });
		}
	}
	return rows;
}
