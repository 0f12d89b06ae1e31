/**
 * What Baton keeps of a Claude Code transcript: user requests,
 * assistant text, tool calls with the files they name, tool errors, compaction boundaries and the
 * compaction summary, and the token usage (in the index totals). Everything else (thinking, tool
 * results that succeeded, file-history snapshots, attachments, new record types) is dropped.
 * Every text passes through `redactSecrets` and is clipped.
 */
import { addTokens, emptyTokens, tokensOfUsage } from './costEstimate';
import { filesNamedBy, isEditTool, workspaceRelative } from './editTools';
import { ownMap } from '../storage/ownRecord';
import { redactSecrets } from '../text/redactSecrets';
import { addFiles, type TranscriptEntry } from './transcriptIndex';

export type Excerpt =
	| { type: 'user'; at: string | null; text: string }
	| { type: 'assistant'; at: string | null; model: string | null; text: string }
	| { type: 'tool'; at: string | null; name: string; id: string | null; files: string[]; edit: boolean; detail: string | null }
	/** `toolId`: the failed call's tool-use id (archives written before it was kept lack it). */
	| { type: 'error'; at: string | null; tool: string | null; toolId?: string | null; text: string }
	| { type: 'compact'; at: string | null; trigger: string | null; preTokens: number | null }
	| { type: 'summary'; at: string | null; source: 'compact'; text: string };

const excerptLimits = { user: 2_000, assistant: 2_000, error: 1_000, detail: 300, summary: 4_000, last: 500 } as const;

type Json = Record<string, unknown>;

/**
 * Record types Claude Code writes that the archive needs nothing more from than the switch below takes:
 * its own bookkeeping (rewind snapshots, the prompt queue, titles, modes, hook progress, attachments).
 * Any other type is new to this reader: passed over like these, and counted (`unknownTypes`).
 */
const claudeBookkeeping = new Set([
	'file-history-snapshot',
	'file-history-delta',
	'content-replacement',
	'progress',
	'queue-operation',
	'attachment',
	'last-prompt',
	'custom-title',
	'agent-name',
	'agent-color',
	'agent_metadata',
	'agent-setting',
	'tag',
	'mode',
	'permission-mode',
	'pr-link',
	'cost-state',
	'atis-latch',
	'saved_hook_context',
	'worktree-state',
]);

export class ExcerptBuilder {
	/** Record types this builder does not know, with how many of each (Claude Code's own transcripts; the adapters count their agents'). */
	readonly unknownTypes = ownMap<number>();
	/** Serialised excerpts (one JSON line each) not drained yet. */
	private lines: string[] = [];
	/** Characters in `lines`. */
	pendingChars = 0;
	/** The first request of the person this builder saw (clipped as its excerpt): what an import names a new session after. */
	firstRequest: string | null = null;
	/** Tool-use ids of this read → tool names, to name the tool of an error result. */
	private readonly toolNames = new Map<string, string>();

	private readonly ownId: string;

	/**
	 * `archivedIds`: agent session ids Baton has transcripts of. A conversation resumed under a new id
	 * may start with copies of the earlier one's records; those are skipped when the earlier
	 * transcript is known (its own archive holds them), and kept when it is not (its source is gone).
	 */
	constructor(
		private readonly entry: TranscriptEntry,
		private readonly workspaceRoot: string,
		private readonly archivedIds: ReadonlySet<string> = new Set(),
	) {
		this.ownId = entry.parentAgentSessionId ?? entry.agentSessionId;
	}

	add(value: unknown): void {
		if (!value || typeof value !== 'object') {
			return;
		}
		const record = value as Json;
		const type = record['type'];
		const at = typeof record['timestamp'] === 'string' ? record['timestamp'] : null;
		if (type !== 'file-history-snapshot') {
			this.entry.bootstrap = false;
		}
		const from = record['sessionId'];
		if (typeof from === 'string' && from !== this.ownId && this.archivedIds.has(from)) {
			return;
		}
		if (at && (type === 'user' || type === 'assistant' || type === 'system')) {
			this.entry.firstAt ??= at;
			this.entry.lastAt = at;
		}
		switch (type) {
			case 'user':
				this.user(record, at);
				break;
			case 'assistant':
				this.assistant(record, at);
				break;
			case 'system':
				this.system(record, at);
				break;
			case 'summary':
				if (typeof record['summary'] === 'string') {
					this.entry.title = clipText(record['summary'], 200);
				}
				break;
			case 'ai-title':
				if (typeof record['aiTitle'] === 'string') {
					this.entry.title = clipText(record['aiTitle'], 200);
				}
				break;
			default:
				// New types keep appearing: passed over, never fatal, and counted when they are not known bookkeeping.
				if (typeof type !== 'string' || !claudeBookkeeping.has(type)) {
					const name = typeof type === 'string' && type ? type.slice(0, 80) : '(none)';
					this.unknownTypes[name] = (this.unknownTypes[name] ?? 0) + 1;
				}
		}
	}

