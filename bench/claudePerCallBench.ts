/**
 * Claude Code per tool call, as the issue asks it ("per tool call, Baton ÷ no hooks ≤ 1.1×"): the
 * marginal cost of a call, read as (a run of 40 shell calls − a run of 10) ÷ 30 in each mode, so what
 * a session pays once (SessionStart, the prompt, Stop, SessionEnd, Claude's own start) is not spread
 * over the calls. The modes, in a rotating order each round, each the median over the rounds:
 * - no hooks;
 * - Baton's http hooks (PreToolUse, PostToolUse to the workspace's warm backend: docs/daemon.md,
 *   "HTTP hooks");
 * - the same two http hooks pointed at a server on 127.0.0.1 that answers 200 at once: what Claude's
 *   own handling of two http hooks a call costs, whoever answers them (the floor any hook has).
 * The workspace's command hooks (.claude/settings.json) are taken out in every mode: they run once a
 * session or a turn, not per call.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { agentWorld } from '../test/realAgents/agentWorld';
import { runClaude } from '../test/realAgents/claudeCode';
import type { StandIn } from '../test/realAgents/standIns/anthropic';
import { failedRow, median, percentile, type BenchRow } from './stats';

type Mode = 'none' | 'baton' | 'floor';
const few = 10;
const many = 40;

/** A server that reads each hook's body and answers 200 with nothing, at once. */
async function answeringAtOnce(): Promise<{ port: number; close: () => void }> {
	const server = http.createServer((req, res) => {
		req.resume();
		req.on('end', () => {
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end('');
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return { port: (server.address() as { port: number }).port, close: () => server.close() };
}

export async function claudePerCallRows(t: { after: (fn: () => void) => void }, model: StandIn, rounds: number): Promise<BenchRow[]> {
	const name = 'Claude Code per tool call (a run of 40 calls − a run of 10, ÷ 30)';
	const floorServer = await answeringAtOnce();
	try {
		const world = agentWorld(t, 'bench-claude-call');
		world.env['BATON_DAEMON_IDLE_MS'] = '600000';
		const connect = world.baton(['connect', 'claude']);
		if (connect.code !== 0) {
			throw new Error(connect.stderr);
		}
		const local = path.join(world.root, '.claude', 'settings.local.json');
		const run = async (calls: number) => {
			model.script([
				...Array.from({ length: calls }, (_, i) => ({
					tools: [{ name: 'Bash', input: { command: `echo ${i} >> bench.txt`, description: 'append' } }],
				})),
				{ text: 'Done.' },
			] as never);
			return (await runClaude(world, model, 'Append the lines')).ms;
		};
		await run(3); // warm: the daemon (started by SessionStart), Claude's caches; the local settings name the daemon's port
		const baton = fs.readFileSync(local, 'utf8');
		const floor = baton.replace(/http:\/\/127\.0\.0\.1:\d+\/baton\/hook\/[a-z-]+/g, `http://127.0.0.1:${floorServer.port}/hook`);
		if (floor === baton) {
			throw new Error('the local settings hold no http hook of Baton’s');
		}
		fs.rmSync(path.join(world.root, '.claude', 'settings.json'), { force: true });
		const set: Record<Mode, () => void> = {
			none: () => fs.rmSync(local, { force: true }),
			baton: () => fs.writeFileSync(local, baton),
			floor: () => fs.writeFileSync(local, floor),
		};
		const perCall: Record<Mode, number[]> = { none: [], baton: [], floor: [] };
		const modes = Object.keys(set) as Mode[];
		for (let r = 0; r < rounds; r++) {
			for (const mode of modes.map((_, i) => modes[(i + r) % modes.length] as Mode)) {
				set[mode]();
				const short = await run(few);
				const long = await run(many);
				perCall[mode].push((long - short) / (many - few));
			}
		}
		return perCallRows(name, perCall);
	} catch (error) {
		return [failedRow(name, error, '≤ 1.1×')];
	} finally {
		floorServer.close();
	}
}

/** The three rows of the per-call figures: Baton ÷ no hooks (the target), the floor ÷ no hooks, Baton ÷ the floor. */
function perCallRows(name: string, perCall: Record<Mode, number[]>): BenchRow[] {
	const ms = (mode: Mode) => median(perCall[mode]);
	const ratio = (mode: Mode) => median(perCall[mode].map((v, i) => v / (perCall.none[i] as number)));
	return [
		{
			name: `${name}, Baton's http hooks ÷ no hooks (+${(ms('baton') - ms('none')).toFixed(1)} ms a call)`,
			ours: ms('baton'),
			oursP99: percentile(perCall.baton, 99),
			baseline: ms('none'),
			baselineName: 'no hooks',
			ratio: ratio('baton'),
			target: '≤ 1.1×',
			passed: ratio('baton') <= 1.1,
		},
		{
			name: `${name}, two http hooks answered at once ÷ no hooks: Claude's own cost of a hook, the floor (+${(ms('floor') - ms('none')).toFixed(1)} ms a call)`,
			ours: ms('floor'),
			oursP99: percentile(perCall.floor, 99),
			baseline: ms('none'),
			baselineName: 'no hooks',
			ratio: ratio('floor'),
			target: 'measured',
		},
		{
			name: `${name}, Baton's http hooks ÷ the same hooks answered at once: Baton's own part`,
			ours: ms('baton'),
			oursP99: percentile(perCall.baton, 99),
			baseline: ms('floor'),
			baselineName: 'answered at once',
			ratio: median(perCall.baton.map((v, i) => v / (perCall.floor[i] as number))),
			target: 'measured',
		},
	];
}
