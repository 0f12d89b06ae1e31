/**
 * Codex CLI's and Gemini CLI's transcripts in the archive: each of their records is read as the
 * Claude Code records the excerpt builder already understands (transcriptExcerpts.ts), so requests,
 * answers, tool calls with their files, failed calls, compactions and token counts reach the
 * archive, the digests, the handoff notes and the briefings the same way for every agent.
 *
 * - Codex: the rollout JSONL under `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl`, lines
 *   `{timestamp, type, payload}`: `response_item` messages (the person's `user`, the model's
 *   `assistant`; `developer` and injected `<environment_context>`-style user messages are Codex's
 *   own), `function_call` / `custom_tool_call` (`apply_patch`'s patch is its `input`),
 *   `function_call_output` (a process that exited non-zero is a failed call), `turn_context` (the
 *   model), `event_msg` `token_count` (the turn's tokens) and `compacted`.
 * - Copilot CLI: `~/.copilot/session-state/<id>/events.jsonl`, lines `{type, data, timestamp}` of the
 *   SessionEvent union (github/copilot-sdk): `user.message` (`content`; `transformedContent` is what
 *   the CLI added), `assistant.message` (`content`, `toolRequests`, `model`), `tool.execution_complete`
 *   (`success: false`, or a shell that exited non-zero), `session.compaction_complete`; types it does
 *   not name are passed over (the binary writes some its union lacks).
 * - Gemini CLI: the chat JSONL under `~/.gemini/tmp/<project>/chats/`: a header line, message records
 *   `{id, timestamp, type: user|gemini|info|error, content, toolCalls?, tokens?, model?}` (a record is
 *   written again under its id as it grows: within one read, a message's text and each tool call
 *   count once), `$set` records (`messages` replaces the list: its messages are read) and `$rewindTo`.
 */
import type { AgentKind } from '../agentKinds';
import { ownMap } from '../storage/ownRecord';

type Json = Record<string, unknown>;

/** Text a CLI put in a user message itself (`<environment_context>`, `<session_context>`, …): not the person's. */
function isInjected(text: string): boolean {
	return /^<[a-z_]+>/.test(text.trimStart());
}

/** The person's text without a hook's context Gemini CLI put in front of it (`<hook_context>…</hook_context>`). */
export function withoutHookContext(text: string): string {
	if (!text.startsWith('<hook_context>')) {
		return text;
	}
	const end = text.indexOf('</hook_context>');
	return end < 0 ? text : text.slice(end + '</hook_context>'.length).replace(/^\s+/, '');
}

function textOf(content: unknown): string {
	if (typeof content === 'string') {
		return content;
	}
	if (!Array.isArray(content)) {
		return '';
	}
	return (content as Json[])
		.map((part) => (typeof part?.['text'] === 'string' ? part['text'] : ''))
		.filter(Boolean)
		.join('\n');
}

function parseArguments(args: unknown): Json {
	if (args && typeof args === 'object' && !Array.isArray(args)) {
		return args as Json;
	}
	if (typeof args !== 'string') {
		return {};
	}
	try {
		const parsed = JSON.parse(args) as unknown;
		return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Json) : { value: parsed };
	} catch {
		return { value: args };
	}
}

/** Turns one agent's records into the Claude-shaped records the excerpt builder reads. One adapter per read. */
interface RecordAdapter {
	adapt(record: unknown): Json[];
	/** Records of a type the adapter does not know, by type: passed over, counted (Copilot's are not: its CLI writes many the reader has no use for). */
	readonly unknownTypes: Record<string, number>;
}

function countType(counts: Record<string, number>, type: unknown): void {
	const name = typeof type === 'string' && type ? type.slice(0, 80) : '(none)';
	counts[name] = (counts[name] ?? 0) + 1;
}

export function recordAdapter(agent: AgentKind): RecordAdapter | null {
	if (agent === 'codex') {
		return new CodexAdapter();
	}
	if (agent === 'gemini') {
		return new GeminiAdapter();
	}
	if (agent === 'copilot') {
		return new CopilotAdapter();
	}
	return null;
}

class CopilotAdapter implements RecordAdapter {
	readonly unknownTypes = ownMap<number>();

