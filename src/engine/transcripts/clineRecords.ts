/**
 * Cline's and Roo Code's task files as the Claude-shaped records the excerpt builder reads
 * (transcriptExcerpts.ts). Three shapes, each a JSON array written whole on every change:
 *
 * - `ui_messages.json`: what the task panel shows, ClineMessage[] (cline/cline
 *   `apps/vscode/src/shared/ExtensionMessage.ts`; RooCodeInc/Roo-Code `packages/types/src/message.ts`):
 *   `{ts, type: 'say'|'ask', say?|ask?, text?, partial?, modelInfo?}`. The person's words are `say:task`
 *   (Roo Code: the task's first `say:text`) and `say:user_feedback`; the model's are `say:text`,
 *   `completion_result` and `followup`; a tool call is `say|ask:tool` (its text a JSON object `{tool,
 *   path, …}`) or `command`; `api_req_started`'s text is a JSON object with the request (its
 *   `<environment_details>` name the working directory) and `tokensIn`, `tokensOut`, `cacheReads`,
 *   `cacheWrites`; `modelInfo.modelId` names the model (newer Cline).
 * - `api_conversation_history.json`: the messages sent to the model, Anthropic MessageParam[] plus
 *   `ts`, `modelInfo` and `metrics.tokens` {prompt, completion, cached} (newer Cline). The person's words
 *   are inside `<task>`, `<feedback>`, `<user_message>` or `<answer>` (the Cline CLI's SDK sessions:
 *   `<user_input mode="act">`, a slash command `<user_command slash="…">`, as the real Cline CLI 3.0.65
 *   writes them); the other user text blocks are tool results and `<environment_details>` the extension wrote.
 * - Cline SDK `<sessionId>.messages.json` (cline/cline `sdk/packages/shared/src/llms/messages.ts`,
 *   MessageWithMetadata): `{role, content, ts?, modelInfo?: {id, provider}, metrics?: {inputTokens,
 *   outputTokens, cacheReadTokens, cacheWriteTokens}}`, an array or `{messages: [...]}`.
 */
import { addReadTokens, countKind, emptyRead, isoTime, seeTime, type AgentFileRead, type Json } from './agentFiles';

type ClineFileKind = 'ui_messages' | 'api_conversation_history' | 'sdk_messages';

/** The working directory Cline and Roo Code tell the model about (`# Current Working Directory (…) Files`). */
export function cwdInText(text: string): string | null {
	const match = /# Current (?:Working|Workspace) Directory \(([^)\n]+)\)/.exec(text);
	// Inside JSON (once or twice encoded) a backslash is doubled: one is what the path had.
	return match ? (match[1] as string).replace(/\\+/g, '\\').trim() || null : null;
}

/** One Cline or Roo Code task file's content as records; `product` tells Roo Code's first message apart. */
export function readClineTaskFile(content: string, kind: ClineFileKind, product = 'cline'): AgentFileRead {
	const read = emptyRead();
	let value: unknown;
	try {
		value = JSON.parse(content) as unknown;
	} catch (error) {
		read.warnings.push(`not JSON (${error instanceof Error ? error.message : String(error)})`);
		return read;
	}
	const list = Array.isArray(value) ? value : Array.isArray((value as Json | null)?.['messages']) ? ((value as Json)['messages'] as unknown[]) : null;
	if (!list) {
		read.warnings.push('not a list of messages');
		return read;
	}
	if (kind === 'ui_messages') {
		const ui = new UiReader(read, product);
		for (const message of list) {
			ui.add(message);
		}
	} else {
		for (const message of list) {
			apiMessage(message, read);
		}
	}
	return read;
}

