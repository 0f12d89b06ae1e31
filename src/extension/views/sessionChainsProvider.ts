/**
 * The `Session Chains` tree: one group per scope, its sessions in chain order, a codicon and colour
 * per state. Tooltips (the handoff) are fetched only when a row is hovered.
 */
import * as vscode from 'vscode';
import type { IssueLinkDto, ScopeChainsDto, SessionStatusDto, SessionRowDto } from '../../protocol/dto';
import { issueLabel } from '../../protocol/issueLabel';
import { sessionDetails, sessionOverview } from '../../protocol/rpc';
import { syncOrigins, type SessionOriginDto } from '../../protocol/syncRpc';
import type { BatonWorkspace } from '../batonWorkspace';
import { durationText, escapeMarkdown, handoffMarkdown, relativeTime, sessionMoment, statusLabel } from '../format';
import { CommandIds } from '../ids';
import { Disposable } from '../lifecycle';

export class ScopeNode {
	/** Its sessions that are no orchestrator's worker, in chain order. */
	top: SessionNode[] = [];

	constructor(readonly chains: ScopeChainsDto) {}
}

export class SessionNode {
	/** Workers an orchestrator started (sessions whose parent it is), shown under it. */
	readonly workers: SessionNode[] = [];

	constructor(
		readonly session: SessionRowDto,
		/** Its scope, or the orchestrator it works for. */
		public parent: ScopeNode | SessionNode,
		/** 1-based: place in the scope's chain, or among the orchestrator's workers. */
		public position: number,
	) {}
}

/**
 * What a session row has room for at the default sidebar width, in characters (measured in the
 * workbench); a worker sits one level deeper and has two fewer. The name gives way so that the
 * state and time, which must be seen, never do.
 */
export const rowChars = 30;

export function rowNameLimit(description: string, depth: 'scope' | 'session' | 'worker'): number {
	const indent = depth === 'scope' ? -2 : depth === 'worker' ? 2 : 0;
	return Math.max(12, rowChars - description.length - 1 - indent);
}

