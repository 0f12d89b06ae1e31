/**
 * The `Session Chains` tree: one group per scope, its sessions in chain order, a codicon and colour
 * per state. Tooltips (the handoff) are fetched only when a row is hovered.
 */
import * as vscode from 'vscode';
import type { IssueLinkDto, ScopeChainsDto, SessionStatusDto, SessionRowDto } from '../../protocol/dto';
import { issueLabel } from '../../protocol/issueLabel';
import { sessionDetails, sessionOverview } from '../../protocol/rpc';
import type { BatonWorkspace } from '../batonWorkspace';
import { durationText, escapeMarkdown, handoffMarkdown, relativeTime, sessionMoment, statusLabel } from '../format';
import { CommandIds } from '../ids';
import { Disposable } from '../lifecycle';

export class ScopeNode {
	constructor(readonly chains: ScopeChainsDto) {}
}

export class SessionNode {
	constructor(
		readonly session: SessionRowDto,
		readonly parent: ScopeNode,
		readonly position: number,
	) {}
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
		if (node instanceof ScopeNode) {
			return node.chains.sessions.map((s, i) => new SessionNode(s, node, i + 1));
		}
		return [];
	}

	getParent(node: ChainNode): ChainNode | undefined {
		return node instanceof SessionNode ? node.parent : undefined;
	}

	getTreeItem(node: ChainNode): vscode.TreeItem {
		if (node instanceof ScopeNode) {
			const sessions = node.chains.sessions;
			const active = sessions.filter((s) => s.status === 'active').length;
			const item = new vscode.TreeItem(node.chains.label, active > 0 || sessions.length <= 3 ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed);
			item.id = `scope:${node.chains.scopeKey}`;
			item.description = `${sessions.length} session${sessions.length === 1 ? '' : 's'}${active ? ` · ${active} active` : ''}`;
			item.iconPath = new vscode.ThemeIcon(node.chains.scopeKey === 'global' ? 'globe' : 'list-tree');
			item.contextValue = 'scope';
			item.tooltip = `${node.chains.label} — last activity ${relativeTime(node.chains.lastActivity)}`;
			return item;
		}
		const s = node.session;
		const item = new vscode.TreeItem(s.name, vscode.TreeItemCollapsibleState.None);
		item.id = `session:${s.id}`;
		const [icon, color] = icons[s.status];
		item.iconPath = new vscode.ThemeIcon(icon, new vscode.ThemeColor(color));
		item.description = `${statusLabel[s.status]} · ${relativeTime(sessionMoment(s))}${s.parentSessionId ? ' · fork' : ''}`;
		item.contextValue = `session.${s.status === 'archived' || s.status === 'closed' ? 'legacy' : s.status}`;
		item.accessibilityInformation = { label: `${s.name}, ${statusLabel[s.status]}, ${relativeTime(sessionMoment(s))}`, role: 'treeitem' };
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
		md.appendMarkdown(`${escapeMarkdown(s.scopeKey)} · #${node.position} in scope · ${durationText(s.startedAt, s.endedAt)}${s.agent ? ` · ${escapeMarkdown(s.agent)}` : ''}  \n`);
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

	private async load(): Promise<ScopeNode[]> {
		const started = performance.now();
		try {
			const { chains } = await this.workspace.request(sessionOverview, undefined);
			return chains.map((c) => new ScopeNode(c));
		} catch (error) {
			this.workspace.log.error(`could not load the session chains: ${(error as Error).message}`);
			this.overview = undefined;
			return [];
		} finally {
			this.lastLoadMs = performance.now() - started;
		}
	}
}

/** `[#42](url) Login fails (open)`: compact, linked when the tracker gave an http(s) address. */
function issueMarkdown(link: IssueLinkDto): string {
	const label = escapeMarkdown(issueLabel(link));
	const title = link.title ? ` ${escapeMarkdown(link.title.length > 60 ? `${link.title.slice(0, 59)}…` : link.title)}` : '';
	const state = link.state ? ` (${escapeMarkdown(link.state)})` : '';
	return `${link.url && /^https?:\/\//.test(link.url) ? `[${label}](${link.url.replace(/[()\s]/g, encodeURIComponent)})` : label}${title}${state}`;
}
