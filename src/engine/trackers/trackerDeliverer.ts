/**
 * Carries out `tracker:<name>` outbox rows through the adapters: the only place where the
 * trackers' domain events reach the network. A failure throws with every tracker secret masked
 * (the outbox stores the message in `last_error` and logs it), and the outbox retries with backoff.
 */
import { eq } from 'drizzle-orm';
import type { TrackerName } from '../config';
import type { EngineContext } from '../context';
import type { Deliverer } from '../outbox/outbox';
import { maskSecrets, type SecretName, type SecretSource } from '../secrets';
import { checkpoints, sessions } from '../storage/schema';
import { addLinks, refreshLinkInfo } from './issueLinks';
import { actionOf, type TrackerAction } from './trackerActions';
import type { TrackerAdapter } from './trackerTypes';

const trackerSecretNames: readonly SecretName[] = ['github.token', 'linear.apiKey', 'tracker.webhook.url', 'tracker.webhook.token'];

interface DelivererDeps {
	ctx: EngineContext;
	secrets: SecretSource;
	adapter: (tracker: TrackerName) => TrackerAdapter;
}

export function trackerDeliverer(deps: DelivererDeps): Deliverer {
	return async (row) => {
		try {
			await perform(deps, actionOf(row));
		} catch (error) {
			// No `cause`: the original error carries the unmasked message (a token, a URL with secrets).
			// eslint-disable-next-line preserve-caught-error
			throw new Error(await maskAll(deps.secrets, (error as Error).message || String(error)));
		}
	};
}

async function perform(deps: DelivererDeps, action: TrackerAction): Promise<void> {
	const adapter = deps.adapter(action.tracker);
	switch (action.action) {
		case 'linkCheckpoint':
			await adapter.linkCheckpoint(action.issueId, action.note);
			return;
		case 'status': {
			const issue = await adapter.updateStatus(action.issueId, action.status);
			await deps.ctx.store.write((db) =>
				refreshLinkInfo(
					db,
					action.tracker,
					action.issueId,
					{ url: issue.url, title: issue.title, state: issue.state ?? action.status },
					deps.ctx.nowIso(),
				),
			);
			return;
		}
		case 'create': {
			const issue = await adapter.createIssue({ title: action.title, body: action.body, type: action.type });
			await deps.ctx.store.write((db) => {
				const now = deps.ctx.nowIso();
				const sessionId = action.sessionId;
				if (sessionId && db.select({ id: sessions.id }).from(sessions).where(eq(sessions.id, sessionId)).get()) {
					addLinks(db, {
						sessionId,
						refs: [{ tracker: action.tracker, issueId: issue.id, url: issue.url }],
						source: 'created',
						now,
						actor: 'baton:trackers',
					});
					refreshLinkInfo(db, action.tracker, issue.id, issue, now);
				}
				const cp = action.checkpointId ? db.select().from(checkpoints).where(eq(checkpoints.id, action.checkpointId)).get() : undefined;
				if (cp && !cp.linkedIssues.some((l) => l.tracker === action.tracker && l.id === issue.id)) {
					db.update(checkpoints)
						.set({ linkedIssues: [...cp.linkedIssues, { tracker: action.tracker, id: issue.id, url: issue.url }] })
						.where(eq(checkpoints.id, cp.id))
						.run();
				}
			});
			return;
		}
	}
}

/** The last guard: whatever failed, no tracker secret leaves in the message. */
export async function maskAll(secrets: SecretSource, text: string): Promise<string> {
	const values = new Map<SecretName, string>();
	for (const name of trackerSecretNames) {
		const value = await secrets.get(name).catch(() => undefined);
		if (value) {
			values.set(name, value);
		}
	}
	return maskSecrets(text, values);
}
