/**
 * Approval prompts inside the editor: a checkpoint that needs review (from this window, the CLI, an
 * agent hook or the periodic timer) raises a notification with Approve, Reject and Review; an
 * escalated one (cost, duration or errors over their thresholds) asks in a modal dialog. The
 * backend's `editor` notifications about a review come here too, so each checkpoint asks once.
 */
import * as vscode from 'vscode';
import type { CheckpointDto } from '../../protocol/checkpointDto';
import type { BatonWorkspace } from '../batonWorkspace';
import { CommandIds } from '../ids';
import { Disposable } from '../lifecycle';

/** What a prompt needs to know about the checkpoint that waits. */
export interface ReviewSubject {
	id: string;
	message: string | null;
	trigger: string;
	filesChanged: number;
	escalationReasons: string[];
	/** The checkpoint's session: a session's escalation asks in a modal once, later ones in a notification. */
	sessionId: string | null;
}

export class ApprovalPrompts extends Disposable {
	/** Prompted once per window; a reload prompts again for what is still pending. */
	private readonly prompted = new Set<string>();
	/** Sessions whose escalation this window already raised as a modal. */
	private readonly escalatedSessions = new Set<string>();

	constructor(workspace: BatonWorkspace) {
		super();
		this.register(workspace.onDidChangeStatus((status) => this.check(status?.pendingCheckpoints ?? [])));
	}

	private check(pending: CheckpointDto[]): void {
		for (const c of pending) {
			this.promptOnce({ id: c.id, message: c.message, trigger: c.trigger, filesChanged: c.fileStats.added + c.fileStats.modified + c.fileStats.deleted, escalationReasons: c.escalationReasons, sessionId: c.sessionId });
		}
	}

	/** Asks about a checkpoint unless this window already did; false when it had. */
	promptOnce(subject: ReviewSubject): boolean {
		if (this.prompted.has(subject.id)) {
			return false;
		}
		this.prompted.add(subject.id);
		void this.prompt(subject);
		return true;
	}

	private async prompt(c: ReviewSubject): Promise<void> {
		const what = c.message?.trim() ? `“${c.message.trim()}”` : `a ${c.trigger} checkpoint`;
		const files = `${c.filesChanged} file(s) changed`;
		const escalated = c.escalationReasons.length > 0;
		// Once a session is escalated every checkpoint of it is: the first one interrupts, the rest wait
		// in a notification and in Pending Approvals instead of a modal every few minutes.
		const interrupt = escalated && !(c.sessionId && this.escalatedSessions.has(c.sessionId));
		if (interrupt && c.sessionId) {
			this.escalatedSessions.add(c.sessionId);
		}
		const choice = interrupt
			? await vscode.window.showWarningMessage(
					`Baton: ${what} needs your approval`,
					{ modal: true, detail: `Escalated: ${c.escalationReasons.join('; ')}.\n${files}. Review the changes before the agent goes on.` },
					'Approve',
					'Reject',
					'Review',
				)
			: escalated
				? await vscode.window.showWarningMessage(`Baton: ${what} needs your approval (escalated: ${c.escalationReasons.join('; ')}; ${files}).`, 'Approve', 'Reject', 'Review')
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
