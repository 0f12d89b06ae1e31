/**
 * Copilot CLI, the real binary, run headless (`copilot -p`) in its own-provider mode against the
 * Anthropic stand-in: offline, with its own HOME whose `~/.copilot/config.json` trusts the
 * workspace (else it runs no repository hook, without a word). Its first start unpacks its runtime
 * into the cache folder, shared between tests (XDG_CACHE_HOME) so it happens once.
 */
import fs from 'node:fs';
import path from 'node:path';
import { agentBin, agentsHome, runProgram, type AgentWorld, type Run } from './agentWorld';
import type { StandIn } from './standIns/anthropic';

export const copilotModel = 'claude-sonnet-4.5';

export function trustForCopilot(world: AgentWorld): void {
	fs.mkdirSync(path.join(world.home, '.copilot'), { recursive: true });
	fs.writeFileSync(path.join(world.home, '.copilot', 'config.json'), JSON.stringify({ trustedFolders: [world.root] }, null, 2));
}

export async function runCopilot(world: AgentWorld, model: StandIn, prompt: string, extra: string[] = []): Promise<Run & { sessionId: string }> {
	const run = await runProgram('node', [agentBin('copilot'), '-p', prompt, '--allow-all-tools', '--no-ask-user', ...extra], {
		cwd: world.root,
		env: {
			...world.env,
			XDG_CACHE_HOME: path.join(agentsHome, 'xdg-cache'),
			COPILOT_OFFLINE: 'true',
			COPILOT_PROVIDER_TYPE: 'anthropic',
			COPILOT_PROVIDER_BASE_URL: model.url,
			COPILOT_PROVIDER_API_KEY: 'sk-ant-standin',
			COPILOT_MODEL: copilotModel,
		},
	});
	if (run.code !== 0) {
		throw new Error(`copilot -p exited ${run.code}: ${run.stderr.slice(-2000)}\n${run.stdout.slice(-2000)}`);
	}
	const sessionId =
		/--resume[= ]([0-9a-f-]{36})/.exec(`${run.stdout}\n${run.stderr}`)?.[1] ?? /"?sessionId"?[:=] ?"?([0-9a-f-]{36})/.exec(run.stderr)?.[1] ?? '';
	return { ...run, sessionId };
}