/** Known ui_messages kinds that carry nothing a session keeps (UI state, progress, streaming). */
const passedOver = new Set([
	'say:reasoning',
	'say:checkpoint_created',
	'say:checkpoint_saved',
	'say:task_progress',
	'say:api_req_finished',
	'say:api_req_retried',
	'say:api_req_retry_delayed',
	'say:api_req_rate_limit_wait',
	'say:api_req_deleted',
	'say:deleted_api_reqs',
	'say:command_output',
	'ask:command_output',
	'say:shell_integration_warning',
	'say:shell_integration_warning_with_suggestion',
	'say:error_retry',
	'say:info',
	'say:hook_status',
	'say:hook_output_stream',
	'say:conditional_rules_applied',
	'say:mcp_server_response',
	'say:mcp_notification',
	'say:browser_action_result',
	'say:image',
	'say:subagent_usage',
	'say:user_edit_todos',
	'say:too_many_tools_warning',
	'say:codebase_search_result',
	'say:load_mcp_documentation',
	'say:subtask_result',
	'say:user_feedback_diff',
	'ask:resume_task',
	'ask:resume_completed_task',
	'ask:completion_result',
	'ask:auto_approval_max_req_reached',
	'ask:report_bug',
]);

/** ui_messages tool names that write files, under the names editTools.ts knows. */
const editNames: Record<string, string> = {
	editedExistingFile: 'replace_in_file',
	appliedDiff: 'replace_in_file',
	insertContent: 'replace_in_file',
	searchAndReplace: 'replace_in_file',
	newFileCreated: 'write_to_file',
};

class UiReader {
	private first = true;
	private calls = 0;

	constructor(
		private readonly read: AgentFileRead,
		private readonly product: string,
	) {}

	add(value: unknown): void {
		if (!value || typeof value !== 'object') {
			return;
		}
		const m = value as Json;
		const key = `${String(m['type'])}:${String(m['say'] ?? m['ask'])}`;
		const at = isoTime(m['ts']);
		const text = typeof m['text'] === 'string' ? m['text'] : '';
		const model = (m['modelInfo'] as Json | undefined)?.['modelId'];
		if (typeof model === 'string' && model) {
			this.read.model = model;
		}
		const first = this.first;
		this.first = false;
		if (m['partial'] === true) {
			return;
		}
		seeTime(this.read, at);
		if (key === 'say:task' || key === 'say:user_feedback' || (first && key === 'say:text' && this.product === 'roo-code')) {
			this.user(text, at);
		} else if (
			key === 'say:text' ||
			key === 'say:completion_result' ||
			key === 'say:plan_completion_result' ||
			key === 'ask:plan_mode_respond' ||
			key === 'ask:act_mode_respond'
		) {
			this.assistant([{ type: 'text', text }], at);
		} else if (key === 'ask:followup') {
			this.assistant([{ type: 'text', text: questionOf(text) }], at);
		} else if (key === 'say:tool' || key === 'ask:tool') {
			this.tool(text, at);
		} else if (key === 'say:command' || key === 'ask:command') {
			this.assistant([{ type: 'tool_use', id: `ui-${++this.calls}`, name: 'execute_command', input: { command: text } }], at);
		} else if (key === 'say:api_req_started') {
			this.request(text, at);
		} else if (key === 'say:condense_context' || key === 'say:compaction' || key === 'ask:condense' || key === 'say:sliding_window_truncation') {
			this.read.records.push({ type: 'system', subtype: 'compact_boundary', timestamp: at, compactMetadata: { trigger: 'auto' } });
		} else if (
			key === 'say:error' ||
			key === 'say:diff_error' ||
			key === 'ask:api_req_failed' ||
			key === 'ask:mistake_limit_reached' ||
			key.endsWith('ignore_error') ||
			key === 'say:command_permission_denied' ||
			key === 'say:condense_context_error'
		) {
			this.read.records.push({ type: 'system', level: 'error', timestamp: at, content: text || key });
		} else if (!passedOver.has(key)) {
			countKind(this.read, key);
		}
	}

	private user(text: string, at: string | null): void {
		if (!text.trim()) {
			return;
		}
		this.read.title ??= text.trim().split('\n')[0]?.slice(0, 200) ?? null;
		this.read.records.push({ type: 'user', timestamp: at, message: { role: 'user', content: text } });
	}

	private assistant(content: Json[], at: string | null, usage?: Json): void {
		const kept = content.filter((c) => c['type'] !== 'text' || (typeof c['text'] === 'string' && c['text'].trim()));
		if (kept.length > 0 || usage) {
			const id = usage ? `ui-usage-${at ?? ''}-${this.read.records.length}` : undefined;
			this.read.records.push({ type: 'assistant', timestamp: at, message: { id, model: this.read.model, content: kept, ...(usage ? { usage } : {}) } });
		}
	}

