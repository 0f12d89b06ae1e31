/**
 * SMS through Twilio's Messages API: one `POST {server}/2010-04-01/Accounts/{AccountSid}/Messages.json`
 * per recipient, form-encoded `To`, `From` (or `MessagingServiceSid`) and `Body`, with HTTP Basic
 * auth as the account SID and auth token, or as an API key SID and secret (the account SID stays in
 * the path). Every credential is a secret (`twilio.*`); the recipients and the sender are settings.
 *
 * A text is one compact line (title, summary, the first action's command), typographic punctuation
 * made plain so it stays in the GSM alphabet (one “ would bill the whole text as UCS-2), cut at
 * `sms.maxLength` with an ellipsis: never split over several messages behind the reader's back.
 *
 * Twilio answers 201 with the message resource (`sid`, `status`) and an error with its JSON
 * (`code`, `message`, `more_info`, `status`), which the error quotes. A 429's Retry-After is
 * honoured, any other failure is retried with the outbox's backoff, like every channel. The
 * recipients a delivery already reached are remembered per outbox row in this process, so a retry
 * after a partial failure texts only the others (another process retrying it cannot know them).
 */
import { e164Pattern } from '../../config';
import type { SecretName } from '../../secrets';
import { escapeControls } from '../../text/controlChars';
import type { NotificationMessage } from '../notificationMessage';
import { missingSecretText, secretFor, type ChannelEnv } from './channelEnv';
import { channelError, httpPost, type PostTarget } from './httpPost';
import { RetryLater } from '../../outbox/outbox';

const plain: Record<string, string> = { '“': '"', '”': '"', '„': '"', '‘': "'", '’': "'", '—': '-', '–': '-', '·': '-', '…': '...', '\u00a0': ' ' };

/** The one-line text of a notification, at most `maxLength` UTF-16 units (what Twilio counts), never cut inside a character. */
export function smsText(m: NotificationMessage, maxLength: number): string {
	const action = m.actions[0];
	const parts = [`Baton ${m.priority}: ${m.title}`, m.summary, ...(action ? [`${action.label}: ${action.cli}`] : [])];
	const line = escapeControls(parts.join(' - ').replace(/\s+/g, ' ').trim()).replace(
		/[\u201c\u201d\u201e\u2018\u2019\u2014\u2013\u00b7\u2026\u00a0]/g,
		(c) => plain[c] ?? c,
	);
	if (line.length <= maxLength) {
		return line;
	}
	let out = '';
	for (const char of line) {
		if (out.length + char.length > maxLength - 1) break;
		out += char;
	}
	return `${out.trimEnd()}…`;
}

/** Settings and secrets the channel still lacks (empty: it can try to send). */
export async function smsMissing(env: ChannelEnv): Promise<string[]> {
	const has = async (name: SecretName) => Boolean((await env.secrets.get(name))?.trim());
	const sms = env.config.sms;
	const apiKey = (await has('twilio.apiKeySid')) || (await has('twilio.apiKeySecret'));
	const secrets: SecretName[] = ['twilio.accountSid', ...(apiKey ? (['twilio.apiKeySid', 'twilio.apiKeySecret'] as const) : (['twilio.authToken'] as const))];
	const lacking: string[] = [];
	for (const name of secrets) if (!(await has(name))) lacking.push(name);
	return [...(sms.to.length > 0 ? [] : ['notifications.sms.to']), ...(sms.from || sms.messagingServiceSid ? [] : ['notifications.sms.from']), ...lacking];
}

interface Credentials {
	accountSid: string;
	/** Basic auth's user and password, and the secret the password is. */
	user: string;
	password: string;
	secret: SecretName;
}

async function credentials(env: ChannelEnv, used: Map<SecretName, string>): Promise<Credentials> {
	const fail = (detail: string) => channelError({ channel: 'sms', secrets: used }, detail);
	const accountSid = await secretFor(env, 'twilio.accountSid', used);
	if (!accountSid) throw fail(missingSecretText('twilio.accountSid'));
	if (!/^AC[0-9a-fA-F]{32}$/.test(accountSid))
		throw fail('the stored twilio.accountSid is not an account SID (AC and 32 hexadecimal digits, from the Twilio Console)');
	const keySid = await secretFor(env, 'twilio.apiKeySid', used);
	const keySecret = await secretFor(env, 'twilio.apiKeySecret', used);
	if (keySid || keySecret) {
		if (!keySid) throw fail(`${missingSecretText('twilio.apiKeySid')} (twilio.apiKeySecret is set: an API key is used instead of the auth token)`);
		if (!keySecret) throw fail(`${missingSecretText('twilio.apiKeySecret')} (twilio.apiKeySid is set: an API key is used instead of the auth token)`);
		if (!/^SK[0-9a-fA-F]{32}$/.test(keySid)) throw fail('the stored twilio.apiKeySid is not an API key SID (SK and 32 hexadecimal digits)');
		return { accountSid, user: keySid, password: keySecret, secret: 'twilio.apiKeySecret' };
	}
	const token = await secretFor(env, 'twilio.authToken', used);
	if (!token) throw fail(missingSecretText('twilio.authToken'));
	return { accountSid, user: accountSid, password: token, secret: 'twilio.authToken' };
}

