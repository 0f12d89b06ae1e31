/**
 * Realistic Claude Code transcripts for tests and the benchmark: the
 * envelope on every record, one record per content block with the message's usage repeated,
 * tool_result records with `toolUseResult`, file-history snapshots, compaction boundaries and the
 * continuation summary, titles, and record types Baton does not know.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

type Json = Record<string, unknown>;

export interface Usage {
	input_tokens: number;
	output_tokens: number;
	cache_read_input_tokens?: number;
	cache_creation_input_tokens?: number;
}

export class TranscriptWriter {
	readonly lines: string[] = [];
	private parent: string | null = null;
	private n = 0;
	private messages = 0;
	private tools = 0;

	constructor(
		readonly sessionId: string,
		readonly cwd: string,
		private startMs = Date.parse('2026-03-01T09:00:00.000Z'),
		private readonly options: { sidechain?: boolean; agentId?: string } = {},
	) {}

	private envelope(type: string): Json {
		const uuid = randomUUID();
		const record: Json = {
			parentUuid: this.parent,
			isSidechain: this.options.sidechain ?? false,
			userType: 'external',
			cwd: this.cwd,
			sessionId: this.sessionId,
			version: '2.0.31',
			gitBranch: 'main',
			...(this.options.agentId ? { agentId: this.options.agentId } : {}),
			type,
			uuid,
			timestamp: new Date(this.startMs + this.n++ * 1_000).toISOString(),
		};
		this.parent = uuid;
		return record;
	}

	push(record: Json): this {
		this.lines.push(JSON.stringify(record));
		return this;
	}

	snapshot(): this {
		const messageId = randomUUID();
		return this.push({
			type: 'file-history-snapshot',
			messageId,
			snapshot: { messageId, trackedFileBackups: {}, timestamp: new Date(this.startMs).toISOString() },
			isSnapshotUpdate: false,
		});
	}

	user(text: string): this {
		return this.push({
			...this.envelope('user'),
			promptId: randomUUID(),
			isMeta: false,
			permissionMode: 'default',
			message: { role: 'user', content: text },
		});
	}

	meta(text: string): this {
		return this.push({ ...this.envelope('user'), isMeta: true, message: { role: 'user', content: text } });
	}

	/** One assistant message: a record per block, each repeating the message's usage (as Claude writes them). Returns the tool-use ids. */
	assistant(blocks: ({ text: string } | { tool: string; input: Json })[], usage: Usage, model = 'claude-sonnet-4-5-20250929'): string[] {
		const id = `msg_${String(++this.messages).padStart(24, '0')}`;
		const requestId = `req_${this.messages}`;
		const ids: string[] = [];
		blocks.forEach((block, i) => {
			const content =
				'text' in block
					? { type: 'text', text: block.text }
					: (() => {
							const toolId = `toolu_${String(++this.tools).padStart(24, '0')}`;
							ids.push(toolId);
							return { type: 'tool_use', id: toolId, name: block.tool, input: block.input };
						})();
			this.push({
				...this.envelope('assistant'),
				requestId,
				message: {
					id,
					type: 'message',
					role: 'assistant',
					model,
					content: [content],
					stop_reason: i === blocks.length - 1 ? ('tool' in block ? 'tool_use' : 'end_turn') : null,
					usage: { ...usage, service_tier: 'standard' },
				},
			});
		});
		return ids;
	}

	toolResult(
		toolUseId: string,
		content: string,
		isError = false,
		toolUseResult: Json = { stdout: content, stderr: '', interrupted: false, isImage: false },
	): this {
		return this.push({
			...this.envelope('user'),
			message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUseId, content, ...(isError ? { is_error: true } : {}) }] },
			toolUseResult,
		});
	}

	compact(trigger: 'auto' | 'manual', preTokens: number): this {
		return this.push({
			...this.envelope('system'),
			subtype: 'compact_boundary',
			content: 'Conversation compacted',
			level: 'info',
			compactMetadata: { trigger, preTokens },
		});
	}

	compactSummary(text: string): this {
		return this.push({ ...this.envelope('user'), isCompactSummary: true, isVisibleInTranscriptOnly: true, message: { role: 'user', content: text } });
	}

	summary(title: string): this {
		return this.push({ type: 'summary', summary: title, leafUuid: this.parent });
	}

	/** A record of a type Baton does not know (new ones keep appearing). */
	unknown(type: string, extra: Json = {}): this {
		return this.push({ ...this.envelope(type), ...extra });
	}

	raw(line: string): this {
		this.lines.push(line);
		return this;
	}

	text(): string {
		return this.lines.map((l) => `${l}\n`).join('');
	}

	/** Writes (or appends) the lines produced since the last call. */
	flush(file: string, from = 0): number {
		fs.mkdirSync(path.dirname(file), { recursive: true });
		fs.appendFileSync(
			file,
			this.lines
				.slice(from)
				.map((l) => `${l}\n`)
				.join(''),
		);
		return this.lines.length;
	}
}

