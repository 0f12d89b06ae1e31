/**
 * ntfy: the message body posted to `<server>/<topic>` with `Title`, `Priority` (1–5), `Tags` and
 * `Click` headers, and `Authorization: Bearer <ntfy.token>` when a token is stored. Header values
 * outside ASCII are sent as RFC 2047 encoded words, which ntfy decodes (fetch refuses raw UTF-8).
 */
import type { SecretName } from '../../secrets';
import { plainText, type NotificationMessage } from '../notificationMessage';
import { secretFor, type ChannelEnv } from './channelEnv';
import { channelError, httpPost } from './httpPost';

const ntfyPriority: Record<NotificationMessage['priority'], string> = { info: '2', notice: '3', warning: '4', critical: '5' };
/** Tags that match an emoji short code show as that emoji in ntfy's apps. */
const ntfyTag: Record<NotificationMessage['priority'], string> = { info: 'information_source', notice: 'bell', warning: 'warning', critical: 'rotating_light' };

function headerText(value: string): string {
	const clean = value.replace(/[\r\n]+/g, ' ');
	return /^[\x20-\x7e]*$/.test(clean) ? clean : `=?UTF-8?B?${Buffer.from(clean, 'utf8').toString('base64')}?=`;
}

/** Opens the workspace in VS Code from the phone or desktop notification. */
function vscodeLink(workspaceRoot: string): string {
	return `vscode://file/${encodeURI(workspaceRoot.replace(/\\/g, '/').replace(/^\/+/, ''))}`;
}

export async function sendNtfy(m: NotificationMessage, env: ChannelEnv): Promise<void> {
	const { server, topic } = env.config.ntfy;
	const used = new Map<SecretName, string>();
	if (!topic) {
		throw channelError({ channel: 'ntfy', secrets: used }, 'no topic is configured (setting baton.notifications.ntfy.topic)');
	}
	const token = await secretFor(env, 'ntfy.token', used);
	const headers: Record<string, string> = {
		'content-type': 'text/plain; charset=utf-8',
		Title: headerText(`Baton: ${m.title}`),
		Priority: ntfyPriority[m.priority],
		Tags: ['baton', ntfyTag[m.priority], m.event].join(','),
		Click: vscodeLink(env.workspaceRoot),
		...(token ? { Authorization: `Bearer ${token}` } : {}),
	};
	await httpPost({ channel: 'ntfy', timeoutMs: env.timeoutMs(), secrets: used }, `${server.replace(/\/+$/, '')}/${topic}`, { headers, body: plainText(m) });
}
