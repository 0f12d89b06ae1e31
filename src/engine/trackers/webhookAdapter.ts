/**
 * A generic webhook as a tracker: every operation is one JSON event POSTed to a URL (a secret: such
 * URLs often carry their own credential) with an optional bearer token. The receiver may answer
 * with JSON describing the issue (`{id, title, state, url}`); an empty answer is fine.
 *
 * Events: `issue.get`, `issue.status`, `issue.comment`, `issue.create`, `checkpoint.linked`; each
 * carries `event`, `issueId` and `sentAt`. `issue.create` proposes an id (`bt-<hex>`) the receiver
 * may replace with its own.
 */
import { randomBytes } from 'node:crypto';
import type { SecretName } from '../secrets';
import { requestJson, trackerError } from './trackerHttp';
import type { CheckpointNote, IssueStatus, NewIssue, TrackerAdapter, TrackerIssue } from './trackerTypes';

interface WebhookOptions {
	timeoutMs: number;
	url: () => Promise<string | undefined>;
	token: () => Promise<string | undefined>;
	nowIso: () => string;
}

export class WebhookAdapter implements TrackerAdapter {
	readonly tracker = 'webhook' as const;

	constructor(private readonly options: WebhookOptions) {}

	async getIssue(id: string): Promise<TrackerIssue> {
		return toIssue(id, await this.send('issue.get', { issueId: id }));
	}

	async updateStatus(id: string, status: IssueStatus): Promise<TrackerIssue> {
		return toIssue(id, await this.send('issue.status', { issueId: id, status }));
	}

	async comment(id: string, body: string): Promise<void> {
		await this.send('issue.comment', { issueId: id, body });
	}

	async createIssue(input: NewIssue): Promise<TrackerIssue> {
		const proposed = `bt-${randomBytes(4).toString('hex')}`;
		const answer = await this.send('issue.create', { issueId: proposed, title: input.title, body: input.body, labels: input.labels ?? [] });
		const own = (answer as { id?: unknown } | null)?.id;
		const id = typeof own === 'string' || typeof own === 'number' ? String(own) : proposed;
		const issue = toIssue(id, answer);
		return { ...issue, title: issue.title ?? input.title, state: issue.state ?? 'open' };
	}

	async linkCheckpoint(id: string, note: CheckpointNote): Promise<void> {
		await this.send('checkpoint.linked', { issueId: id, checkpoint: note });
	}

	private async send(event: string, payload: Record<string, unknown>): Promise<unknown> {
		const [url, token] = await Promise.all([this.options.url(), this.options.token()]);
		const secrets = new Map<SecretName, string>();
		if (url) secrets.set('tracker.webhook.url', url);
		if (token) secrets.set('tracker.webhook.token', token);
		if (!url) {
			throw trackerError(
				{ tracker: 'webhook', secrets },
				'no URL: set BATON_TRACKER_WEBHOOK_URL, or store the secret `tracker.webhook.url` in the editor',
				0,
			);
		}
		return requestJson({
			tracker: 'webhook',
			method: 'POST',
			url,
			headers: token ? { Authorization: `Bearer ${token}` } : {},
			body: { event, tracker: 'webhook', ...payload, sentAt: this.options.nowIso() },
			timeoutMs: this.options.timeoutMs,
			secrets,
			// The URL is a secret: errors name the event, never the address.
			label: `POST ${event}`,
		});
	}
}

function toIssue(id: string, answer: unknown): TrackerIssue {
	const a = (answer && typeof answer === 'object' ? answer : {}) as Record<string, unknown>;
	const text = (key: string): string | null => (typeof a[key] === 'string' ? (a[key] as string) : null);
	return { tracker: 'webhook', id, url: text('url'), title: text('title'), state: text('state') };
}
