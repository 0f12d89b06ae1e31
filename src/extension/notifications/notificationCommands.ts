/**
 * Notification and secret commands: send a test notification to a channel (a pick of channels with
 * what each still lacks), and store or clear a secret in VS Code's SecretStorage under
 * `baton.<name>` — a pick over every secret name the engine knows (notification channels, issue
 * trackers), then a password box. Values are never shown, logged or written to settings.
 */
import * as vscode from 'vscode';
import type { NotificationTestResultDto } from '../../protocol/notificationDto';
import { notificationChannels, notificationTest, secretList } from '../../protocol/rpc';
import type { BatonWorkspace } from '../batonWorkspace';
import { command, ensureInitialized } from '../commands/commandSupport';
import { CommandIds } from '../ids';
import { secretStorageKey } from '../serverClient';
import { showInformationMessage, showQuickPick, showWarningMessage } from '../messages';

const isUrlSecret = (name: string): boolean => /(url|Url)$/.test(name);
/** Twilio's SIDs have a fixed shape; a token pasted in the SID's place is refused before it is stored. */
const sidShapes: Record<string, { pattern: RegExp; text: string }> = {
	'twilio.accountSid': { pattern: /^AC[0-9a-fA-F]{32}$/, text: 'An account SID: AC and 32 hexadecimal digits (Twilio Console → Account info).' },
	'twilio.apiKeySid': { pattern: /^SK[0-9a-fA-F]{32}$/, text: 'An API key SID: SK and 32 hexadecimal digits.' },
};

function validateSecretValue(name: string, value: string): string | undefined {
	const text = value.trim();
	if (!text) {
		return 'Enter a value (Escape cancels).';
	}
	if (isUrlSecret(name) && !/^https?:\/\/\S+$/.test(text)) {
		return 'A URL starting with https:// (or http://).';
	}
	const sid = Object.hasOwn(sidShapes, name) ? sidShapes[name] : undefined;
	if (sid && !sid.pattern.test(text)) {
		return sid.text;
	}
	return undefined;
}

/** What the commands share: the dependencies and the helpers built on them. */
function contextOf(workspace: BatonWorkspace) {
	const log = workspace.log;
	const secrets = workspace.secrets;
	const given = (arg: unknown): Record<string, unknown> => (arg && typeof arg === 'object' ? (arg as Record<string, unknown>) : {});

	const pickSecret = async (placeHolder: string, onlyStored: boolean): Promise<string | undefined> => {
		const { secrets: names } = await workspace.request(secretList, undefined);
		const items = [];
		for (const s of names) {
			const stored = Boolean(await secrets.get(secretStorageKey(s.name)));
			if (!onlyStored || stored) {
				items.push({
					label: s.label,
					description: s.name,
					detail: stored ? '$(check) Stored in VS Code' : `Not stored · the CLI reads ${s.env}`,
					name: s.name,
				});
			}
		}
		if (items.length === 0) {
			void showInformationMessage('Baton has no secret stored in VS Code.');
			return undefined;
		}
		return (await showQuickPick(items, { placeHolder, matchOnDescription: true }))?.name;
	};

	return { workspace, log, secrets, given, pickSecret };
}

type Context = ReturnType<typeof contextOf>;

export function registerNotificationCommands(workspace: BatonWorkspace): vscode.Disposable[] {
	const ctx = contextOf(workspace);
	const { log } = ctx;
	return [
		command(CommandIds.sendTestNotification, async (arg?: unknown) => sendTestNotificationCommand(ctx, arg), log),
		command(CommandIds.storeSecret, async (arg?: unknown) => storeSecretCommand(ctx, arg), log),
		command(CommandIds.clearSecret, async (arg?: unknown) => clearSecretCommand(ctx, arg), log),
	];
}

async function sendTestNotificationCommand(ctx: Context, arg?: unknown) {
	const { workspace, log, given } = ctx;
	if (!(await ensureInitialized(workspace))) {
		return undefined;
	}
	const { channels } = await workspace.request(notificationChannels, undefined);
	let channel = typeof given(arg)['channel'] === 'string' ? (given(arg)['channel'] as string) : undefined;
	if (!channel) {
		const picked = await showQuickPick(
			channels.map((c) => ({
				label: c.label,
				description: c.enabled ? 'enabled' : 'not in baton.notifications.channels',
				detail: c.missing.length ? `Needs ${c.missing.join(', ')}` : 'Ready to send',
				id: c.id,
			})),
			{ placeHolder: 'Send a test notification to which channel?' },
		);
		channel = picked?.id;
	}
	if (!channel) {
		return undefined;
	}
	const label = channels.find((c) => c.id === channel)?.label ?? channel;
	const result: NotificationTestResultDto = await vscode.window.withProgress(
		{ location: vscode.ProgressLocation.Notification, title: `Baton: sending a test notification to ${label}…` },
		() => workspace.request(notificationTest, { channel }),
	);
	if (result.ok) {
		void showInformationMessage(`Baton: test notification sent to ${label} (${result.durationMs} ms).`);
	} else {
		log.warn(`test notification to ${channel} failed: ${result.error ?? ''}`);
		void showWarningMessage(`Baton: the test notification to ${label} failed: ${result.error ?? 'unknown error'}`, 'Store Secret…').then((choice) => {
			if (choice) void vscode.commands.executeCommand(CommandIds.storeSecret);
		});
	}
	return result;
}

async function storeSecretCommand(ctx: Context, arg?: unknown) {
	const { log, secrets, given, pickSecret } = ctx;
	const name =
		typeof given(arg)['name'] === 'string'
			? (given(arg)['name'] as string)
			: await pickSecret('Store which secret? It stays in VS Code’s secret storage, never in settings or files.', false);
	if (!name) {
		return undefined;
	}
	const value =
		typeof given(arg)['value'] === 'string'
			? (given(arg)['value'] as string)
			: await vscode.window.showInputBox({
					title: `Store ${name}`,
					prompt: 'Kept in VS Code’s secret storage (the OS keychain); Baton asks for it only when it sends.',
					password: true,
					ignoreFocusOut: true,
					validateInput: (v) => validateSecretValue(name, v),
				});
	if (value === undefined) {
		return undefined;
	}
	const problem = validateSecretValue(name, value);
	if (problem) {
		throw new Error(`${name}: ${problem}`);
	}
	await secrets.store(secretStorageKey(name), value.trim());
	log.info(`stored secret ${name}`);
	void showInformationMessage(`Baton: ${name} is stored in VS Code’s secret storage.`);
	return { name, stored: true };
}

async function clearSecretCommand(ctx: Context, arg?: unknown) {
	const { log, secrets, given, pickSecret } = ctx;
	const name = typeof given(arg)['name'] === 'string' ? (given(arg)['name'] as string) : await pickSecret('Clear which secret?', true);
	if (!name) {
		return undefined;
	}
	await secrets.delete(secretStorageKey(name));
	log.info(`cleared secret ${name}`);
	void showInformationMessage(`Baton: ${name} is no longer stored in VS Code.`);
	return { name, stored: false };
}
