/**
 * A server on 127.0.0.1 that speaks Twilio's Messages API (2010-04-01) as far as Baton uses it:
 * `POST /2010-04-01/Accounts/{AccountSid}/Messages.json`, form-encoded, HTTP Basic auth with the
 * account SID and auth token or an API key SID and secret. It checks what Twilio checks and answers
 * as Twilio does: 201 with the message resource, or Twilio's error JSON (`code`, `message`,
 * `more_info`, `status`) — 401 20003, 404 20404, 400 21211/21602/21603/21604/21617. Scripted
 * answers go first, one per request: 429 20429 with Retry-After, 500 20500, or a 401 that echoes
 * the request's Authorization header (a hostile peer, for the redaction tests).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TwilioAccount {
	accountSid: string;
	authToken: string;
	apiKey?: { sid: string; secret: string };
	/** Numbers Twilio refuses as invalid (21211), however well formed. */
	invalidNumbers?: string[];
}

export type TwilioScripted = { status: 429; retryAfter?: string } | { status: 500 } | { status: 401; echoAuthorization: true };

export interface TwilioRequest {
	method: string;
	path: string;
	contentType: string | undefined;
	/** Basic auth as sent (undefined when none). */
	user: string | undefined;
	password: string | undefined;
	form: Record<string, string>;
	status: number;
}

export interface TwilioMessage {
	sid: string;
	to: string;
	from: string | null;
	messaging_service_sid: string | null;
	body: string;
}

export interface TwilioPeer {
	url: string;
	requests: TwilioRequest[];
	/** Messages it accepted (answered 201). */
	messages: TwilioMessage[];
	/** Answers for the next requests, taken in order before the normal ones. */
	script: TwilioScripted[];
}

const error = (code: number, message: string, status: number) => ({ code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status });
const hex32 = (n: number) => n.toString(16).padStart(32, '0');

/** Where the server's closing is registered: node:test's context, or a mocha suite's list of teardowns. */
export interface Cleanup {
	after(fn: () => Promise<void>): void;
}

export async function twilioPeer(t: Cleanup, account: TwilioAccount, script: TwilioScripted[] = []): Promise<TwilioPeer> {
	const peer: TwilioPeer = { url: '', requests: [], messages: [], script };
	const server = http.createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', () => {
			const [user, password] = basicAuth(req.headers.authorization);
			const form = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
			const request: TwilioRequest = {
				method: req.method ?? '',
				path: req.url ?? '',
				contentType: req.headers['content-type'],
				user,
				password,
				form,
				status: 0,
			};
			peer.requests.push(request);
			const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => {
				request.status = status;
				res.writeHead(status, { 'content-type': 'application/json', ...headers });
				res.end(JSON.stringify(body));
			};
			const scripted = peer.script.shift();
			if (scripted?.status === 429)
				return answer(429, error(20429, 'Too Many Requests', 429), scripted.retryAfter ? { 'retry-after': scripted.retryAfter } : {});
			if (scripted?.status === 500) return answer(500, error(20500, 'Internal Server Error', 500));
			if (scripted?.status === 401) return answer(401, error(20003, `Authenticate: ${req.headers.authorization ?? ''}`, 401));
			const match = /^\/2010-04-01\/Accounts\/([^/]+)\/Messages\.json$/.exec(request.path);
			const knownUser =
				user === account.accountSid ? password === account.authToken : user === account.apiKey?.sid && password === account.apiKey?.secret;
			if (!knownUser) return answer(401, error(20003, 'Authenticate', 401));
			if (request.method !== 'POST' || !match || match[1] !== account.accountSid)
				return answer(404, error(20404, `The requested resource ${request.path} was not found`, 404));
			if (!request.contentType?.startsWith('application/x-www-form-urlencoded')) return answer(400, error(21602, 'Message body is required.', 400));
			const to = form['To'];
			if (!to) return answer(400, error(21604, "A 'To' phone number is required.", 400));
			if (!/^\+[1-9]\d{1,14}$/.test(to) || account.invalidNumbers?.includes(to))
				return answer(400, error(21211, `The 'To' number ${to} is not a valid phone number.`, 400));
			if (!form['From'] && !form['MessagingServiceSid']) return answer(400, error(21603, "A 'From' phone number is required.", 400));
			const body = form['Body'];
			if (!body) return answer(400, error(21602, 'Message body is required.', 400));
			if (body.length > 1600) return answer(400, error(21617, 'The concatenated message body exceeds the 1600 character limit.', 400));
			const message: TwilioMessage = {
				sid: `SM${hex32(peer.messages.length + 1)}`,
				to,
				from: form['From'] ?? null,
				messaging_service_sid: form['MessagingServiceSid'] ?? null,
				body,
			};
			peer.messages.push(message);
			answer(201, {
				...message,
				account_sid: account.accountSid,
				status: message.messaging_service_sid ? 'accepted' : 'queued',
				direction: 'outbound-api',
				api_version: '2010-04-01',
				num_segments: '1',
				error_code: null,
				error_message: null,
				uri: `/2010-04-01/Accounts/${account.accountSid}/Messages/${message.sid}.json`,
			});
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	peer.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	t.after(
		() =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	);
	return peer;
}

function basicAuth(header: string | undefined): [string | undefined, string | undefined] {
	const match = /^Basic (.+)$/.exec(header ?? '');
	if (!match?.[1]) return [undefined, undefined];
	const decoded = Buffer.from(match[1], 'base64').toString('utf8');
	const colon = decoded.indexOf(':');
	return colon < 0 ? [decoded, undefined] : [decoded.slice(0, colon), decoded.slice(colon + 1)];
}

/** An account whose SIDs have Twilio's shapes (AC…, SK…) and distinctive secrets. */
export function testAccount(overrides: Partial<TwilioAccount> = {}): TwilioAccount {
	return { accountSid: `AC${'a1b2c3d4'.repeat(4)}`, authToken: 'twilioAuthTokenCANARY5e3f9c', ...overrides };
}
