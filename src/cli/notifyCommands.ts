/**
 * `baton notify test CHANNEL` and `baton notify list`, and the bounded flush every ordinary command
 * runs before it exits. The CLI's secrets are `BATON_*` environment variables; it delivers only the
 * channels they complete, and never the editor channel (VS Code's backend does). `baton hook` does
 * no network work at all: its rows wait for the editor's backend or the next command.
 */
import { notificationChannels, type NotificationChannel } from '../engine/config';
import type { Engine } from '../engine/engine';
import { notificationStatuses } from '../engine/storage/schema';
import type { NotificationOutboxRow } from '../engine/storage/model';
import { stringOption, UsageError, type Command } from './command';

/** How long an ordinary command may spend delivering before it exits. */
export const flushBudgetMs = 2_000;

/** Delivers what is due to the channels this environment can reach, within `flushBudgetMs`. */
export async function flushNotifications(engine: Engine): Promise<void> {
	const notifying = (await engine.notifications.attach({ onlyReady: true })).length > 0;
	// Issue-tracker actions (comments, closes) queued by this command go out the same way.
	if (!notifying && engine.config.trackers.enabled.length === 0) {
		return;
	}
	engine.trackers.maxRequestMs = flushBudgetMs;
	await engine.notifications.flush(flushBudgetMs);
}

/** What `notify list` shows of a row: never the message body, only its title. */
function rowView(row: NotificationOutboxRow) {
	const title = typeof row.message['title'] === 'string' ? row.message['title'] : row.event;
	return {
		id: row.id,
		event: row.event,
		priority: row.priority,
		channel: row.channel,
		status: row.status,
		attempts: row.attempts,
		lastError: row.lastError,
		title,
		sessionId: row.sessionId,
		createdAt: row.createdAt,
		nextAttemptAt: row.nextAttemptAt,
		sentAt: row.sentAt,
	};
}

export const notifyCommands: Command[] = [
	{
		path: ['notify', 'test'],
		usage: `baton notify test CHANNEL   (${notificationChannels.filter((c) => c !== 'editor').join('|')})`,
		summary: 'send a test notification to one channel now (secrets from BATON_* environment variables)',
		positionals: [1, 1],
		async run(ctx) {
			const channel = ctx.args[0] as string;
			if (!(notificationChannels as readonly string[]).includes(channel)) {
				throw new UsageError(`unknown channel "${channel}"; one of ${notificationChannels.join(', ')}`);
			}
			if (channel === 'editor') {
				throw new UsageError('the editor channel is shown by VS Code: run “Baton: Send Test Notification” there');
			}
			const result = await (await ctx.engine()).notifications.test(channel as NotificationChannel);
			return {
				json: { ...result },
				text: result.ok
					? `Test notification sent to ${channel} (${result.durationMs} ms).`
					: `Test notification to ${channel} failed: ${result.error ?? 'unknown error'}`,
				exitCode: result.ok ? 0 : 1,
			};
		},
	},
	{
		path: ['notify', 'list'],
		usage: `baton notify list [--status ${notificationStatuses.join('|')}] [--limit N]`,
		summary: 'recent notifications: channel, status, attempts and the last error (secrets masked)',
		options: { status: { type: 'string' }, limit: { type: 'string' } },
		async run(ctx) {
			const status = stringOption(ctx.values, 'status');
			if (status && !(notificationStatuses as readonly string[]).includes(status)) {
				throw new UsageError(`--status must be one of ${notificationStatuses.join(', ')}`);
			}
			const limitText = stringOption(ctx.values, 'limit');
			const limit = limitText === undefined ? 50 : Number(limitText);
			if (!Number.isInteger(limit) || limit < 1) {
				throw new UsageError('--limit must be a positive whole number');
			}
			const rows = await (await ctx.engine()).notifications.list({ limit, ...(status ? { status: status as NotificationOutboxRow['status'] } : {}) });
			const views = rows.map(rowView);
			const line = (r: ReturnType<typeof rowView>) =>
				`${r.id}  ${r.status.padEnd(10)} ${r.channel.padEnd(8)} ${r.priority.padEnd(8)} ${String(r.attempts).padStart(2)}×  ${r.title}${r.lastError ? `\n    ${r.lastError}` : ''}`;
			return { json: { notifications: views }, text: views.length ? views.map(line).join('\n') : 'No notifications.' };
		},
	},
];
