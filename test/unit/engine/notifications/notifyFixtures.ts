/** Engines with notification settings and secrets for the notification tests. */
import type { TestContext } from 'node:test';
import type { BatonConfigInput } from '../../../../src/engine/config';
import type { SecretName, SecretSource } from '../../../../src/engine/secrets';
import { notificationOutbox } from '../../../../src/engine/storage/schema';
import type { NotificationOutboxRow } from '../../../../src/engine/storage/model';
import { actor, openTestEngine, type TestEngine } from '../../helpers';

export type Notifications = NonNullable<BatonConfigInput['notifications']>;

export function secretsOf(values: Partial<Record<SecretName, string>>): SecretSource & { asked: SecretName[] } {
	const asked: SecretName[] = [];
	return {
		asked,
		get: async (name) => {
			asked.push(name);
			return values[name];
		},
	};
}

export async function notifyEngine(
	t: TestContext,
	notifications: Notifications,
	secrets: Partial<Record<SecretName, string>> = {},
	root?: string,
): Promise<TestEngine> {
	return openTestEngine(t, { config: { notifications }, secrets: secretsOf(secrets), ...(root ? { root } : {}) });
}

/** A session whose cost crosses 80 % of the default $5 budget: one `budget.threshold_reached` (warning). */
export async function budgetWarning(engine: TestEngine['engine'], name = 'payment refactor', costUsd = 4.1): Promise<string> {
	const { session } = await engine.sessions.start({ name, actor });
	await engine.checkpoints.recordMetrics({ sessionId: session.id, costUsd, actor });
	return session.id;
}

export async function outboxRows(engine: TestEngine['engine']): Promise<NotificationOutboxRow[]> {
	return engine.store.read((db) => db.select().from(notificationOutbox).all());
}
