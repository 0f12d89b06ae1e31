/**
 * Issue trackers (issue 6, item 3): sessions linked to GitHub, Linear, Beads or webhook issues, by
 * hand or automatically; checkpoints comment on them; opt-ins close or open issues. Links and queued
 * actions are written with the change that caused them (trackerEvents.ts); the network is reached
 * only by the outbox deliverer (trackerDeliverer.ts) and by the explicit `show` and `sync`.
 */
import path from 'node:path';
import type { TrackerName } from '../config';
import type { EngineContext } from '../context';
import { BatonError } from '../errors';
import type { OutboxDispatcher } from '../outbox/outbox';
import type { SecretSource } from '../secrets';
import { activeSessions, getSession } from '../sessions/sessionQueries';
import { batonDir } from '../workspace';
import { findIssueRefs, type LinkPatterns, type TextSource } from './autoLink';
import { BeadsFileAdapter, chooseBeadsAdapter } from './beadsAdapter';
import { BeadsFile } from './beadsFile';
import { GithubAdapter } from './githubAdapter';
import { formatRef, parseIssueRef } from './issueRef';
import { addLinks, listLinks, refreshLinkInfo, removeLink, toLinkView, type IssueLinkView } from './issueLinks';
import { LinearAdapter } from './linearAdapter';
import { originUrl, parseGithubRemote } from './repoFiles';
import { maskAll, trackerDeliverer } from './trackerDeliverer';
import { handleTrackerEvent } from './trackerEvents';
import type { IssueRef, TrackerAdapter, TrackerIssue } from './trackerTypes';
import { WebhookAdapter } from './webhookAdapter';

interface SyncResult {
	updated: IssueLinkView[];
	failed: { tracker: string; issueId: string; error: string }[];
	/** Links to trackers that are not enabled (nothing to ask). */
	skipped: { tracker: string; issueId: string }[];
}

const refHelp = 'github:123, #123, owner/repo#123, ABC-123, bd-a1b2, linear:…, beads:…, webhook:…, or an issue URL';

export class TrackerService {
	private patternCache: LinkPatterns | undefined;
	private readonly adapters = new Map<TrackerName, TrackerAdapter>();
	/** For tests: where `bd` is looked for (default: PATH). */
	faults: { searchPath?: string } = {};

	constructor(
		private readonly ctx: EngineContext,
		outbox: OutboxDispatcher,
		private readonly secrets: SecretSource,
	) {
		ctx.events.on((event, db) => handleTrackerEvent({ ctx, patterns: () => this.patterns() }, event, db));
		outbox.register('tracker:', trackerDeliverer({ ctx, secrets, adapter: (t) => this.adapter(t) }));
	}

	/**
	 * Caps every tracker request (a CLI delivering on its way out waits this long at most; what is
	 * not done is retried by the next process). Set before the first request: adapters keep it.
	 */
	maxRequestMs: number | undefined;

	private get config() {
		return this.ctx.config.trackers;
	}

	/** What auto-linking looks for: enabled trackers, the GitHub repository (config, else `origin`), team keys, Beads prefixes. */
	patterns(): LinkPatterns {
		if (!this.patternCache) {
			const c = this.config;
			let { owner = null, repo = null } = c.github;
			if (!owner || !repo) {
				const url = originUrl(this.ctx.workspaceRoot);
				const remote = url ? (parseGithubRemote(url, new URL(c.github.webUrl).host) ?? parseGithubRemote(url)) : null;
				owner ??= remote?.owner ?? null;
				repo ??= remote?.repo ?? null;
			}
			const beadsPrefix = c.beads.prefix ?? (c.enabled.includes('beads') ? this.beadsFile().dominantPrefix() : null) ?? 'bd';
			this.patternCache = {
				enabled: new Set(c.enabled),
				github: { owner, repo, webUrl: c.github.webUrl },
				linearKeys: c.linear.teamKey ? [c.linear.teamKey] : null,
				beadsPrefixes: [beadsPrefix],
			};
		}
		return this.patternCache;
	}

