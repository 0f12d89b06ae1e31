/**
 * An estimate of what a session's tokens cost, for the escalation threshold of checkpoints (default
 * $5). List prices in USD per million tokens by model family; cache reads cost a tenth of input,
 * cache writes 1.25×. Unknown models are priced like Sonnet. An estimate, never a bill.
 */
export interface TokenCounts {
	input: number;
	output: number;
	cacheRead: number;
	cacheCreation: number;
}

export const emptyTokens = (): TokenCounts => ({ input: 0, output: 0, cacheRead: 0, cacheCreation: 0 });

interface Price {
	input: number;
	output: number;
}

const prices: [RegExp, Price][] = [
	[/opus-4-[5-9]|opus-[5-9]/, { input: 5, output: 25 }],
	[/opus/, { input: 15, output: 75 }],
	[/haiku-4|haiku-[5-9]/, { input: 1, output: 5 }],
	[/haiku-3-5|3-5-haiku/, { input: 0.8, output: 4 }],
	[/haiku/, { input: 0.25, output: 1.25 }],
	[/sonnet/, { input: 3, output: 15 }],
];
const fallback: Price = { input: 3, output: 15 };

function priceOf(model: string): Price {
	const key = model.toLowerCase();
	return prices.find(([pattern]) => pattern.test(key))?.[1] ?? fallback;
}

export function estimateCostUsd(byModel: Record<string, TokenCounts>): number {
	let usd = 0;
	for (const [model, t] of Object.entries(byModel)) {
		const price = priceOf(model);
		usd += (t.input * price.input + t.cacheRead * price.input * 0.1 + t.cacheCreation * price.input * 1.25 + t.output * price.output) / 1_000_000;
	}
	return Math.round(usd * 10_000) / 10_000;
}

export function addTokens(into: TokenCounts, add: TokenCounts, sign = 1): void {
	into.input += sign * add.input;
	into.output += sign * add.output;
	into.cacheRead += sign * add.cacheRead;
	into.cacheCreation += sign * add.cacheCreation;
}

/** Claude's `message.usage` → counts (missing fields are 0). */
export function tokensOfUsage(usage: unknown): TokenCounts | null {
	if (!usage || typeof usage !== 'object') {
		return null;
	}
	const u = usage as Record<string, unknown>;
	const n = (key: string): number => (typeof u[key] === 'number' && Number.isFinite(u[key]) ? (u[key] as number) : 0);
	return { input: n('input_tokens'), output: n('output_tokens'), cacheRead: n('cache_read_input_tokens'), cacheCreation: n('cache_creation_input_tokens') };
}