	private tool(text: string, at: string | null): void {
		const input = parseObject(text);
		const name = typeof input['tool'] === 'string' ? input['tool'] : 'tool';
		this.assistant([{ type: 'tool_use', id: `ui-${++this.calls}`, name: editNames[name] ?? name, input }], at);
	}

	private request(text: string, at: string | null): void {
		const info = parseObject(text);
		const request = typeof info['request'] === 'string' ? info['request'] : '';
		this.read.cwd ??= cwdInText(request);
		const n = (k: string): number => (typeof info[k] === 'number' && Number.isFinite(info[k]) ? (info[k] as number) : 0);
		if (n('tokensIn') + n('tokensOut') + n('cacheReads') + n('cacheWrites') === 0) {
			return;
		}
		addReadTokens(this.read, this.read.model, {
			input: n('tokensIn'),
			output: n('tokensOut'),
			cacheRead: n('cacheReads'),
			cacheCreation: n('cacheWrites'),
		});
		this.assistant([], at, {
			input_tokens: n('tokensIn'),
			output_tokens: n('tokensOut'),
			cache_read_input_tokens: n('cacheReads'),
			cache_creation_input_tokens: n('cacheWrites'),
		});
	}
}

function parseObject(text: string): Json {
	try {
		const value = JSON.parse(text) as unknown;
		return value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {};
	} catch {
		return {};
	}
}

/** A followup's text is `{question, options}` in newer versions, the question itself in older ones. */
function questionOf(text: string): string {
	const q = parseObject(text)['question'];
	return typeof q === 'string' ? q : text;
}

/** The person's words inside a user text block Cline or Roo Code wrote, or null for text the extension wrote itself. */
export function personText(text: string): string | null {
	const match = /^\s*<(task|feedback|user_message|answer|user_input|user_command)(?:\s[^>]*)?>\n?([\s\S]*?)\n?<\/\1>/.exec(text);
	if (match) {
		return (match[2] as string).trim() || null;
	}
	return null;
}

function apiMessage(value: unknown, read: AgentFileRead): void {
	if (!value || typeof value !== 'object') {
		return;
	}
	const m = value as Json;
	const at = isoTime(m['ts']);
	seeTime(read, at);
	const blocks: Json[] =
		typeof m['content'] === 'string' ? [{ type: 'text', text: m['content'] }] : Array.isArray(m['content']) ? (m['content'] as Json[]) : [];
	if (m['role'] === 'user') {
		apiUser(blocks, at, read);
	} else if (m['role'] === 'assistant') {
		apiAssistant(m, blocks, at, read);
	} else {
		countKind(read, `role ${String(m['role'])}`);
	}
}

