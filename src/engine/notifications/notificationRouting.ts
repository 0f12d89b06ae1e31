/**
 * Where a notification goes, and whether it goes at all. Decided at enqueue time, inside the write:
 * one outbox row per (notification, channel), `pending` or `suppressed` with the reason, so an alert
 * storm is visible in `baton notify list` but never reaches anyone.
 *
 * - Routing: `notifications.routing[priority]` when set, else info → nowhere, notice → the editor,
 *   warning and critical → every enabled channel but SMS, which gets `sms.minPriority` and above
 *   (critical by default: a text costs money and wakes a person); always filtered by
 *   `notifications.channels`.
 * - De-duplication: a row with the same key on the same channel, not itself suppressed, within
 *   `dedupWindow` → suppressed. Critical ones too.
 * - Rate limit: `rateLimit.perMinute` rows already pending or sent on the channel in the last minute
 *   → suppressed with a note. Critical ones are never rate-limited (they still count).
 */
import type { NotificationChannel, NotificationConfig } from '../config';
import { enqueue, firstLiveWithKey, liveCountAfter } from '../outbox/outbox';
import type { BatonDb } from '../storage/journalStore';
import type { NotificationOutboxRow, NotificationPriority } from '../storage/model';
import type { PlannedNotification } from './notificationRules';

const rank: Record<NotificationPriority, number> = { info: 0, notice: 1, warning: 2, critical: 3 };

export function routeFor(config: NotificationConfig, priority: NotificationPriority): NotificationChannel[] {
	const route = config.routing[priority] ?? defaultRoute(config, priority);
	return [...new Set(route)].filter((channel) => config.channels.includes(channel));
}

/** A route a person wrote is obeyed as written; the default one texts from `sms.minPriority` up, whatever the other channels get. */
function defaultRoute(config: NotificationConfig, priority: NotificationPriority): NotificationChannel[] {
	const others: NotificationChannel[] = priority === 'info' ? [] : priority === 'notice' ? ['editor'] : config.channels.filter((c) => c !== 'sms');
	return rank[priority] >= rank[config.sms.minPriority] ? [...others, 'sms'] : others;
}

export function enqueueNotification(db: BatonDb, nowMs: number, config: NotificationConfig, n: PlannedNotification): NotificationOutboxRow[] {
	const rows: NotificationOutboxRow[] = [];
	for (const channel of routeFor(config, n.priority)) {
		const verdict = suppression(db, nowMs, config, channel, n);
		rows.push(
			enqueue(db, nowMs, {
				event: n.event,
				priority: n.priority,
				channel,
				dedupKey: n.dedupKey,
				sessionId: n.sessionId,
				message: n.message,
				...(verdict ? { status: 'suppressed' as const, note: verdict } : {}),
			}),
		);
	}
	return rows;
}

/** Why this one is suppressed on this channel, or undefined when it goes. */
function suppression(db: BatonDb, nowMs: number, config: NotificationConfig, channel: string, n: PlannedNotification): string | undefined {
	// Two narrow queries (an id, a count), not every recent row of the channel decoded per event.
	const original = firstLiveWithKey(db, channel, n.dedupKey, new Date(nowMs - config.dedupWindow).toISOString());
	if (original) {
		return `duplicate of ${original} (same ${n.event} within ${Math.round(config.dedupWindow / 60_000)} min)`;
	}
	if (n.priority === 'critical') {
		return undefined;
	}
	const lastMinute = liveCountAfter(db, channel, new Date(nowMs - 60_000).toISOString());
	if (lastMinute >= config.rateLimit.perMinute) {
		return `rate limit: more than ${config.rateLimit.perMinute} notifications per minute on ${channel}`;
	}
	return undefined;
}
