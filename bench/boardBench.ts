/**
 * The Agents board's refresh after a hook (issue 26, item 4; target ≤ 100 ms from the hook answered
 * to the board's data read). A workspace of `sessions` ended sessions (the history the board must not
 * read) and five agents' live conversations; one engine plays the hook's process (its event runs
 * through runHook, a permission request or the tool call after it, so each one changes the board),
 * another the editor's backend. Timed: from the hook's answer to the backend holding the new board
 * (`engine.board.list()`: catching up on the journal, then one read of the sessions that can be on
 * it) — next to the same hook followed by reading every session (`briefings.list`, what a view that
 * polls the whole store would read), alternating A B A B.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { agentSettingsOrDefaults } from '../src/engine/agentConfig/agentSettings';
import { Engine } from '../src/engine/engine';
import type { HookEvent } from '../src/engine/hookEvent';
import { runHook } from '../src/engine/hooks/runHook';
import { silentLogger } from '../src/engine/ports';
import { median, percentile, type BenchRow } from './stats';

const agents = ['claude-code', 'codex', 'gemini', 'copilot', 'claude-code'] as const;

function event(agent: HookEvent['agent'], id: string, kind: 'permissionRequest' | 'postToolUse' | 'sessionStart', root: string): HookEvent {
	const tool = kind === 'sessionStart' ? null : { name: 'Bash', input: { command: 'npm test' }, filesTouched: [], edit: false, failed: false, id: null };
	const eventName = { permissionRequest: 'PermissionRequest', postToolUse: 'PostToolUse', sessionStart: 'SessionStart' }[kind];
	return {
		agent,
		agentSessionId: id,
		kind,
		eventName,
		source: kind === 'sessionStart' ? 'startup' : null,
		reason: null,
		cwd: root,
		transcriptPath: null,
		previousAgentSessionId: null,
		tool,
		prompt: null,
		trigger: null,
		model: null,
		agentTranscriptPath: null,
	};
}

async function seed(root: string, sessions: number): Promise<void> {
	const engine = await Engine.open({ workspaceRoot: root, log: silentLogger, create: true, git: { read: async () => null } });
	try {
		await engine.store.write(() => {
			for (let i = 0; i < sessions; i++) {
				const at = new Date(Date.parse('2026-01-01T00:00:00Z') + i * 60_000).toISOString();
				engine.store.execCaptured(
					`INSERT INTO sessions (id, name, status, scope_json, scope_key, agent, stats_json, resume_count, started_at, last_activity, ended_at, updated_at) VALUES (?, ?, 'ended', '{"type":"global"}', 'global', 'claude-code', '{}', 0, ?, ?, ?, ?)`,
					[`ses_${String(20260101000000 + i)}_${(i % 0xffffff).toString(16).padStart(6, '0')}`, `history ${i}`, at, at, at, at],
				);
			}
		});
		await engine.store.compact();
	} finally {
		engine.close();
	}
}

export async function benchBoard(quick: boolean): Promise<BenchRow[]> {
	const sessions = quick ? 2_000 : 10_000;
	const rounds = quick ? 15 : 40;
	const root = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-bench-board-'));
	try {
		await seed(root, sessions);
		const open = () => Engine.open({ workspaceRoot: root, log: silentLogger, git: { read: async () => null } });
		const hookEngine = await open();
		const backend = await open();
		const options = { actor: 'hook:bench', settings: agentSettingsOrDefaults(root, silentLogger), archive: hookEngine.transcripts(), log: silentLogger };
		const ids = agents.map((_, i) => `conv-${i}`);
		for (const [i, agent] of agents.entries()) {
			await runHook(hookEngine, event(agent, ids[i] as string, 'sessionStart', root), options);
		}
		await backend.board.list();
		const ours: number[] = [];
		const baseline: number[] = [];
		const ratios: number[] = [];
		let step = 0;
		const afterHook = async (read: (id: string, state: string) => Promise<unknown>): Promise<number> => {
			const i = step % agents.length;
			const kind = Math.floor(step / agents.length) % 2 === 0 ? 'permissionRequest' : 'postToolUse';
			step++;
			await runHook(hookEngine, event(agents[i] as HookEvent['agent'], ids[i] as string, kind, root), options);
			const answered = performance.now();
			await read(ids[i] as string, kind === 'permissionRequest' ? 'waiting' : 'working');
			return performance.now() - answered;
		};
		for (let r = 0; r < rounds; r++) {
			// Alternating which goes first, so neither always meets the warmer cache.
			const board = async () =>
				afterHook(async (id, state) => {
					const report = await backend.board.list();
					const seen = report.entries.find((e) => e.agentSessionId === id)?.state;
					if (seen !== state) throw new Error(`the board says ${id} is ${seen}, not ${state}, after its hook`);
				});
			const whole = async () => afterHook(() => backend.briefings.list({ limit: sessions + agents.length }));
			const [a, b] = r % 2 === 0 ? [await board(), await whole()] : [await whole(), await board()].reverse();
			ours.push(a as number);
			baseline.push(b as number);
			ratios.push((a as number) / (b as number));
		}
		hookEngine.close();
		backend.close();
		const ms = median(ours);
		return [
			{
				name: `board after a hook (${sessions.toLocaleString('en')} sessions in the store)`,
				ours: ms,
				oursP99: percentile(ours, 99),
				baseline: median(baseline),
				baselineName: 'the same hook, then every session read',
				ratio: median(ratios),
				target: '≤ 100 ms',
				passed: ms <= 100,
			},
		];
	} finally {
		fs.rmSync(root, { recursive: true, force: true });
	}
}
