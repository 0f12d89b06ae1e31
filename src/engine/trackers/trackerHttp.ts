/**
 * JSON over HTTP for the tracker adapters: Node's global `fetch` with a timeout, and errors that
 * name the tracker, the request and the HTTP status but never a secret (every known secret value
 * is masked before the message leaves: it ends up in logs and in the outbox's `last_error`).
 */
import type { TrackerName } from '../config';
import { BatonError } from '../errors';
import { maskSecrets, type SecretName } from '../secrets';

interface TrackerRequest {
	tracker: TrackerName;
	method: 'GET' | 'POST' | 'PATCH';
	url: string;
	headers: Record<string, string>;
	body?: unknown;
	timeoutMs: number;
	/** Secret values that must not appear in an error (tokens, a webhook URL). */
	secrets: ReadonlyMap<SecretName, string>;
	/** How the request is named in errors (default: method and path); never the URL of a secret webhook. */
	label?: string;
}

/** GitHub refuses requests without one. */
const userAgent = 'Baton-issue-trackers';

const labels: Record<TrackerName, string> = { github: 'GitHub', linear: 'Linear', beads: 'Beads', webhook: 'Issue webhook' };

function trackerLabel(tracker: TrackerName): string {
	return labels[tracker];
}

/** A tracker's refusal or failure: `details.status` is the HTTP status (0 when none was received). */
export function trackerError(
	request: Pick<TrackerRequest, 'tracker' | 'secrets'>,
	message: string,
	status: number,
	extra: Record<string, unknown> = {},
): BatonError {
	return new BatonError('trackerFailed', maskSecrets(`${trackerLabel(request.tracker)}: ${message}`, request.secrets), {
		tracker: request.tracker,
		status,
		...extra,
	});
}

/** Sends the request; resolves with the parsed JSON body (null when empty) of a 2xx answer. */
export async function requestJson(request: TrackerRequest): Promise<unknown> {
	const what = request.label ?? `${request.method} ${pathOf(request.url)}`;
	let response: Response;
	try {
		response = await fetch(request.url, {
			method: request.method,
			headers: { 'User-Agent': userAgent, ...(request.body !== undefined ? { 'Content-Type': 'application/json' } : {}), ...request.headers },
			...(request.body !== undefined ? { body: JSON.stringify(request.body) } : {}),
			signal: AbortSignal.timeout(request.timeoutMs),
		});
	} catch (error) {
		const e = error as Error & { cause?: { code?: string; message?: string } };
		const reason = e.name === 'TimeoutError' ? `no answer within ${request.timeoutMs} ms` : (e.cause?.code ?? e.cause?.message ?? e.message);
		throw trackerError(request, `${what} failed: ${reason}`, 0);
	}
	const text = await response.text().catch(() => '');
	if (!response.ok) {
		throw trackerError(request, `${what} answered HTTP ${response.status}${apiMessage(text)}`, response.status);
	}
	if (!text.trim()) {
		return null;
	}
	try {
		return JSON.parse(text) as unknown;
	} catch {
		throw trackerError(request, `${what} answered HTTP ${response.status} with a body that is not JSON`, response.status);
	}
}

/** The path only: query strings and hosts can carry secrets (webhook URLs), and are noise here. */
function pathOf(url: string): string {
	try {
		return new URL(url).pathname;
	} catch {
		return '(invalid URL)';
	}
}

/** GitHub and Linear say why in `message` (or `errors[0].message`); a short excerpt helps the person fixing it. */
function apiMessage(text: string): string {
	try {
		const body = JSON.parse(text) as { message?: unknown; errors?: { message?: unknown }[] };
		const message = typeof body.message === 'string' ? body.message : typeof body.errors?.[0]?.message === 'string' ? body.errors[0].message : null;
		return message ? `: ${message.slice(0, 200)}` : '';
	} catch {
		const plain = text.replace(/\s+/g, ' ').trim();
		return plain ? `: ${plain.slice(0, 120)}` : '';
	}
}
