/**
 * `baton import agents` (issue 26, item 6): 1,000 sessions per format in a HOME laid out as each agent
 * lays it out — Codex rollouts and Copilot CLI session folders copied from the real samples in
 * test/fixtures/real (each with its own id), Claude Code project transcripts and Gemini CLI chats in
 * their recorded shapes — imported into a fresh workspace, next to the plainest read of the same files:
 * every file read and every line given to JSON.parse. Runs alternate (baseline, import, baseline, …);
 * each import starts from a workspace without `.baton` so it does the whole work again. Target ≤ 2×.
 */
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Engine } from '../src/engine/engine';
import { silentLogger } from '../src/engine/ports';
import type { HistoryAgent } from '../src/engine/agentHistory/historySources';
import { median, type BenchRow } from './stats';

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
			write(path.join(home, '.codex', 'sessions', '2026', '11', '01', `rollout-2026-11-01T00-00-00-${id}.jsonl`), codex.replaceAll('01a22197-dbd8-7241-af6b-96b66b737258', id));
		} else if (agent === 'copilot') {
			const dir = path.join(home, '.copilot', 'session-state', id);
			write(path.join(dir, 'events.jsonl'), copilot.replaceAll(copilotId, id));
			fs.writeFileSync(path.join(dir, 'workspace.yaml'), copilotYaml.replaceAll(copilotId, id).replace(/^cwd: .*$/m, `cwd: ${root}`));
		} else if (agent === 'claude-code') {
			const encoded = root.replace(/[^A-Za-z0-9]/g, '-');
			const lines = [
				{ type: 'user', sessionId: id, cwd: root, timestamp: at, uuid: randomUUID(), message: { role: 'user', content: `fix the rounding in invoice ${i}` } },
				{
					type: 'assistant',
					sessionId: id,
					cwd: root,
					timestamp: at,
					uuid: randomUUID(),
					message: {
						id: `msg_${i}`,
						model: 'claude-sonnet-4-5',
						role: 'assistant',
						content: [
							{ type: 'text', text: 'Reading the ledger.' },
							{ type: 'tool_use', id: `toolu_${i}`, name: 'Edit', input: { file_path: `${root}/src/ledger.ts`, old_string: 'a', new_string: 'b' } },
						],
						usage: { input_tokens: 1200, output_tokens: 80 },
					},
				},
				{ type: 'user', sessionId: id, cwd: root, timestamp: at, uuid: randomUUID(), message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_${i}`, content: 'ok' }] } },
				{
					type: 'assistant',
					sessionId: id,
					cwd: root,
					timestamp: at,
					uuid: randomUUID(),
					message: { id: `msg_${i}b`, model: 'claude-sonnet-4-5', role: 'assistant', content: [{ type: 'text', text: 'The ledger now rounds half up.' }], usage: { input_tokens: 1400, output_tokens: 20 } },
				},
			];
			write(path.join(home, '.claude', 'projects', encoded, `${id}.jsonl`), `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
		} else if (agent === 'gemini') {
			const projectHash = createHash('sha256').update(root).digest('hex');
			const lines = [
				{ sessionId: id, projectHash, startTime: at, lastUpdated: at, kind: 'main' },
				{ id: 'm1', timestamp: at, type: 'user', content: [{ text: `write b${i}.txt` }] },
				{
					id: 'm2',
					timestamp: at,
					type: 'gemini',
					content: 'Writing.',
					model: 'gemini-2.5-pro',
					tokens: { input: 120, output: 30, cached: 0, thoughts: 0, tool: 0, total: 150 },
					toolCalls: [{ id: 'w1', name: 'write_file', args: { file_path: `${root}/b${i}.txt`, content: 'x\n' }, status: 'success' }],
				},
			];
			write(path.join(home, '.gemini', 'tmp', projectHash.slice(0, 12), 'chats', `session-2026-11-01T00-00-${id.slice(0, 8)}.jsonl`), `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
		}
	}
	return files;
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
			let imported = Number.NaN;
			for (let r = 0; r < rounds; r++) {
				const b0 = performance.now();
				plainRead(files);
				const b = performance.now() - b0;
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
				oursP99: Math.max(...ours),
				baseline: median(base),
				baselineName: 'read + JSON.parse per line',
				ratio,
				target: '≤ 2×',
				passed: ratio <= 2 && imported === count,
			});
		} finally {
			fs.rmSync(dir, { recursive: true, force: true });
		}
	}
	return rows;
}
