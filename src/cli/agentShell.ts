/**
 * Whether this `baton` runs inside an agent's own shell tool: each agent marks the commands it runs
 * with variables of its own, as their real binaries set them (test/realAgents/*.test.ts run `env`
 * and `baton` through each agent's shell tool): Claude Code `CLAUDECODE=1` (2.1.197), Codex
 * `CODEX_THREAD_ID` and `CODEX_CI=1` (0.171.0), Gemini CLI `GEMINI_CLI=1`, Copilot CLI
 * `COPILOT_CLI=1`, the Cline CLI `CLINE_CONNECTOR_CLI_LAUNCH` (3.0.65: set on its own process, so on
 * every command it runs; not `CLINE_ACTIVE`). Agents that run commands in the editor's own terminal mark the terminals they
 * open, as their sources say (no binary of theirs runs in this project's tests): Copilot in VS Code
 * `COPILOT_AGENT=1` and `AI_AGENT=github_copilot_vscode_agent` (VS Code 1.121, microsoft/vscode#316267
 * and #320129, `toolTerminalCreator.ts`), Cline `CLINE_ACTIVE=true` (its `TerminalRegistry` and the
 * Cline CLI's command runner), Roo Code `ROO_ACTIVE=true`. `AI_AGENT`, the variable agents share,
 * names an agent Baton does not know by its value. A command run there is the agent's, not the
 * person's: its actor is `agent:<agent>` (engine/text/actorNames.ts), so what only a person decides
 * is refused to it and the audit log says who.
 */
import { parseAgentName, type AgentKind } from '../engine/agentKinds';
import { sanitizeName } from '../engine/interop/safeNames';

/**
 * Each agent's markers (one set, not empty, `0` or `false`, says the agent runs the command) and, where
 * it sets one, the variable naming its own conversation (the id its hooks report). First match wins.
 */
const markers: readonly { agent: AgentKind; variables: readonly string[]; conversation?: string }[] = [
	{ agent: 'claude-code', variables: ['CLAUDECODE'], conversation: 'CLAUDE_CODE_SESSION_ID' },
	{ agent: 'codex', variables: ['CODEX_THREAD_ID', 'CODEX_CI'], conversation: 'CODEX_THREAD_ID' },
	{ agent: 'gemini', variables: ['GEMINI_CLI'] },
	{ agent: 'copilot', variables: ['COPILOT_CLI'], conversation: 'COPILOT_AGENT_SESSION_ID' },
	{ agent: 'copilot', variables: ['COPILOT_AGENT'] },
	{ agent: 'cline', variables: ['CLINE_ACTIVE', 'CLINE_CONNECTOR_CLI_LAUNCH', 'ROO_ACTIVE'] },
];

/** The variable agents share: its value names the agent (`github_copilot_vscode_agent`, `claude-code_2-1-263_agent`, `crush`). */
const sharedVariable = 'AI_AGENT';

/** Every marker variable (scripts/hermeticEnv.mjs keeps the test runners free of them). */
export const agentShellVariables: readonly string[] = [...markers.flatMap((m) => m.variables), sharedVariable];

const isSet = (value: string | undefined): value is string => !!value?.trim() && value.trim() !== '0' && value.trim().toLowerCase() !== 'false';

/**
 * The agent whose shell tool runs this command (and the variable that says so), or null; with the
 * agent's own id of the conversation running it, when the agent names it (Gemini CLI does not). An
 * agent Baton does not know (only `AI_AGENT` says one runs) is named by that value, kept to a
 * short name of safe characters (not one of Baton's agent kinds).
 */
export function agentShellOf(env: NodeJS.ProcessEnv): { agent: string; variable: string; conversation?: string } | null {
	for (const marker of markers) {
		const variable = marker.variables.find((name) => isSet(env[name]));
		if (variable) {
			const conversation = marker.conversation ? env[marker.conversation]?.trim() : undefined;
			return { agent: marker.agent, variable, ...(conversation ? { conversation } : {}) };
		}
	}
	const shared = env[sharedVariable];
	if (!isSet(shared)) {
		return null;
	}
	// Its value's first word is the agent's name as agentKinds.ts reads names (`claude-code_2-1-263_agent`, `roo-code`); Copilot in VS Code's begins `github_copilot`.
	const value = shared.trim().toLowerCase();
	const known = value.startsWith('github_copilot') ? 'copilot' : parseAgentName(value.split(/[_/\s]/)[0] ?? '');
	if (known) {
		return { agent: known, variable: sharedVariable };
	}
	return { agent: /[a-z0-9]/.test(value) ? sanitizeName(value, 40) : 'unknown', variable: sharedVariable };
}
