/**
 * The `editor` notification channel, inside VS Code: a backend's message becomes an information,
 * warning or error notification (by priority) with buttons for what the message says to do. A
 * checkpoint that waits for review is asked about through the approval prompt instead, once per
 * checkpoint whichever of the two arrives first.
 */
import * as vscode from 'vscode';
import type { NotificationActionDto, NotificationShowDto } from '../../protocol/notificationDto';
import type { BatonWorkspace } from '../batonWorkspace';
import type { ApprovalPrompts } from '../checkpoints/approvalPrompts';
import type { RejectionOffers } from '../checkpoints/rejectionOffer';
import { CommandIds } from '../ids';
import { Disposable } from '../lifecycle';
import type { ToldHere } from './toldHere';
import { showErrorMessage, showInformationMessage, showWarningMessage } from '../messages';

const reviewEvents = new Set(['checkpoint.needs_review', 'escalation.triggered', 'session.error']);

/** Palette title → the command and its argument. The CLI line ends with the id the action is about. */
function commandFor(action: NotificationActionDto, n: NotificationShowDto): { command: string; arg: unknown } | undefined {
	const target = action.cli.split(' ').pop() ?? '';
	switch (action.editor) {
		case 'Baton: Show Session Details':
			return n.session ? { command: CommandIds.showSessionDetails, arg: { id: n.session.id } } : undefined;
		case 'Baton: Suspend Session':
			return n.session ? { command: CommandIds.suspendSession, arg: { id: n.session.id } } : undefined;
		case 'Baton: Compare Checkpoints':
			return n.checkpoint ? { command: CommandIds.compareCheckpoints, arg: { id: n.checkpoint.id, withParent: true } } : undefined;
		case 'Baton: Approve Checkpoint':
			return { command: CommandIds.approveCheckpoint, arg: { id: target } };
		case 'Baton: Reject Checkpoint':
			return { command: CommandIds.rejectCheckpoint, arg: { id: target } };
		case 'Baton: Roll Back to Checkpoint':
			return { command: CommandIds.rollbackCheckpoint, arg: { id: target } };
		default:
			return undefined;
	}
}

/** Notices this close together are one notification. */
const groupWindowMs = 400;

export class NotificationPresenter extends Disposable {
	private readonly batch: NotificationShowDto[] = [];

	constructor(
		workspace: BatonWorkspace,
		private readonly approvals: ApprovalPrompts,
		private readonly offers: RejectionOffers,
		private readonly told: ToldHere,
		private readonly log: vscode.LogOutputChannel,
	) {
		super();
		this.register(workspace.onDidReceiveNotification((n) => void this.show(n)));
	}

	async show(n: NotificationShowDto): Promise<void> {
		const cp = n.checkpoint;
		if (cp && cp.approvalStatus === 'pending' && reviewEvents.has(n.event)) {
			this.approvals.promptOnce({
				id: cp.id,
				message: cp.message,
				trigger: cp.trigger,
				filesChanged: n.filesChanged ? n.filesChanged.added + n.filesChanged.modified + n.filesChanged.deleted : 0,
				escalationReasons: cp.escalationReasons,
				sessionId: n.session?.id ?? null,
			});
			return;
		}
		if (n.event === 'checkpoint.rejected' && cp) {
			// The same offer the reject command makes, once per checkpoint whichever comes first.
			this.offers.offer(cp.id);
			return;
		}
		if (this.told.consume(n.event, n.event.startsWith('checkpoint.') ? cp?.id : n.session?.id)) {
			this.log.info(`Not showing “${n.title}”: this window already said so`);
			return;
		}
		this.queue(n);
	}

	/** Notices that arrive together (within a moment) become one notification; each is in the log. */
	private queue(n: NotificationShowDto): void {
		this.log.info(`Notification: ${n.title}. ${n.summary}`);
		if (n.priority === 'critical') {
			// An escalation or a budget overrun stands alone, at once.
			void this.showOne(n);
			return;
		}
		this.batch.push(n);
		if (this.batch.length === 1) {
			setTimeout(() => {
				const batch = this.batch.splice(0);
				if (this.isDisposed) return;
				void (batch.length === 1 && batch[0] ? this.showOne(batch[0]) : this.showMany(batch));
			}, groupWindowMs);
		}
	}

	private async showMany(batch: NotificationShowDto[]): Promise<void> {
		const worst = batch.some((n) => n.priority === 'critical')
			? showErrorMessage
			: batch.some((n) => n.priority === 'warning')
				? showWarningMessage
				: showInformationMessage;
		const titles = batch.slice(0, 3).map((n) => n.title);
		const more = batch.length > titles.length ? `; and ${batch.length - titles.length} more` : '';
		const choice = await worst(`Baton: ${batch.length} updates: ${titles.join('; ')}${more}.`, 'Show Log');
		if (choice) {
			this.log.show(true);
		}
	}

	private async showOne(n: NotificationShowDto): Promise<void> {
		const actions = n.actions.flatMap((a) => {
			const run = commandFor(a, n);
			return run ? [{ title: a.label, ...run }] : [];
		});
		const where = (vscode.workspace.workspaceFolders?.length ?? 0) > 1 ? ` (${n.workspace})` : '';
		const text = `Baton${where}: ${n.title}. ${n.summary}`;
		const show = n.priority === 'critical' ? showErrorMessage : n.priority === 'warning' ? showWarningMessage : showInformationMessage;
		// eslint-disable-next-line no-restricted-syntax -- the editor's API takes buttons as arguments; a notification has a few
		const choice = await show(text, ...actions);
		if (choice) {
			await vscode.commands.executeCommand(choice.command, choice.arg);
		}
	}
}
