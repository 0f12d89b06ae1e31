/**
 * Stored text as the editor shows it: tree labels, descriptions, hovers and webview text pass
 * through `escapeControls`, the same function the CLI and the engine's markdown use (one
 * definition, in an engine file that imports nothing; docs/architecture.md §2).
 */
export { escapeControls } from '../engine/text/controlChars';
import { agentLabel, isAgentKind } from '../engine/agentKinds';
/** Where an agent keeps its files, from an environment (engine/agentKinds.ts): the editor sends its own with an agent-history import. */
export { agentHomeEnv } from '../engine/agentKinds';

/** An agent as people read it ("Claude Code" for `claude-code`, one table for every layer); an agent this version does not know keeps its own word. */
export function agentName(agent: string): string {
	return isAgentKind(agent) ? agentLabel(agent) : agent;
}
