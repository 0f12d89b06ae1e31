/**
 * The editor's notification settings, shared with every process of the workspace. VS Code settings
 * reach only the editor's backend, yet most events happen in agent hooks and the CLI: so the backend
 * records its (non-secret) `notifications` overrides in the workspace database, and a process with
 * no overrides of its own routes and delivers with `.baton/config.json` + those. Removing the
 * settings removes the record at the backend's next start.
 */
import { eq } from 'drizzle-orm';
import { mergeNotifications, notificationConfigSchema, type NotificationConfig, type NotificationConfigInput } from '../config';
import { BatonError } from '../errors';
import { secretKeysIn } from '../secrets';
import type { BatonDb } from '../storage/journalStore';
import { settings } from '../storage/schema';

const key = 'notifications.hostSettings';

/** Records the overrides (null: none); false when the record already said so (no write, no change for others). */
export function writeHostSettings(db: BatonDb, now: string, overrides: NotificationConfigInput | null): boolean {
	const row = db.select().from(settings).where(eq(settings.key, key)).get();
	if (JSON.stringify(row?.value ?? null) === JSON.stringify(overrides)) {
		return false;
	}
	if (overrides === null) {
		db.delete(settings).where(eq(settings.key, key)).run();
	} else {
		db.insert(settings)
			.values({ key, value: overrides, updatedAt: now })
			.onConflictDoUpdate({ target: settings.key, set: { value: overrides, updatedAt: now } })
			.run();
	}
	return true;
}

export function readHostSettings(db: BatonDb): { value: unknown; updatedAt: string } | undefined {
	return db.select().from(settings).where(eq(settings.key, key)).get();
}

/** `base` with the recorded overrides on top; a record that does not validate is refused by name. */
export function withHostSettings(base: NotificationConfig, stored: unknown): NotificationConfig {
	if (secretKeysIn(stored, ['notifications']).length > 0) {
		throw new BatonError('configInvalid', 'the editor’s recorded notification settings hold a secret; they are ignored');
	}
	const parsed = notificationConfigSchema.safeParse(mergeNotifications(base, (stored ?? {}) as NotificationConfigInput));
	if (!parsed.success) {
		const issue = parsed.error.issues[0];
		throw new BatonError('configInvalid', `the editor’s recorded notification settings: ${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`);
	}
	return parsed.data;
}