	/** The excerpts made since the last drain, as JSON lines. */
	drain(): string[] {
		const out = this.lines;
		this.lines = [];
		this.pendingChars = 0;
		return out;
	}

	private emit(excerpt: Excerpt): void {
		const line = JSON.stringify(excerpt);
		this.lines.push(line);
		this.pendingChars += line.length;
	}

	private user(record: Json, at: string | null): void {
		if (record['isMeta'] === true) {
			return;
		}
		const content = (record['message'] as Json | undefined)?.['content'];
		if (record['isCompactSummary'] === true) {
			const text = typeof content === 'string' ? content : textOfBlocks(content);
			if (text) {
				this.emit({ type: 'summary', at, source: 'compact', text: clean(text, excerptLimits.summary) });
			}
			return;
		}
		if (typeof content === 'string') {
			this.request(content, at);
			return;
		}
		if (!Array.isArray(content)) {
			return;
		}
		const typed: string[] = [];
		for (const block of content as Json[]) {
			if (block?.['type'] === 'text' && typeof block['text'] === 'string') {
				typed.push(block['text']);
			} else if (block?.['type'] === 'tool_result' && block['is_error'] === true) {
				this.entry.errors++;
				const id = typeof block['tool_use_id'] === 'string' ? block['tool_use_id'] : null;
				const text = typeof block['content'] === 'string' ? block['content'] : textOfBlocks(block['content']);
				this.emit({
					type: 'error',
					at,
					tool: (id && this.toolNames.get(id)) ?? null,
					toolId: id,
					text: clean(text || '(no message)', excerptLimits.error),
				});
			}
		}
		if (typed.length) {
			this.request(typed.join('\n'), at);
		}
	}

	private request(text: string, at: string | null): void {
		if (!text.trim() || isInjectedByClaude(text)) {
			return;
		}
		this.entry.userRequests++;
		const clipped = clean(text, excerptLimits.user);
		this.entry.lastUserText = clipText(clipped, excerptLimits.last);
		this.firstRequest ??= clipped;
		this.emit({ type: 'user', at, text: clipped });
	}

	private assistant(record: Json, at: string | null): void {
		const message = record['message'] as Json | undefined;
		if (!message || typeof message !== 'object') {
			return;
		}
		const model = typeof message['model'] === 'string' ? message['model'] : null;
		this.usage(message, model);
		const content = message['content'];
		if (typeof content === 'string') {
			this.text(content, at, model);
			return;
		}
		if (!Array.isArray(content)) {
			return;
		}
		for (const block of content as Json[]) {
			if (block?.['type'] === 'text' && typeof block['text'] === 'string') {
				this.text(block['text'], at, model);
			} else if (block?.['type'] === 'tool_use' && typeof block['name'] === 'string') {
				this.toolUse(block, at);
			}
		}
	}

	/** Claude writes one record per content block, each repeating the message's usage: count a message once. */
	private usage(message: Json, model: string | null): void {
		const id = typeof message['id'] === 'string' ? message['id'] : null;
		const tokens = tokensOfUsage(message['usage']);
		const last = this.entry.lastMessage;
		if (id && last?.id === id) {
			if (tokens) {
				addTokens(this.tokensOf(last.model), last.tokens, -1);
				addTokens(this.tokensOf(last.model), tokens);
				last.tokens = tokens;
			}
			return;
		}
		this.entry.assistantMessages++;
		if (tokens) {
			const key = model ?? 'unknown';
			addTokens(this.tokensOf(key), tokens);
			this.entry.lastMessage = id ? { id, model: key, tokens } : null;
		}
	}

	/** The model's counts. The table has no prototype (storage/ownRecord.ts): model names come from the transcript. */
	private tokensOf(model: string) {
		return (this.entry.tokens[model] ??= emptyTokens());
	}

	private text(text: string, at: string | null, model: string | null): void {
		if (!text.trim()) {
			return;
		}
		const clipped = clean(text, excerptLimits.assistant);
		this.entry.lastAssistantText = clipText(clipped, excerptLimits.last);
		this.emit({ type: 'assistant', at, model, text: clipped });
	}

	private toolUse(block: Json, at: string | null): void {
		const name = block['name'] as string;
		const id = typeof block['id'] === 'string' ? block['id'] : null;
		if (id) {
			if (this.toolNames.size > 500) {
				this.toolNames.clear();
			}
			this.toolNames.set(id, name);
		}
		this.entry.toolCalls++;
		const input = block['input'];
		const files = filesNamedBy(input).map((f) => workspaceRelative(f, this.workspaceRoot));
		const edit = isEditTool(name);
		if (edit) {
			addFiles(this.entry.filesTouched, files);
		}
		this.emit({ type: 'tool', at, name, id, files, edit, detail: toolDetail(name, input) });
	}

