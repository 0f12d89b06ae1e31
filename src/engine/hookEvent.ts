/**
 * One hook call from any agent, normalised (docs/architecture.md §6). Claude Code, Copilot (VS Code agent
 * hooks) and Cline each send their own dialect; everything after `normaliseHookPayload` sees only
 * this shape.
 */
import type { AgentKind } from './agentKinds';

/**
 * `notification` (Claude Code's and Gemini CLI's Notification), `permissionRequest` (Claude Code's and Codex's
 * PermissionRequest, Copilot CLI's permissionRequest), `stopFailure` (a turn ended by an error: Claude Code's and
 * Codex's StopFailure) and `error` (Copilot CLI's errorOccurred) feed the Agents board (src/engine/board).
 */
export type HookKind =
	| 'sessionStart'
	| 'resume'
	| 'clear'
	| 'compact'
	| 'stop'
	| 'preCompact'
	| 'sessionEnd'
	| 'preToolUse'
	| 'postToolUse'
	| 'userPrompt'
	| 'subagentStop'
	| 'notification'
	| 'permissionRequest'
	| 'stopFailure'
	| 'error'
	| 'unknown';

export interface ToolUse {
	name: string;
	input: Record<string, unknown>;
	/**
	 * The files an edit tool changed, as named by the agent (resolved against its cwd when relative);
	 * empty for tools that do not edit. runHook makes them workspace-relative.
	 */
	filesTouched: string[];
	/** True for the tools that change files (see transcripts/editTools.ts). */
	edit: boolean;
	/** PostToolUse only: the tool reported a failure. */
	failed: boolean;
	/** The agent's id for this tool call (Claude and VS Code `tool_use_id`); null when the dialect has none. */
	id: string | null;
}

export interface HookEvent {
	agent: AgentKind;
	/**
	 * The program that ran the hook when it says so and it matters: Copilot CLI (`COPILOT_CLI=1` in
	 * the hook's environment) sends Claude-shaped payloads to PascalCase hook files, its `Stop` ends a
	 * turn (VS Code's ends the session), and it reads only a top-level `additionalContext` answer.
	 */
	host?: 'copilot-cli';
	/** The agent's own id for this conversation (Claude `session_id`, Copilot `sessionId`, Cline `taskId`). */
	agentSessionId: string;
	/**
	 * Set when the payload carried no id at all (Copilot CLI, the Copilot cloud agent): the caller maps
	 * the call onto the workspace's current Copilot run (copilotRuns.ts), which fills `agentSessionId`.
	 */
	anonymous?: { timestamp: number | null };
	kind: HookKind;
	/** The event as the agent (or the explicit EVENT argument) named it, e.g. `SessionStart`, `TaskResume`. */
	eventName: string;
	/** SessionStart's `source` (`startup`, `resume`, `clear`, `compact`, Copilot's `new`). */
	source: string | null;
	/** SessionEnd's `reason` (`clear`, `logout`, `prompt_input_exit`, `other`, `resume`), `complete`/`cancel` for Cline. */
	reason: string | null;
	/** The working directory the agent reported (Cline: its first workspace root). */
	cwd: string | null;
	transcriptPath: string | null;
	/** An earlier id of the same conversation, when the payload names one. */
	previousAgentSessionId: string | null;
	tool: ToolUse | null;
	/** UserPromptSubmit's prompt; kept only in memory, never logged. */
	prompt: string | null;
	/** PreCompact's `trigger` (`manual`, `auto`). */
	trigger: string | null;
	model: string | null;
	/** The subagent's transcript (SubagentStop). */
	agentTranscriptPath: string | null;
	/** A Notification's kind and text (Claude Code's `notification_type` and `message`; Gemini CLI's `notification_type` and `message`). */
	notice?: { type: string | null; message: string | null };
	/** What went wrong (StopFailure's `error`, Copilot CLI's errorOccurred `error`). */
	error?: string | null;
}
