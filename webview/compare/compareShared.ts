import type { ApprovalSummaryDto, CheckpointDto, ComparisonDto } from '../../src/protocol/checkpointDto';
import type { WebviewToHost } from '../../src/protocol/webview';

/** What a card sends to the host. */
export type Send = (message: WebviewToHost) => void;

/** How the comparison names a checkpoint everywhere on the page. */
export function checkpointName(cp: CheckpointDto): string {
	return `Checkpoint #${cp.seq}`;
}

/** The older side when there is none: what the workspace's first checkpoint is compared with. */
export const nothingBefore = 'Empty workspace';

/** The older side's name: a checkpoint, or the empty workspace before the first one. */
export function fromName(comparison: ComparisonDto): string {
	return comparison.from ? checkpointName(comparison.from) : nothingBefore;
}

/** The newer side's name: a checkpoint, or the working tree. */
export function toName(comparison: ComparisonDto): string {
	return comparison.to ? checkpointName(comparison.to) : 'working tree';
}

/** The checkpoint a review is about: the newer side (the older one when the other is the working tree). */
export function newerOf(comparison: ComparisonDto): CheckpointDto {
	// The engine never sends both sides empty (docs: ComparisonDto).
	return (comparison.to ?? comparison.from) as CheckpointDto;
}

/** A session's name as the comparison knows it, else its id. */
export function sessionName(comparison: ComparisonDto, id: string): string {
	return comparison.sessions.find((s) => s.id === id)?.name ?? id;
}

export function summaryOf(cp: CheckpointDto): ApprovalSummaryDto {
	return { status: cp.approvalStatus, user: cp.approvalUser, at: cp.approvalAt, reason: cp.approvalReason };
}
