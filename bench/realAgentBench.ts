/**
 * The real agents with Baton (issue: the agents themselves drive Baton), as the real-agent suite runs
 * them (test/realAgents: the pinned CLIs, headless against model stand-ins on 127.0.0.1):
 * - per tool call with each agent: one headless run of 20 shell calls, connected to Baton ÷ the same
 *   run with no hooks, and ÷ the same run whose hooks are an empty Node program (what any Node hook
 *   costs); the three alternate in a rotating order, and each ratio is the median over the rounds.
 *   The per-call figure is (connected − no hooks) ÷ 20. Claude Code's tool calls go to the warm backend
 *   over its http hooks (no process per call: docs/daemon.md, "HTTP hooks"): its row's target is
 *   ≤ 1.1× no hooks, and it says FAILED past it. `BATON_BENCH_AGENTS=claude` runs only that agent.
 * - session end in the daemon: what a `SessionEnd` hook costs the agent (the daemon's own figure for
 *   the hook's answer, from its log) after a session with steps, against a target of 200 ms; the
 *   handoff, checkpoint and transcript work run after the answer.
 * - Claude Code per tool call, as the issue words it: the marginal cost of a call, with the floor any
 *   http hook has in Claude (claudePerCallBench.ts).
 * Needs the agent CLIs (`node scripts/agents/install.mjs`) and dist/ (`npm run build`).
 */
import fs from 'node:fs';
import path from 'node:path';
import { agentWorld, type AgentWorld, type Run } from '../test/realAgents/agentWorld';
import { runClaude } from '../test/realAgents/claudeCode';
import { runCodex } from '../test/realAgents/codexCli';
import { runCopilot, trustForCopilot } from '../test/realAgents/copilotCli';
import { runGemini } from '../test/realAgents/geminiCli';
import { anthropicStandIn, type StandIn } from '../test/realAgents/standIns/anthropic';
import { geminiStandIn } from '../test/realAgents/standIns/gemini';
import { responsesStandIn } from '../test/realAgents/standIns/openaiResponses';
import { install } from '../scripts/agents/install.mjs';
import { failedRow, median, percentile, type BenchRow } from './stats';
import { claudePerCallRows } from './claudePerCallBench';

const calls = 20;
type Mode = 'baton' | 'none' | 'empty';
/** An empty Node hook: reads its payload to the end and exits. */
const emptyHook = `node -e "process.stdin.resume()"`;

interface Agent {
	name: string;
	connect: string;
	/** The hook configuration files `baton connect` writes. */
	files: string[];
	/** One run of `calls` shell calls; returns its process's figures. */
	run: (world: AgentWorld) => Promise<Run>;
	close: () => Promise<void>;
	/** Baton ÷ no hooks at most this (the row says FAILED past it); none: measured only. */
	target?: number;
	/** Its model stand-in, when the agent speaks Anthropic's API. */
	model?: StandIn;
}

async function agents(): Promise<Agent[]> {
	const anthropic = await anthropicStandIn();
	const copilotModel = await anthropicStandIn();
	const responses = await responsesStandIn();
	const gemini = await geminiStandIn();
	const shellTurns = (make: (i: number) => Record<string, unknown>) => [...Array.from({ length: calls }, (_, i) => make(i)), { text: 'Done.' }];
	const scriptAnthropic = (model: StandIn, name: string, args: (i: number) => Record<string, unknown>) =>
		model.script(shellTurns((i) => ({ tools: [{ name, input: args(i) }] })) as never);
	return [
		{
			name: 'Claude Code',
			connect: 'claude',
			files: ['.claude/settings.json', '.claude/settings.local.json'],
			target: 1.1,
			model: anthropic,
			run: async (w) => {
				scriptAnthropic(anthropic, 'Bash', (i) => ({ command: `echo ${i} >> bench.txt`, description: 'append' }));
				return runClaude(w, anthropic, 'Append twenty lines');
			},
			close: () => anthropic.close(),
		},
		{
			name: 'Copilot CLI',
			connect: 'copilot',
			files: ['.github/hooks/baton.json', '.github/hooks/baton-cli.json'],
			run: async (w) => {
				trustForCopilot(w);
				scriptAnthropic(copilotModel, 'bash', (i) => ({ command: `echo ${i} >> bench.txt`, description: 'append' }));
				return runCopilot(w, copilotModel, 'Append twenty lines');
			},
			close: () => copilotModel.close(),
		},
		{
			name: 'Codex CLI',
			connect: 'codex',
			files: ['.codex/hooks.json'],
			run: async (w) => {
				responses.script(
					shellTurns((i) => ({ calls: [{ kind: 'function', name: 'exec_command', arguments: { cmd: `echo ${i} >> bench.txt` } }] })) as never,
				);
				return runCodex(w, responses, 'Append twenty lines');
			},
			close: () => responses.close(),
		},
		{
			name: 'Gemini CLI',
			connect: 'gemini',
			files: ['.gemini/settings.json'],
			run: async (w) => {
				gemini.script(
					shellTurns((i) => ({
						calls: [{ name: 'run_shell_command', args: { command: `echo ${i} >> bench.txt`, description: 'append' } }],
					})) as never,
				);
				return runGemini(w, gemini, 'Append twenty lines');
			},
			close: () => gemini.close(),
		},
	];
}

/** Puts the workspace's hook files in `mode`: Baton's as connected, gone, or every command an empty Node hook. */
function setMode(world: AgentWorld, agent: Agent, mode: Mode, connected: Map<string, string>): void {
	for (const file of agent.files) {
		const full = path.join(world.root, file);
		const text = connected.get(file) as string;
		if (mode === 'none') {
			fs.rmSync(full, { force: true });
		} else {
			fs.mkdirSync(path.dirname(full), { recursive: true });
			fs.writeFileSync(full, mode === 'baton' ? text : emptyHooks(text));
		}
	}
}

