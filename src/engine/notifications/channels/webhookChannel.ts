/**
 * Generic webhook: the whole message as JSON (plus a plain `text`), to the stored URL, with
 * `Authorization: Bearer <webhook.token>` when a token is stored. Both are secrets.
 */
import type { SecretName } from '../../secrets';
import { plainText, type NotificationMessage } from '../notificationMessage';
import { requiredSecret, secretFor, type ChannelEnv } from './channelEnv';
import { httpPost } from './httpPost';

function webhookPayload(m: NotificationMessage): Record<string, unknown> {
	return { source: 'baton', ...m, text: `[${m.priority}] ${m.title}\n${plainText(m)}` };
}

export async function sendWebhook(m: NotificationMessage, env: ChannelEnv): Promise<void> {
	const used = new Map<SecretName, string>();
	const url = await requiredSecret(env, 'webhook', 'webhook.url', used);
	const token = await secretFor(env, 'webhook.token', used);
	await httpPost({ channel: 'webhook', timeoutMs: env.timeoutMs(), secrets: used }, url, {
		headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
		body: JSON.stringify(webhookPayload(m)),
	});
}
