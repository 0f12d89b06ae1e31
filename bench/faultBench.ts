/**
 * Fault section (issue 30, item 8): hooks under a workspace daemon killed at random. Concurrent hook
 * clients (real `baton hook` processes) send prompts and tool calls (pre + post, a file written
 * between) while the daemon is SIGKILLed every 0.5–2 s; then commands drain the spool and the journal
 * is read: every prompt's text and every tool step's id, each expected exactly once. Counts what
 * became of each hook: acknowledged (recorded by the hook, in the daemon or in its own process),
 * spooled (and drained later), dropped, lost, recorded twice; and the hooks' own times. Full size is
 * the issue's run: 400 prompts and 200 tool steps; `--quick` a tenth of it.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { listSpool, spoolCounts } from '../src/hookHost/hookSpool';
import { Engine } from '../src/engine/engine';
import { silentLogger } from '../src/engine/ports';
import { agentCli } from '../test/unit/cli/agentCli';
import { baton, daemonEnv, daemonPids } from '../test/unit/server/daemonProcesses';
import { median, percentile, type BenchRow } from './stats';

export interface FaultFigures {
	hooks: number;
	prompts: number;
	toolSteps: number;
	kills: number;
	acknowledged: number;
	spooled: number;
	drained: number;
	dropped: number;
	lost: number;
	twice: number;
	hookMedianMs: number;
	hookP95Ms: number;
	load: string;
}

const env = { BATON_DAEMON_BUDGET_MS: '300', BATON_HOOK_BUDGET_MS: '2000' };

export async function benchFaults(quick: boolean): Promise<{ figures: FaultFigures; rows: BenchRow[] }> {
	const cli = await agentCli();
	const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'baton-bench-faults-')));
	try {
		spawnSync('git', ['init', '-q', root]);
		spawnSync(process.execPath, [cli, 'init'], { cwd: root, env: daemonEnv() });
		const figures = await run(cli, root, quick ? 4 : 8, quick ? 40 : 400, quick ? 20 : 200);
		const rows: BenchRow[] = [
			{
				name: `hooks with the daemon killed at random (${figures.prompts} prompts, ${figures.toolSteps} tool steps, ${figures.kills} kills): hook time (lost ${figures.lost}, twice ${figures.twice}, spooled ${figures.spooled}, dropped ${figures.dropped})`,
				ours: figures.hookMedianMs,
				oursP99: figures.hookP95Ms,
				baseline: Number.NaN,
				baselineName: '—',
				ratio: Number.NaN,
				target: 'lost 0, twice 0',
				passed: figures.lost === 0 && figures.twice === 0,
			},
		];
		return { figures, rows };
	} finally {
		for (const pid of daemonPids(root)) {
			process.kill(pid, 'SIGKILL');
		}
		fs.rmSync(root, { recursive: true, force: true });
	}
}

async function run(cli: string, root: string, clients: number, prompts: number, toolSteps: number): Promise<FaultFigures> {
	const expectedPrompts: string[] = [];
	const expectedTools: string[] = [];
	const times: number[] = [];
	let finished = 0;
	const send = async (payload: Record<string, unknown>, event: string): Promise<void> => {
		const began = Date.now();
		await baton(cli, root, ['hook', event], { input: JSON.stringify({ cwd: root, transcript_path: path.join(root, 'none.jsonl'), ...payload }), env });
		times.push(Date.now() - began);
	};
	const client = async (c: number): Promise<void> => {
		const session = `00000000-0000-4000-8000-${String(c).padStart(12, '0')}`;
		await send({ session_id: session, hook_event_name: 'SessionStart', source: 'startup' }, 'session-start');
		const myPrompts = Math.ceil(prompts / clients);
		const myTools = Math.ceil(toolSteps / clients);
		for (let i = 0; i < Math.max(myPrompts, myTools); i++) {
			if (i < myPrompts && expectedPrompts.length < prompts) {
				const text = `prompt ${c}.${i}`;
				expectedPrompts.push(text);
				await send({ session_id: session, hook_event_name: 'UserPromptSubmit', prompt: text }, 'user-prompt-submit');
			}
			if (i < myTools && expectedTools.length < toolSteps) {
				const id = `toolu_fault_${c}_${i}`;
				expectedTools.push(id);
				const file = path.join(root, `f${c}_${i}.ts`);
				const call = { session_id: session, tool_name: 'Write', tool_input: { file_path: file, content: `// ${id}\n` }, tool_use_id: id };
				await send({ ...call, hook_event_name: 'PreToolUse' }, 'pre-tool-use');
				fs.writeFileSync(file, `// ${id}\n`);
				await send({ ...call, hook_event_name: 'PostToolUse', tool_response: { type: 'create', filePath: file } }, 'post-tool-use');
			}
		}
		finished++;
	};
	let kills = 0;
	const killer = (async () => {
		while (finished < clients) {
			await new Promise((resolve) => setTimeout(resolve, 500 + Math.random() * 1_500));
			for (const pid of daemonPids(root)) {
				process.kill(pid, 'SIGKILL');
				kills++;
			}
		}
	})();
	await Promise.all(Array.from({ length: clients }, (_, c) => client(c)));
	await killer;
	for (let i = 0; i < 20 && listSpool(root).records.length > 0; i++) {
		await baton(cli, root, ['session', 'list']);
	}
	const { lost, twice } = await recorded(root, expectedPrompts, expectedTools);
	// Every spooled event was drained, dropped or still waits (hooks.log rotates, so its lines undercount).
	const counts = spoolCounts(root);
	const spooled = counts.drained + counts.dropped + counts.spooled;
	return {
		hooks: times.length,
		prompts: expectedPrompts.length,
		toolSteps: expectedTools.length,
		kills,
		acknowledged: times.length - spooled,
		spooled,
		drained: counts.drained,
		dropped: counts.dropped,
		lost,
		twice,
		hookMedianMs: median(times),
		hookP95Ms: percentile(times, 95),
		load: os
			.loadavg()
			.map((l) => l.toFixed(1))
			.join(' '),
	};
}

/** How many of the sent prompts and tool steps the shared events lack (lost) or hold more than once (twice). */
async function recorded(root: string, expectedPrompts: string[], expectedTools: string[]): Promise<{ lost: number; twice: number }> {
	const engine = await Engine.open({ workspaceRoot: root, log: silentLogger });
	const bodies = (kind: string): Record<string, unknown>[] =>
		(engine.store.sqlite.exec('SELECT body_json FROM shared_events WHERE kind = ?', [kind])[0]?.values ?? []).map(
			(r) => JSON.parse(String(r[0])) as Record<string, unknown>,
		);
	const gotPrompts = bodies('timeline.prompt').map((b) => String(b['text']));
	const gotTools = bodies('timeline.step').map((b) => String(b['toolUseId']));
	engine.close();
	const lost = expectedPrompts.filter((p) => !gotPrompts.includes(p)).length + expectedTools.filter((t) => !gotTools.includes(t)).length;
	const twice =
		expectedPrompts.filter((p) => gotPrompts.filter((g) => g === p).length > 1).length +
		expectedTools.filter((t) => gotTools.filter((g) => g === t).length > 1).length;
	return { lost, twice };
}

export function formatFaults(f: FaultFigures): string {
	return [
		'| hooks | prompts | tool steps | daemon kills | acknowledged | spooled | drained | dropped | lost | recorded twice | hook median / p95 | load |',
		'| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
		`| ${f.hooks} | ${f.prompts} | ${f.toolSteps} | ${f.kills} | ${f.acknowledged} | ${f.spooled} | ${f.drained} | ${f.dropped} | ${f.lost} | ${f.twice} | ${f.hookMedianMs.toFixed(0)} / ${f.hookP95Ms.toFixed(0)} ms | ${f.load} |`,
	].join('\n');
}
