/**
 * Approval prompts inside the editor: a checkpoint that needs review (from this window, the CLI, an
 * agent hook or the periodic timer) raises a notification with Approve, Reject and Review; an
 * escalated one (cost, duration or errors over their thresholds) asks in a modal dialog.
 */
import * as vscode from 'vscode';
import type { CheckpointDto } from '../../protocol/checkpointDto';
import type { BatonWorkspace } from '../batonWorkspace';
import { CommandIds } from '../ids';
import { Disposable } from '../lifecycle';

export class ApprovalPrompts extends Disposable {
	/** Prompted once per window; a reload prompts again for what is still pending. */
	private readonly prompted = new Set<string>();

	constructor(workspace: BatonWorkspace) {
		super();
		this.register(workspace.onDidChangeStatus((status) => this.check(status?.pendingCheckpoints ?? [])));
	}

	private check(pending: CheckpointDto[]): void {
		for (const checkpoint of pending) {
			if (!this.prompted.has(checkpoint.id)) {
				this.prompted.add(checkpoint.id);
				void this.prompt(checkpoint);
			}
		}
	}

	private async prompt(c: CheckpointDto): Promise<void> {
		const what = c.message?.trim() ? `“${c.message.trim()}”` : `a ${c.trigger} checkpoint`;
		const files = `${c.fileStats.added + c.fileStats.modified + c.fileStats.deleted} file(s) changed`;
		const escalated = c.escalationReasons.length > 0;
		const choice = escalated
			? await vscode.window.showWarningMessage(
					`Baton: ${what} needs your approval`,
					{ modal: true, detail: `Escalated: ${c.escalationReasons.join('; ')}.\n${files}. Review the changes before the agent goes on.` },
					'Approve',
					'Reject',
					'Review',
				)
			: await vscode.window.showInformationMessage(`Baton: ${what} needs review (${files}).`, 'Approve', 'Reject', 'Review');
		switch (choice) {
			case 'Approve':
				await vscode.commands.executeCommand(CommandIds.approveCheckpoint, { id: c.id });
				break;
			case 'Reject':
				await vscode.commands.executeCommand(CommandIds.rejectCheckpoint, { id: c.id });
				break;
			case 'Review':
				await vscode.commands.executeCommand(CommandIds.compareCheckpoints, { id: c.id, withParent: true });
				break;
			default:
				// Dismissed: it stays in Pending Approvals and the status bar count.
				break;
		}
	}
}
