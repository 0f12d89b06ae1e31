/**
 * Wire shapes of notifications: the message the backend asks the editor to show (it mirrors the
 * engine's notification message; the server's mapping is checked at compile time), the channels a
 * test can go to, and the secrets a person can store. No shape here ever carries a secret's value.
 */
type NotificationPriorityDto = 'info' | 'notice' | 'warning' | 'critical';

export interface NotificationActionDto {
	label: string;
	/** The exact command line that does it. */
	cli: string;
	/** The VS Code command palette title that does it. */
	editor: string;
}

export interface NotificationShowDto {
	/** The outbox row (or `test_…` for a test). */
	id: string;
	event: string;
	priority: NotificationPriorityDto;
	title: string;
	summary: string;
	workspace: string;
	session: { id: string; name: string; costUsd: number; durationMs: number } | null;
	filesChanged: { added: number; modified: number; deleted: number; checkpoints: number } | null;
	checkpoint: { id: string; trigger: string; message: string | null; approvalStatus: string; escalationReasons: string[] } | null;
	actions: NotificationActionDto[];
	at: string;
}

export interface NotificationChannelDto {
	id: string;
	label: string;
	/** Listed in `baton.notifications.channels`. */
	enabled: boolean;
	/** Secret names and settings it still lacks (empty: ready to try). */
	missing: string[];
}

export interface NotificationTestResultDto {
	channel: string;
	ok: boolean;
	/** Why it failed, secrets masked. */
	error: string | null;
	durationMs: number;
}

export interface SecretNameDto {
	/** The engine's name (`slack.webhookUrl`); VS Code stores it under `baton.<name>`. */
	name: string;
	label: string;
	/** The environment variable the CLI reads instead. */
	env: string;
}
