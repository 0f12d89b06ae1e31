/**
 * Codex CLI, the real binary, run headless (`codex exec`) against the Responses API stand-in: its
 * own CODEX_HOME with a `model_provider` whose `base_url` is the stand-in (`wire_api = "responses"`),
 * the workspace trusted, and a model slug Codex knows (so it offers `apply_patch` as a tool). Codex
 * runs a hook only once a person trusted it (`/hooks`); a test that vets the hooks itself passes
 * `--dangerously-bypass-hook-trust`, as the flag intends.
 */
import fs from 'node:fs';
import path from 'node:path';
import { agentBin, runProgram, type AgentWorld, type Run } from './agentWorld';
import type { ResponsesStandIn } from './standIns/openaiResponses';

export const codexModel = 'gpt-5.5';

export function configureCodex(world: AgentWorld, model: ResponsesStandIn): string {
	const codexHome = path.join(world.home, '.codex');
	fs.mkdirSync(codexHome, { recursive: true });
	fs.writeFileSync(
		path.join(codexHome, 'config.toml'),
		[
			`model = "${codexModel}"`,
			'model_provider = "standin"',
			'',
			'[model_providers.standin]',
			'name = "standin"',
			`base_url = "${model.url}/v1"`,
			'wire_api = "responses"',
			'env_key = "STANDIN_API_KEY"',
			'',
			`[projects."${world.root}"]`,
			'trust_level = "trusted"',
			'',
		].join('\n'),
	);
	return codexHome;
}

export async function runCodex(world: AgentWorld, model: ResponsesStandIn, prompt: string, resume?: string): Promise<Run & { sessionId: string }> {
	const codexHome = configureCodex(world, model);
	const args = [
		'exec',
		'--dangerously-bypass-hook-trust',
		'--dangerously-bypass-approvals-and-sandbox',
		'--skip-git-repo-check',
		...(resume ? ['resume', resume] : []),
		prompt,
	];
	const run = await runProgram('node', [agentBin('codex'), ...args], {
		cwd: world.root,
		env: { ...world.env, CODEX_HOME: codexHome, STANDIN_API_KEY: 'sk-standin' },
	});
	if (run.code !== 0) {
		throw new Error(`codex exec exited ${run.code}: ${run.stderr.slice(-2000)}\n${run.stdout.slice(-2000)}`);
	}
	const sessionId = /session id: ([0-9a-f-]{36})/i.exec(`${run.stderr}\n${run.stdout}`)?.[1] ?? '';
	return { ...run, sessionId };
}
