/**
 * The agents Baton works with, and their names as people and configuration files spell them. Hooks,
 * transcripts and agent configuration all speak of agents, so this sits below all three.
 */
export const agentKinds = ['claude-code', 'copilot', 'cline'] as const;
export type AgentKind = (typeof agentKinds)[number];

const labels: Record<AgentKind, string> = { 'claude-code': 'Claude Code', copilot: 'Copilot', cline: 'Cline' };

export function agentLabel(agent: AgentKind): string {
	return labels[agent];
}

export function isAgentKind(value: string): value is AgentKind {
	return (agentKinds as readonly string[]).includes(value);
}

/** `claude`, `claude-code`, `copilot`, `vscode`, `cline` → the agent kind. */
export function parseAgentName(value: string): AgentKind | undefined {
	const key = value.trim().toLowerCase();
	if (key === 'claude' || key === 'claude-code' || key === 'claudecode') {
		return 'claude-code';
	}
	if (key === 'copilot' || key === 'vscode' || key === 'github-copilot') {
		return 'copilot';
	}
	return key === 'cline' ? 'cline' : undefined;
}