	adapt(record: unknown): Json[] {
		if (!record || typeof record !== 'object') {
			return [];
		}
		const r = record as Json;
		const timestamp = typeof r['timestamp'] === 'string' ? r['timestamp'] : null;
		const data = (r['data'] && typeof r['data'] === 'object' ? r['data'] : {}) as Json;
		switch (r['type']) {
			case 'user.message': {
				const text = typeof data['content'] === 'string' ? data['content'] : '';
				return text.trim() && !isInjected(text) ? [{ type: 'user', timestamp, message: { role: 'user', content: text } }] : [];
			}
			case 'assistant.message': {
				const model = typeof data['model'] === 'string' ? data['model'] : null;
				const content: Json[] = typeof data['content'] === 'string' && data['content'].trim() ? [{ type: 'text', text: data['content'] }] : [];
				for (const call of Array.isArray(data['toolRequests']) ? (data['toolRequests'] as Json[]) : []) {
					content.push({
						type: 'tool_use',
						id: call?.['toolCallId'] ?? null,
						name: typeof call?.['name'] === 'string' ? call['name'] : 'tool',
						input: parseArguments(call?.['arguments']),
					});
				}
				return content.length > 0 ? [{ type: 'assistant', timestamp, message: { id: data['messageId'] ?? null, model, content } }] : [];
			}
			case 'tool.execution_complete': {
				const exit = (data['shellExecution'] as Json | undefined)?.['exitCode'];
				const failed = data['success'] === false || (typeof exit === 'number' && exit !== 0);
				if (!failed) {
					return [];
				}
				const error = (data['error'] as Json | undefined)?.['message'];
				const text =
					typeof error === 'string' ? error : textOf((data['result'] as Json | undefined)?.['content']) || `exited with code ${String(exit)}`;
				return [
					{
						type: 'user',
						timestamp,
						message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: data['toolCallId'] ?? null, is_error: true, content: text }] },
					},
				];
			}
			case 'session.compaction_complete':
				return [{ type: 'system', subtype: 'compact_boundary', timestamp, compactMetadata: { trigger: 'auto' } }];
			default:
				return [];
		}
	}
}

class CodexAdapter implements RecordAdapter {
	readonly unknownTypes = ownMap<number>();
	private model: string | null = null;
	private usages = 0;

	adapt(record: unknown): Json[] {
		if (!record || typeof record !== 'object') {
			return [];
		}
		const r = record as Json;
		const timestamp = typeof r['timestamp'] === 'string' ? r['timestamp'] : null;
		const payload = (r['payload'] && typeof r['payload'] === 'object' ? r['payload'] : {}) as Json;
		switch (r['type']) {
			case 'turn_context':
				this.model = typeof payload['model'] === 'string' ? payload['model'] : this.model;
				return [];
			case 'compacted':
				return [{ type: 'system', subtype: 'compact_boundary', timestamp, compactMetadata: { trigger: 'auto' } }];
			case 'event_msg':
				return this.event(payload, timestamp);
			case 'response_item':
				return this.item(payload, timestamp);
			case 'session_meta':
				return [];
			default:
				countType(this.unknownTypes, r['type']);
				return [];
		}
	}

	private event(payload: Json, timestamp: string | null): Json[] {
		if (payload['type'] !== 'token_count') {
			return [];
		}
		const info = payload['info'] as Json | null | undefined;
		const last = info?.['last_token_usage'] as Json | undefined;
		if (!last) {
			return [];
		}
		const input = Number(last['input_tokens'] ?? 0);
		const cached = Number(last['cached_input_tokens'] ?? 0);
		// The turn's tokens, as a message of its own (Claude's records carry them on each message).
		return [
			{
				type: 'assistant',
				timestamp,
				message: {
					id: `codex-usage-${++this.usages}-${timestamp ?? ''}`,
					model: this.model,
					content: [],
					usage: { input_tokens: Math.max(0, input - cached), cache_read_input_tokens: cached, output_tokens: Number(last['output_tokens'] ?? 0) },
				},
			},
		];
	}

	private item(payload: Json, timestamp: string | null): Json[] {
		switch (payload['type']) {
			case 'message': {
				const text = textOf(payload['content']);
				if (!text.trim()) {
					return [];
				}
				if (payload['role'] === 'user') {
					return isInjected(text) ? [] : [{ type: 'user', timestamp, message: { role: 'user', content: text } }];
				}
				if (payload['role'] === 'assistant') {
					return [{ type: 'assistant', timestamp, message: { model: this.model, content: [{ type: 'text', text }] } }];
				}
				return [];
			}
			case 'function_call':
			case 'local_shell_call': {
				const name = typeof payload['name'] === 'string' ? payload['name'] : 'shell';
				const input = parseArguments(payload['arguments'] ?? payload['action']);
				// A shell call's command, under the name Claude's records use (what details and summaries read).
				const command = input['cmd'] ?? input['command'];
				return [
					{
						type: 'assistant',
						timestamp,
						message: {
							model: this.model,
							content: [
								{
									type: 'tool_use',
									id: payload['call_id'] ?? null,
									name,
									input: command !== undefined ? { ...input, command: Array.isArray(command) ? command.join(' ') : command } : input,
								},
							],
						},
					},
				];
			}
			case 'custom_tool_call': {
				const name = typeof payload['name'] === 'string' ? payload['name'] : 'tool';
				return [
					{
						type: 'assistant',
						timestamp,
						message: {
							model: this.model,
							content: [
								{
									type: 'tool_use',
									id: payload['call_id'] ?? null,
									name,
									input: { command: typeof payload['input'] === 'string' ? payload['input'] : '' },
								},
							],
						},
					},
				];
			}
			case 'function_call_output':
			case 'custom_tool_call_output': {
				const output = typeof payload['output'] === 'string' ? payload['output'] : textOf((payload['output'] as Json | undefined)?.['content']);
				const failed = /(?:exited with code|Exit code:)\s*([1-9]\d*)/.test(output);
				return failed
					? [
							{
								type: 'user',
								timestamp,
								message: {
									role: 'user',
									content: [{ type: 'tool_result', tool_use_id: payload['call_id'] ?? null, is_error: true, content: output }],
								},
							},
						]
					: [];
			}
			default:
				return [];
		}
	}
}

