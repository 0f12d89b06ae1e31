import type { ApprovalSummaryDto, ComparisonDto } from '../../src/protocol/checkpointDto';
import { actorName } from '../../src/protocol/people';
import { el, timeEl, type Child } from '../dom';
import { approvalLabel, approvalPill, button, card } from '../widgets';
import { checkpointName, newerOf, nothingBefore, summaryOf, type Send } from './compareShared';

/** Where approval stands on each side, with Approve and Reject while the newer side waits for review. */
export function approvalCard(comparison: ComparisonDto, send: Send): HTMLElement {
	const { from, to } = comparison;
	const newer = newerOf(comparison);
	const newerSummary = (to ? comparison.approval.to : comparison.approval.from) ?? summaryOf(newer);
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
			from
				? approvalStep(checkpointName(from), comparison.approval.from ?? summaryOf(from), comparison.you)
				: el(
						'li',
						{ class: 'approval-step' },
						el('span', { class: 'step-name' }, nothingBefore),
						el('span', { class: 'muted' }, 'not a checkpoint: nothing to approve'),
					),
			to
				? approvalStep(checkpointName(to), comparison.approval.to ?? summaryOf(to), comparison.you)
				: el(
						'li',
						{ class: 'approval-step' },
						el('span', { class: 'step-name' }, 'Working tree'),
						el('span', { class: 'muted' }, 'not a checkpoint: nothing to approve'),
					),
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

function approvalStep(name: string, summary: ApprovalSummaryDto, you: string | null): HTMLElement {
	const who: Child[] = [];
	if (summary.user) who.push(el('span', { title: summary.user }, `by ${actorName(summary.user, you)}`));
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
	if (!from && to) {
		// The first checkpoint: what it changed is all it holds.
		return to.approvalStatus === 'pending'
			? `${checkpointName(to)} waits for review.`
			: `${checkpointName(to)} is ${approvalLabel(to.approvalStatus).toLowerCase()}.`;
	}
	const newer = newerOf(comparison);
	if (!to) {
		// Says of the working tree what the file list says: changed since, or still the same.
		const since = comparison.files.length > 0 ? 'the working tree has changed since' : 'the working tree still matches it';
		return newer.approvalStatus === 'pending'
			? `${checkpointName(newer)} still waits for review; ${since}.`
			: `${checkpointName(newer)} is ${approvalLabel(newer.approvalStatus).toLowerCase()}; ${since}.`;
	}
	const b = (comparison.approval.to ?? summaryOf(to)).status;
	const a = comparison.approval.from?.status ?? from?.approvalStatus ?? b;
	if (a === b) {
		return `Both checkpoints are ${approvalLabel(a).toLowerCase()}.`;
	}
	return `${approvalLabel(a)} → ${approvalLabel(b).toLowerCase()}.`;
}
