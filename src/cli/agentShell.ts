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

/**
 * Each agent's markers (one set, not empty and not `0`, says the agent runs the command) and, where
 * it sets one, the variable naming its own conversation (the id its hooks report).
 */
const markers: readonly { agent: AgentKind; variables: readonly string[]; conversation?: string }[] = [
	{ agent: 'claude-code', variables: ['CLAUDECODE'], conversation: 'CLAUDE_CODE_SESSION_ID' },
	{ agent: 'codex', variables: ['CODEX_THREAD_ID', 'CODEX_CI'], conversation: 'CODEX_THREAD_ID' },
	{ agent: 'gemini', variables: ['GEMINI_CLI'] },
	{ agent: 'copilot', variables: ['COPILOT_CLI'], conversation: 'COPILOT_AGENT_SESSION_ID' },
];

/** Every marker variable (scripts/hermeticEnv.mjs keeps the test runners free of them). */
export const agentShellVariables: readonly string[] = markers.flatMap((m) => m.variables);

/**
 * The agent whose shell tool runs this command (and the variable that says so), or null; with the
 * agent's own id of the conversation running it, when the agent names it (Gemini CLI does not).
 */
export function agentShellOf(env: NodeJS.ProcessEnv): { agent: AgentKind; variable: string; conversation?: string } | null {
	for (const marker of markers) {
		const variable = marker.variables.find((name) => env[name] && env[name] !== '0');
		if (variable) {
			const conversation = marker.conversation ? env[marker.conversation]?.trim() : undefined;
			return { agent: marker.agent, variable, ...(conversation ? { conversation } : {}) };
		}
	}
	return null;
}