/** Twilio's error JSON as one sentence: `Twilio error 21211: The 'To' number … (more_info)`. */
function twilioErrorText(body: string): string | undefined {
	try {
		const e = JSON.parse(body) as { code?: unknown; message?: unknown; more_info?: unknown };
		if (typeof e.message !== 'string') return undefined;
		const code = typeof e.code === 'number' || typeof e.code === 'string' ? ` ${e.code}` : '';
		return `Twilio error${code}: ${e.message}${typeof e.more_info === 'string' ? ` (${e.more_info})` : ''}`;
	} catch {
		return undefined;
	}
}

/** Recipients each outbox row already reached in this process (bounded: the oldest rows are forgotten first). */
const reached = new Map<string, Set<string>>();
const reachedLimit = 500;

function reachedFor(deliveryId: string | undefined): Set<string> {
	const known = deliveryId ? reached.get(deliveryId) : undefined;
	if (known || !deliveryId) return known ?? new Set();
	const fresh = new Set<string>();
	reached.set(deliveryId, fresh);
	for (const key of reached.keys()) {
		if (reached.size <= reachedLimit) break;
		reached.delete(key);
	}
	return fresh;
}

export async function sendSms(m: NotificationMessage, env: ChannelEnv): Promise<void> {
	const sms = env.config.sms;
	const used = new Map<SecretName, string>();
	if (sms.to.length === 0 || !(sms.from || sms.messagingServiceSid)) {
		const lacking = [
			...(sms.to.length ? [] : ['notifications.sms.to (the numbers to text)']),
			...(sms.from || sms.messagingServiceSid ? [] : ['notifications.sms.from (or notifications.sms.messagingServiceSid)']),
		];
		throw channelError({ channel: 'sms', secrets: used }, `not configured: set ${lacking.join(' and ')}`);
	}
	// The settings were checked when read; a number recorded by an older Baton is checked again here.
	const bad = [sms.from, ...sms.to].find((n) => n !== undefined && !e164Pattern.test(n));
	if (bad !== undefined)
		throw channelError(
			{ channel: 'sms', secrets: used },
			`${bad === sms.from ? 'notifications.sms.from' : 'notifications.sms.to'}: "${bad}" is not a phone number in E.164 form (e.g. +14155550123)`,
		);
	const creds = await credentials(env, used);
	const basic = Buffer.from(`${creds.user}:${creds.password}`, 'utf8').toString('base64');
	const url = `${sms.server.replace(/\/+$/, '')}/2010-04-01/Accounts/${creds.accountSid}/Messages.json`;
	const body = smsText(m, sms.maxLength);
	const done = reachedFor(env.deliveryId);
	const failures: string[] = [];
	for (const to of sms.to) {
		if (done.has(to)) continue;
		const target: PostTarget = { channel: `sms (to ${to})`, timeoutMs: env.timeoutMs(), secrets: used, derived: [[creds.secret, basic]] };
		const form = new URLSearchParams({
			To: to,
			...(sms.messagingServiceSid ? { MessagingServiceSid: sms.messagingServiceSid } : { From: sms.from as string }),
			Body: body,
		});
		try {
			const answer = await httpPost(target, url, {
				headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', authorization: `Basic ${basic}` },
				body: form.toString(),
				describeError: twilioErrorText,
			});
			checkResource(target, answer);
			done.add(to);
		} catch (error) {
			const partial = partialNote(done.size, sms.to.length);
			if (error instanceof RetryLater) throw new RetryLater(`${error.message}${partial}`, error.retryAfterMs, error.countsAsAttempt);
			failures.push((error as Error).message);
		}
	}
	if (failures.length > 0) {
		throw new Error(`${failures.join('; ')}${partialNote(done.size, sms.to.length)}`);
	}
	if (env.deliveryId) reached.delete(env.deliveryId);
}

const partialNote = (texted: number, all: number): string => (texted > 0 ? ` (texted ${texted} of ${all}; a retry texts only the others)` : '');

/** A 2xx that is not a message resource (a proxy's page, a wrong server) is no delivery. */
function checkResource(target: PostTarget, answer: string): void {
	let resource: { sid?: unknown; status?: unknown; error_code?: unknown; error_message?: unknown };
	try {
		resource = JSON.parse(answer) as typeof resource;
	} catch {
		throw channelError(target, 'the answer is not Twilio’s message resource (not JSON): is notifications.sms.server Twilio’s API?');
	}
	if (typeof resource.sid !== 'string') {
		throw channelError(target, 'the answer is not Twilio’s message resource (no sid): is notifications.sms.server Twilio’s API?');
	}
	if (resource.status === 'failed' || resource.status === 'undelivered') {
		throw channelError(
			target,
			`Twilio took message ${resource.sid} as ${resource.status}${typeof resource.error_message === 'string' ? `: ${resource.error_message}` : ''}`,
		);
	}
}
