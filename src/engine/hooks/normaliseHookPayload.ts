/**
 * Reads one hook payload in any of the three dialects:
 * - Claude Code: snake_case (`session_id`, `hook_event_name`, `transcript_path`, `tool_name`, …);
 * - Copilot / VS Code agent hooks: camelCase `sessionId` and `hookEventName`, snake_case event fields;
 * - Cline: `taskId`, `hookName`, `workspaceRoots`, and the event's data under its camelCased name
 *   (`taskStart`, `preToolUse`, …).
 * Unknown fields are ignored (agents keep adding some); a known field of the wrong type makes the
 * payload malformed.
 */
import path from 'node:path';
import { z } from 'zod';
import { withoutNul } from '../text/controlChars';
import { filesNamedBy, isEditTool } from '../transcripts/editTools';
import { withoutHookContext } from '../transcripts/agentTranscripts';
import type { AgentKind } from '../agentKinds';
import type { HookEvent, HookKind, ToolUse } from '../hookEvent';

const text = z.string().min(1).max(4096);
const optionalText = z.string().max(65_536).nullish();
const record = z.record(z.string(), z.unknown());

const clineToolSchema = z.looseObject({ toolName: z.string().max(256).nullish(), parameters: record.nullish(), success: z.boolean().nullish() });
const clineTaskSchema = z.looseObject({
	taskMetadata: z.looseObject({ taskId: z.string().nullish(), ulid: z.string().nullish(), initialTask: z.string().nullish() }).nullish(),
});

/** Every dialect's fields in one loose schema: which dialect it is follows from which ids are present. */
const payloadSchema = z.looseObject({
	// Claude Code
	session_id: text.nullish(),
	hook_event_name: z.string().max(128).nullish(),
	// Copilot (VS Code)
	sessionId: text.nullish(),
	hookEventName: z.string().max(128).nullish(),
	// Cline
	taskId: text.nullish(),
	hookName: z.string().max(128).nullish(),
	workspaceRoots: z.array(z.string()).nullish(),
	taskStart: clineTaskSchema.nullish(),
	taskResume: clineTaskSchema.nullish(),
	taskCancel: clineTaskSchema.nullish(),
	taskComplete: clineTaskSchema.nullish(),
	preToolUse: clineToolSchema.nullish(),
	postToolUse: clineToolSchema.nullish(),
	userPromptSubmit: z.looseObject({ prompt: z.string().nullish() }).nullish(),
	// Shared snake_case event fields
	cwd: optionalText,
	transcript_path: optionalText,
	transcriptPath: optionalText,
	agent_transcript_path: optionalText,
	source: z.string().max(128).nullish(),
	reason: z.string().max(256).nullish(),
	trigger: z.string().max(128).nullish(),
	tool_name: z.string().max(256).nullish(),
	tool_input: z.unknown().optional(),
	tool_use_id: z.string().max(256).nullish(),
	prompt: z.string().nullish(),
	previous_session_id: text.nullish(),
	previousSessionId: text.nullish(),
	model: z.unknown().optional(),
	// Copilot CLI and the Copilot cloud agent (`version: 1` hook files): no session id, no event name
	// (the EVENT argument names it), camelCase tool fields with the arguments as a JSON string.
	timestamp: z.union([z.number(), z.string()]).nullish(),
	toolName: z.string().max(256).nullish(),
	toolArgs: z.unknown().optional(),
	toolResult: z.looseObject({ resultType: z.string().nullish() }).nullish(),
	initialPrompt: z.string().nullish(),
	// The Agents board: Notification (Claude Code, Gemini CLI), StopFailure (Claude Code, Codex), errorOccurred (Copilot CLI).
	// Loose: another dialect's field of the same name must never make its payload malformed.
	notification_type: z.unknown().optional(),
	message: z.unknown().optional(),
	error: z.unknown().optional(),
});
type Payload = z.infer<typeof payloadSchema>;

type NormaliseResult = { ok: true; event: HookEvent } | { ok: false; problem: string };

export interface NormaliseOptions {
	/** The explicit EVENT argument (`session-start`, `stop`, `pre-tool-use`, …): overrides the payload's event. */
	event?: string;
	/** Forces the agent kind instead of detecting it from the payload. */
	agent?: AgentKind;
	/** The program that ran the hook, from its environment (HookEvent.host); implies its agent kind. */
	host?: 'copilot-cli';
}