const geminiTypes = new Set(['user', 'gemini', 'info', 'error', 'warning']);

class GeminiAdapter implements RecordAdapter {
	readonly unknownTypes = ownMap<number>();
	/** Message ids whose text was read, and tool call ids, in this read (a record is written again as it grows). */
	private readonly texts = new Set<string>();
	private readonly calls = new Set<string>();

	adapt(record: unknown): Json[] {
		if (!record || typeof record !== 'object') {
			return [];
		}
		const r = record as Json;
		const set = r['$set'] as Json | undefined;
		if (set && typeof set === 'object') {
			return Array.isArray(set['messages']) ? (set['messages'] as unknown[]).flatMap((m) => this.message(m)) : [];
		}
		if (!('$rewindTo' in r) && !(typeof r['sessionId'] === 'string' && 'projectHash' in r) && !geminiTypes.has(String(r['type']))) {
			countType(this.unknownTypes, r['type']);
		}
		return this.message(r);
	}

	private message(value: unknown): Json[] {
		if (!value || typeof value !== 'object') {
			return [];
		}
		const m = value as Json;
		const id = typeof m['id'] === 'string' ? m['id'] : null;
		const timestamp = typeof m['timestamp'] === 'string' ? m['timestamp'] : null;
		const model = typeof m['model'] === 'string' ? m['model'] : null;
		const out: Json[] = [];
		const fresh = !id || !this.texts.has(id);
		if (id) {
			this.texts.add(id);
		}
		const text = withoutHookContext(textOf(m['content']));
		if (m['type'] === 'user' && fresh && text.trim() && !isInjected(text)) {
			out.push({ type: 'user', timestamp, message: { role: 'user', content: text } });
		} else if (m['type'] === 'gemini') {
			const tokens = m['tokens'] as Json | undefined;
			const usage = tokens
				? {
						input_tokens: Math.max(0, Number(tokens['input'] ?? 0) - Number(tokens['cached'] ?? 0)),
						cache_read_input_tokens: Number(tokens['cached'] ?? 0),
						output_tokens: Number(tokens['output'] ?? 0) + Number(tokens['thoughts'] ?? 0),
					}
				: undefined;
			const content: Json[] = fresh && text.trim() ? [{ type: 'text', text }] : [];
			for (const call of Array.isArray(m['toolCalls']) ? (m['toolCalls'] as Json[]) : []) {
				const callId = typeof call?.['id'] === 'string' ? call['id'] : null;
				if (!callId || this.calls.has(callId)) {
					continue;
				}
				this.calls.add(callId);
				content.push({
					type: 'tool_use',
					id: callId,
					name: typeof call['name'] === 'string' ? call['name'] : 'tool',
					input: parseArguments(call['args']),
				});
			}
			if (content.length > 0 || (fresh && usage)) {
				out.push({ type: 'assistant', timestamp, message: { id, model, content, ...(fresh && usage ? { usage } : {}) } });
			}
			for (const call of Array.isArray(m['toolCalls']) ? (m['toolCalls'] as Json[]) : []) {
				if (call?.['status'] === 'error' && typeof call['id'] === 'string' && !this.calls.has(`error:${call['id']}`)) {
					this.calls.add(`error:${call['id']}`);
					out.push({
						type: 'user',
						timestamp,
						message: {
							role: 'user',
							content: [
								{ type: 'tool_result', tool_use_id: call['id'], is_error: true, content: textOf(call['resultDisplay']) || 'the call failed' },
							],
						},
					});
				}
			}
		} else if (m['type'] === 'error' && fresh && text.trim()) {
			out.push({ type: 'system', level: 'error', timestamp, content: text });
		}
		return out;
	}
}