/** "Payment retries for the webhook" → "Payment retries…": cut at a word when one ends late enough (the full name is in the tooltip). */
export function rowName(name: string, limit: number): string {
	if (name.length <= limit) return name;
	const cut = name.slice(0, limit - 1);
	const space = cut.lastIndexOf(' ');
	return `${(space >= limit / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** "ended 3m", "active now": state and a compact time, what a row must show. */
export function rowState(status: SessionStatusDto, moment: string | null, nowMs: number = Date.now()): string {
	const word = status === 'archived' || status === 'closed' ? 'legacy' : statusLabel[status];
	return `${word} ${shortTime(moment, nowMs)}`.trim();
}

function shortTime(iso: string | null, nowMs: number): string {
	if (!iso) return '';
	const s = Math.max(0, Math.round((nowMs - Date.parse(iso)) / 1000));
	return s < 45 ? 'now' : s < 90 * 60 ? `${Math.round(s / 60)}m` : s < 36 * 3600 ? `${Math.round(s / 3600)}h` : s < 14 * 86400 ? `${Math.round(s / 86400)}d` : `${Math.round(s / 604800)}w`;
}

/**
 * Groups a scope's sessions for the tree: workers go under their orchestrator (wherever its scope),
 * the rest stay in their scope's chain order. Scopes left with no session of their own vanish.
 */
export function nestWorkers(chains: readonly ScopeChainsDto[]): ScopeNode[] {
	const scopes = chains.map((c) => new ScopeNode(c));
	const byId = new Map<string, SessionNode>();
	for (const scope of scopes) {
		scope.chains.sessions.forEach((s, i) => byId.set(s.id, new SessionNode(s, scope, i + 1)));
	}
	const tops = new Map<ScopeNode, SessionNode[]>(scopes.map((scope) => [scope, []]));
	for (const scope of scopes) {
		for (const s of scope.chains.sessions) {
			const node = byId.get(s.id) as SessionNode;
			const orchestrator = s.parentSessionId ? byId.get(s.parentSessionId) : undefined;
			if (orchestrator && orchestrator !== node && !isAncestor(node, orchestrator, byId)) {
				orchestrator.workers.push(node);
				node.parent = orchestrator;
				node.position = orchestrator.workers.length;
			} else {
				tops.get(scope)?.push(node);
			}
		}
	}
	for (const scope of scopes) {
		scope.top = tops.get(scope) ?? [];
	}
	return scopes.filter((scope) => scope.top.length > 0);
}

/** Guards against a parent cycle in imported data: a session is never shown under its own worker. */
function isAncestor(node: SessionNode, candidate: SessionNode, byId: ReadonlyMap<string, SessionNode>): boolean {
	const seen = new Set<string>();
	let at: SessionRowDto | undefined = candidate.session;
	while (at && !seen.has(at.id)) {
		if (at.id === node.session.id) return true;
		seen.add(at.id);
		at = at.parentSessionId ? byId.get(at.parentSessionId)?.session : undefined;
	}
	return false;
}

export type ChainNode = ScopeNode | SessionNode;

const icons: Record<SessionStatusDto, [string, string]> = {
	active: ['debug-start', 'charts.green'],
	suspended: ['debug-pause', 'charts.yellow'],
	ended: ['pass', 'charts.blue'],
	orphaned: ['warning', 'charts.orange'],
	archived: ['archive', 'disabledForeground'],
	closed: ['archive', 'disabledForeground'],
};

export class SessionChainsProvider extends Disposable implements vscode.TreeDataProvider<ChainNode> {
	private readonly changeEmitter = this.register(new vscode.EventEmitter<ChainNode | undefined>());
	readonly onDidChangeTreeData = this.changeEmitter.event;
	private overview: Promise<ScopeNode[]> | undefined;
	/** How long the last root getChildren took (the benchmark and the log read it). */
	lastLoadMs = 0;
	/** Who and where sessions from other machines ran (pulled through sync); local ones are not listed. */
	private origins = new Map<string, SessionOriginDto>();

	constructor(private readonly workspace: BatonWorkspace) {
		super();
		this.register(
			workspace.onDidChangeData(() => {
				this.overview = undefined;
				this.changeEmitter.fire(undefined);
			}),
		);
	}

	async getChildren(node?: ChainNode): Promise<ChainNode[]> {
		if (!node) {
			if (!this.workspace.status?.initialized) {
				return []; // the welcome view explains what to do
			}
			this.overview ??= this.load();
			return this.overview;
		}
		return node instanceof ScopeNode ? node.top : node.workers;
	}

	getParent(node: ChainNode): ChainNode | undefined {
		return node instanceof SessionNode ? node.parent : undefined;
	}

	getTreeItem(node: ChainNode): vscode.TreeItem {
		if (node instanceof ScopeNode) {
			const sessions = node.chains.sessions;
			// Workers shown under an orchestrator elsewhere still count where their scope is.
			const active = sessions.filter((s) => s.status === 'active').length;
			// Short, so the scope's title keeps the room; the tooltip spells it out.
			const description = active ? `${active} active` : `${sessions.length}`;
			const item = new vscode.TreeItem(rowName(node.chains.label, rowNameLimit(description, 'scope')), active > 0 || sessions.length <= 3 ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed);
			item.id = `scope:${node.chains.scopeKey}`;
			item.description = description;
			item.iconPath = new vscode.ThemeIcon(node.chains.scopeKey === 'global' ? 'globe' : 'list-tree');
			item.contextValue = 'scope';
			item.tooltip = `${node.chains.label} — ${sessions.length} session${sessions.length === 1 ? '' : 's'}${active ? `, ${active} active` : ''}; last activity ${relativeTime(node.chains.lastActivity)}`;
			return item;
		}
		const s = node.session;
		// State and time first: a long name gives way (its full text is in the tooltip), never them.
		const description = rowState(s.status, sessionMoment(s));
		const item = new vscode.TreeItem(
			rowName(s.name, rowNameLimit(description, node.parent instanceof SessionNode ? 'worker' : 'session')),
			node.workers.length > 0 ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None,
		);
		item.id = `session:${s.id}`;
		const [icon, color] = icons[s.status];
		item.iconPath = new vscode.ThemeIcon(icon, new vscode.ThemeColor(color));
		const origin = this.origins.get(s.id);
		item.description = origin ? `${description} · ${originText(origin)}` : description;
		item.contextValue = `session.${s.status === 'archived' || s.status === 'closed' ? 'legacy' : s.status}`;
		item.accessibilityInformation = { label: `${s.name}, ${statusLabel[s.status]}, ${relativeTime(sessionMoment(s))}${origin ? `, ran ${originText(origin)}` : ''}`, role: 'treeitem' };
		item.command = { command: CommandIds.showSessionDetails, title: 'Show Session Details', arguments: [{ id: s.id }] };
		return item;
	}

	/** Hover: the handoff and the facts, fetched on demand so 5,000 rows stay cheap. */
	async resolveTreeItem(item: vscode.TreeItem, node: ChainNode, token: vscode.CancellationToken): Promise<vscode.TreeItem> {
		if (!(node instanceof SessionNode)) {
			return item;
		}
		const s = node.session;
		const md = new vscode.MarkdownString(undefined, true);
		md.appendMarkdown(`$(${icons[s.status][0]}) **${escapeMarkdown(s.name)}** — ${statusLabel[s.status]}  \n`);
		const place = node.parent instanceof SessionNode ? `worker ${node.position} of ${escapeMarkdown(node.parent.session.name)}` : `#${node.position} in scope`;
		md.appendMarkdown(`${escapeMarkdown(s.scopeKey)} · ${place} · ${relativeTime(sessionMoment(s))} · ${durationText(s.startedAt, s.endedAt)}${s.agent ? ` · ${escapeMarkdown(s.agent)}` : ''}  \n`);
		const origin = this.origins.get(s.id);
		if (origin) {
			md.appendMarkdown(`$(remote) Ran on **${escapeMarkdown(origin.machineName ?? 'another machine')}**${origin.author ? ` by **${escapeMarkdown(origin.author)}**` : ''} (pulled through sync)  \n`);
		}
		if (node.workers.length > 0) {
			md.appendMarkdown(`Orchestrates ${node.workers.length} worker${node.workers.length === 1 ? '' : 's'}  \n`);
		}
		try {
			const details = await this.workspace.request(sessionDetails, { id: s.id }, token);
			if (details.linkedIssues.length > 0) {
				md.appendMarkdown(`$(issues) ${details.linkedIssues.map(issueMarkdown).join(' · ')}  \n`);
			}
			md.appendMarkdown('\n---\n\n');
			md.appendMarkdown(details.handoffProblem ? `_The stored handoff is malformed: ${escapeMarkdown(details.handoffProblem)}_` : handoffMarkdown(details.handoff));
		} catch {
			// The hover still shows the summary above.
		}
		if (s.endNote) {
			md.appendMarkdown(`\n\n_${escapeMarkdown(s.endNote)}_`);
		}
		item.tooltip = md;
		return item;
	}

	private async loadOrigins(ids: string[]): Promise<void> {
		try {
			const { origins } = await this.workspace.request(syncOrigins, { sessionIds: ids });
			this.origins = new Map(origins.filter((o) => !o.local).map((o) => [o.sessionId, o]));
		} catch {
			// An older backend: rows without their origin.
			this.origins = new Map();
		}
	}

	private async load(): Promise<ScopeNode[]> {
		const started = performance.now();
		try {
			const { chains } = await this.workspace.request(sessionOverview, undefined);
			await this.loadOrigins(chains.flatMap((c) => c.sessions.map((x) => x.id)));
			return nestWorkers(chains);
		} catch (error) {
			this.workspace.log.error(`could not load the session chains: ${(error as Error).message}`);
			this.overview = undefined;
			return [];
		} finally {
			this.lastLoadMs = performance.now() - started;
		}
	}
}

function originText(origin: SessionOriginDto): string {
	const where = origin.machineName ?? 'another machine';
	// Compact: the row has little room beside its state and time (the hover spells it out).
	return origin.author ? `${origin.author}@${where}` : where;
}

/** `[#42](url) Login fails (open)`: compact, linked when the tracker gave an http(s) address. */
function issueMarkdown(link: IssueLinkDto): string {
	const label = escapeMarkdown(issueLabel(link));
	const title = link.title ? ` ${escapeMarkdown(link.title.length > 60 ? `${link.title.slice(0, 59)}…` : link.title)}` : '';
	const state = link.state ? ` (${escapeMarkdown(link.state)})` : '';
	return `${link.url && /^https?:\/\//.test(link.url) ? `[${label}](${link.url.replace(/[()\s]/g, encodeURIComponent)})` : label}${title}${state}`;
}
