/**
 * What a hook prints, per dialect. Claude Code and VS Code read
 * `hookSpecificOutput`; Cline reads `{cancel, contextModification, errorMessage}`. Printing nothing
 * means "carry on" for Claude Code and VS Code; Cline wants `{"cancel": false}` (clineCarryOn).
 */
import type { AgentKind } from '../agentKinds';

/**
 * Text for the agent's context at session start or resume. Copilot CLI reads only a top-level
 * `additionalContext` (from a version-1 file's hook); every other host `hookSpecificOutput`.
 */
export function contextOutput(agent: AgentKind, text: string, host?: 'copilot-cli'): string {
	if (agent === 'cline') {
		// Cline caps contextModification at 50 KB; the diet budget keeps far below it.
		return JSON.stringify({ cancel: false, contextModification: text });
	}
	if (host === 'copilot-cli') {
		return JSON.stringify({ additionalContext: text, hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: text } });
	}
	return JSON.stringify({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: text } });
}

/**
 * Ask the person before this tool runs. Cline has no "ask" answer: it can only block, so it blocks
 * with the reason (its user approves the checkpoint, then retries).
 */
export function askOutput(agent: AgentKind, reason: string): string {
	if (agent === 'cline') {
		return JSON.stringify({ cancel: true, errorMessage: reason });
	}
	return JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'ask', permissionDecisionReason: reason } });
}

/** Cline's "carry on": every Cline hook must print its JSON answer, even with nothing to add. */
export function clineCarryOn(): string {
	return JSON.stringify({ cancel: false });
}