	private system(record: Json, at: string | null): void {
		if (record['subtype'] === 'compact_boundary') {
			this.entry.compactions++;
			const meta = (record['compactMetadata'] ?? record['compact_metadata']) as Json | undefined;
			const pre = meta?.['preTokens'] ?? meta?.['pre_tokens'];
			this.emit({
				type: 'compact',
				at,
				trigger: typeof meta?.['trigger'] === 'string' ? meta['trigger'] : null,
				preTokens: typeof pre === 'number' ? pre : null,
			});
		} else if (record['level'] === 'error' && typeof record['content'] === 'string') {
			this.entry.errors++;
			this.emit({ type: 'error', at, tool: null, text: clean(record['content'], excerptLimits.error) });
		}
	}
}

/** What a tool call did, in a line: the command, the pattern, the subagent's description. */
function toolDetail(name: string, input: unknown): string | null {
	if (!input || typeof input !== 'object') {
		return null;
	}
	const i = input as Json;
	const pick = ['command', 'pattern', 'description', 'query', 'url', 'prompt'].map((k) => i[k]).find((v) => typeof v === 'string' && v.trim());
	if (typeof pick === 'string') {
		return clean(pick, excerptLimits.detail);
	}
	if (name === 'TodoWrite' && Array.isArray(i['todos'])) {
		return `${i['todos'].length} todos`;
	}
	return null;
}

function textOfBlocks(content: unknown): string {
	if (!Array.isArray(content)) {
		return '';
	}
	return (content as Json[])
		.filter((b) => b?.['type'] === 'text' && typeof b['text'] === 'string')
		.map((b) => b['text'] as string)
		.join('\n');
}

const snapshotMarker = Buffer.from('"type":"file-history-snapshot"');
const toolResultMarker = Buffer.from('"type":"tool_result"');
const errorMarker = Buffer.from('"is_error"');
const notAnError = Buffer.from(':false');

/**
 * Lines of Claude Code's transcripts the archive needs nothing from, told by their bytes: file-history
 * snapshots and tool results that are not errors (a file read, a command's output: most of a
 * transcript's bytes), whether they say so (`"is_error":false`, as Claude Code writes a command's
 * result) or say nothing. A quote inside a JSON string is escaped, so these markers only match keys.
 * Small lines are cheaper to parse. Not for another agent's records: its adapter needs every line, and
 * a key like these can sit in a tool's structured data there (an MCP server's content blocks).
 */
export function isUnneededLine(line: Buffer): boolean {
	if (line.length < 2_048) {
		return false;
	}
	if (line.indexOf(snapshotMarker) !== -1) {
		return true;
	}
	if (line.indexOf(toolResultMarker) === -1) {
		return false;
	}
	// Any "is_error" key not followed by :false exactly (true, or written otherwise) and the line is parsed.
	for (let at = line.indexOf(errorMarker); at !== -1; at = line.indexOf(errorMarker, at + errorMarker.length)) {
		const value = at + errorMarker.length;
		if (line.compare(notAnError, 0, notAnError.length, value, value + notAnError.length) !== 0) {
			return false;
		}
	}
	return true;
}

/**
 * Redacted before the final cut, so a cut never leaves the start of a secret that the rules no longer
 * recognise; the generous first cut only bounds the regex work on huge tool outputs.
 */
function clean(text: string, max: number): string {
	return clipText(redactSecrets(clipText(text, max + 1_000)), max);
}

function clipText(text: string, max: number): string {
	return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/**
 * Claude Code writes some `user` entries itself: background task results (`<task-notification>`),
 * the marker of an interrupted turn (`[Request interrupted by user]`, `… for tool use]`), slash
 * commands and their output (`<command-name>`, `<command-message>`, `<local-command-stdout>`,
 * `<local-command-stderr>`) and the caveat before them. None is a request of the person, so none
 * counts as one in summaries, handoffs and briefings.
 */
const injectedStarts = [
	'<task-notification>',
	'[request interrupted by user',
	'<command-name>',
	'<command-message>',
	'<command-args>',
	'<local-command-stdout>',
	'<local-command-stderr>',
	'<local-command-caveat>',
	'caveat: the messages below were generated by the user while running local commands',
];

export function isInjectedByClaude(text: string): boolean {
	const start = text.trimStart().slice(0, 120).toLowerCase();
	return injectedStarts.some((s) => start.startsWith(s));
}
