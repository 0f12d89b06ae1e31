/**
 * Linear over GraphQL: `issue(id:)` (it takes the identifier `ABC-123`), `issueUpdate` with a state
 * of the issue's team's workflow, `commentCreate`, `issueCreate`. A GraphQL answer with `errors`, or
 * a mutation with `success: false`, is a failure even with HTTP 200.
 */
import type { SecretName } from '../secrets';
import { renderCheckpointNote } from './checkpointNote';
import { requestJson, trackerError } from './trackerHttp';
import type { CheckpointNote, IssueStatus, NewIssue, TrackerAdapter, TrackerIssue } from './trackerTypes';

interface LinearOptions {
	apiUrl: string;
	timeoutMs: number;
	teamKey: string | null;
	teamId: string | null;
	closedState: string | null;
	openState: string | null;
	apiKey: () => Promise<string | undefined>;
}

interface WorkflowState {
	id: string;
	name: string;
	type: string;
	position: number;
}

interface LinearIssue {
	id: string;
	identifier: string;
	title: string | null;
	url: string | null;
	state: { name: string; type: string } | null;
	team: { id: string; key: string; states: { nodes: WorkflowState[] } } | null;
}

const issueFields = 'id identifier title url state { name type } team { id key states { nodes { id name type position } } }';

/** Baton's status → the workflow state types that fit it, best first. */
const stateTypes: Record<IssueStatus, string[]> = { closed: ['completed'], open: ['unstarted', 'backlog', 'triage'], in_progress: ['started'] };

export class LinearAdapter implements TrackerAdapter {
	readonly tracker = 'linear' as const;

	constructor(private readonly options: LinearOptions) {}

	async getIssue(id: string): Promise<TrackerIssue> {
		return toIssue(await this.issue(id));
	}

	async updateStatus(id: string, status: IssueStatus): Promise<TrackerIssue> {
		const issue = await this.issue(id);
		const states = [...(issue.team?.states.nodes ?? [])].sort((a, b) => a.position - b.position);
		const wanted = status === 'closed' ? this.options.closedState : status === 'open' ? this.options.openState : null;
		const state = wanted
			? states.find((s) => s.name.toLowerCase() === wanted.toLowerCase())
			: stateTypes[status].map((type) => states.find((s) => s.type === type)).find(Boolean);
		if (!state) {
			throw trackerError(
				{ tracker: 'linear', secrets: new Map() },
				`team ${issue.team?.key ?? '?'} has no workflow state ${wanted ? `named "${wanted}"` : `of type ${stateTypes[status].join(' or ')}`} for ${id}`,
				200,
			);
		}
		const data = await this.graphql<{ issueUpdate: { success: boolean; issue: LinearIssue | null } }>(
			`mutation BatonIssueUpdate($id: String!, $input: IssueUpdateInput!) { issueUpdate(id: $id, input: $input) { success issue { ${issueFields} } } }`,
			{ id: issue.id, input: { stateId: state.id } },
			'issueUpdate',
		);
		return toIssue(ensureSuccess(data.issueUpdate, 'issueUpdate').issue ?? issue);
	}

	async comment(id: string, body: string): Promise<void> {
		const issue = await this.issue(id);
		const data = await this.graphql<{ commentCreate: { success: boolean; comment: { id: string } | null } }>(
			'mutation BatonCommentCreate($input: CommentCreateInput!) { commentCreate(input: $input) { success comment { id } } }',
			{ input: { issueId: issue.id, body } },
			'commentCreate',
		);
		ensureSuccess(data.commentCreate, 'commentCreate');
	}

	async createIssue(input: NewIssue): Promise<TrackerIssue> {
		const teamId = await this.teamId();
		const data = await this.graphql<{ issueCreate: { success: boolean; issue: LinearIssue | null } }>(
			`mutation BatonIssueCreate($input: IssueCreateInput!) { issueCreate(input: $input) { success issue { ${issueFields} } } }`,
			{ input: { teamId, title: input.title, description: input.body } },
			'issueCreate',
		);
		const created = ensureSuccess(data.issueCreate, 'issueCreate').issue;
		if (!created) {
			throw trackerError({ tracker: 'linear', secrets: new Map() }, 'issueCreate answered without the issue', 200);
		}
		return toIssue(created);
	}

	async linkCheckpoint(id: string, note: CheckpointNote): Promise<void> {
		await this.comment(id, renderCheckpointNote(note));
	}

	private async issue(id: string): Promise<LinearIssue> {
		const data = await this.graphql<{ issue: LinearIssue | null }>(`query BatonIssue($id: String!) { issue(id: $id) { ${issueFields} } }`, { id }, 'issue');
		if (!data.issue) {
			throw trackerError({ tracker: 'linear', secrets: new Map() }, `no issue ${id}`, 200);
		}
		return data.issue;
	}

	private async teamId(): Promise<string> {
		if (this.options.teamId) {
			return this.options.teamId;
		}
		const key = this.options.teamKey;
		if (!key) {
			throw trackerError(
				{ tracker: 'linear', secrets: new Map() },
				'no team: set trackers.linear.teamKey (or teamId) in .baton/config.json to open issues',
				0,
			);
		}
		const data = await this.graphql<{ teams: { nodes: { id: string; key: string }[] } }>(
			'query BatonTeam($key: String!) { teams(filter: { key: { eq: $key } }) { nodes { id key } } }',
			{ key },
			'teams',
		);
		const team = data.teams.nodes.find((t) => t.key === key);
		if (!team) {
			throw trackerError({ tracker: 'linear', secrets: new Map() }, `no team with key ${key}`, 200);
		}
		return team.id;
	}

	private async graphql<T>(query: string, variables: Record<string, unknown>, what: string): Promise<T> {
		const apiKey = await this.options.apiKey();
		const secrets = new Map<SecretName, string>(apiKey ? [['linear.apiKey', apiKey]] : []);
		if (!apiKey) {
			throw trackerError({ tracker: 'linear', secrets }, 'no API key: set BATON_LINEAR_API_KEY, or store the secret `linear.apiKey` in the editor', 0);
		}
		const body = (await requestJson({
			tracker: 'linear',
			method: 'POST',
			url: this.options.apiUrl,
			// Personal API keys go bare in Authorization (OAuth tokens would take "Bearer ").
			headers: { Authorization: apiKey, Accept: 'application/json' },
			body: { query, variables },
			timeoutMs: this.options.timeoutMs,
			secrets,
			label: what,
		})) as { data?: T | null; errors?: { message?: string }[] } | null;
		if (body?.errors?.length) {
			const messages = body.errors.map((e) => e.message ?? 'unknown error').join('; ');
			throw trackerError({ tracker: 'linear', secrets }, `${what} failed: ${messages.slice(0, 300)}`, 200);
		}
		if (!body?.data) {
			throw trackerError({ tracker: 'linear', secrets }, `${what} answered without data`, 200);
		}
		return body.data;
	}
}

function ensureSuccess<T extends { success: boolean }>(result: T, what: string): T {
	if (!result.success) {
		throw trackerError({ tracker: 'linear', secrets: new Map() }, `${what} did not succeed`, 200);
	}
	return result;
}

function toIssue(issue: LinearIssue): TrackerIssue {
	return { tracker: 'linear', id: issue.identifier, url: issue.url, title: issue.title, state: issue.state?.name ?? null };
}
