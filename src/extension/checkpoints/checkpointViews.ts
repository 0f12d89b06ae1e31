/**
 * The `Checkpoints` view (a timeline per session, newest first, with approval badges and tags) and
 * the `Pending Approvals` view (what waits for a person).
 */
import * as vscode from 'vscode';
import type { CheckpointDto, ApprovalStatusDto } from '../../protocol/checkpointDto';
import { checkpointList, sessionList } from '../../protocol/rpc';
import type { BatonWorkspace } from '../batonWorkspace';
import { actorName } from '../../protocol/people';
import { escapeMarkdown, localUser, relativeTime, shownItem } from '../format';
import { CommandIds } from '../ids';
import { Disposable } from '../lifecycle';

export class CheckpointNode {
	constructor(readonly checkpoint: CheckpointDto) {}
}

class SessionGroup {
	constructor(
		readonly sessionId: string | null,
		readonly checkpoints: CheckpointDto[],
	) {}
}

const approvalIcons: Record<ApprovalStatusDto, [string, string, string]> = {
	pending: ['circle-large-outline', 'charts.yellow', 'needs review'],
	approved: ['pass-filled', 'charts.green', 'approved'],
	auto_approved: ['pass', 'charts.green', 'auto-approved'],
	rejected: ['error', 'charts.red', 'rejected'],
};

function checkpointItem(c: CheckpointDto): vscode.TreeItem {
	const [icon, color, label] = approvalIcons[c.approvalStatus];
	const title = c.message?.trim() || `${c.trigger} checkpoint`;
	const item = new vscode.TreeItem(title, vscode.TreeItemCollapsibleState.None);
	item.id = `checkpoint:${c.id}`;
	item.iconPath = new vscode.ThemeIcon(icon, new vscode.ThemeColor(color));
	const tags = c.tags.length ? ` · ${c.tags.map((t) => `#${t}`).join(' ')}` : '';
	// Teammates' decisions pulled from a shared remote: shown as theirs, never applied (docs/sync.md, "Who decides").
	const opinions = c.opinions ?? [];
	const opinionNote = opinions.length ? ` · ${opinions.length} teammate opinion${opinions.length === 1 ? '' : 's'}` : '';
	item.description = `${label} · ${c.trigger} · ${relativeTime(c.createdAt)}${tags}${opinionNote}`;
	item.contextValue = `checkpoint.${c.approvalStatus}`;
	const stats = c.fileStats;
	const md = new vscode.MarkdownString(undefined, true);
	md.appendMarkdown(`$(${icon}) **#${c.seq} ${escapeMarkdown(title)}** — ${label}  \n`);
	md.appendMarkdown(`${escapeMarkdown(c.id)} · ${c.trigger} · ${new Date(c.createdAt).toLocaleString()}  \n`);
	md.appendMarkdown(
		`+${stats.added} ~${stats.modified} −${stats.deleted} files${stats.linesAdded !== null ? ` · +${stats.linesAdded} −${stats.linesRemoved ?? 0} lines` : ''}`,
	);
	if (stats.skippedTotal > 0) md.appendMarkdown(`  \n$(warning) ${stats.skippedTotal} file(s) skipped (too large or unreadable)`);
	if (stats.degraded) md.appendMarkdown(`  \n$(warning) partial snapshot: ${escapeMarkdown(stats.degradedReason ?? 'time budget')}`);
	for (const reason of c.escalationReasons) md.appendMarkdown(`  \n$(flame) ${escapeMarkdown(reason)}`);
	if (c.approvalUser)
		md.appendMarkdown(
			`  \n${label} by ${escapeMarkdown(actorName(c.approvalUser, localUser()))} (${escapeMarkdown(c.approvalUser)})${c.approvalReason ? `: ${escapeMarkdown(c.approvalReason)}` : ''}`,
		);
	for (const o of opinions) {
		const who = escapeMarkdown(o.author ?? o.by ?? 'a teammate');
		md.appendMarkdown(
			`  \n$(comment) ${who} on ${escapeMarkdown(o.machineName ?? o.machine)}: ${escapeMarkdown(o.status)}${o.note ? ` — ${escapeMarkdown(o.note)}` : ''} _(a teammate's opinion, not applied: decide here)_`,
		);
	}
	item.tooltip = md;
	// What waits for review opens what it changed (the checkpoint before it → it), with Approve and
	// Reject; a decided one opens against the working tree, what a rollback to it would change.
	item.command =
		c.approvalStatus === 'pending'
			? { command: CommandIds.compareCheckpoints, title: 'Review Changes', arguments: [{ id: c.id, withParent: true }] }
			: { command: CommandIds.compareCheckpoints, title: 'Compare with Working Tree', arguments: [{ id: c.id }] };
	return item;
}