	/** The adapter of one tracker (created once; secrets are asked for at each call). */
	adapter(tracker: TrackerName): TrackerAdapter {
		let adapter = this.adapters.get(tracker);
		if (!adapter) {
			adapter = this.createAdapter(tracker);
			this.adapters.set(tracker, adapter);
		}
		return adapter;
	}

	/** Links a session to the issue `ref` names (default session: the sole active one). */
	async link(input: { ref: string; sessionId?: string; actor: string }): Promise<{ link: IssueLinkView; added: boolean }> {
		const ref = this.parseRef(input.ref);
		return this.ctx.store.write((db) => {
			const sessionId = this.sessionOf(db, input.sessionId);
			const added = addLinks(db, { sessionId, refs: [ref], source: 'manual', now: this.ctx.nowIso(), actor: input.actor });
			const link = listLinks(db, { sessionId }).find((l) => l.tracker === ref.tracker && l.issueId === ref.issueId);
			if (!link) {
				throw new BatonError('storageFailure', `the link of ${sessionId} to ${formatRef(ref.tracker, ref.issueId)} was not stored`);
			}
			return { link: toLinkView(link), added: added.length > 0 };
		});
	}

	async unlink(input: { ref: string; sessionId?: string; actor: string }): Promise<{ sessionId: string; tracker: string; issueId: string }> {
		const ref = this.parseRef(input.ref);
		return this.ctx.store.write((db) => {
			const sessionId = this.sessionOf(db, input.sessionId);
			if (!removeLink(db, { sessionId, tracker: ref.tracker, issueId: ref.issueId, now: this.ctx.nowIso(), actor: input.actor })) {
				throw new BatonError('notFound', `session ${sessionId} is not linked to ${formatRef(ref.tracker, ref.issueId)}`);
			}
			return { sessionId, tracker: ref.tracker, issueId: ref.issueId };
		});
	}

	async list(filter: { sessionId?: string } = {}): Promise<IssueLinkView[]> {
		return this.ctx.store.read((db) => {
			if (filter.sessionId) {
				getSession(db, filter.sessionId);
			}
			return listLinks(db, filter).map(toLinkView);
		});
	}

	/**
	 * Links found in `text` (a prompt from an agent hook, a branch a host read): no network, and no
	 * write at all when nothing new is found, so a hook stays within its latency budget.
	 */
	async linkFromText(input: { sessionId: string; text: string; source: TextSource; actor: string }): Promise<IssueLinkView[]> {
		if (!this.config.autoLink || this.config.enabled.length === 0) {
			return [];
		}
		const refs = findIssueRefs(input.text, input.source, this.patterns());
		if (refs.length === 0) {
			return [];
		}
		const known = new Set((await this.list({ sessionId: input.sessionId })).map((l) => `${l.tracker}:${l.issueId}`));
		const fresh = refs.filter((r) => !known.has(`${r.tracker}:${r.issueId}`));
		if (fresh.length === 0) {
			return [];
		}
		return this.ctx.store.write((db) =>
			addLinks(db, { sessionId: input.sessionId, refs: fresh, source: input.source, now: this.ctx.nowIso(), actor: input.actor }).map(toLinkView),
		);
	}

	/** Fetches the issue from its tracker and refreshes what linked sessions show of it. */
	async show(refText: string): Promise<TrackerIssue> {
		const ref = this.parseRef(refText);
		const issue = await this.fetch(ref);
		await this.ctx.store.write((db) => refreshLinkInfo(db, ref.tracker, ref.issueId, issue, this.ctx.nowIso()));
		return issue;
	}