export function normaliseHookPayload(raw: unknown, options: NormaliseOptions = {}): NormaliseResult {
	if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
		return { ok: false, problem: 'the payload is not a JSON object' };
	}
	// A NUL means nothing in a prompt or a path, and would be stored with it: dropped here, never refused (a hook must not fail the agent).
	const parsed = payloadSchema.safeParse(withoutNul(raw));
	if (!parsed.success) {
		const issue = parsed.error.issues[0];
		return { ok: false, problem: `${issue?.path.join('.') || 'payload'}: ${issue?.message ?? 'invalid'}` };
	}
	const p = parsed.data;
	const agent = options.agent ?? (options.host === 'copilot-cli' ? 'copilot' : detectAgent(p));
	const agentSessionId = p.session_id ?? p.sessionId ?? p.taskId;
	// Copilot CLI sends no id at all: the caller maps the call onto its run (copilotRuns.ts).
	const anonymous = !agentSessionId && agent === 'copilot';
	if (!agentSessionId && !anonymous) {
		return { ok: false, problem: 'no session id (session_id, sessionId or taskId)' };
	}
	const eventName = options.event?.trim() || p.hook_event_name || p.hookEventName || p.hookName;
	if (!eventName) {
		return { ok: false, problem: 'no event name (hook_event_name, hookEventName, hookName or the EVENT argument)' };
	}
	const cwd = p.cwd || p.workspaceRoots?.find((r) => r.length > 0) || null;
	const mapped = kindOf(eventName, agent, p.source ?? null, options.host);
	return {
		ok: true,
		event: {
			agent,
			...(options.host ? { host: options.host } : {}),
			agentSessionId: agentSessionId ?? '',
			...(anonymous ? { anonymous: { timestamp: timestampOf(p.timestamp) } } : {}),
			kind: mapped.kind,
			eventName,
			source: p.source ?? null,
			reason: p.reason ?? mapped.reason,
			cwd,
			transcriptPath: p.transcript_path || p.transcriptPath || null,
			previousAgentSessionId: p.previous_session_id ?? p.previousSessionId ?? null,
			tool: toolOf(p, mapped.kind, eventName, cwd),
			prompt: promptOf(p.prompt ?? p.userPromptSubmit?.prompt ?? p.taskStart?.taskMetadata?.initialTask ?? p.initialPrompt ?? null),
			trigger: p.trigger ?? null,
			model: modelOf(p.model),
			agentTranscriptPath: p.agent_transcript_path || null,
			...(mapped.kind === 'notification' ? { notice: { type: textOf(p.notification_type, 128), message: textOf(p.message, 4096) } } : {}),
			...(mapped.kind === 'stopFailure' || mapped.kind === 'error' ? { error: errorText(p.error) } : {}),
		},
	};
}

function detectAgent(p: Payload): AgentKind {
	if (p.taskId || p.hookName || p.workspaceRoots) {
		return 'cline';
	}
	if (!p.session_id && (p.sessionId || p.hookEventName)) {
		return 'copilot';
	}
	if (!p.session_id && !p.hook_event_name && (p.toolName || p.toolArgs !== undefined || p.initialPrompt !== undefined || typeof p.timestamp === 'number')) {
		// Copilot CLI / cloud agent: camelCase tool fields, a numeric (epoch ms) timestamp.
		return 'copilot';
	}
	if (typeof p.timestamp === 'string') {
		// Claude's field names with the instant the host ran the hook, which Claude Code never sends: current
		// Copilot Chat in VS Code (ChatHookService's common input: timestamp, hook_event_name, session_id,
		// transcript_path), which also runs `.claude/settings.json`'s hooks — so the Claude hook file says nothing
		// about who called. Gemini CLI writes the same fields; its hooks name it (`--agent gemini`), and a chat
		// recorded in its own folder tells it without.
		return /[\\/]\.gemini[\\/]/.test(p.transcript_path ?? '') ? 'gemini' : 'copilot';
	}
	return 'claude-code';
}

/** `SessionStart`, `session-start`, `session_start` → `sessionstart`. */
function eventKey(name: string): string {
	return name.toLowerCase().replace(/[-_\s]/g, '');
}

const startSources: Record<string, HookKind> = { resume: 'resume', clear: 'clear', compact: 'compact' };

/**
 * The traps live here: Claude's `Stop` ends a turn, Copilot's `Stop` ends the session; a
 * SessionStart's `source` tells a start from a resume, a /clear or a compaction.
 */
