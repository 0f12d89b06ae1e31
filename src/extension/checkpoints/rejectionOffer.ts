/**
 * The one offer that follows a rejection, whichever way it was rejected (palette, tree, comparison
 * webview, review prompt, escalation dialog, the CLI or an agent): one toast per rejected checkpoint
 * naming it by number and label, whose button runs the rollback command (dialog, safety checkpoint,
 * restore) for the last approved checkpoint before it, as the backend answers it.
 */
import * as vscode from 'vscode';
import type { CheckpointDto } from '../../protocol/checkpointDto';
import { checkpointRollbackTarget, sessionDetails } from '../../protocol/rpc';
import type { BatonWorkspace } from '../batonWorkspace';
import { CommandIds } from '../ids';
import { showWarningMessage } from '../messages';

/** The same words the backend's rejection notice uses on every channel. */
const rollbackOfferLabel = 'Roll Back to the Last Approved Checkpoint';

/** "#4 “Retries work”", "#4 (periodic)". */
export function checkpointLabel(cp: Pick<CheckpointDto, 'seq' | 'message' | 'trigger'>): string {
	return `#${cp.seq} ${cp.message?.trim() ? `“${cp.message.trim()}”` : `(${cp.trigger})`}`;
}

export class RejectionOffers {
	/** Checkpoints this window already spoke about; a reload forgets (the rejection is in the views). */
	private readonly offered = new Set<string>();

	constructor(private readonly workspace: BatonWorkspace) {}

	/** Offers the way back for a rejected checkpoint unless this window already did; false when it had. */
	offer(checkpointId: string): boolean {
		if (this.offered.has(checkpointId)) {
			return false;
		}
		this.offered.add(checkpointId);
		this.show(checkpointId).catch((error: unknown) =>
			this.workspace.log.error(`Could not offer a rollback after rejecting ${checkpointId}: ${(error as Error).message}`),
		);
		return true;
	}

	/** A scripted rejection (the caller gave the reason): no toast now, and none when the backend's notice arrives. */
	settle(checkpointId: string): void {
		this.offered.add(checkpointId);
	}

	private async show(checkpointId: string): Promise<void> {
		// The backend answers where to go back (the same rule its notice uses on every channel).
		let answer: { checkpoint: CheckpointDto; target: CheckpointDto | null };
		try {
			answer = await this.workspace.request(checkpointRollbackTarget, { id: checkpointId });
		} catch (error) {
			this.workspace.log.warn(`Rejected checkpoint ${checkpointId}: no rollback to offer (${(error as Error).message})`);
			return;
		}
		const { checkpoint: rejected, target } = answer;
		const session = await this.sessionName(rejected.sessionId);
		const text = `Baton: rejected checkpoint ${checkpointLabel(rejected)}${session ? ` of “${session}”` : ''}.${target ? ` The last approved one is ${checkpointLabel(target)}.` : ' No approved checkpoint comes before it.'}`;
		this.workspace.log.info(`${text} (${rejected.id}${target ? ` → ${target.id}` : ''})`);
		const choice = target ? await showWarningMessage(text, rollbackOfferLabel) : await showWarningMessage(text);
		if (choice === rollbackOfferLabel && target) {
			await vscode.commands.executeCommand(CommandIds.rollbackCheckpoint, { id: target.id });
		}
	}

	private async sessionName(id: string | null): Promise<string | undefined> {
		if (!id) {
			return undefined;
		}
		try {
			return (await this.workspace.request(sessionDetails, { id })).session.name;
		} catch {
			return undefined;
		}
	}
}
