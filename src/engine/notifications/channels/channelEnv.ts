/**
 * What a channel needs to send one message: the non-secret configuration, the host's secrets
 * (asked for at send time, never kept), and how long it may take.
 */
import type { NotificationConfig } from '../../config';
import { secretNames, type SecretName, type SecretSource } from '../../secrets';
import type { NotificationMessage } from '../notificationMessage';
import { channelError } from './httpPost';

export interface ChannelEnv {
	config: NotificationConfig;
	secrets: SecretSource;
	workspaceRoot: string;
	/** The time one request may take now (the configured timeout, or less when the host is short of time). */
	timeoutMs(): number;
	/** The outbox row (or test send) being delivered, for a channel that sends several requests per delivery. */
	deliveryId?: string;
}

export type ChannelSender = (message: NotificationMessage, env: ChannelEnv) => Promise<void>;

/** A secret's value, remembered in `used` so errors can mask it. */
export async function secretFor(env: ChannelEnv, name: SecretName, used: Map<SecretName, string>): Promise<string | undefined> {
	const value = (await env.secrets.get(name))?.trim();
	if (value) {
		used.set(name, value);
	}
	return value || undefined;
}

export async function requiredSecret(env: ChannelEnv, channel: string, name: SecretName, used: Map<SecretName, string>): Promise<string> {
	const value = await secretFor(env, name, used);
	if (!value) {
		throw channelError({ channel, secrets: used }, missingSecretText(name));
	}
	return value;
}

export function missingSecretText(name: SecretName): string {
	return `no ${name} is set: store it with “Baton: Store Secret…” in VS Code, or set ${secretNames[name].env} for the CLI`;
}
