/**
 * The `Agents` view and its status bar count (issue 26, item 4): every agent conversation running now
 * in this workspace, whichever agent, with its state — working, waiting for you, done, failed — and
 * why, as the backend's board says (src/engine/board; `baton agents`). The board is read again after
 * each change the backend reports, one request, never the whole store. A click opens what a row waits
 * on (a checkpoint's review) or its session's details; the status bar item counts who waits for you
 * and goes to the first.
 */
import * as vscode from 'vscode';
import { agentsBoard, type BoardEntryDto, type BoardReportDto, type BoardStateDto } from '../../protocol/boardRpc';
import { actorName } from '../../protocol/people';
import type { BatonWorkspace } from '../batonWorkspace';
import { escapeMarkdown, relativeTime, shownItem } from '../format';
import { command } from '../commands/commandSupport';
import { CommandIds, ContextKeys, ViewIds } from '../ids';
import { Disposable } from '../lifecycle';
import { showInformationMessage } from '../messages';

const stateIcons: Record<BoardStateDto, [string, string]> = {
	waiting: ['bell-dot', 'charts.yellow'],
	working: ['play-circle', 'charts.blue'],
	done: ['pass', 'charts.green'],
	failed: ['error', 'charts.red'],
};

const waitLabels = { permission: 'waiting for your permission', question: 'waiting for your answer', approval: 'waiting for your approval' } as const;

/** The agent as people name it (`claude-code` → Claude Code). */
function agentLabel(agent: string | null): string {
	return agent ? actorName(`hook:${agent}`, null) : 'Agent';
}

/** A row's own key: a session may hold several agents' conversations, and a checkpoint's row beside them. */
function entryKey(e: BoardEntryDto): string {
	return `agent:${e.id}:${e.checkpoint ? `cp:${e.checkpoint.id}` : (e.agentSessionId ?? '')}`;
}

function boardItem(e: BoardEntryDto): vscode.TreeItem {
	const [icon, color] = stateIcons[e.state];
	const item = new vscode.TreeItem(agentLabel(e.agent), vscode.TreeItemCollapsibleState.None);
	item.id = entryKey(e);
	item.iconPath = new vscode.ThemeIcon(icon, new vscode.ThemeColor(color));
	// The state and why first: at the default sidebar width the time and the session give way (both are in the hover).
	const why = e.reason === e.state || e.reason === 'active' ? e.state : `${e.state}: ${e.reason}`;
	item.description = `${why} · ${relativeTime(e.since)} · ${e.name}`;
	item.contextValue = `agent.${e.state}`;
	const md = new vscode.MarkdownString(undefined, true);
	md.appendMarkdown(`$(${icon}) **${escapeMarkdown(agentLabel(e.agent))}** — ${e.waitingOn ? waitLabels[e.waitingOn] : e.state}  \n`);
	md.appendMarkdown(`${escapeMarkdown(e.reason)}  \n`);
	md.appendMarkdown(
		`since ${new Date(e.since).toLocaleString()} · session **${escapeMarkdown(e.name)}** (${escapeMarkdown(e.scope)}, ${escapeMarkdown(e.status)})  \n`,
	);
	md.appendMarkdown(
		`${escapeMarkdown(e.id)}${e.agentSessionId ? ` · ${escapeMarkdown(e.agentSessionId)}` : ''}${e.event ? ` · last event ${escapeMarkdown(e.event)}` : ''}`,
	);
	item.tooltip = md;
	item.accessibilityInformation = { label: `${agentLabel(e.agent)}, ${e.state}: ${e.reason}, session ${e.name}` };
	item.command = { command: CommandIds.openAgent, title: 'Open', arguments: [e] };
	return item;
}

export class AgentsView extends Disposable implements vscode.TreeDataProvider<BoardEntryDto> {
	private readonly changeEmitter = this.register(new vscode.EventEmitter<BoardEntryDto | undefined>());
	readonly onDidChangeTreeData = this.changeEmitter.event;
	private readonly item = this.register(vscode.window.createStatusBarItem('baton.agents', vscode.StatusBarAlignment.Left, 49));
	readonly tree: vscode.TreeView<BoardEntryDto>;
	private current: BoardReportDto = { entries: [], waiting: 0, at: new Date(0).toISOString() };
	private reading: Promise<void> | undefined;
	private again = false;
	/** The entries last drawn, as JSON. */
	private shown: string | undefined;

