/**
 * Discord webhook: `POST {content, embeds}` to the webhook URL (a secret). Mentions are switched off
 * (a session named "@everyone" must not ping a server), and a 429's `retry_after` is honoured by
 * the outbox (httpPost turns it into the next attempt's time).
 */
import type { SecretName } from '../../secrets';
import { filesLine, formatDuration, formatUsd, type NotificationMessage } from '../notificationMessage';
import { requiredSecret, type ChannelEnv } from './channelEnv';
import { httpPost } from './httpPost';

const colours: Record<NotificationMessage['priority'], number> = { info: 0x3b82f6, notice: 0x10b981, warning: 0xf59e0b, critical: 0xdc2626 };

function discordPayload(m: NotificationMessage): Record<string, unknown> {
	const field = (name: string, value: string, inline = true) => ({ name: name.slice(0, 256), value: value.slice(0, 1024) || '—', inline });
	const fields = [
		...(m.session
			? [
					field('Session', `${m.session.name}\n${m.session.id}`),
					field('Cost', formatUsd(m.session.costUsd)),
					field('Duration', formatDuration(m.session.durationMs)),
				]
			: []),
		field('Files changed', filesLine(m.filesChanged)),
		...(m.checkpoint?.escalationReasons.length ? [field('Escalated', m.checkpoint.escalationReasons.join('\n'), false)] : []),
		...m.actions.map((a) => field(a.label, `\`${a.cli}\`\nVS Code: ${a.editor}`, false)),
	].slice(0, 25);
	return {
		content: `**[${m.priority}]** ${m.title}`.slice(0, 2000),
		embeds: [
			{
				title: m.title.slice(0, 256),
				description: m.summary.slice(0, 4096),
				color: colours[m.priority],
				fields,
				timestamp: m.at,
				footer: { text: `Baton · ${m.workspace}`.slice(0, 2048) },
			},
		],
		allowed_mentions: { parse: [] },
	};
}

export async function sendDiscord(m: NotificationMessage, env: ChannelEnv): Promise<void> {
	const used = new Map<SecretName, string>();
	const url = await requiredSecret(env, 'discord', 'discord.webhookUrl', used);
	await httpPost({ channel: 'discord', timeoutMs: env.timeoutMs(), secrets: used }, url, {
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(discordPayload(m)),
	});
}