function apiUser(blocks: Json[], at: string | null, read: AgentFileRead): void {
	const content: Json[] = [];
	for (const block of blocks) {
		if (block?.['type'] === 'text' && typeof block['text'] === 'string') {
			read.cwd ??= cwdInText(block['text']);
			const own = personText(block['text']) ?? (read.records.length === 0 && !/^\s*[<[]/.test(block['text']) ? block['text'] : null);
			if (own) {
				read.title ??= own.split('\n')[0]?.slice(0, 200) ?? null;
				content.push({ type: 'text', text: own });
			}
		} else if (block?.['type'] === 'tool_result' && block['is_error'] === true) {
			content.push({ type: 'tool_result', tool_use_id: block['tool_use_id'] ?? null, is_error: true, content: block['content'] ?? '' });
		} else if (block?.['type'] !== 'tool_result' && block?.['type'] !== 'image' && block?.['type'] !== 'text') {
			countKind(read, `user block ${String(block?.['type'])}`);
		}
	}
	if (content.length > 0) {
		read.records.push({ type: 'user', timestamp: at, message: { role: 'user', content } });
	}
}

function apiAssistant(m: Json, blocks: Json[], at: string | null, read: AgentFileRead): void {
	const info = m['modelInfo'] as Json | undefined;
	const model = typeof info?.['modelId'] === 'string' ? info['modelId'] : typeof info?.['id'] === 'string' ? info['id'] : null;
	read.model = model ?? read.model;
	const content: Json[] = [];
	for (const block of blocks) {
		const type = block?.['type'];
		if ((type === 'text' && typeof block['text'] === 'string') || (type === 'tool_use' && typeof block['name'] === 'string')) {
			content.push(block);
		} else if (type !== 'thinking' && type !== 'redacted_thinking' && type !== 'reasoning') {
			countKind(read, `assistant block ${String(type)}`);
		}
	}
	const usage = usageOf(m);
	if (usage) {
		addReadTokens(read, read.model, {
			input: usage['input_tokens'] as number,
			output: usage['output_tokens'] as number,
			cacheRead: usage['cache_read_input_tokens'] as number,
			cacheCreation: usage['cache_creation_input_tokens'] as number,
		});
	}
	if (content.length > 0 || usage) {
		read.records.push({
			type: 'assistant',
			timestamp: at,
			message: { id: typeof m['id'] === 'string' ? m['id'] : undefined, model: read.model, content, ...(usage ? { usage } : {}) },
		});
	}
}

/** Newer Cline's `metrics.tokens` {prompt, completion, cached}; the SDK's `metrics` {inputTokens, …}. */
function usageOf(m: Json): Json | null {
	const metrics = m['metrics'] as Json | undefined;
	if (!metrics || typeof metrics !== 'object') {
		return null;
	}
	const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
	const tokens = metrics['tokens'] as Json | undefined;
	if (tokens && typeof tokens === 'object') {
		const cached = num(tokens['cached']);
		return {
			input_tokens: Math.max(0, num(tokens['prompt']) - cached),
			output_tokens: num(tokens['completion']),
			cache_read_input_tokens: cached,
			cache_creation_input_tokens: 0,
		};
	}
	if ('inputTokens' in metrics || 'outputTokens' in metrics) {
		return {
			input_tokens: num(metrics['inputTokens']),
			output_tokens: num(metrics['outputTokens']),
			cache_read_input_tokens: num(metrics['cacheReadTokens']),
			cache_creation_input_tokens: num(metrics['cacheWriteTokens']),
		};
	}
	return null;
}

interface ClineTaskMetadata {
	/** The model of the latest `model_usage` entry. */
	model: string | null;
	/** Files Cline edited (`record_source: cline_edited`), in the order listed. */
	editedFiles: string[];
	warnings: string[];
}

/**
 * `task_metadata.json` (cline/cline `apps/vscode/src/core/context/context-tracking/ContextTrackerTypes.ts`,
 * TaskMetadata): `files_in_context[]` {path, record_source, cline_edit_date, …} and `model_usage[]`
 * {ts, model_id, model_provider_id, mode}. It names the model where an older api_conversation_history
 * does not.
 */
export function readClineTaskMetadata(content: string): ClineTaskMetadata {
	const out: ClineTaskMetadata = { model: null, editedFiles: [], warnings: [] };
	let value: Json;
	try {
		value = JSON.parse(content) as Json;
	} catch (error) {
		out.warnings.push(`not JSON (${error instanceof Error ? error.message : String(error)})`);
		return out;
	}
	const usage = Array.isArray(value?.['model_usage']) ? (value['model_usage'] as Json[]) : [];
	let latest = -Infinity;
	for (const entry of usage) {
		const ts = typeof entry?.['ts'] === 'number' ? entry['ts'] : 0;
		if (typeof entry?.['model_id'] === 'string' && entry['model_id'] && ts >= latest) {
			latest = ts;
			out.model = entry['model_id'];
		}
	}
	const files = Array.isArray(value?.['files_in_context']) ? (value['files_in_context'] as Json[]) : [];
	for (const entry of files) {
		const file = entry?.['path'];
		if (entry?.['record_source'] === 'cline_edited' && typeof file === 'string' && file && !out.editedFiles.includes(file)) {
			out.editedFiles.push(file);
		}
	}
	return out;
}
