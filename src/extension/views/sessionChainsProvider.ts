/**
 * The `Session Chains` tree: one group per scope, its sessions in chain order, a codicon and colour
 * per state. Tooltips (the handoff) are fetched only when a row is hovered.
 */
import * as vscode from 'vscode';
import type { IssueLinkDto, SessionStatusDto, SessionRowDto } from '../../protocol/dto';
import { agentName } from '../../protocol/displayText';
import { issueLabel } from '../../protocol/issueLabel';
import { sessionDetails } from '../../protocol/rpc';
import type { SessionOriginDto } from '../../protocol/syncRpc';
import { opensExpanded, sessionTreeRoot, sessionTreeScope, treeRootMost, treeRootPage, type TreeRowDto, type TreeScopeDto } from '../../protocol/treeRpc';
import type { BatonWorkspace } from '../batonWorkspace';
import { durationText, escapeMarkdown, focusMarkdown, handoffMarkdown, relativeTime, sessionMoment, shownItem, statusLabel } from '../format';
import { CommandIds, ViewIds } from '../ids';
import { Disposable } from '../lifecycle';
import { showErrorMessage } from '../messages';

export class ScopeNode {
	/** Its rows (sessions that are no orchestrator's worker, in chain order): sent with the group when it opens expanded, else asked for on expand. */
	rows: Promise<SessionNode[]> | undefined;
	/** VS Code took one of its rows to show (getTreeItem): its answer was not lost. */
	rowsShown = false;

	constructor(readonly chains: TreeScopeDto) {}
}

/** The first level's last row while groups are left to show: choosing it (click or Enter) shows the next page. */
class MoreNode {
	constructor(
		/** Groups shown above it. */
		readonly shown: number,
		/** Every group there is. */
		readonly total: number,
	) {}
}

export class SessionNode {
	readonly session: SessionRowDto;
	/** 1-based: place in the scope's chain, or among the orchestrator's workers. */
	readonly position: number;
	/** Workers an orchestrator started (sessions whose parent it is), shown under it. */
	readonly workers: SessionNode[];

	constructor(
		row: TreeRowDto,
		/** Its scope, or the orchestrator it works for. */
		readonly parent: ScopeNode | SessionNode,
	) {
		this.session = row.session;
		this.position = row.position;
		this.workers = row.workers.map((worker) => new SessionNode(worker, this));
	}
}

/**
 * What a session row has room for at the default sidebar width, in characters (measured in the
 * workbench); a worker sits one level deeper and has two fewer. The name gives way so that the
 * state and time, which must be seen, never do.
 */
const rowChars = 30;

/** How long VS Code has to ask for an open group's rows after the root arrived before the group is refreshed on its own. */
const askAgainAfterMs = 1500;

function rowNameLimit(description: string, depth: 'scope' | 'session' | 'worker'): number {
	const indent = depth === 'scope' ? -2 : depth === 'worker' ? 2 : 0;
	return Math.max(12, rowChars - description.length - 1 - indent);
}

