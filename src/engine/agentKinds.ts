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
