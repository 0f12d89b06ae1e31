/**
 * Notifications over the protocol: the editor channel (engine message → `notification/show`), the
 * channel list and test sends for “Baton: Send Test Notification”, and the secret names for
 * “Baton: Store Secret…”. Secret values never travel this way (only `secret/get`, the other way).
 */
import type { MessageConnection } from 'vscode-jsonrpc/node';
import { notificationChannels as channelIds, type NotificationChannel } from '../engine/config';
import { BatonError } from '../engine/errors';
import type { EditorPresenter } from '../engine/notifications/notificationService';
import { secretNames, type SecretName } from '../engine/secrets';
import type { NotificationShowDto } from '../protocol/notificationDto';
import * as rpc from '../protocol/rpc';
import type { EngineHost } from './engineHost';
import { requestRegistrar } from './handlers';

/** The editor channel: the extension shows it (compile-time proof the engine's message fits the wire shape). */
export function editorPresenter(connection: MessageConnection): EditorPresenter {
	return async ({ id, message }) => {
		const dto: NotificationShowDto = { id, ...message };
		await connection.sendNotification(rpc.notificationShow, dto);
	};
}

export function registerNotificationHandlers(connection: MessageConnection, host: EngineHost): void {
	const on = requestRegistrar(connection);
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
