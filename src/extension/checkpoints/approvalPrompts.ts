/**
 * Approval prompts inside the editor: a checkpoint that needs review (from this window, the CLI, an
 * agent hook or the periodic timer) raises a notification with Approve, Reject and Review; an
 * escalated one (cost, duration or errors over their thresholds) asks in a modal dialog. The
 * backend's `editor` notifications about a review come here too, so each checkpoint asks once.
 */
import * as vscode from 'vscode';
import type { CheckpointDto } from '../../protocol/checkpointDto';
import { checkpointList } from '../../protocol/rpc';
import type { BatonWorkspace } from '../batonWorkspace';
import { CommandIds, ViewIds } from '../ids';
import { Disposable } from '../lifecycle';
import { showInformationMessage, showWarningMessage } from '../messages';

/** What a prompt needs to know about the checkpoint that waits. */
interface ReviewSubject {
	id: string;
	/** Its number, when known (the backend's notices carry none). */
	seq?: number;
	message: string | null;
	trigger: string;
	filesChanged: number;
	escalationReasons: string[];
	/** The checkpoint's session: a session's escalation asks in a modal once, later ones in a notification. */
	sessionId: string | null;
}

/**
 * Reviews this close together are one notification: the group waits until none arrived for this
 * long (a window opening on a backlog hears of it twice, from the backend's notices and from the
 * status, not always at once), but never longer than `groupMaxMs` after the first.
 */
const groupWindowMs = 400;
const groupMaxMs = 3_000;

export class ApprovalPrompts extends Disposable {
	/** Prompted once per window; a reload prompts again for what is still pending. */
	private readonly prompted = new Set<string>();
	/** Sessions whose escalation this window already raised as a modal. */
	private readonly escalatedSessions = new Set<string>();
	/** Calm reviews waiting a moment to be asked about together. */
	private readonly calm: ReviewSubject[] = [];
	private calmTimer: ReturnType<typeof setTimeout> | undefined;
	private calmSince = 0;

	constructor(private readonly workspace: BatonWorkspace) {
		super();
		this.register(workspace.onDidChangeStatus((status) => this.check(status?.pendingCheckpoints ?? [])));
	}

	private check(pending: CheckpointDto[]): void {
		for (const c of pending) {
			this.promptOnce({
				id: c.id,
				seq: c.seq,
				message: c.message,
				trigger: c.trigger,
				filesChanged: c.fileStats.added + c.fileStats.modified + c.fileStats.deleted,
				escalationReasons: c.escalationReasons,
				sessionId: c.sessionId,
			});
		}
		// Notices that came before the first status waited for it.
		this.scheduleCalm();
	}

	/** Asks about a checkpoint unless this window already did; false when it had. */
	promptOnce(subject: ReviewSubject): boolean {
		if (this.prompted.has(subject.id)) {
			return false;
		}
		this.prompted.add(subject.id);
		if (subject.escalationReasons.length > 0) {
			void this.prompt(subject);
			return true;
		}
		// Calm reviews arriving together (a window opening on a backlog, an agent's burst, the status
		// and the backend's notices of the same checkpoints) are one notification.
		this.calm.push(subject);
		// A window opening on a backlog can hear the backend's notices before its first status, which
		// lists every pending checkpoint: wait for it (check() reschedules), at most `groupMaxMs`.
		this.scheduleCalm(this.workspace.status === undefined ? groupMaxMs : groupWindowMs);
		return true;
	}

	/** Asks about the calm reviews once none arrived for a moment (at most `groupMaxMs` after the first). */
	private scheduleCalm(quietMs: number = groupWindowMs): void {
		if (this.calm.length === 0) {
			return;
		}
		const now = Date.now();
		if (this.calmTimer === undefined) {
			this.calmSince = now;
		}
		clearTimeout(this.calmTimer);
		this.calmTimer = setTimeout(
			() => {
				this.calmTimer = undefined;
				const batch = this.calm.splice(0);
				if (this.isDisposed) return;
				void (batch.length === 1 && batch[0] ? this.prompt(batch[0]) : this.promptMany(batch));
			},
			Math.max(0, Math.min(quietMs, this.calmSince + groupMaxMs - now)),
		);
	}

	private async promptMany(subjects: ReviewSubject[]): Promise<void> {
		// The backend's notices carry no number: the status has it.
		const known = new Map((this.workspace.status?.pendingCheckpoints ?? []).map((c) => [c.id, c.seq]));
		if (subjects.some((c) => c.seq === undefined && !known.has(c.id))) {
			try {
				for (const c of (await this.workspace.request(checkpointList, { status: 'pending', limit: 500 })).checkpoints) known.set(c.id, c.seq);
			} catch (error) {
				this.workspace.log.warn(`Could not number the checkpoints that need review: ${(error as Error).message}`);
			}
		}
		subjects = subjects.map((c) => ({ ...c, seq: c.seq ?? known.get(c.id) })).sort((a, b) => (a.seq ?? 0) - (b.seq ?? 0));
		const shown = subjects
			.slice(0, 3)
			.map((c) => `${c.seq === undefined ? '' : `#${c.seq} `}${c.message?.trim() ? `“${c.message.trim()}”` : `(${c.trigger})`}`);
		const more = subjects.length > shown.length ? ` and ${subjects.length - shown.length} more` : '';
		const choice = await showInformationMessage(`Baton: ${subjects.length} checkpoints need review: ${shown.join(', ')}${more}.`, 'Open Pending Approvals');
		if (choice) {
			await vscode.commands.executeCommand(`${ViewIds.pendingApprovals}.focus`);
		}
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
			? await showWarningMessage(
					`Baton: ${what} needs your approval`,
					{ modal: true, detail: `Escalated: ${c.escalationReasons.join('; ')}.\n${files}. Review the changes before the agent goes on.` },
					'Approve',
					'Reject',
					'Review',
				)
			: escalated
				? await showWarningMessage(
						`Baton: ${what} needs your approval (escalated: ${c.escalationReasons.join('; ')}; ${files}).`,
						'Approve',
						'Reject',
						'Review',
					)
				: await showInformationMessage(`Baton: ${what} needs review (${files}).`, 'Approve', 'Reject', 'Review');
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
