/**
 * A scripted stand-in for the Anthropic Messages API on 127.0.0.1 (`POST /v1/messages`, SSE when the
 * request streams), for the real Claude Code and Copilot CLI in its own-provider mode. It plays the
 * scripted turns of the conversation in order — a turn is text and tool calls — and records every
 * request, so a test asserts what reached the model (the briefing in the first request, the tool
 * results). Requests that are not the agent's conversation (no tools offered: a title, a topic, a
 * quota probe) get a short text answer and take no turn.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ScriptedToolCall {
	name: string;
	input: Record<string, unknown>;
}

/** One model answer: text, then tool calls (none: the turn ends). */
export interface ScriptedTurn {
	text?: string;
	tools?: ScriptedToolCall[];
}

export interface RecordedRequest {
	path: string;
	body: Record<string, unknown>;
	/** Every text the request carries (system prompt, messages, tool results), joined: what a test searches. */
	text: string;
	/** True when it took a scripted turn (the agent's conversation). */
	conversation: boolean;
}

export type StandIn = ScriptedModel<ScriptedTurn>;

/** Every string inside a JSON value, joined with newlines. */
export function allText(value: unknown): string {
	const out: string[] = [];
	const walk = (v: unknown): void => {
		if (typeof v === 'string') {
			out.push(v);
		} else if (Array.isArray(v)) {
			v.forEach(walk);
		} else if (v && typeof v === 'object') {
			Object.values(v).forEach(walk);
		}
	};
	walk(value);
	return out.join('\n');
}

export function readBody(req: http.IncomingMessage): Promise<string> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
		req.on('error', reject);
	});
}

export async function listen(server: http.Server): Promise<string> {
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/**
 * A request's JSON body, recorded, and the turn it gets: the next scripted one when it is the
 * agent's conversation (`offersTools`), else `idle` (a title, a check). Null, after a 400, for a body
 * that is no JSON.
 */
export function takeTurn<T>(input: {
	raw: string;
	path: string;
	res: http.ServerResponse;
	turns: T[];
	requests: RecordedRequest[];
	offersTools: (body: Record<string, unknown>) => boolean;
	text: (body: Record<string, unknown>) => unknown;
	idle: T;
}): { body: Record<string, unknown>; turn: T } | null {
	let body: Record<string, unknown>;
	try {
		body = JSON.parse(input.raw || '{}') as Record<string, unknown>;
	} catch {
		input.res.writeHead(400).end();
		return null;
	}
	const conversation = input.offersTools(body) && input.turns.length > 0;
	input.requests.push({ path: input.path, body, text: allText(input.text(body)), conversation });
	return { body, turn: conversation ? (input.turns.shift() as T) : input.idle };
}

/** What every stand-in offers a test: its address, the requests it recorded, and its script of turns. */
export interface ScriptedModel<T> {
	url: string;
	requests: RecordedRequest[];
	/** Turns not yet played. */
	remaining(): number;
	/** Adds turns for the next run. */
	script(turns: T[]): void;
	/** Drops the turns not played (a run that asked the model fewer times than scripted). */
	clear(): void;
	close(): Promise<void>;
}

/**
 * A stand-in on 127.0.0.1: `handle` answers each request (its body read whole) with the turns and the
 * request log it is given; a handler that throws ends the connection.
 */
export async function scriptedModel<T>(
	initial: T[],
	handle: (request: { method: string; url: URL; raw: string }, res: http.ServerResponse, turns: T[], requests: RecordedRequest[]) => void,
): Promise<ScriptedModel<T>> {
	const turns = [...initial];
	const requests: RecordedRequest[] = [];
	const server = http.createServer((req, res) => {
		void (async () => {
			const raw = await readBody(req);
			handle({ method: req.method ?? 'GET', url: new URL(req.url ?? '/', 'http://127.0.0.1'), raw }, res, turns, requests);
		})().catch(() => res.destroy());
	});
	const url = await listen(server);
	return {
		url,
		requests,
		remaining: () => turns.length,
		script: (more) => turns.push(...more),
		clear: () => void turns.splice(0),
		close: () => new Promise((resolve) => server.close(() => resolve())),
	};
}

let ids = 0;

export async function anthropicStandIn(initial: ScriptedTurn[] = []): Promise<StandIn> {
	return scriptedModel(initial, ({ method, url, raw }, res, turns, requests) => {
		if (method !== 'POST' || !url.pathname.endsWith('/messages')) {
			if (url.pathname.endsWith('/count_tokens')) {
				res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ input_tokens: 100 }));
				return;
			}
			res.writeHead(404, { 'content-type': 'application/json' }).end(
				JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: `no ${url.pathname}` } }),
			);
			return;
		}
		const taken = takeTurn<ScriptedTurn>({
			raw,
			path: url.pathname,
			res,
			turns,
			requests,
			offersTools: (b) => Array.isArray(b['tools']) && b['tools'].length > 0,
			text: (b) => [b['system'], b['messages']],
			idle: { text: 'ok' },
		});
		if (!taken) {
			return;
		}
		const { body, turn } = taken;
		const model = typeof body['model'] === 'string' ? body['model'] : 'claude-sonnet-4-5';
		const content = [
			...(turn.text !== undefined ? [{ type: 'text', text: turn.text }] : []),
			...(turn.tools ?? []).map((t) => ({ type: 'tool_use', id: `toolu_standin_${++ids}`, name: t.name, input: t.input })),
		];
		const stopReason = turn.tools?.length ? 'tool_use' : 'end_turn';
		const usage = { input_tokens: 120, output_tokens: 30, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
		const id = `msg_standin_${++ids}`;
		if (body['stream'] !== true) {
			res.writeHead(200, { 'content-type': 'application/json' }).end(
				JSON.stringify({ id, type: 'message', role: 'assistant', model, content, stop_reason: stopReason, stop_sequence: null, usage }),
			);
			return;
		}
		res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
		const send = (event: string, data: unknown): void => {
			res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
		};
		send('message_start', {
			type: 'message_start',
			message: {
				id,
				type: 'message',
				role: 'assistant',
				model,
				content: [],
				stop_reason: null,
				stop_sequence: null,
				usage: { ...usage, output_tokens: 1 },
			},
		});
		content.forEach((block, index) => {
			if (block.type === 'text') {
				send('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
				send('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: (block as { text: string }).text } });
			} else {
				const call = block as { id: string; name: string; input: Record<string, unknown> };
				send('content_block_start', {
					type: 'content_block_start',
					index,
					content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} },
				});
				send('content_block_delta', {
					type: 'content_block_delta',
					index,
					delta: { type: 'input_json_delta', partial_json: JSON.stringify(call.input) },
				});
			}
			send('content_block_stop', { type: 'content_block_stop', index });
		});
		send('message_delta', {
			type: 'message_delta',
			delta: { stop_reason: stopReason, stop_sequence: null },
			usage: { output_tokens: usage.output_tokens },
		});
		send('message_stop', { type: 'message_stop' });
		res.end();
	});
}
