/**
 * The Cline CLI, the real binary (3.0.65: a compiled Bun program; the `cline` package on npm is a
 * resolver script that runs the platform's package, installed here alone: `@cline/cli-linux-x64`), run
 * headless (`cline --json PROMPT`: act mode, tools approved) against the chat-completions stand-in
 * through its `openai-compatible` provider (`cline auth -p openai -b URL`). Its state goes under the
 * world's HOME with `--data-dir ~/.cline/data`: the folders of its default layout
 * (`data/sessions/<id>/<id>.json` and `.messages.json`, `data/settings`), run in the process itself —
 * without it the CLI starts a background hub on a fixed port (25463) that a developer's own Cline
 * may already hold, and that outlives the test.
 */
import fs from 'node:fs';
import path from 'node:path';
import { agentBin, runProgram, type AgentWorld, type Run } from './agentWorld';
import type { ChatStandIn } from './standIns/chatCompletions';

export const clineModel = 'gpt-5.5';

export function clineDataDir(world: AgentWorld): string {
	return path.join(world.home, '.cline', 'data');
}

/** Runs one prompt; answers the run and the id of the session it wrote (the newest in its sessions folder). */
export async function runCline(world: AgentWorld, model: ChatStandIn, prompt: string): Promise<Run & { sessionId: string }> {
	const data = clineDataDir(world);
	const options = { cwd: world.root, env: world.env };
	const auth = await runProgram(
		agentBin('cline'),
		['auth', '--data-dir', data, '-p', 'openai', '-k', 'sk-standin', '-m', clineModel, '-b', `${model.url}/v1`],
		options,
	);
	if (auth.code !== 0) {
		throw new Error(`cline auth exited ${auth.code}: ${auth.stderr.slice(-2000)}\n${auth.stdout.slice(-2000)}`);
	}
	const sessions = path.join(data, 'sessions');
	const before = new Set(fs.existsSync(sessions) ? fs.readdirSync(sessions) : []);
	const run = await runProgram(agentBin('cline'), ['--data-dir', data, '--json', '-c', world.root, prompt], options);
	const result = run.stdout
		.split('\n')
		.filter((line) => line.startsWith('{'))
		.map((line) => JSON.parse(line) as { type?: string; finishReason?: string })
		.find((event) => event.type === 'run_result');
	if (run.code !== 0 || result?.finishReason !== 'completed') {
		throw new Error(`cline exited ${run.code} (${result?.finishReason ?? 'no result'}): ${run.stderr.slice(-2000)}\n${run.stdout.slice(-3000)}`);
	}
	const made = fs.readdirSync(sessions).filter((id) => !before.has(id));
	if (made.length !== 1) {
		throw new Error(`cline wrote ${made.length} sessions: ${made.join(', ')}`);
	}
	return { ...run, sessionId: made[0] as string };
}
