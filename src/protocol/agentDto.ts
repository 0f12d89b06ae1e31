/**
 * Wire shapes of the agents work (issue 5): connecting an agent, the MCP server the editor hands
 * VS Code, archived transcripts, and a session's deterministic summary.
 */
import type { AgentKind } from '../engine/agentKinds';
import type { WrittenFile } from '../engine/agentConfig/agentConfigShapes';
import type { SessionStatusDto } from './dto';

/** The engine's own shapes, under the names the wire has always used. */
export type AgentKindDto = AgentKind;
export type WrittenFileDto = WrittenFile;

export interface ConnectAgentParams {
	agent: AgentKindDto;
	/** Take Baton's hooks (and, with `mcp`, its MCP server) out instead. */
	remove?: boolean;
	/** Also the agent's MCP configuration (`.mcp.json`, `.vscode/mcp.json`, Cline's settings file). */
	mcp?: boolean;
	/** Cline's global `cline_mcp_settings.json` (the editor knows where its globalStorage is). */
	clineMcpSettings?: string;
}

export interface ConnectAgentResult {
	agent: AgentKindDto;
	workspaceRoot: string;
	written: WrittenFileDto[];
	mcp: (WrittenFileDto & { name: string | null }) | null;
	/** The command the hooks run (before `hook <event>`). */
	command: string;
	/** How the command runs Baton: `node-on-path`, `baton-on-path`, `editor-as-node`, … */
	launcher: string;
	/** Set when the command works now but may break later (VS Code's binary used as Node). */
	warning: string | null;
	/** What the person must still do for the agent to run the hooks (trusting the folder, the hooks). */
	notes: string[];
}

/** How to start `baton mcp` for a workspace (an MCP stdio server definition). */
export interface McpLaunchDto {
	command: string;
	args: string[];
	env: Record<string, string>;
	cwd: string;
	/** How `command` runs Baton (`node-on-path`, `editor-as-node`, …). */
	launcher: string;
}

/** An agent transcript Baton knows (archived excerpts live in `.baton/transcripts/`). */
export interface TranscriptDto {
	/** `<agent session id>` or, for a subagent, `<parent>/<agent-id>`. */
	id: string;
	agent: AgentKindDto;
	agentSessionId: string;
	parentAgentSessionId: string | null;
	sessionId: string | null;
	/** The durable session's name, when Baton knows it. */
	sessionName: string | null;
	sessionStatus: SessionStatusDto | null;
	title: string | null;
	agentType: string | null;
	description: string | null;
	firstAt: string | null;
	lastAt: string | null;
	userRequests: number;
	assistantMessages: number;
	toolCalls: number;
	errors: number;
	compactions: number;
	tokens: number;
	costUsd: number;
	/** Bytes of excerpts archived. */
	archiveBytes: number;
	/** The agent deleted its own copy: the archive is all that remains. */
	sourceMissing: boolean;
	/** Imported by sync from a teammate's machine (docs/sync.md): its name and author, when known. */
	sharedFrom?: { machineName: string | null; author: string | null } | null;
	bootstrap: boolean;
	archiving: boolean;
	filesTouched: number;
}

export interface TranscriptSyncResultDto {
	transcripts: number;
	parsedBytes: number;
	excerpts: number;
	unlinked: number;
}