	/** Refreshes titles and states of linked issues (one request per distinct issue). */
	async sync(filter: { sessionId?: string } = {}): Promise<SyncResult> {
		const links = await this.list(filter);
		const distinct = [...new Map(links.map((l) => [`${l.tracker}:${l.issueId}`, l])).values()];
		const result: SyncResult = { updated: [], failed: [], skipped: [] };
		for (const link of distinct) {
			if (!(this.config.enabled as string[]).includes(link.tracker)) {
				result.skipped.push({ tracker: link.tracker, issueId: link.issueId });
				continue;
			}
			try {
				const issue = await this.fetch({ tracker: link.tracker as TrackerName, issueId: link.issueId, url: link.url });
				await this.ctx.store.write((db) => refreshLinkInfo(db, link.tracker, link.issueId, issue, this.ctx.nowIso()));
				result.updated.push({ ...link, url: issue.url ?? link.url, title: issue.title, state: issue.state });
			} catch (error) {
				result.failed.push({ tracker: link.tracker, issueId: link.issueId, error: await maskAll(this.secrets, (error as Error).message) });
			}
		}
		return result;
	}

	private async fetch(ref: IssueRef): Promise<TrackerIssue> {
		const issue = await this.adapter(ref.tracker).getIssue(ref.issueId);
		return { ...issue, id: ref.issueId, url: issue.url ?? ref.url };
	}

	private parseRef(text: string): IssueRef {
		const ref = parseIssueRef(text, this.patterns());
		if (!ref) {
			throw new BatonError('invalidInput', `"${text}" is not an issue reference (${refHelp})`);
		}
		return ref;
	}

	private sessionOf(db: Parameters<typeof getSession>[0], sessionId: string | undefined): string {
		if (sessionId) {
			return getSession(db, sessionId).id;
		}
		const active = activeSessions(db);
		if (active.length !== 1 || !active[0]) {
			throw new BatonError(
				active.length === 0 ? 'notFound' : 'invalidInput',
				active.length === 0 ? 'no active session; pass --session ID' : `${active.length} sessions are active; pass --session ID`,
			);
		}
		return active[0].id;
	}

	private beadsFile(): BeadsFile {
		const file = path.resolve(this.ctx.workspaceRoot, this.config.beads.path);
		return new BeadsFile({ file, lockFile: path.join(batonDir(this.ctx.workspaceRoot), 'beads.lock'), nowIso: () => this.ctx.nowIso() });
	}

	private createAdapter(tracker: TrackerName): TrackerAdapter {
		const c = this.config;
		const timeoutMs = this.maxRequestMs === undefined ? c.timeout : Math.min(c.timeout, this.maxRequestMs);
		const { github } = this.patterns();
		switch (tracker) {
			case 'github':
				return new GithubAdapter({ github, apiUrl: c.github.apiUrl, timeoutMs, token: () => this.secrets.get('github.token') });
			case 'linear':
				return new LinearAdapter({
					apiUrl: c.linear.apiUrl,
					timeoutMs,
					teamKey: c.linear.teamKey ?? null,
					teamId: c.linear.teamId ?? null,
					closedState: c.linear.closedState ?? null,
					openState: c.linear.openState ?? null,
					apiKey: () => this.secrets.get('linear.apiKey'),
				});
			case 'beads':
				return chooseBeadsAdapter(
					{
						mode: c.beads.cli,
						cwd: this.ctx.workspaceRoot,
						timeoutMs,
						...(this.faults.searchPath !== undefined ? { searchPath: this.faults.searchPath } : {}),
					},
					() =>
						new BeadsFileAdapter({
							file: this.beadsFile(),
							prefix: this.patterns().beadsPrefixes[0] ?? 'bd',
							nowIso: () => this.ctx.nowIso(),
							author: 'baton',
						}),
				);
			case 'webhook':
				return new WebhookAdapter({
					timeoutMs,
					url: () => this.secrets.get('tracker.webhook.url'),
					token: () => this.secrets.get('tracker.webhook.token'),
					nowIso: () => this.ctx.nowIso(),
				});
		}
	}
}