/** "Payment retries for the webhook" → "Payment retries…": cut at a word when one ends late enough (the full name is in the tooltip). */
function rowName(name: string, limit: number): string {
	if (name.length <= limit) return name;
	const cut = name.slice(0, limit - 1);
	const space = cut.lastIndexOf(' ');
	return `${(space >= limit / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** "ended 3m", "active now": state and a compact time, what a row must show. */
function rowState(status: SessionStatusDto, moment: string | null, nowMs: number = Date.now()): string {
	const word = status === 'archived' || status === 'closed' ? 'legacy' : statusLabel[status];
	return `${word} ${shortTime(moment, nowMs)}`.trim();
}

function shortTime(iso: string | null, nowMs: number): string {
	if (!iso) return '';
	const s = Math.max(0, Math.round((nowMs - Date.parse(iso)) / 1000));
	return s < 45
		? 'now'
		: s < 90 * 60
			? `${Math.round(s / 60)}m`
			: s < 36 * 3600
				? `${Math.round(s / 3600)}h`
				: s < 14 * 86400
					? `${Math.round(s / 86400)}d`
					: `${Math.round(s / 604800)}w`;
}

type ChainNode = ScopeNode | SessionNode | MoreNode;

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
	private root: Promise<(ScopeNode | MoreNode)[]> | undefined;
	/** Groups the view shows (a page, and one more for each "show more"): a reload after a change shows as many. */
	private groupsWanted = treeRootPage;
	private loadingMore: Promise<void> | undefined;
	/** How long the last root getChildren took: the request and the nodes of the first visible level (the benchmark and the log read it). */
	lastLoadMs = 0;
	/** Who and where sessions from other machines ran (pulled through sync), for the rows loaded so far; local ones are not listed. */
	private origins = new Map<string, SessionOriginDto>();
	/** Bumped on every data change: an answer to an older request adds no origins to the fresh map. */
	private generation = 0;
	private readonly problemEmitter = this.register(new vscode.EventEmitter<string | undefined>());
	/** Why the last load failed (the view shows it while it tries again), or undefined once it loaded. */
	readonly onDidChangeProblem = this.problemEmitter.event;
	private problemText: string | undefined;
	private askAgainTimer: ReturnType<typeof setTimeout> | undefined;

	constructor(private readonly workspace: BatonWorkspace) {
		super();
		this.register({ dispose: () => clearTimeout(this.askAgainTimer) });
		this.register(
			workspace.onDidChangeData(() => {
				this.root = undefined;
				this.origins = new Map();
				this.generation += 1;
				this.changeEmitter.fire(undefined);
			}),
		);
	}

	async getChildren(node?: ChainNode): Promise<ChainNode[]> {
		if (!node) {
			if (!this.workspace.status?.initialized) {
				return []; // the welcome view explains what to do
			}
			if (!this.root) {
				this.root = this.loadRoot();
				void this.root.then((nodes) => this.askAgainForOpenRows(nodes));
			}
			return this.root;
		}
		if (node instanceof ScopeNode) {
			node.rows ??= this.loadScope(node);
			return node.rows;
		}
		return node instanceof SessionNode ? node.workers : [];
	}

	getParent(node: ChainNode): ChainNode | undefined {
		return node instanceof SessionNode ? node.parent : undefined;
	}

	getTreeItem(node: ChainNode): vscode.TreeItem {
		if (node instanceof MoreNode) return shownItem(moreItem(node));
		if (node instanceof ScopeNode) {
			// Workers shown under an orchestrator elsewhere still count where their scope is (the backend counts them).
			const { sessionCount: count, activeCount: active } = node.chains;
			// Short, so the scope's title keeps the room; the tooltip spells it out.
			const description = active ? `${active} active` : `${count}`;
			const item = new vscode.TreeItem(
				rowName(node.chains.label, rowNameLimit(description, 'scope')),
				opensExpanded(node.chains) ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed,
			);
			item.id = `scope:${node.chains.scopeKey}`;
			item.description = description;
			item.iconPath = new vscode.ThemeIcon(node.chains.scopeKey === 'global' ? 'globe' : 'list-tree');
			item.contextValue = 'scope';
			item.tooltip = `${node.chains.label} — ${count} session${count === 1 ? '' : 's'}${active ? `, ${active} active` : ''}; last activity ${relativeTime(node.chains.lastActivity)}`;
			return shownItem(item);
		}
		if (node.parent instanceof ScopeNode) node.parent.rowsShown = true;
		const s = node.session;
		// State and time first: a long name gives way (its full text is in the tooltip), never them. An
		// agent's session says whose it is after them, in the room a wider side bar gives (VS Code cuts
		// it first); the name, which says what the session is doing, keeps its room.
		const agent = s.agent ? agentName(s.agent) : null;
		const state = rowState(s.status, sessionMoment(s));
		const description = `${state}${agent ? ` · ${agent}` : ''}`;
		const item = new vscode.TreeItem(
			rowName(s.name, rowNameLimit(state, node.parent instanceof SessionNode ? 'worker' : 'session')),
			node.workers.length > 0 ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None,
		);
		item.id = `session:${s.id}`;
		const [icon, color] = icons[s.status];
		item.iconPath = new vscode.ThemeIcon(icon, new vscode.ThemeColor(color));
		const origin = this.origins.get(s.id);
		item.description = origin ? `${description} · ${originText(origin)}` : description;
		// A teammate's session (pulled through sync) runs on its own machine: it offers what opens it, not
		// the lifecycle actions (`session.active` and friends), which would end or resume it from here.
		item.contextValue = `session.${origin ? 'remote.' : ''}${s.status === 'archived' || s.status === 'closed' ? 'legacy' : s.status}`;
		item.accessibilityInformation = {
			label: `${s.name}, ${statusLabel[s.status]}, ${relativeTime(sessionMoment(s))}${agent ? `, ${agent}` : ''}${origin ? `, ran ${originText(origin)}` : ''}`,
			role: 'treeitem',
		};
		item.command = { command: CommandIds.showSessionDetails, title: 'Show Session Details', arguments: [{ id: s.id }] };
		return shownItem(item);
	}

	/** Hover: the handoff and the facts, fetched on demand so 5,000 rows stay cheap. */
	async resolveTreeItem(item: vscode.TreeItem, node: ChainNode, token: vscode.CancellationToken): Promise<vscode.TreeItem> {
		if (!(node instanceof SessionNode)) {
			return shownItem(item);
		}
		const s = node.session;
		const md = new vscode.MarkdownString(undefined, true);
		md.appendMarkdown(`$(${icons[s.status][0]}) **${escapeMarkdown(s.name)}** — ${statusLabel[s.status]}  \n`);
		const place =
			node.parent instanceof SessionNode ? `worker ${node.position} of ${escapeMarkdown(node.parent.session.name)}` : `#${node.position} in scope`;
		md.appendMarkdown(`${escapeMarkdown(s.scopeKey)} · ${place} · ${relativeTime(sessionMoment(s))} · ${durationText(s.startedAt, s.endedAt)}  \n`);
		const origin = this.origins.get(s.id);
		if (origin) {
			md.appendMarkdown(
				`$(remote) Ran on **${escapeMarkdown(origin.machineName ?? 'another machine')}**${origin.author ? ` by **${escapeMarkdown(origin.author)}**` : ''} (pulled through sync)  \n`,
			);
		}
		if (node.workers.length > 0) {
			md.appendMarkdown(`Orchestrates ${node.workers.length} worker${node.workers.length === 1 ? '' : 's'}  \n`);
		}
		try {
			const details = await this.workspace.request(sessionDetails, { id: s.id }, token);
			if (s.agent) {
				const own = details.session.agentIdentifier;
				md.appendMarkdown(`$(hubot) ${escapeMarkdown(agentName(s.agent))}${own ? ` · its own id ${escapeMarkdown(own)}` : ''}  \n`);
			}
			if (details.linkedIssues.length > 0) {
				md.appendMarkdown(`$(issues) ${details.linkedIssues.map(issueMarkdown).join(' · ')}  \n`);
			}
			if (details.session.focus) {
				md.appendMarkdown(`\n${focusMarkdown(details.session.focus, details.session.status === 'active')}  \n`);
			}
			md.appendMarkdown('\n---\n\n');
			md.appendMarkdown(
				details.handoffProblem ? `_The stored handoff is malformed: ${escapeMarkdown(details.handoffProblem)}_` : handoffMarkdown(details.handoff),
			);
		} catch {
			// The hover still shows the summary above.
		}
		if (s.endNote) {
			md.appendMarkdown(`\n\n_${escapeMarkdown(s.endNote)}_`);
		}
		item.tooltip = md;
		return shownItem(item);
	}

	private addOrigins(origins: readonly SessionOriginDto[], generation: number): void {
		if (generation !== this.generation) return;
		for (const origin of origins) {
			if (!origin.local) this.origins.set(origin.sessionId, origin);
		}
	}

	/**
	 * The first visible level: the first page of scope groups (or as many as were shown before a
	 * change), the rows of those that open expanded (sent with them, so no second request), and a
	 * "show more" row when groups are left.
	 */
	private async loadRoot(): Promise<(ScopeNode | MoreNode)[]> {
		const started = performance.now();
		const generation = this.generation;
		try {
			const groups: ScopeNode[] = [];
			let total = 0;
			do {
				const limit = Math.min(treeRootMost, this.groupsWanted - groups.length);
				const page = await this.workspace.request(sessionTreeRoot, { offset: groups.length, limit });
				this.addOrigins(page.origins, generation);
				for (const scope of page.scopes) groups.push(scopeNode(scope));
				total = page.total;
				if (page.scopes.length === 0) break;
			} while (groups.length < Math.min(total, this.groupsWanted));
			this.workspace.retried('chains');
			this.setProblem(undefined);
			return groups.length < total ? [...groups, new MoreNode(groups.length, total)] : groups;
		} catch (error) {
			this.workspace.log.error(`could not load the session chains: ${(error as Error).message}`);
			if (generation === this.generation) this.root = undefined;
			this.setProblem('Could not load the session chains; trying again. “Baton: Show Log” has the details.');
			this.workspace.retryLater('chains');
			return [];
		} finally {
			this.lastLoadMs = performance.now() - started;
		}
	}

	/** The "show more" row was chosen: the next page of groups, under the view's progress bar; a second choice while it loads waits for the first. */
	async showMore(): Promise<void> {
		this.loadingMore ??= Promise.resolve(vscode.window.withProgress({ location: { viewId: ViewIds.sessionChains } }, () => this.loadMore())).finally(
			() => (this.loadingMore = undefined),
		);
		return this.loadingMore;
	}

	private async loadMore(): Promise<void> {
		const generation = this.generation;
		const nodes = (await this.root) ?? [];
		const more = nodes.at(-1);
		if (!(more instanceof MoreNode) || generation !== this.generation) return;
		const groups = nodes.slice(0, -1) as ScopeNode[];
		this.groupsWanted = groups.length + treeRootPage;
		try {
			const page = await this.workspace.request(sessionTreeRoot, { offset: groups.length, limit: treeRootPage });
			// The data changed meanwhile: the reload that change started shows as many groups as were asked for here.
			if (generation !== this.generation) return;
			this.addOrigins(page.origins, generation);
			const shown = [...groups, ...page.scopes.map(scopeNode)];
			this.root = Promise.resolve(shown.length < page.total && page.scopes.length > 0 ? [...shown, new MoreNode(shown.length, page.total)] : shown);
			this.changeEmitter.fire(undefined);
			this.askAgainForOpenRows(shown);
		} catch (error) {
			this.groupsWanted = groups.length;
			this.workspace.log.error(`could not load more session groups: ${(error as Error).message}`);
			void showErrorMessage('Baton could not load more session groups. “Baton: Show Log” has the details.');
		}
	}

	/**
	 * A data change that lands while VS Code fetches an open group's rows can leave that group shown
	 * open and empty: VS Code asked the previous generation of nodes, whose handles the refresh had
	 * just cleared, got no rows, and keeps the group's state for its id. A group that opens expanded and
	 * none of whose rows VS Code has taken to show (getTreeItem) a while after the root arrived is
	 * refreshed, which makes VS Code ask again. Only those: a refresh clears the rows' handles until
	 * VS Code has them again, and a context-menu command run on a row in that moment gets no row (a
	 * CI run's "Resume Session" from a row's menu asked which session instead, when every open group
	 * was refreshed).
	 */
	private askAgainForOpenRows(nodes: readonly (ScopeNode | MoreNode)[]): void {
		const generation = this.generation;
		clearTimeout(this.askAgainTimer);
		this.askAgainTimer = setTimeout(() => {
			if (generation !== this.generation) return;
			for (const scope of nodes) {
				if (scope instanceof ScopeNode && (scope.chains.rows?.length ?? 0) > 0 && !scope.rowsShown && opensExpanded(scope.chains))
					this.changeEmitter.fire(scope);
			}
		}, askAgainAfterMs);
	}

	get problem(): string | undefined {
		return this.problemText;
	}

	private setProblem(text: string | undefined): void {
		if (text !== this.problemText) {
			this.problemText = text;
			this.problemEmitter.fire(text);
		}
	}

	/** A collapsed group was expanded: its rows, and the origins of those sessions only. */
	private async loadScope(node: ScopeNode): Promise<SessionNode[]> {
		const generation = this.generation;
		try {
			const { rows, origins } = await this.workspace.request(sessionTreeScope, { scopeKey: node.chains.scopeKey });
			this.addOrigins(origins, generation);
			return rows.map((row) => new SessionNode(row, node));
		} catch (error) {
			this.workspace.log.error(`could not load the sessions of ${node.chains.label}: ${(error as Error).message}`);
			node.rows = undefined;
			this.workspace.retryLater('chains');
			return [];
		}
	}
}

function scopeNode(scope: TreeScopeDto): ScopeNode {
	const node = new ScopeNode(scope);
	if (scope.rows) node.rows = Promise.resolve(scope.rows.map((row) => new SessionNode(row, node)));
	return node;
}

/** "Show 100 more groups" · "100 of 4,000": what choosing it does, and how far the list goes. */
function moreItem(node: MoreNode): vscode.TreeItem {
	const next = Math.min(treeRootPage, node.total - node.shown);
	const item = new vscode.TreeItem(`Show ${next} more group${next === 1 ? '' : 's'}`, vscode.TreeItemCollapsibleState.None);
	item.id = 'more';
	item.description = `${node.shown.toLocaleString('en-US')} of ${node.total.toLocaleString('en-US')}`;
	item.iconPath = new vscode.ThemeIcon('ellipsis');
	item.contextValue = 'more';
	item.tooltip = `${node.shown.toLocaleString('en-US')} of ${node.total.toLocaleString('en-US')} session groups shown (newest activity first); choose this row to show the next ${next}.`;
	item.command = { command: CommandIds.showMoreSessionGroups, title: 'Show More Session Groups' };
	return item;
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
