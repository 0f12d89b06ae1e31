/** Slack incoming webhook: `POST {text, blocks}` to the webhook URL (a secret: it embeds the token). */
import { factsLine, plainText, type NotificationMessage } from '../notificationMessage';
import type { SecretName } from '../../secrets';
import { requiredSecret, type ChannelEnv } from './channelEnv';
import { httpPost } from './httpPost';

/** Slack's mrkdwn treats &, < and > as markup (`<!channel>` would ping everyone): escape them. */
const escape = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function slackPayload(m: NotificationMessage): { text: string; blocks: unknown[] } {
	const reasons = m.checkpoint?.escalationReasons.length ? `\n*Escalated:* ${escape(m.checkpoint.escalationReasons.join('; '))}` : '';
	const blocks: unknown[] = [
		{ type: 'header', text: { type: 'plain_text', text: m.title.slice(0, 150) } },
		{ type: 'section', text: { type: 'mrkdwn', text: `${escape(m.summary)}${reasons}`.slice(0, 3000) } },
		{ type: 'context', elements: [{ type: 'mrkdwn', text: `*${m.priority}* · ${escape(factsLine(m))}`.slice(0, 3000) }] },
	];
	if (m.actions.length > 0) {
		blocks.push({
			type: 'section',
			text: {
				type: 'mrkdwn',
				text: m.actions
					.map((a) => `*${escape(a.label)}:* \`${escape(a.cli)}\` · VS Code: _${escape(a.editor)}_`)
					.join('\n')
					.slice(0, 3000),
			},
		});
	}
	return { text: escape(`[${m.priority}] ${m.title}\n${plainText(m)}`), blocks };
}

export async function sendSlack(m: NotificationMessage, env: ChannelEnv): Promise<void> {
	const used = new Map<SecretName, string>();
	const url = await requiredSecret(env, 'slack', 'slack.webhookUrl', used);
	await httpPost({ channel: 'slack', timeoutMs: env.timeoutMs(), secrets: used }, url, {
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(slackPayload(m)),
	});
}