function kindOf(eventName: string, agent: AgentKind, source: string | null, host?: 'copilot-cli'): { kind: HookKind; reason: string | null } {
	switch (eventKey(eventName)) {
		case 'sessionstart':
		case 'taskstart':
			return { kind: (source && startSources[source.toLowerCase()]) || 'sessionStart', reason: null };
		case 'taskresume':
		case 'resume':
			return { kind: 'resume', reason: null };
		case 'clear':
			return { kind: 'clear', reason: null };
		case 'compact':
			return { kind: 'compact', reason: null };
		case 'stop':
		case 'agentstop':
			// VS Code's Stop ends its session; Copilot CLI's (its agentStop) ends a turn, and its sessionEnd follows.
			return agent === 'copilot' && host !== 'copilot-cli' && eventKey(eventName) === 'stop'
				? { kind: 'sessionEnd', reason: 'stop' }
				: { kind: 'stop', reason: null };
		case 'subagentstop':
			return { kind: 'subagentStop', reason: null };
		case 'precompact':
			return { kind: 'preCompact', reason: null };
		case 'sessionend':
			return { kind: 'sessionEnd', reason: null };
		case 'taskcomplete':
			return { kind: 'sessionEnd', reason: 'complete' };
		case 'taskcancel':
			return { kind: 'sessionEnd', reason: 'cancel' };
		case 'pretooluse':
			return { kind: 'preToolUse', reason: null };
		case 'posttooluse':
		case 'posttoolusefailure':
			return { kind: 'postToolUse', reason: null };
		case 'notification':
			return { kind: 'notification', reason: null };
		case 'permissionrequest':
			return { kind: 'permissionRequest', reason: null };
		case 'stopfailure':
			return { kind: 'stopFailure', reason: null };
		case 'erroroccurred':
			return { kind: 'error', reason: null };
		case 'userpromptsubmit':
		case 'userpromptsubmitted':
		case 'userprompt':
			return { kind: 'userPrompt', reason: null };
		default:
			return { kind: 'unknown', reason: null };
	}
}

function toolOf(p: Payload, kind: HookKind, eventName: string, cwd: string | null): ToolUse | null {
	if (kind !== 'preToolUse' && kind !== 'postToolUse' && kind !== 'permissionRequest') {
		return null;
	}
	const cline = kind === 'preToolUse' ? p.preToolUse : p.postToolUse;
	const name = p.tool_name ?? cline?.toolName ?? p.toolName;
	if (!name) {
		return null;
	}
	const rawInput = p.tool_input ?? cline?.parameters ?? copilotArgs(p.toolArgs) ?? {};
	const input = rawInput && typeof rawInput === 'object' && !Array.isArray(rawInput) ? (rawInput as Record<string, unknown>) : { value: rawInput };
	const edit = isEditTool(name);
	return {
		name,
		input,
		edit,
		filesTouched: edit ? filesNamedBy(input).map((f) => (cwd && !path.isAbsolute(f) ? path.resolve(cwd, f) : f)) : [],
		failed: eventKey(eventName) === 'posttoolusefailure' || cline?.success === false || p.toolResult?.resultType === 'failure',
		id: p.tool_use_id || null,
	};
}

function modelOf(model: unknown): string | null {
	if (typeof model === 'string') {
		return model || null;
	}
	if (model && typeof model === 'object') {
		const m = model as Record<string, unknown>;
		const id = m['slug'] ?? m['id'] ?? m['display_name'];
		return typeof id === 'string' ? id : null;
	}
	return null;
}

/** Copilot CLI's `toolArgs`: a JSON string of the arguments (an object is taken as is; other text is kept as `value`). */
function copilotArgs(args: unknown): unknown {
	if (typeof args !== 'string') {
		return args ?? undefined;
	}
	try {
		return JSON.parse(args) as unknown;
	} catch {
		return { value: args };
	}
}

/** The person's prompt: Gemini CLI sends its SessionStart hook's context (Baton's briefing) in front of the first one. */
function promptOf(prompt: string | null): string | null {
	return prompt === null ? null : withoutHookContext(prompt);
}

function textOf(value: unknown, max: number): string | null {
	return typeof value === 'string' && value ? value.slice(0, max) : null;
}

/** An error as text: StopFailure sends a string, Copilot CLI's errorOccurred a string or `{ message, name }`. */
function errorText(error: unknown): string | null {
	if (typeof error === 'string') {
		return error.slice(0, 4096) || null;
	}
	if (error && typeof error === 'object') {
		const { message, name } = error as Record<string, unknown>;
		return textOf(message, 4096) ?? textOf(name, 256);
	}
	return null;
}

/** Epoch milliseconds from a number or an ISO date; null when neither. */
function timestampOf(value: number | string | null | undefined): number | null {
	if (typeof value === 'number' && Number.isFinite(value)) {
		return value;
	}
	const parsed = typeof value === 'string' ? Date.parse(value) : Number.NaN;
	return Number.isFinite(parsed) ? parsed : null;
}
