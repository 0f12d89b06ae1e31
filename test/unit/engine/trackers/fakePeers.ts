/**
 * Real HTTP peers on 127.0.0.1 (node:http, port 0) implementing the subset of the GitHub REST and
 * Linear GraphQL APIs the adapters use, plus a webhook endpoint. Each records every request it got
 * (method, path, headers, parsed body) and refuses what the real service would refuse (a wrong or
 * missing credential, a missing API-version header), so tests assert on what actually arrived.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';

export interface Received {
	method: string;
	path: string;
	headers: http.IncomingHttpHeaders;
	body: any;
}

export interface Peer {
	url: string;
	received: Received[];
	/** The next `count` requests get this status (after being recorded); the body echoes the Authorization header, as a careless proxy might. */
	failNext(count: number, status: number): void;
	close(): Promise<void>;
}

type Handler = (req: Received) => { status: number; body?: unknown };

async function startPeer(t: TestContext, handle: Handler): Promise<Peer> {
	const received: Received[] = [];
	let failures: { count: number; status: number } = { count: 0, status: 500 };
	const server = http.createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', () => {
			const text = Buffer.concat(chunks).toString('utf8');
			let body: unknown;
			try {
				body = text ? JSON.parse(text) : null;
			} catch {
				body = text;
			}
			const r: Received = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body };
			received.push(r);
			let answer: { status: number; body?: unknown };
			if (failures.count > 0) {
				failures.count--;
				answer = { status: failures.status, body: { message: `upstream exploded while handling ${String(req.headers.authorization)}` } };
			} else {
				answer = handle(r);
			}
			res.writeHead(answer.status, { 'Content-Type': 'application/json' });
			res.end(answer.body === undefined ? '' : JSON.stringify(answer.body));
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	const peer: Peer = {
		url: `http://127.0.0.1:${port}`,
		received,
		failNext: (count, status) => {
			failures = { count, status };
		},
		close: () => new Promise<void>((resolve) => server.close(() => resolve())),
	};
	t.after(async () => {
		server.closeAllConnections();
		await peer.close().catch(() => undefined);
	});
	return peer;
}

export interface GithubIssueState {
	number: number;
	title: string;
	state: 'open' | 'closed';
	comments: string[];
}

export interface FakeGithub extends Peer {
	issues: Map<string, GithubIssueState>;
}

/** GitHub REST v3: GET/PATCH issues/{n}, POST issues/{n}/comments, POST issues. Keys of `issues`: `owner/repo#n`. */
export async function startFakeGithub(t: TestContext, options: { token: string; issues?: [string, string][] }): Promise<FakeGithub> {
	const issues = new Map<string, GithubIssueState>();
	for (const [key, title] of options.issues ?? []) {
		issues.set(key, { number: Number(key.split('#')[1]), title, state: 'open', comments: [] });
	}
	let base = '';
	const view = (owner: string, repo: string, i: GithubIssueState) => ({
		number: i.number,
		title: i.title,
		state: i.state,
		html_url: `${base}/${owner}/${repo}/issues/${i.number}`,
	});
	const peer = await startPeer(t, (r) => {
		if (r.headers.authorization !== `Bearer ${options.token}`) {
			return { status: 401, body: { message: 'Bad credentials' } };
		}
		if (r.headers.accept !== 'application/vnd.github+json' || r.headers['x-github-api-version'] !== '2022-11-28' || !r.headers['user-agent']) {
			return { status: 400, body: { message: 'missing Accept, API version or User-Agent' } };
		}
		const m = /^\/repos\/([^/]+)\/([^/]+)\/issues(?:\/(\d+))?(\/comments)?$/.exec(r.path);
		if (!m) {
			return { status: 404, body: { message: 'Not Found' } };
		}
		const [, owner = '', repo = '', number, comments] = m;
		if (!number && r.method === 'POST') {
			const n = Math.max(0, ...[...issues.values()].map((i) => i.number)) + 1;
			const created: GithubIssueState = { number: n, title: String(r.body?.title), state: 'open', comments: [] };
			issues.set(`${owner}/${repo}#${n}`, created);
			return { status: 201, body: view(owner, repo, created) };
		}
		const issue = issues.get(`${owner}/${repo}#${number}`);
		if (!issue) {
			return { status: 404, body: { message: 'Not Found' } };
		}
		if (comments && r.method === 'POST') {
			issue.comments.push(String(r.body?.body));
			return { status: 201, body: { id: issue.comments.length, body: r.body?.body } };
		}
		if (r.method === 'PATCH') {
			if (r.body?.state === 'open' || r.body?.state === 'closed') {
				issue.state = r.body.state;
			}
			return { status: 200, body: view(owner, repo, issue) };
		}
		return r.method === 'GET' ? { status: 200, body: view(owner, repo, issue) } : { status: 405, body: { message: 'method' } };
	});
	base = peer.url;
	return { ...peer, issues };
}

