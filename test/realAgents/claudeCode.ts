/**
 * Claude Code, the real CLI, run headless (`claude -p`) against the Anthropic stand-in with its own
 * HOME: `--permission-mode acceptEdits` and the tools allowed by name (as root it refuses
 * `--dangerously-skip-permissions`), `--output-format stream-json` to read its session id.
 */
import { agentBin, runProgram, type AgentWorld, type Run } from './agentWorld';
import type { StandIn } from './standIns/anthropic';

export const claudeModel = 'claude-sonnet-4-5-20250929';

export interface ClaudeRun extends Run {
	/** Claude Code's session id, from its stream-json output. */
	sessionId: string;
	/** The final result line. */
	result: Record<string, any> | undefined;
}

export async function runClaude(world: AgentWorld, model: StandIn, prompt: string, extra: string[] = []): Promise<ClaudeRun> {
	const run = await runProgram(
		agentBin('claude'),
		[
			'-p',
			prompt,
			'--model',
			claudeModel,
			'--permission-mode',
			'acceptEdits',
			'--allowedTools',
			'Bash Write Edit Read Task',
			'--output-format',
			'stream-json',
			'--verbose',
			...extra,
		],
		{
			cwd: world.root,
			env: {
				...world.env,
				ANTHROPIC_BASE_URL: model.url,
				ANTHROPIC_API_KEY: 'sk-ant-standin',
				CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
				DISABLE_AUTOUPDATER: '1',
			},
		},
	);
	const lines = run.stdout
		.split('\n')
		.filter((l) => l.startsWith('{'))
		.map((l) => JSON.parse(l) as Record<string, any>);
	const result = lines.find((l) => l['type'] === 'result');
	const sessionId = (result?.['session_id'] ?? lines.find((l) => typeof l['session_id'] === 'string')?.['session_id'] ?? '') as string;
	if (run.code !== 0 || !result || result['is_error']) {
		throw new Error(`claude -p exited ${run.code}: ${run.stderr.slice(-2000)}\n${run.stdout.slice(-3000)}`);
	}
	return { ...run, sessionId, result };
}
