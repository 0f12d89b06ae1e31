/**
 * Notifications over the protocol: the editor channel (engine message → `notification/show`), the
 * channel list and test sends for “Baton: Send Test Notification”, and the secret names for
 * “Baton: Store Secret…”. Secret values never travel this way (only `secret/get`, the other way).
 */
import type { MessageConnection } from 'vscode-jsonrpc/node';
import { notificationChannels as channelIds, type NotificationChannel } from '../engine/config';
import { BatonError } from '../engine/errors';
import { secretNames, type SecretName } from '../engine/secrets';
import * as rpc from '../protocol/rpc';
import type { EngineHost } from './engineHost';
import { requestRegistrar } from './handlers';

export function registerNotificationHandlers(connection: MessageConnection, host: EngineHost): void {
	const on = requestRegistrar(connection, host);
	on(rpc.notificationChannels, async () => ({ channels: await (await host.get()).notifications.channels() }));
	on(rpc.notificationTest, async ({ channel }) => {
		if (!(channelIds as readonly string[]).includes(channel)) {
			throw new BatonError('invalidInput', `unknown notification channel "${channel}" (one of ${channelIds.join(', ')})`);
		}
		return (await host.get()).notifications.test(channel as NotificationChannel);
	});
	on(rpc.secretList, async () => ({
		secrets: (Object.keys(secretNames) as SecretName[]).map((name) => ({ name, label: secretNames[name].label, env: secretNames[name].env })),
	}));
}
