/** The outside channels by name, with what each still needs before it can send. */
import type { NotificationChannel } from '../../config';
import type { ChannelEnv, ChannelSender } from './channelEnv';
import { sendDiscord } from './discordChannel';
import { emailMissing, sendEmail } from './emailChannel';
import { sendNtfy } from './ntfyChannel';
import { sendSlack } from './slackChannel';
import { sendSms, smsMissing } from './smsChannel';
import { sendWebhook } from './webhookChannel';

type OutsideChannel = Exclude<NotificationChannel, 'editor'>;

export const channelLabels: Record<NotificationChannel, string> = {
	editor: 'VS Code (the editor)',
	slack: 'Slack',
	discord: 'Discord',
	ntfy: 'ntfy',
	email: 'Email (SMTP)',
	webhook: 'Webhook',
	sms: 'SMS (Twilio)',
};

export const channelSenders: Record<OutsideChannel, ChannelSender> = {
	slack: sendSlack,
	discord: sendDiscord,
	ntfy: sendNtfy,
	email: sendEmail,
	webhook: sendWebhook,
	sms: sendSms,
};

/** Secret names and settings a channel still lacks (empty: it can try to send). */
export async function channelMissing(channel: OutsideChannel, env: ChannelEnv): Promise<string[]> {
	const has = async (name: Parameters<ChannelEnv['secrets']['get']>[0]) => Boolean((await env.secrets.get(name))?.trim());
	switch (channel) {
		case 'slack':
			return (await has('slack.webhookUrl')) ? [] : ['slack.webhookUrl'];
		case 'discord':
			return (await has('discord.webhookUrl')) ? [] : ['discord.webhookUrl'];
		case 'webhook':
			return (await has('webhook.url')) ? [] : ['webhook.url'];
		case 'ntfy':
			return env.config.ntfy.topic ? [] : ['notifications.ntfy.topic'];
		case 'email':
			return emailMissing(env, env.config.smtp.user ? await has('smtp.password') : true);
		case 'sms':
			return smsMissing(env);
	}
}
