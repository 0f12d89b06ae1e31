/**
 * Gemini CLI, the real program, run headless (`gemini -p … --yolo`) against the Gemini API stand-in
 * (`GOOGLE_GEMINI_BASE_URL`), with its own HOME: an API-key login (`security.auth.selectedType`), the
 * workspace in `~/.gemini/trustedFolders.json` (else it runs no project hook) and an explicit model
 * (`-m`: the default router retries for minutes against a stand-in).
 */
import fs from 'node:fs';
import path from 'node:path';
import { agentBin, runProgram, type AgentWorld, type Run } from './agentWorld';
import type { GeminiStandIn } from './standIns/gemini';

export const geminiModel = 'gemini-2.5-pro';

export function configureGemini(world: AgentWorld): void {
	const dir = path.join(world.home, '.gemini');
	fs.mkdirSync(dir, { recursive: true });
	fs.writeFileSync(path.join(dir, 'settings.json'), JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } } }, null, 2));
	fs.writeFileSync(path.join(dir, 'trustedFolders.json'), JSON.stringify({ [world.root]: 'TRUST_FOLDER' }, null, 2));
}

export async function runGemini(world: AgentWorld, model: GeminiStandIn, prompt: string, extra: string[] = []): Promise<Run> {
	configureGemini(world);
	const run = await runProgram('node', [agentBin('gemini'), '-m', geminiModel, '-p', prompt, '--yolo', ...extra], {
		cwd: world.root,
		env: { ...world.env, GOOGLE_GEMINI_BASE_URL: model.url, GEMINI_API_KEY: 'standin-key' },
	});
	if (run.code !== 0) {
		throw new Error(`gemini -p exited ${run.code}: ${run.stderr.slice(-2000)}\n${run.stdout.slice(-2000)}`);
	}
	return run;
}
