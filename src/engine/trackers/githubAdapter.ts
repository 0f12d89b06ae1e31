/**
 * GitHub issues over REST v3: `GET|PATCH /repos/{owner}/{repo}/issues/{n}`,
 * `POST …/issues/{n}/comments`, `POST /repos/{owner}/{repo}/issues`. The API base URL is
 * configurable (GitHub Enterprise: `https://HOST/api/v3`; tests: a loopback server).
 */
import type { SecretName } from '../secrets';
import { parseGithubId, type GithubTarget, type RefContext } from './issueRef';
import { renderCheckpointNote } from './checkpointNote';
import { requestJson, trackerError } from './trackerHttp';
import type { CheckpointNote, IssueStatus, NewIssue, TrackerAdapter, TrackerIssue } from './trackerTypes';

interface GithubOptions extends RefContext {
	apiUrl: string;
	timeoutMs: number;
	token: () => Promise<string | undefined>;
}

interface GithubIssueBody {
	number?: unknown;
	title?: unknown;
	state?: unknown;
	html_url?: unknown;
}

export class GithubAdapter implements TrackerAdapter {
	readonly tracker = 'github' as const;

	constructor(private readonly options: GithubOptions) {}

	async getIssue(id: string): Promise<TrackerIssue> {
		const target = this.target(id);
		return this.toIssue(id, await this.call('GET', issuePath(target)));
	}

	async updateStatus(id: string, status: IssueStatus): Promise<TrackerIssue> {
		const target = this.target(id);
		// GitHub has only open and closed: "in progress" keeps an issue open.
		const body = status === 'closed' ? { state: 'closed', state_reason: 'completed' } : { state: 'open' };
		return this.toIssue(id, await this.call('PATCH', issuePath(target), body));
	}

	async comment(id: string, body: string): Promise<void> {
		await this.call('POST', `${issuePath(this.target(id))}/comments`, { body });
	}

	async createIssue(input: NewIssue): Promise<TrackerIssue> {
		const { owner, repo } = this.repository();
		const created = (await this.call('POST', `/repos/${seg(owner)}/${seg(repo)}/issues`, {
			title: input.title,
			body: input.body,
			...(input.labels?.length ? { labels: input.labels } : {}),
		})) as GithubIssueBody | null;
		const number = typeof created?.number === 'number' ? created.number : null;
		if (number === null) {
			throw trackerError({ tracker: 'github', secrets: new Map() }, `POST /repos/${owner}/${repo}/issues answered without an issue number`, 201);
		}
		return this.toIssue(String(number), created);
	}

	async linkCheckpoint(id: string, note: CheckpointNote): Promise<void> {
		await this.comment(id, renderCheckpointNote(note));
	}

	private repository(): { owner: string; repo: string } {
		const { owner, repo } = this.options.github;
		if (!owner || !repo) {
			throw trackerError(
				{ tracker: 'github', secrets: new Map() },
				'no repository: set trackers.github.owner and .repo in .baton/config.json (or add an `origin` remote on GitHub)',
				0,
			);
		}
		return { owner, repo };
	}

	private target(id: string): GithubTarget {
		const target = parseGithubId(id, this.options);
		if (!target) {
			this.repository();
			throw trackerError({ tracker: 'github', secrets: new Map() }, `"${id}" is not an issue number (123 or owner/repo#123)`, 0);
		}
		return target;
	}

	private async call(method: 'GET' | 'PATCH' | 'POST', apiPath: string, body?: unknown): Promise<unknown> {
		const token = await this.options.token();
		const secrets = new Map<SecretName, string>(token ? [['github.token', token]] : []);
		if (!token) {
			throw trackerError({ tracker: 'github', secrets }, 'no token: set BATON_GITHUB_TOKEN, or store the secret `github.token` in the editor', 0);
		}
		return requestJson({
			tracker: 'github',
			method,
			url: `${this.options.apiUrl.replace(/\/+$/, '')}${apiPath}`,
			headers: { Authorization: `Bearer ${token}`, Accept: 'application/vnd.github+json', 'X-GitHub-Api-Version': '2022-11-28' },
			...(body !== undefined ? { body } : {}),
			timeoutMs: this.options.timeoutMs,
			secrets,
		});
	}

	private toIssue(id: string, body: unknown): TrackerIssue {
		const b = (body ?? {}) as GithubIssueBody;
		return {
			tracker: 'github',
			id,
			url: typeof b.html_url === 'string' ? b.html_url : null,
			title: typeof b.title === 'string' ? b.title : null,
			state: typeof b.state === 'string' ? b.state : null,
		};
	}
}

function issuePath(t: GithubTarget): string {
	return `/repos/${seg(t.owner)}/${seg(t.repo)}/issues/${t.number}`;
}

function seg(part: string): string {
	return encodeURIComponent(part);
}
