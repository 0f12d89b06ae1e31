/**
 * A scripted stand-in for the OpenAI Chat Completions API on 127.0.0.1 (`POST /v1/chat/completions`,
 * streamed as server-sent `chat.completion.chunk`s when the request streams), for the real Cline CLI
 * through its `openai-compatible` provider. Each request of the agent's conversation (one that offers
 * tools) plays the next scripted turn: text, then function calls with JSON arguments. Every request
 * is recorded.
 */
import { scriptedModel, takeTurn, type ScriptedModel } from './anthropic';

export interface ChatTurn {
	text?: string;
	calls?: { name: string; arguments: Record<string, unknown> }[];
}

export type ChatStandIn = ScriptedModel<ChatTurn>;

let ids = 0;

export async function chatCompletionsStandIn(initial: ChatTurn[] = []): Promise<ChatStandIn> {
	return scriptedModel(initial, ({ method, url, raw }, res, turns, requests) => {
		if (method === 'GET' && url.pathname.endsWith('/models')) {
			res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: [] }));
			return;
		}
		if (method !== 'POST' || !url.pathname.endsWith('/chat/completions')) {
			res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `no ${url.pathname}` } }));
			return;
		}
		const taken = takeTurn<ChatTurn>({
			raw,
			path: url.pathname,
			res,
			turns,
			requests,
			offersTools: (b) => Array.isArray(b['tools']) && b['tools'].length > 0,
			text: (b) => b['messages'],
			idle: { text: 'ok' },
		});
		if (!taken) {
			return;
		}
		const { body, turn } = taken;
		const id = `chatcmpl-standin-${++ids}`;
		const model = typeof body['model'] === 'string' ? body['model'] : 'gpt-5.5';
		const created = Math.floor(Date.now() / 1000);
		const calls = (turn.calls ?? []).map((c, index) => ({
			index,
			id: `call_standin_${++ids}`,
			type: 'function',
			function: { name: c.name, arguments: JSON.stringify(c.arguments) },
		}));
		const finish = calls.length > 0 ? 'tool_calls' : 'stop';
		const usage = { prompt_tokens: 120, completion_tokens: 30, total_tokens: 150 };
		if (body['stream'] !== true) {
			const message = { role: 'assistant', content: turn.text ?? null, ...(calls.length ? { tool_calls: calls.map(({ index: _i, ...c }) => c) } : {}) };
			res.writeHead(200, { 'content-type': 'application/json' }).end(
				JSON.stringify({ id, object: 'chat.completion', created, model, choices: [{ index: 0, message, finish_reason: finish }], usage }),
			);
			return;
		}
		res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
		const chunk = (delta: Record<string, unknown>, finishReason: string | null, extra: Record<string, unknown> = {}): void => {
			res.write(
				`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finishReason }], ...extra })}\n\n`,
			);
		};
		chunk({ role: 'assistant', content: '' }, null);
		if (turn.text) {
			chunk({ content: turn.text }, null);
		}
		for (const call of calls) {
			chunk({ tool_calls: [call] }, null);
		}
		chunk({}, finish, { usage });
		res.end('data: [DONE]\n\n');
	});
}
