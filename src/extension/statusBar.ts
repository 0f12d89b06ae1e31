/**
 * The status bar: the active session's name and state; a warning background when a session was
 * orphaned; hidden until Baton is initialised in the workspace. A click offers the actions that fit.
 */
import * as vscode from 'vscode';
import type { WorkspaceStatus } from '../protocol/rpc';
import type { BatonWorkspace } from './batonWorkspace';
import { escapeMarkdown, relativeTime, shownItem, withoutIcons } from './format';
import { CommandIds } from './ids';
import { Disposable } from './lifecycle';

interface SyncSection {
	/** Shown on the item after the session (empty: nothing to say there). */
	text: string;
	markdown: string;
	failed: boolean;
}

export class SessionStatusBar extends Disposable {
	private readonly item = this.register(vscode.window.createStatusBarItem('baton.session', vscode.StatusBarAlignment.Left, 50));

	constructor(workspace: BatonWorkspace) {
		super();
		this.item.name = 'Baton Session';
		this.item.command = CommandIds.sessionActions;
		this.register(workspace.onDidChangeStatus((status) => this.update(status)));
		this.update(workspace.status);
	}

	private lastStatus: WorkspaceStatus | undefined;
	private fileShare: string | undefined;
	private sync: SyncSection | undefined;

	/** What the item shows (the editor tests read it). */
	get shown(): { text: string; tooltip: string } {
		const tooltip = this.item.tooltip;
		return { text: this.item.text, tooltip: typeof tooltip === 'string' ? tooltip : (tooltip?.value ?? '') };
	}

	/** Sync's state (sync/syncController.ts): a short mark on the item, its lines in the tooltip. */
	setSync(section: SyncSection | undefined): void {
		this.sync = section;
		this.update(this.lastStatus);
	}

	/** A line about the active file (its agent share) shown in the tooltip. */
	setFileShare(markdown: string | undefined): void {
		this.fileShare = markdown;
		this.update(this.lastStatus);
	}

	update(status: WorkspaceStatus | undefined): void {
		this.lastStatus = status;
		if (!status?.initialized || !vscode.workspace.getConfiguration('baton').get<boolean>('statusBar.enabled', true)) {
			this.item.hide();
			return;
		}
		const active = status.active[0];
		const tooltip = new vscode.MarkdownString(undefined, true);
		this.item.backgroundColor = undefined;
		if (active) {
			const more = status.active.length > 1 ? ` +${status.active.length - 1}` : '';
			this.item.text = `$(debug-start) ${withoutIcons(truncate(active.name, 32))}${more} · active`;
			tooltip.appendMarkdown(
				`**Baton** — active session **${escapeMarkdown(active.name)}**  \n${escapeMarkdown(active.scopeKey)} · started ${relativeTime(active.startedAt)}`,
			);
			for (const other of status.active.slice(1)) {
				tooltip.appendMarkdown(`  \nalso active: ${escapeMarkdown(other.name)} (${escapeMarkdown(other.scopeKey)})`);
			}
		} else if (status.counts.orphaned > 0) {
			this.item.text = `$(warning) Baton: ${status.counts.orphaned} orphaned`;
			this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
			tooltip.appendMarkdown(`**Baton** — ${status.counts.orphaned} session(s) were abandoned without a handoff. Resume one or clean up.`);
		} else {
			this.item.text = '$(circle-large-outline) Baton: no session';
			tooltip.appendMarkdown('**Baton** — no active session. Click to start one.');
		}
		const pending = status.pendingCheckpoints.length;
		if (pending > 0) {
			// Approvals waiting are the one thing that needs a person: count them and flag the item.
			this.item.text += ` $(bell-dot) ${pending}`;
			this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
			tooltip.appendMarkdown(`\n\n$(bell-dot) **${pending} checkpoint${pending === 1 ? '' : 's'} awaiting approval**`);
		}
		if (this.fileShare) {
			tooltip.appendMarkdown(`\n\n${this.fileShare}`);
		}
		if (this.sync) {
			this.item.text += this.sync.text ? ` ${this.sync.text}` : '';
			if (this.sync.failed) {
				this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
			}
			tooltip.isTrusted = { enabledCommands: [CommandIds.syncNow] };
			tooltip.appendMarkdown(`\n\n${this.sync.markdown}`);
		}
		tooltip.appendMarkdown('\n\n_Click for session actions._');
		this.item.tooltip = tooltip;
		this.item.accessibilityInformation = { label: this.item.text.replace(/\$\([^)]+\)\s*/g, ''), role: 'button' };
		shownItem(this.item);
		this.item.show();
	}
}

function truncate(text: string, max: number): string {
	return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