abstract class CheckpointTreeBase<T> extends Disposable implements vscode.TreeDataProvider<T> {
	protected readonly changeEmitter = this.register(new vscode.EventEmitter<T | undefined>());
	readonly onDidChangeTreeData = this.changeEmitter.event;

	constructor(protected readonly workspace: BatonWorkspace) {
		super();
		this.register(workspace.onDidChangeData(() => this.changeEmitter.fire(undefined)));
	}

	abstract getChildren(node?: T): Promise<T[]>;
	abstract getTreeItem(node: T): vscode.TreeItem;

	protected async load(status?: ApprovalStatusDto): Promise<CheckpointDto[]> {
		if (!this.workspace.status?.initialized) {
			return [];
		}
		try {
			const { checkpoints } = await this.workspace.request(checkpointList, { ...(status ? { status } : {}), limit: 500 });
			this.workspace.retried('checkpoints');
			return checkpoints;
		} catch (error) {
			this.workspace.log.error(`could not load checkpoints: ${(error as Error).message}`);
			this.workspace.retryLater('checkpoints');
			return [];
		}
	}
}

export class CheckpointsProvider extends CheckpointTreeBase<SessionGroup | CheckpointNode> {
	private names = new Map<string, string>();

	async getChildren(node?: SessionGroup | CheckpointNode): Promise<(SessionGroup | CheckpointNode)[]> {
		if (node instanceof SessionGroup) {
			return node.checkpoints.map((c) => new CheckpointNode(c));
		}
		if (node) {
			return [];
		}
		const all = await this.load();
		const groups = new Map<string | null, CheckpointDto[]>();
		for (const c of all) {
			groups.set(c.sessionId, [...(groups.get(c.sessionId) ?? []), c]);
		}
		const { sessions } = await this.workspace.request(sessionList, { limit: 2000 }).catch(() => ({ sessions: [] as { id: string; name: string }[] }));
		this.names = new Map(sessions.map((s) => [s.id, s.name]));
		return [...groups.entries()].map(([sessionId, checkpoints]) => new SessionGroup(sessionId, checkpoints));
	}

	getTreeItem(node: SessionGroup | CheckpointNode): vscode.TreeItem {
		if (node instanceof CheckpointNode) {
			return shownItem(checkpointItem(node.checkpoint));
		}
		const label = node.sessionId ? (this.names.get(node.sessionId) ?? node.sessionId) : 'No session';
		const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.Expanded);
		item.id = `checkpoint-session:${node.sessionId ?? 'none'}`;
		item.iconPath = new vscode.ThemeIcon('history');
		const pending = node.checkpoints.filter((c) => c.approvalStatus === 'pending').length;
		item.description = `${node.checkpoints.length} checkpoint${node.checkpoints.length === 1 ? '' : 's'}${pending ? ` · ${pending} pending` : ''}`;
		item.contextValue = 'checkpointSession';
		return shownItem(item);
	}
}

export class PendingApprovalsProvider extends CheckpointTreeBase<CheckpointNode> {
	async getChildren(node?: CheckpointNode): Promise<CheckpointNode[]> {
		return node ? [] : (await this.load('pending')).map((c) => new CheckpointNode(c));
	}

	getTreeItem(node: CheckpointNode): vscode.TreeItem {
		return shownItem(checkpointItem(node.checkpoint));
	}
}
