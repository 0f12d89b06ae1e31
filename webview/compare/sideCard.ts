import type { ApprovalSummaryDto, CheckpointDto, ComparisonDto } from '../../src/protocol/checkpointDto';
import { formatCount } from '../compareModel';
import { dateTimeEl, el, timeEl, type Child } from '../dom';
import { approvalLabel, approvalPill, button, card, chip, facts, icon } from '../widgets';
import { checkpointName, newerOf, nothingBefore, sessionName, summaryOf, type Send } from './compareShared';
import { actorName } from '../../src/protocol/people';

/** One side of the comparison: what the checkpoint is (or the working tree), with rolling back to the older side. */
export function sideCard(cp: CheckpointDto | null, side: 'from' | 'to', comparison: ComparisonDto, send: Send): HTMLElement {
	const headingId = `side-${side}`;
	if (!cp && side === 'from') {
		// The workspace's first checkpoint: Baton holds nothing from before it, and says so rather than guess.
		const first = comparison.to ? checkpointName(comparison.to) : 'This checkpoint';
		return el(
			'div',
			{ class: 'side side-from is-empty-base' },
			card(
				'From',
				{ headingId },
				el('p', { class: 'side-title' }, icon('info'), el('span', {}, nothingBefore)),
				el(
					'p',
					{ class: 'muted side-note' },
					`${first} is the first checkpoint of this workspace. Baton has no snapshot from before it, so it is compared with an empty workspace: every file it holds is listed as added, whether the agent wrote it or it was there already.`,
				),
			),
		);
	}
	if (!cp) {
		return el(
			'div',
			{ class: 'side side-to is-working-tree' },
			card(
				'To',
				{ headingId },
				el('p', { class: 'side-title' }, icon('file'), el('span', {}, 'Working tree')),
				el('p', { class: 'muted side-note' }, 'The workspace as it is now. It is not a checkpoint: take one to approve or share this state.'),
			),
		);
	}
	const isNewer = newerOf(comparison).id === cp.id;
	const actions: Child[] = [];
	if (side === 'from') {
		actions.push(
			button('Roll back to this checkpoint', () => send({ type: 'checkpointAction', action: 'rollback', checkpointId: cp.id }), {
				secondary: true,
				icon: 'undo',
				focusKey: `rollback:${cp.id}`,
				ariaLabel: `Roll back the workspace to ${checkpointName(cp)}`,
				title: 'Restore the workspace to this checkpoint (a safety checkpoint is taken first)',
			}),
		);
	}
	return el(
		'div',
		{ class: `side side-${side}` },
		card(
			side === 'from' ? 'From' : 'To',
			{ headingId },
			el(
				'p',
				{ class: 'side-title' },
				el('span', { class: 'seq' }, `#${cp.seq}`),
				cp.message ? el('span', { class: 'side-message' }, cp.message) : el('span', { class: 'muted' }, 'No message'),
			),
			el(
				'div',
				{ class: 'row-meta side-meta' },
				chip(cp.trigger, { class: 'chip trigger', title: `Trigger: ${cp.trigger}` }),
				approvalPill(cp.approvalStatus),
				timeEl(cp.createdAt),
			),
			facts([
				['Created', dateTimeEl(cp.createdAt)],
				[
					'Session',
					cp.sessionId
						? el('span', { class: 'session-name', title: `Session id: ${cp.sessionId}` }, sessionName(comparison, cp.sessionId))
						: el('span', { class: 'muted' }, 'none'),
				],
				[
					'Tags',
					cp.tags.length > 0
						? el(
								'span',
								{ class: 'tags' },
								cp.tags.map((t) => chip(t, { class: 'chip tag' })),
							)
						: el('span', { class: 'muted' }, 'none'),
				],
				['Approval', approvalFacts(summaryOf(cp), cp.approvalPolicy, cp.escalationReasons.length > 0, comparison.you)],
				[
					'Snapshot',
					el(
						'span',
						{},
						`${formatCount(cp.fileStats.totalFiles)} ${cp.fileStats.totalFiles === 1 ? 'file' : 'files'} · `,
						el('code', { title: cp.commitSha }, cp.commitSha.slice(0, 8)),
					),
				],
				// The one place the page shows the id, labelled as such: for the CLI and the logs.
				['Id', el('code', { class: 'wrap raw-id' }, cp.id)],
			]),
			cp.escalationReasons.length > 0 ? escalation(cp) : null,
			isNewer && cp.approvalStatus === 'pending' ? el('p', { class: 'hint' }, 'Waiting for review: approve or reject it under Approval.') : null,
			actions.length > 0 ? el('div', { class: 'toolbar side-actions' }, actions) : null,
		),
	);
}

/** "Approved by alice · 2 h ago", then why (unless the escalation list below says it), then the policy it fell under. */
function approvalFacts(summary: ApprovalSummaryDto, policy: string | null, escalated: boolean, you: string | null): HTMLElement {
	const reason = summary.reason && !(escalated && summary.reason.startsWith('escalated:')) ? summary.reason : null;
	const who: Child[] = [];
	if (summary.user) who.push(' by ', el('span', { class: 'approval-user', title: summary.user }, actorName(summary.user, you)));
	if (summary.at) who.push(' · ', timeEl(summary.at));
	return el(
		'div',
		{ class: 'approval-facts' },
		el('span', {}, el('strong', {}, approvalLabel(summary.status)), who),
		reason ? el('span', { class: 'muted approval-reason' }, reason) : null,
		policy ? el('span', { class: 'muted' }, `${policy} policy`) : null,
	);
}

function escalation(cp: CheckpointDto): HTMLElement {
	return el(
		'div',
		{ class: 'escalation', role: 'group', 'aria-label': `Escalation reasons for ${checkpointName(cp)}` },
		el('strong', {}, 'Escalated'),
		el(
			'ul',
			{ class: 'bullets blockers' },
			cp.escalationReasons.map((r) => el('li', {}, icon('warning'), el('span', {}, r))),
		),
	);
}
