import type { ApprovalSummaryDto, ComparisonDto } from '../../src/protocol/checkpointDto';
import { el, timeEl, type Child } from '../dom';
import { approvalLabel, approvalPill, button, card } from '../widgets';
import { checkpointName, summaryOf, type Send } from './compareShared';

/** Where approval stands on each side, with Approve and Reject while the newer side waits for review. */
export function approvalCard(comparison: ComparisonDto, send: Send): HTMLElement {
	const { from, to } = comparison;
	const newer = to ?? from;
	const newerSummary = to ? (comparison.approval.to ?? summaryOf(to)) : comparison.approval.from;
	const actions: Child[] = [];
	if (newer.approvalStatus === 'pending') {
		actions.push(
			button('Approve', () => send({ type: 'checkpointAction', action: 'approve', checkpointId: newer.id }), {
				icon: 'check',
				focusKey: `approve:${newer.id}`,
				ariaLabel: `Approve ${checkpointName(newer)}`,
			}),
			button('Reject', () => send({ type: 'checkpointAction', action: 'reject', checkpointId: newer.id }), {
				secondary: true,
				icon: 'close',
				focusKey: `reject:${newer.id}`,
				ariaLabel: `Reject ${checkpointName(newer)}`,
			}),
		);
	}
	return card(
		'Approval',
		{ headingId: 'approval-heading' },
		el(
			'ol',
			{ class: 'approval-steps', 'aria-label': 'Approval status from the older side to the newer side' },
			approvalStep(checkpointName(from), comparison.approval.from),
			to
				? approvalStep(checkpointName(to), comparison.approval.to ?? summaryOf(to))
				: el('li', { class: 'approval-step' }, el('span', { class: 'step-name' }, 'Working tree'), el('span', { class: 'muted' }, 'not a checkpoint: nothing to approve')),
		),
		el('p', { class: 'approval-change' }, approvalSentence(comparison)),
		newer.approvalStatus === 'pending' && newer.escalationReasons.length > 0
			? el('p', { class: 'hint' }, `Escalated: ${newer.escalationReasons.join('; ')}.`)
			: newer.approvalStatus === 'pending' && newerSummary.reason
				? el('p', { class: 'hint' }, newerSummary.reason)
				: null,
		actions.length > 0 ? el('div', { class: 'toolbar', role: 'group', 'aria-label': `Review ${checkpointName(newer)}` }, actions) : null,
	);
}

function approvalStep(name: string, summary: ApprovalSummaryDto): HTMLElement {
	const who: Child[] = [];
	if (summary.user) who.push(`by ${summary.user}`);
	if (summary.at) who.push(timeEl(summary.at));
	return el(
		'li',
		{ class: 'approval-step' },
		el('span', { class: 'step-name' }, name),
		approvalPill(summary.status),
		who.length > 0
			? el(
					'span',
					{ class: 'muted step-who' },
					who.flatMap((part, i) => (i > 0 ? [' · ', part] : [part])),
				)
			: null,
	);
}

function approvalSentence(comparison: ComparisonDto): string {
	const { from, to } = comparison;
	if (!to) {
		// Says of the working tree what the file list says: changed since, or still the same.
		const since = comparison.files.length > 0 ? 'the working tree has changed since' : 'the working tree still matches it';
		return from.approvalStatus === 'pending' ? `${checkpointName(from)} still waits for review; ${since}.` : `${checkpointName(from)} is ${approvalLabel(from.approvalStatus).toLowerCase()}; ${since}.`;
	}
	const a = (comparison.approval.from ?? summaryOf(from)).status;
	const b = (comparison.approval.to ?? summaryOf(to)).status;
	if (a === b) {
		return `Both checkpoints are ${approvalLabel(a).toLowerCase()}.`;
	}
	return `${approvalLabel(a)} → ${approvalLabel(b).toLowerCase()}.`;
}
