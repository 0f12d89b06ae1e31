/**
 * The agents Baton works with, and their names as people and configuration files spell them. Hooks,
 * transcripts and agent configuration all speak of agents, so this sits below all three.
 */
export const agentKinds = ['claude-code', 'copilot', 'cline', 'codex', 'gemini'] as const;
export type AgentKind = (typeof agentKinds)[number];

const labels: Record<AgentKind, string> = { 'claude-code': 'Claude Code', copilot: 'Copilot', cline: 'Cline', codex: 'Codex', gemini: 'Gemini CLI' };

export function agentLabel(agent: AgentKind): string {
	return labels[agent];
}

export function isAgentKind(value: string): value is AgentKind {
	return (agentKinds as readonly string[]).includes(value);
}

/** `claude`, `claude-code`, `copilot`, `vscode`, `cline`, `roo`, `codex`, `gemini` → the agent kind (Roo Code, a fork of Cline with its task files, is kind `cline`). */
export function parseAgentName(value: string): AgentKind | undefined {
	const key = value.trim().toLowerCase();
	if (key === 'claude' || key === 'claude-code' || key === 'claudecode') {
		return 'claude-code';
	}
	if (key === 'copilot' || key === 'vscode' || key === 'github-copilot') {
		return 'copilot';
	}
	if (key === 'codex' || key === 'codex-cli' || key === 'openai-codex') {
		return 'codex';
	}
	if (key === 'gemini' || key === 'gemini-cli' || key === 'google-gemini') {
		return 'gemini';
	}
	return key === 'cline' || rooNames.has(key) ? 'cline' : undefined;
}

const rooNames = new Set(['roo', 'roo-code', 'roocode', 'roo-cline']);

/** The one product a name asks for when it is narrower than its agent kind: Roo Code's (`roo-code`) among Cline's kind; else undefined. */
export function agentProductName(value: string): string | undefined {
	return rooNames.has(value.trim().toLowerCase()) ? 'roo-code' : undefined;
}

/**
 * The variables that say where the agents keep their files (and the home folder they default to). A
 * backend another process started (a daemon from a terminal) has its own environment: the asking
 * editor's or CLI's values of these are the ones that name the person's agents.
 */
const agentHomeVariables = [
	'HOME',
	'CODEX_HOME',
	'GEMINI_CLI_HOME',
	'CLAUDE_CONFIG_DIR',
	'BATON_CLAUDE_HOME',
	'CLINE_DATA_DIR',
	'CLINE_DIR',
	'CLINE_SESSION_DATA_DIR',
	'XDG_CONFIG_HOME',
	'XDG_DATA_HOME',
	'APPDATA',
] as const;

/** The agent-home variables of `env` that hold a string, and nothing else of it. */
export function agentHomeEnv(env: Readonly<Record<string, unknown>>): Record<string, string> {
	const out: Record<string, string> = {};
	for (const key of agentHomeVariables) {
		const value = env[key];
		if (typeof value === 'string' && value !== '') {
			out[key] = value;
		}
	}
	return out;
}
