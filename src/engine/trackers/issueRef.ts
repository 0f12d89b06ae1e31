/**
 * Issue references as people type them (`github:123`, `#123`, `owner/repo#7`, `ABC-123`,
 * `bd-a1b2`, an issue URL) and the ids Baton stores for them: GitHub issues of the workspace's own
 * repository as `123`, others as `owner/repo#123`; Linear by identifier; Beads by id.
 */
import type { TrackerName } from '../config';
import { trackerNames } from '../config';
import type { IssueRef } from './trackerTypes';

/** What the patterns need to know about the workspace's trackers. */
export interface RefContext {
	github: { owner: string | null; repo: string | null; webUrl: string };
}

export interface GithubTarget {
	owner: string;
	repo: string;
	number: number;
}

const githubIdPattern = /^(?:([\w.-]+)\/([\w.-]+))?#?([1-9]\d{0,9})$/;

/** `123` (the configured repository) or `owner/repo#123`; null when `id` is neither. */
export function parseGithubId(id: string, ctx: RefContext): GithubTarget | null {
	const match = githubIdPattern.exec(id.trim());
	if (!match) {
		return null;
	}
	const owner = match[1] ?? ctx.github.owner;
	const repo = match[2] ?? ctx.github.repo;
	if (!owner || !repo) {
		return null;
	}
	return { owner, repo, number: Number(match[3]) };
}

/** The stored id of a GitHub issue: bare for the workspace's repository. */
export function githubIssueId(owner: string | null, repo: string | null, number: string, ctx: RefContext): string {
	const own = !owner || !repo || (owner.toLowerCase() === ctx.github.owner?.toLowerCase() && repo.toLowerCase() === ctx.github.repo?.toLowerCase());
	return own ? number : `${owner}/${repo}#${number}`;
}

export function githubUrl(id: string, ctx: RefContext): string | null {
	const target = parseGithubId(id, ctx);
	return target ? `${ctx.github.webUrl.replace(/\/+$/, '')}/${target.owner}/${target.repo}/issues/${target.number}` : null;
}

/** GitHub issue (or pull request) URLs on github.com and on the configured host. */
export function githubUrlPattern(ctx: RefContext): RegExp {
	const hosts = new Set(['github.com', 'www.github.com']);
	try {
		hosts.add(new URL(ctx.github.webUrl).host.toLowerCase());
	} catch {
		// A malformed webUrl cannot pass the config schema; github.com still works.
	}
	const host = [...hosts].map((h) => h.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
	return new RegExp(`https?://(?:${host})/([\\w.-]+)/([\\w.-]+)/(?:issues|pull)/([1-9]\\d{0,9})(?![\\w])`, 'gi');
}

export const linearUrlPattern = /https?:\/\/linear\.app\/[\w.-]+\/issue\/([A-Za-z][A-Za-z0-9]{0,9}-[1-9]\d{0,9})(?:\/[\w%.-]*)?/g;
const linearKeyExact = /^[A-Z][A-Z0-9]{0,9}-[1-9]\d{0,9}$/;
const beadsIdExact = /^[a-z][a-z0-9_]{0,19}-[0-9a-z]{1,12}(?:\.\d{1,3}){0,3}$/;
const webhookIdExact = /^[\w.:#/-]{1,100}$/;

/**
 * An explicit reference (the CLI, the editor's Link Issue command). Lenient: it needs no tracker to
 * be enabled and no pattern heuristics, since a person chose it. Null when it is none of the forms.
 */
export function parseIssueRef(input: string, ctx: RefContext): IssueRef | null {
	const text = input.trim();
	const colon = /^([a-z]+):(.+)$/.exec(text);
	if (colon && (trackerNames as readonly string[]).includes(colon[1] ?? '')) {
		return typedRef(colon[1] as TrackerName, (colon[2] ?? '').trim(), ctx);
	}
	const github = new RegExp(githubUrlPattern(ctx).source, 'i').exec(text);
	if (github && github.index === 0) {
		const id = githubIssueId(github[1] ?? null, github[2] ?? null, github[3] ?? '', ctx);
		return { tracker: 'github', issueId: id, url: text };
	}
	const linear = new RegExp(linearUrlPattern.source).exec(text);
	if (linear && linear.index === 0) {
		return { tracker: 'linear', issueId: (linear[1] ?? '').toUpperCase(), url: text };
	}
	if (/^(?:[\w.-]+\/[\w.-]+)?#[1-9]\d{0,9}$/.test(text)) {
		return typedRef('github', text, ctx);
	}
	if (linearKeyExact.test(text)) {
		return { tracker: 'linear', issueId: text, url: null };
	}
	if (beadsIdExact.test(text)) {
		return { tracker: 'beads', issueId: text, url: null };
	}
	return null;
}

function typedRef(tracker: TrackerName, id: string, ctx: RefContext): IssueRef | null {
	switch (tracker) {
		case 'github': {
			const match = githubIdPattern.exec(id);
			if (!match) {
				return null;
			}
			const issueId = githubIssueId(match[1] ?? null, match[2] ?? null, match[3] ?? '', ctx);
			return { tracker, issueId, url: githubUrl(issueId, ctx) };
		}
		case 'linear':
			return linearKeyExact.test(id.toUpperCase()) ? { tracker, issueId: id.toUpperCase(), url: null } : null;
		case 'beads':
			return beadsIdExact.test(id) ? { tracker, issueId: id, url: null } : null;
		case 'webhook':
			return webhookIdExact.test(id) ? { tracker, issueId: id, url: null } : null;
	}
}

/** `github:123`: how a link is written back to people (the CLI's REF syntax). */
export function formatRef(tracker: string, issueId: string): string {
	return `${tracker}:${issueId}`;
}