/**
 * A large transcript of about `megabytes`, deterministic (seeded), shaped like real sessions: long
 * runs of tool calls with results (some of them whole files), assistant text, user requests,
 * compactions, non-ASCII text. For the parse benchmark.
 */
export function generateLargeTranscript(file: string, megabytes: number, cwd = '/home/u/project'): { bytes: number; records: number } {
	let seed = 7;
	const rand = (): number => {
		seed = (seed + 0x6d2b79f5) | 0;
		let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
		t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
	const words =
		'the file function returns error value test build config module import export update change fix add remove check run result data user session tool edit read write'.split(
			' ',
		);
	const uni = ['café', 'naïve', '日本語のテキスト', 'emoji 🚀✅', 'Ünïcödé', 'Привет'];
	const text = (n: number): string => {
		let s = '';
		while (s.length < n) {
			s += (rand() < 0.02 ? uni[Math.floor(rand() * uni.length)] : words[Math.floor(rand() * words.length)]) + (rand() < 0.1 ? '\n' : ' ');
		}
		return s;
	};
	const target = megabytes * 1024 * 1024;
	const fd = fs.openSync(file, 'w');
	const writer = new TranscriptWriter(randomUUID(), cwd);
	let bytes = 0;
	let records = 0;
	let written = 0;
	const tools = ['Read', 'Edit', 'Bash', 'Grep', 'Write', 'TodoWrite'];
	try {
		writer.snapshot();
		while (bytes < target) {
			const r = rand();
			if (r < 0.3) {
				const tool = tools[Math.floor(rand() * tools.length)] as string;
				const input =
					tool === 'Bash'
						? { command: `npm test -- ${text(20)}`, description: text(30) }
						: { file_path: `${cwd}/src/f${Math.floor(rand() * 500)}.ts`, old_string: text(rand() * 300), new_string: text(rand() * 300) };
				const [id] = writer.assistant([{ text: text(50 + rand() * 600) }, { tool, input }], {
					input_tokens: Math.floor(rand() * 5000),
					output_tokens: Math.floor(rand() * 800),
					cache_read_input_tokens: Math.floor(rand() * 50000),
				});
				const big = rand() < 0.04;
				writer.toolResult(id as string, text(big ? 20000 + rand() * 150000 : 100 + rand() * 3000), rand() < 0.05);
			} else if (r < 0.6) {
				writer.assistant([{ text: text(100 + rand() * 2500) }], { input_tokens: 10, output_tokens: 300 });
			} else if (r < 0.97) {
				writer.user(text(20 + rand() * 400));
			} else if (r < 0.99) {
				writer.compact('auto', 150_000 + Math.floor(rand() * 20_000));
			} else {
				writer.unknown('queue-operation', { operation: 'enqueue', content: text(40) });
			}
			if (writer.lines.length - written >= 1_000) {
				const chunk = writer.lines
					.slice(written)
					.map((l) => `${l}\n`)
					.join('');
				fs.writeSync(fd, chunk);
				bytes += Buffer.byteLength(chunk);
				records += writer.lines.length - written;
				writer.lines.length = 0;
				written = 0;
			}
		}
		const rest = writer.lines
			.slice(written)
			.map((l) => `${l}\n`)
			.join('');
		fs.writeSync(fd, rest);
		bytes += Buffer.byteLength(rest);
		records += writer.lines.length - written;
	} finally {
		fs.closeSync(fd);
	}
	return { bytes, records };
}
