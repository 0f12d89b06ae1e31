// The variables an agent's shell tool sets (src/cli/agentShell.ts reads them; agentShell.test.ts keeps
// this list equal to its own). The test runners take them out of their environment: a suite started
// from inside an agent's shell would otherwise run every `baton` as that agent, which may not approve.
export const agentShellVariables = [
	'CLAUDECODE',
	'CODEX_THREAD_ID',
	'CODEX_CI',
	'GEMINI_CLI',
	'COPILOT_CLI',
	'COPILOT_AGENT',
	'CLINE_ACTIVE',
	'CLINE_CONNECTOR_CLI_LAUNCH',
	'ROO_ACTIVE',
	'AI_AGENT',
];

export function dropAgentShellVariables() {
	for (const name of agentShellVariables) delete process.env[name];
}