interface LinearState {
	id: string;
	name: string;
	type: string;
	position: number;
}

export interface FakeLinear extends Peer {
	issues: Map<string, { id: string; identifier: string; title: string; stateId: string; comments: string[] }>;
	states: LinearState[];
}

/** Linear GraphQL: issue(id:), issueUpdate, commentCreate, issueCreate, teams(filter: {key}). One team `ENG`. */
export async function startFakeLinear(t: TestContext, options: { apiKey: string }): Promise<FakeLinear> {
	const states: LinearState[] = [
		{ id: 'st-done', name: 'Done', type: 'completed', position: 3 },
		{ id: 'st-backlog', name: 'Backlog', type: 'backlog', position: 0 },
		{ id: 'st-todo', name: 'Todo', type: 'unstarted', position: 1 },
		{ id: 'st-doing', name: 'In Progress', type: 'started', position: 2 },
		{ id: 'st-cancel', name: 'Canceled', type: 'canceled', position: 4 },
	];
	const team = { id: 'team-eng', key: 'ENG', states: { nodes: states } };
	const issues: FakeLinear['issues'] = new Map([
		['ENG-1', { id: 'uuid-eng-1', identifier: 'ENG-1', title: 'Login fails', stateId: 'st-todo', comments: [] }],
	]);
	const view = (i: { id: string; identifier: string; title: string; stateId: string }) => {
		const state = states.find((s) => s.id === i.stateId);
		return {
			id: i.id,
			identifier: i.identifier,
			title: i.title,
			url: `https://linear.app/acme/issue/${i.identifier}`,
			state: { name: state?.name, type: state?.type },
			team,
		};
	};
	const byAnyId = (id: string) => [...issues.values()].find((i) => i.id === id || i.identifier === id);
	const peer = await startPeer(t, (r) => {
		if (r.method !== 'POST' || r.path !== '/graphql') {
			return { status: 404, body: { errors: [{ message: 'not found' }] } };
		}
		if (r.headers.authorization !== options.apiKey) {
			return { status: 400, body: { errors: [{ message: 'Authentication required, not authenticated' }] } };
		}
		const query = String(r.body?.query ?? '');
		const v = r.body?.variables ?? {};
		if (/issueUpdate\(id: \$id, input: \$input\)/.test(query)) {
			const issue = byAnyId(v.id);
			if (!issue || !states.some((s) => s.id === v.input?.stateId)) {
				return { status: 200, body: { data: null, errors: [{ message: 'Entity not found' }] } };
			}
			issue.stateId = v.input.stateId;
			return { status: 200, body: { data: { issueUpdate: { success: true, issue: view(issue) } } } };
		}
		if (/commentCreate\(input: \$input\)/.test(query)) {
			const issue = byAnyId(v.input?.issueId);
			if (!issue || issue.id !== v.input?.issueId) {
				return { status: 200, body: { data: null, errors: [{ message: 'issueId must be the issue UUID' }] } };
			}
			issue.comments.push(String(v.input.body));
			return { status: 200, body: { data: { commentCreate: { success: true, comment: { id: `c${issue.comments.length}` } } } } };
		}
		if (/issueCreate\(input: \$input\)/.test(query)) {
			if (v.input?.teamId !== team.id) {
				return { status: 200, body: { data: null, errors: [{ message: 'team not found' }] } };
			}
			const n = issues.size + 1;
			const created = { id: `uuid-eng-${n}`, identifier: `ENG-${n}`, title: String(v.input.title), stateId: 'st-todo', comments: [] };
			issues.set(created.identifier, created);
			return { status: 200, body: { data: { issueCreate: { success: true, issue: view(created) } } } };
		}
		if (/teams\(filter: \{ key: \{ eq: \$key \} \}\)/.test(query)) {
			return { status: 200, body: { data: { teams: { nodes: v.key === 'ENG' ? [{ id: team.id, key: team.key }] : [] } } } };
		}
		if (/issue\(id: \$id\)/.test(query)) {
			const issue = byAnyId(v.id);
			return issue
				? { status: 200, body: { data: { issue: view(issue) } } }
				: { status: 200, body: { data: { issue: null }, errors: [{ message: 'Entity not found: Issue' }] } };
		}
		return { status: 400, body: { errors: [{ message: `unsupported query: ${query.slice(0, 40)}` }] } };
	});
	return { ...peer, url: `${peer.url}/graphql`, issues, states };
}

/** A webhook endpoint: records events; `answer` says what to reply (default 204, no body). */
export async function startWebhook(t: TestContext, answer: (r: Received) => { status: number; body?: unknown } = () => ({ status: 204 })): Promise<Peer> {
	return startPeer(t, answer);
}