	constructor(private readonly workspace: BatonWorkspace) {
		super();
		this.item.name = 'Baton Agents';
		this.item.command = CommandIds.showWaitingAgent;
		this.tree = this.register(vscode.window.createTreeView(ViewIds.agents, { treeDataProvider: this }));
		this.register(workspace.onDidChangeData(() => void this.read()));
		this.register(command(CommandIds.openAgent, (e?: unknown) => this.open(e as BoardEntryDto | undefined), workspace.log));
		this.register(command(CommandIds.showWaitingAgent, () => this.showFirstWaiting(), workspace.log));
	}

	/** The board as last read (the editor tests read it). */
	get report(): BoardReportDto {
		return this.current;
	}

	/** Reads the board now; a change while a read runs reads once more after it. */
	read(): Promise<void> {
		if (this.reading) {
			this.again = true;
			return this.reading;
		}
		this.reading = (async () => {
			do {
				this.again = false;
				await this.readOnce();
			} while (this.again);
		})().finally(() => (this.reading = undefined));
		return this.reading;
	}

	private async readOnce(): Promise<void> {
		if (!this.workspace.status?.initialized) {
			this.show({ entries: [], waiting: 0, at: new Date().toISOString() });
			return;
		}
		try {
			this.show(await this.workspace.request(agentsBoard, undefined));
			this.workspace.retried('agents');
		} catch (error) {
			this.workspace.log.error(`could not read the Agents board: ${(error as Error).message}`);
			this.workspace.retryLater('agents');
		}
	}

	private show(report: BoardReportDto): void {
		// Only what changed is drawn again: reads come with every change of the workspace's data.
		const shown = JSON.stringify(report.entries);
		const same = shown === this.shown;
		this.current = report;
		if (same) {
			return;
		}
		this.shown = shown;
		// No view badge: a badge on the activity bar's Baton icon left it never stable for a click (CI: the
		// checkpoints suite and the fresh-start check could not open Baton); the status bar item counts who waits.
		this.tree.message = report.entries.length === 0 ? 'No agent session is running in this workspace.' : undefined;
		void vscode.commands.executeCommand('setContext', ContextKeys.hasWaitingAgents, report.waiting > 0);
		this.updateStatusBar(report);
		this.changeEmitter.fire(undefined);
	}

	private updateStatusBar(report: BoardReportDto): void {
		const waiting = report.entries.filter((e) => e.state === 'waiting');
		if (waiting.length === 0 || !vscode.workspace.getConfiguration('baton').get<boolean>('statusBar.enabled', true)) {
			this.item.hide();
			return;
		}
		this.item.text = `$(bell-dot) ${waiting.length} waiting`;
		this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
		const md = new vscode.MarkdownString(`**Baton** — ${waiting.length} agent session${waiting.length === 1 ? ' waits' : 's wait'} for you`, true);
		for (const e of waiting.slice(0, 8)) {
			md.appendMarkdown(`  \n$(bell-dot) ${escapeMarkdown(agentLabel(e.agent))}: ${escapeMarkdown(e.reason)} (${escapeMarkdown(relativeTime(e.since))})`);
		}
		md.appendMarkdown('\n\n_Click to go to the first._');
		this.item.tooltip = md;
		this.item.accessibilityInformation = {
			label: `Baton: ${waiting.length} agent session${waiting.length === 1 ? '' : 's'} waiting for you`,
			role: 'button',
		};
		shownItem(this.item);
		this.item.show();
	}

	/** What the status bar item shows (the editor tests read it); empty text when hidden. */
	get statusShown(): { text: string; visible: boolean } {
		return { text: this.item.text, visible: this.current.waiting > 0 };
	}

	getChildren(node?: BoardEntryDto): BoardEntryDto[] {
		return node ? [] : this.current.entries;
	}

	getParent(): undefined {
		return undefined;
	}

	getTreeItem(node: BoardEntryDto): vscode.TreeItem {
		return shownItem(boardItem(node));
	}

	/** A row opens what it waits on: a checkpoint's review, else its session's details. */
	private async open(e?: BoardEntryDto): Promise<void> {
		if (!e) {
			return;
		}
		if (e.checkpoint) {
			await vscode.commands.executeCommand(CommandIds.compareCheckpoints, { id: e.checkpoint.id, withParent: true });
			return;
		}
		await vscode.commands.executeCommand(CommandIds.showSessionDetails, e.id);
	}

	/** The status bar's click: the first session that waits for you, shown in the view and opened. */
	private async showFirstWaiting(): Promise<void> {
		await this.read();
		const first = this.current.entries.find((e) => e.state === 'waiting');
		if (!first) {
			void showInformationMessage('No agent session waits for you.');
			return;
		}
		await this.tree.reveal(first, { select: true, focus: false });
		await this.open(first);
	}
}
