/**
 * A scripted stand-in for the OpenAI Responses API on 127.0.0.1 (`POST /v1/responses`, streamed as
 * server-sent events), for the real Codex CLI through a custom `model_provider` with `wire_api =
 * "responses"`. Each request of the agent's conversation (one that offers tools) plays the next
 * scripted turn: text, function calls (`shell`/`exec_command` with JSON arguments) and custom tool
 * calls (`apply_patch`, whose input is the patch text). Every request is recorded.
 */
import { scriptedModel, takeTurn, type ScriptedModel } from './anthropic';

export interface ResponsesCall {
	/** `function` (JSON arguments) or `custom` (free-form input, as Codex's `apply_patch`). */
	kind: 'function' | 'custom';
	name: string;
	arguments?: Record<string, unknown>;
	input?: string;
}

export interface ResponsesTurn {
	text?: string;
	calls?: ResponsesCall[];
}

export type ResponsesStandIn = ScriptedModel<ResponsesTurn>;

let ids = 0;

export async function responsesStandIn(initial: ResponsesTurn[] = []): Promise<ResponsesStandIn> {
	return scriptedModel(initial, ({ method, url, raw }, res, turns, requests) => {
		if (method === 'GET' && url.pathname.endsWith('/models')) {
			res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: [] }));
			return;
		}
		if (method !== 'POST' || !url.pathname.endsWith('/responses')) {
			res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `no ${url.pathname}` } }));
			return;
		}
		const taken = takeTurn<ResponsesTurn>({
			raw,
			path: url.pathname,
			res,
			turns,
			requests,
			offersTools: (b) => Array.isArray(b['tools']) && b['tools'].length > 0,
			text: (b) => [b['instructions'], b['input']],
			idle: { text: 'ok' },
		});
		if (!taken) {
			return;
		}
		const { body, turn } = taken;
		const model = typeof body['model'] === 'string' ? body['model'] : 'gpt-5.1-codex';
		const responseId = `resp_standin_${++ids}`;
		const items: Record<string, unknown>[] = [
			...(turn.text !== undefined
				? [
						{
							type: 'message',
							id: `msg_standin_${++ids}`,
							role: 'assistant',
							status: 'completed',
							content: [{ type: 'output_text', text: turn.text, annotations: [] }],
						},
					]
				: []),
			...(turn.calls ?? []).map((c) =>
				c.kind === 'custom'
					? {
							type: 'custom_tool_call',
							id: `ctc_standin_${++ids}`,
							call_id: `call_standin_${ids}`,
							name: c.name,
							input: c.input ?? '',
							status: 'completed',
						}
					: {
							type: 'function_call',
							id: `fc_standin_${++ids}`,
							call_id: `call_standin_${ids}`,
							name: c.name,
							arguments: JSON.stringify(c.arguments ?? {}),
							status: 'completed',
						},
			),
		];
		const response = (status: string, output: unknown[]) => ({
			id: responseId,
			object: 'response',
			created_at: Math.floor(Date.now() / 1000),
			status,
			model,
			output,
			usage:
				status === 'completed'
					? {
							input_tokens: 120,
							input_tokens_details: { cached_tokens: 0 },
							output_tokens: 30,
							output_tokens_details: { reasoning_tokens: 0 },
							total_tokens: 150,
						}
					: null,
		});
		res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
		let seq = 0;
		const send = (type: string, data: Record<string, unknown>): void => {
			res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...data })}\n\n`);
		};
		send('response.created', { response: response('in_progress', []) });
		items.forEach((item, index) => {
			send('response.output_item.added', {
				output_index: index,
				item: item['type'] === 'message' ? { ...item, status: 'in_progress', content: [] } : item,
			});
			if (item['type'] === 'message') {
				const text = ((item['content'] as { text: string }[])[0] as { text: string }).text;
				send('response.content_part.added', {
					item_id: item['id'],
					output_index: index,
					content_index: 0,
					part: { type: 'output_text', text: '', annotations: [] },
				});
				send('response.output_text.delta', { item_id: item['id'], output_index: index, content_index: 0, delta: text });
				send('response.output_text.done', { item_id: item['id'], output_index: index, content_index: 0, text });
				send('response.content_part.done', {
					item_id: item['id'],
					output_index: index,
					content_index: 0,
					part: { type: 'output_text', text, annotations: [] },
				});
			}
			send('response.output_item.done', { output_index: index, item });
		});
		send('response.completed', { response: response('completed', items) });
		res.end();
	});
}
