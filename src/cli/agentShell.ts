/**
 * Whether this `baton` runs inside an agent's own shell tool: each agent marks the commands it runs
 * with variables of its own, as their real binaries set them (test/realAgents/*.test.ts run `env`
 * and `baton` through each agent's shell tool): Claude Code `CLAUDECODE=1` (2.1.197), Codex
 * `CODEX_THREAD_ID` and `CODEX_CI=1` (0.171.0), Gemini CLI `GEMINI_CLI=1`, Copilot CLI
 * `COPILOT_CLI=1`. A command run there is the agent's, not the person's: its actor is
 * `agent:<agent>` (engine/text/actorNames.ts), so what only a person decides is refused to it and
 * the audit log says who. An agent that runs commands in the editor's own terminal (Copilot in
 * VS Code, Cline) sets none of these and reads as the person at that terminal.
 */
import type { AgentKind } from '../engine/agentKinds';

/** Each agent's marker and, where it sets one, the variable naming its own conversation (the id its hooks report). */
const markers: readonly { agent: AgentKind; set: (env: NodeJS.ProcessEnv) => string | undefined; conversation?: string }[] = [
	{ agent: 'claude-code', set: (env) => (env['CLAUDECODE'] === '1' ? 'CLAUDECODE' : undefined), conversation: 'CLAUDE_CODE_SESSION_ID' },
	{
		agent: 'codex',
		set: (env) => (env['CODEX_THREAD_ID'] ? 'CODEX_THREAD_ID' : env['CODEX_CI'] === '1' ? 'CODEX_CI' : undefined),
		conversation: 'CODEX_THREAD_ID',
	},
	{ agent: 'gemini', set: (env) => (env['GEMINI_CLI'] === '1' ? 'GEMINI_CLI' : undefined) },
	{ agent: 'copilot', set: (env) => (env['COPILOT_CLI'] === '1' ? 'COPILOT_CLI' : undefined), conversation: 'COPILOT_AGENT_SESSION_ID' },
];

/** Every variable read above (scripts/hermeticEnv.mjs keeps the test runners free of them). */
export const agentShellVariables = ['CLAUDECODE', 'CODEX_THREAD_ID', 'CODEX_CI', 'GEMINI_CLI', 'COPILOT_CLI'] as const;

/**
 * The agent whose shell tool runs this command (and the variable that says so), or null; with the
 * agent's own id of the conversation running it, when the agent names it (Gemini CLI does not).
 */
export function agentShellOf(env: NodeJS.ProcessEnv): { agent: AgentKind; variable: string; conversation?: string } | null {
	for (const marker of markers) {
		const variable = marker.set(env);
		if (variable) {
			const conversation = marker.conversation ? env[marker.conversation]?.trim() : undefined;
			return { agent: marker.agent, variable, ...(conversation ? { conversation } : {}) };
		}
	}
	return null;
}
