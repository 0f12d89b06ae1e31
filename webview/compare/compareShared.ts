import type { ApprovalSummaryDto, CheckpointDto } from '../../src/protocol/checkpointDto';
import type { WebviewToHost } from '../../src/protocol/webview';

/** What a card sends to the host. */
export type Send = (message: WebviewToHost) => void;

/** How the comparison names a checkpoint everywhere on the page. */
export function checkpointName(cp: CheckpointDto): string {
	return `Checkpoint #${cp.seq}`;
}

export function summaryOf(cp: CheckpointDto): ApprovalSummaryDto {
	return { status: cp.approvalStatus, user: cp.approvalUser, at: cp.approvalAt, reason: cp.approvalReason };
}
