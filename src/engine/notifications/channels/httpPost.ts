/**
 * One POST to a notification peer, with a timeout on the whole exchange, no redirects (a redirect
 * would carry the body somewhere nobody configured), and errors that name the channel and the HTTP
 * status but never a secret: every message passes through `maskSecrets` with the values this
 * delivery used (a webhook URL embeds its token; a peer may echo a token back in its error body).
 */
import { RetryLater } from '../../outbox/outbox';
import { maskSecrets, type SecretName } from '../../secrets';
import { pushAll } from '../../arrays';

export interface PostTarget {
	channel: string;
	timeoutMs: number;
	/** The secret values this delivery used, masked out of every error. */
	secrets: ReadonlyMap<SecretName, string>;
	/** Values made from a secret (a Basic credential in base64), masked as that secret. */
	derived?: readonly (readonly [SecretName, string])[];
}

export function channelError(target: Pick<PostTarget, 'channel' | 'secrets' | 'derived'>, detail: string): Error {
	return new Error(maskDeliveryText(`${target.channel}: ${detail}`, target.secrets, target.derived));
}

/**
 * `maskSecrets`, and more for secret URLs: a URL carries its token in the path or query, and a peer
 * may echo just that part back ("no such hook /services/…"). The path with its query, long path
 * segments and query values are masked too, longest first.
 */
export function maskDeliveryText(text: string, secrets: ReadonlyMap<SecretName, string>, derived: readonly (readonly [SecretName, string])[] = []): string {
	const entries: [SecretName, string][] = derived.map(([name, value]): [SecretName, string] => [name, value]);
	for (const [name, value] of secrets) {
		entries.push([name, value]);
		let url: URL;
		try {
			url = new URL(value);
		} catch {
			continue;
		}
		const parts = [
			`${url.pathname}${url.search}`,
			url.pathname,
			...url.pathname.split('/').filter((s) => s.length >= 16),
			...[...url.searchParams.values()],
			url.password,
		];
		pushAll(entries, [...parts.filter((part) => part.length >= 8).map((part): [SecretName, string] => [name, part])]);
	}
	let out = text;
	for (const [name, value] of entries.sort((a, b) => b[1].length - a[1].length)) {
		out = maskSecrets(out, new Map([[name, value]]));
	}
	return out;
}

interface PostInit {
	headers: Record<string, string>;
	body: string;
	/** What a refusal's body says, for a peer whose errors have a known shape (the raw body otherwise). */
	describeError?: (text: string) => string | undefined;
}

/** POSTs and returns the answer's body when the status is 2xx; anything else is an error naming the status. */
export async function httpPost(target: PostTarget, url: string, init: PostInit): Promise<string> {
	let parsed: URL;
	try {
		parsed = new URL(url);
	} catch {
		throw channelError(target, 'the configured URL is not a valid URL');
	}
	if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
		throw channelError(target, 'the configured URL must start with https:// (or http://)');
	}
	let response: Response;
	let text: string;
	try {
		response = await fetch(parsed, {
			method: 'POST',
			headers: init.headers,
			body: init.body,
			redirect: 'error',
			signal: AbortSignal.timeout(target.timeoutMs),
		});
		text = await response.text();
	} catch (error) {
		const e = error as Error & { cause?: { code?: string; message?: string } };
		if (e.name === 'TimeoutError' || e.name === 'AbortError') {
			throw channelError(target, `no answer within ${target.timeoutMs} ms`);
		}
		throw channelError(target, `request failed: ${e.cause?.code ?? e.cause?.message ?? e.message}`);
	}
	if (response.ok) {
		return text;
	}
	const body = (init.describeError?.(text) ?? text).replace(/\s+/g, ' ').trim().slice(0, 300);
	const detail = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}${body ? `: ${body}` : ''}`;
	const wait = response.status === 429 ? retryAfterMs(response.headers, text) : undefined;
	if (wait !== undefined) {
		throw new RetryLater(maskDeliveryText(`${target.channel}: ${detail} (retrying in ${wait} ms as asked)`, target.secrets, target.derived), wait);
	}
	throw channelError(target, detail);
}

/** Discord's JSON `retry_after` (seconds, fractional) first, then the standard `Retry-After` header; at most an hour. */
function retryAfterMs(headers: Headers, body: string): number | undefined {
	let seconds: number | undefined;
	try {
		const parsed = JSON.parse(body) as { retry_after?: unknown };
		if (typeof parsed.retry_after === 'number') seconds = parsed.retry_after;
	} catch {
		// Not JSON: the header decides.
	}
	const header = headers.get('retry-after');
	if (seconds === undefined && header) {
		seconds = /^\d+(\.\d+)?$/.test(header.trim()) ? Number(header) : (Date.parse(header) - Date.now()) / 1000;
	}
	return seconds === undefined || !Number.isFinite(seconds) ? undefined : Math.min(3_600_000, Math.max(0, Math.ceil(seconds * 1000)));
}
