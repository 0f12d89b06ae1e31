/**
 * A scripted stand-in for the Gemini API on 127.0.0.1 (`models/<model>:streamGenerateContent?alt=sse`
 * and `:generateContent`), for the real Gemini CLI pointed at it with `GOOGLE_GEMINI_BASE_URL`. Each
 * request of the agent's conversation (one that declares functions) plays the next scripted turn:
 * text and function calls. Other requests (a routing or next-speaker check, a token count) get a
 * short answer and take no turn. Every request is recorded.
 */
import { allText, scriptedModel, type ScriptedModel } from './anthropic';

export interface GeminiTurn {
	text?: string;
	calls?: { name: string; args: Record<string, unknown> }[];
}

export type GeminiStandIn = ScriptedModel<GeminiTurn>;

export async function geminiStandIn(initial: GeminiTurn[] = []): Promise<GeminiStandIn> {
	return scriptedModel(initial, ({ method: verb, url, raw }, res, turns, requests) => {
		const method = /:(\w+)$/.exec(url.pathname)?.[1] ?? '';
		if (verb !== 'POST' || !method) {
			res.writeHead(404, { 'content-type': 'application/json' }).end(
				JSON.stringify({ error: { code: 404, message: `no ${url.pathname}`, status: 'NOT_FOUND' } }),
			);
			return;
		}
		let body: Record<string, unknown>;
		try {
			body = JSON.parse(raw || '{}') as Record<string, unknown>;
		} catch {
			res.writeHead(400).end();
			return;
		}
		if (method === 'countTokens') {
			res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ totalTokens: 100 }));
			return;
		}
		const tools = Array.isArray(body['tools']) ? (body['tools'] as { functionDeclarations?: unknown[] }[]) : [];
		const declares = tools.some((t) => Array.isArray(t.functionDeclarations) && t.functionDeclarations.length > 0);
		const conversation = declares && turns.length > 0;
		requests.push({ path: url.pathname, body, text: allText([body['systemInstruction'], body['contents']]), conversation });
		const turn: GeminiTurn = conversation
			? (turns.shift() as GeminiTurn)
			: { text: wantsJson(body) ? '{"reasoning":"the model answered","next_speaker":"user"}' : 'ok' };
		const parts = [
			...(turn.text !== undefined ? [{ text: turn.text }] : []),
			...(turn.calls ?? []).map((c) => ({ functionCall: { name: c.name, args: c.args } })),
		];
		const answer = {
			candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
			usageMetadata: { promptTokenCount: 120, candidatesTokenCount: 30, totalTokenCount: 150 },
			modelVersion: url.pathname.split('/').at(-1)?.split(':')[0] ?? 'gemini',
		};
		if (method === 'streamGenerateContent') {
			res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
			res.write(`data: ${JSON.stringify(answer)}\r\n\r\n`);
			res.end();
			return;
		}
		res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
	});
}

/** A request that asks for JSON (Gemini CLI's own checks set a response schema). */
function wantsJson(body: Record<string, unknown>): boolean {
	const config = body['generationConfig'] as { responseMimeType?: unknown } | undefined;
	return config?.responseMimeType === 'application/json';
}