/** Every hook of Baton's an empty Node command hook: its commands, and its http hooks (a process per call again). */
function emptyHooks(text: string): string {
	const empty = text.replace(/"(?:command|bash)": "baton hook [^"]*"/g, (m) => m.replace(/baton hook [^"]*/, emptyHook.replace(/"/g, '\\"')));
	return empty.replace(/\{\s*"type": "http",[^{}]*"headers": \{[^{}]*\}[^{}]*\}/g, () => JSON.stringify({ type: 'command', command: emptyHook }));
}

export async function benchRealAgents(quick: boolean): Promise<BenchRow[]> {
	install({ quiet: true });
	const cleanups: (() => void)[] = [];
	const t = { after: (fn: () => void) => void cleanups.push(fn) };
	const rows: BenchRow[] = [];
	const only = process.env['BATON_BENCH_AGENTS']?.split(',');
	const list = (await agents()).filter((a) => !only || only.includes(a.connect));
	const rounds = quick ? 2 : 4;
	try {
		for (const agent of list) {
			rows.push(...(await agentRows(t, agent, rounds)));
		}
		const claude = list.find((a) => a.connect === 'claude');
		if (claude) {
			rows.push(...(await claudePerCallRows(t, claude.model as StandIn, rounds)));
			rows.push(await sessionEndRow(t, claude, quick ? 3 : 7));
		}
	} finally {
		for (const agent of list) {
			await agent.close();
		}
		cleanups.forEach((fn) => fn());
	}
	return rows;
}

/** One agent's two rows: its headless runs with Baton's hooks against no hooks and against an empty Node hook, the modes taken in turn each round (or one failed row saying why). */
async function agentRows(t: { after: (fn: () => void) => void }, agent: Agent, rounds: number): Promise<BenchRow[]> {
	const name = `${agent.name}: a headless run of ${calls} shell calls, connected to Baton`;
	try {
		const world = agentWorld(t, `bench-${agent.connect}`);
		const connect = world.baton(['connect', agent.connect]);
		if (connect.code !== 0) {
			throw new Error(connect.stderr);
		}
		const connected = new Map(agent.files.map((f) => [f, fs.readFileSync(path.join(world.root, f), 'utf8')]));
		const times: Record<Mode, number[]> = { baton: [], none: [], empty: [] };
		const orders: Mode[][] = [
			['baton', 'none', 'empty'],
			['empty', 'baton', 'none'],
			['none', 'empty', 'baton'],
		];
		setMode(world, agent, 'baton', connected);
		await agent.run(world); // warm: the daemon, the agent's caches
		// What the warm run left (the local settings follow the port the daemon listens on).
		for (const f of agent.files) {
			connected.set(f, fs.readFileSync(path.join(world.root, f), 'utf8'));
		}
		for (let r = 0; r < rounds; r++) {
			for (const mode of orders[r % orders.length] as Mode[]) {
				setMode(world, agent, mode, connected);
				times[mode].push((await agent.run(world)).ms);
			}
		}
		const ratio = (against: Mode) => median(times.baton.map((v, i) => v / (times[against][i] as number)));
		const perCall = (median(times.baton) - median(times.none)) / calls;
		return [
			{
				name: `${name} ÷ no hooks (+${perCall.toFixed(0)} ms a call)`,
				ours: median(times.baton),
				oursP99: percentile(times.baton, 99),
				baseline: median(times.none),
				baselineName: 'no hooks',
				ratio: ratio('none'),
				target: agent.target ? `≤ ${agent.target}×` : 'measured',
				...(agent.target ? { passed: ratio('none') <= agent.target } : {}),
			},
			{
				name: `${name} ÷ an empty Node hook`,
				ours: median(times.baton),
				oursP99: percentile(times.baton, 99),
				baseline: median(times.empty),
				baselineName: 'empty Node hook',
				ratio: ratio('empty'),
				target: 'measured',
			},
		];
	} catch (error) {
		return [failedRow(name, error, 'measured')];
	}
}

/** The daemon's figure for each SessionEnd hook's answer (its log line), after runs of Claude Code with steps. */
async function sessionEndRow(t: { after: (fn: () => void) => void }, claude: Agent, runs: number): Promise<BenchRow> {
	const name = 'Claude Code SessionEnd hook in the daemon (answered; handoff, checkpoint and transcript after)';
	try {
		const world = agentWorld(t, 'bench-end');
		world.baton(['connect', 'claude']);
		for (let i = 0; i < runs; i++) {
			await claude.run(world);
		}
		const log = fs.readFileSync(path.join(world.root, '.baton', 'logs', 'daemon.log'), 'utf8');
		const ends = [...log.matchAll(/hook\/run hook session-end → exit 0 in (\d+) ms/g)].map((m) => Number(m[1]));
		const all = [...log.matchAll(/hook\/run hook [a-z-]+ → exit 0 in (\d+) ms/g)].map((m) => Number(m[1]));
		if (ends.length === 0) {
			throw new Error('the daemon logged no session-end hook');
		}
		const ours = median(ends);
		return {
			name,
			ours,
			oursP99: percentile(ends, 99),
			baseline: median(all),
			baselineName: 'every hook of the runs',
			ratio: ours / median(all),
			target: '≤ 200 ms',
			passed: ours <= 200,
		};
	} catch (error) {
		return failedRow(name, error, '≤ 200 ms');
	}
}
