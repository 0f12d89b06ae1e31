import type { ForkNodeDto, IssueLinkDto, SessionDetailsDto, SessionDto } from '../src/protocol/dto';
import { issueLabel } from '../src/protocol/issueLabel';
import type { WebviewToHost } from '../src/protocol/webview';
import { dateTimeEl, el, formatDuration, minutesBetween, plural, timeEl, type Child } from './dom';
import {
	button,
	callout,
	card,
	chip,
	columns,
	empty,
	facts,
	focusCard,
	handoffBody,
	icon,
	linkButton,
	pageHeader,
	statusLabel,
	statusPill,
	taskIdEl,
	listCard,
} from './widgets';

type Send = (message: WebviewToHost) => void;

/** The debrief of one session: who ran it, what it left behind, where it sits in its chain and fork tree. */
export function detailsView(details: SessionDetailsDto, send: Send): HTMLElement {
	const { session } = details;
	const open = (id: string): void => send({ type: 'openSession', sessionId: id });
	return el(
		'div',
		{ class: 'view details' },
		header(session, send),
		details.handoffProblem ? callout('warning', 'Handoff problem', el('p', {}, details.handoffProblem)) : null,
		chainNav(details, open),
		columns(
			[
				session.focus ? focusCard(session.focus, session.status !== 'active', 'this session') : null,
				card(
					'Handoff',
					{},
					details.handoff
						? handoffBody(details.handoff)
						: empty(
								session.status === 'active' || session.status === 'suspended'
									? 'Written when the session ends.'
									: 'This session ended without a handoff.',
							),
				),
				decisions(details),
				card('End note', {}, session.endNote ? el('blockquote', { class: 'note' }, session.endNote) : empty('No end note.')),
			],
			[overview(session), issues(details, send), gitCard(session), chainList(details, open), forks(details.forkTree, session.id, open)],
		),
	);
}

function header(session: SessionDto, send: Send): HTMLElement {
	const transition = (action: 'end' | 'suspend' | 'resume') => () => send({ type: 'transition', action, sessionId: session.id });
	const actions: Child[] = [];
	if (session.status === 'active') {
		actions.push(
			button('End session', transition('end'), { icon: 'stop', focusKey: 'end', title: 'End the session and write its handoff' }),
			button('Suspend', transition('suspend'), { secondary: true, icon: 'pause', focusKey: 'suspend' }),
		);
	} else if (session.status === 'suspended' || session.status === 'ended' || session.status === 'orphaned') {
		actions.push(button('Resume', transition('resume'), { icon: 'play', focusKey: 'resume', title: 'Make this session active again' }));
	}
	actions.push(
		button('Briefing', () => send({ type: 'openBriefing', sessionId: session.id }), {
			secondary: true,
			icon: 'book',
			focusKey: 'briefing',
			title: 'Open the briefing for this session',
		}),
		button('Refresh', () => send({ type: 'refresh' }), { secondary: true, icon: 'refresh', focusKey: 'refresh' }),
	);
	return pageHeader(
		[el('h1', {}, session.name), statusPill(session.status)],
		[chip(session.scopeKey, { class: 'chip scope', title: 'Scope' }), el('code', { class: 'session-id', title: 'Session id' }, session.id)],
		actions,
		'Session actions',
	);
}

function chainNav(details: SessionDetailsDto, open: (id: string) => void): HTMLElement {
	const index = details.chain.findIndex((s) => s.id === details.session.id);
	const position = index >= 0 ? index + 1 : (details.session.debrief?.chainPosition ?? 1);
	const length = index >= 0 ? details.chain.length : (details.session.debrief?.chainLength ?? 1);
	const previous = index > 0 ? details.chain[index - 1] : undefined;
	const next = index >= 0 ? details.chain[index + 1] : undefined;
	const side = (s: SessionDto | undefined, direction: 'previous' | 'next'): HTMLElement =>
		s
			? linkButton(
					direction === 'previous' ? [icon('arrowLeft'), el('span', {}, s.name)] : [el('span', {}, s.name), icon('arrowRight')],
					() => open(s.id),
					{
						class: `link chain-${direction}`,
						'aria-label': `${direction === 'previous' ? 'Previous' : 'Next'} session: ${s.name}`,
						'data-focus-key': `chain-${direction}`,
					},
				)
			: el('span', { class: `muted chain-${direction}` }, direction === 'previous' ? 'First in its chain' : 'Last in its chain');
	return el(
		'nav',
		{ class: 'chain-nav', 'aria-label': 'Session chain' },
		side(previous, 'previous'),
		el('span', { class: 'chain-position' }, `Session ${position} of ${length}`),
		side(next, 'next'),
	);
}

function overview(session: SessionDto): HTMLElement {
	// A debrief's duration is final only once the session has ended; a running one counts up to now.
	const minutes = session.endedAt
		? (session.debrief?.durationMinutes ?? minutesBetween(session.startedAt, session.endedAt))
		: minutesBetween(session.startedAt, null);
	const stats = session.stats;
	return card(
		'Overview',
		{},
		facts([
			['Agent', session.agent ?? el('span', { class: 'muted' }, 'unknown')],
			['Agent id', session.agentIdentifier ? el('code', { class: 'wrap' }, session.agentIdentifier) : el('span', { class: 'muted' }, 'none')],
			['Started', dateTimeEl(session.startedAt)],
			[
				'Ended',
				session.endedAt ? dateTimeEl(session.endedAt) : el('span', { class: 'muted' }, `not ended (${statusLabel(session.status).toLowerCase()})`),
			],
			['Duration', `${formatDuration(minutes)}${session.endedAt ? '' : ' so far'}`],
			['Last activity', timeEl(session.lastActivity)],
			['Current task', session.currentTask ? taskIdEl(session.currentTask) : el('span', { class: 'muted' }, 'none')],
		]),
		el(
			'ul',
			{ class: 'stats', 'aria-label': 'Session statistics' },
			stat(stats.tasksCompleted, 'task done', 'tasks done'),
			stat(stats.tasksCreated, 'task created', 'tasks created'),
			stat(stats.decisionsRecorded, 'decision', 'decisions'),
			stat(session.resumeCount, 'resume', 'resumes'),
		),
	);
}

function stat(value: number, one: string, many: string): HTMLElement {
	return el('li', {}, el('span', { class: 'stat-value' }, String(value)), el('span', { class: 'stat-label' }, value === 1 ? one : many));
}

function gitCard(session: SessionDto): HTMLElement {
	const git = session.debrief?.gitState ?? null;
	return card(
		'Git',
		{},
		git
			? facts([
					['Branch', git.branch ? el('code', { class: 'wrap' }, git.branch) : el('span', { class: 'muted' }, 'detached head')],
					['Head', git.head ? el('code', { title: git.head }, git.head.slice(0, 8)) : el('span', { class: 'muted' }, 'no commits yet')],
					['Commits', `${plural(git.commitCount, 'commit')} during the session`],
					['Uncommitted', git.uncommittedChanges === 0 ? 'clean working tree' : plural(git.uncommittedChanges, 'changed file')],
				])
			: empty(session.debrief ? 'Not a git repository.' : 'Recorded when the session ends.'),
	);
}

function decisions(details: SessionDetailsDto): HTMLElement {
	return listCard('Decisions', details.decisions, 'No decisions or assumptions recorded.', () =>
		el(
			'ul',
			{ class: 'rows decisions' },
			details.decisions.map((d) =>
				el(
					'li',
					{ class: 'row' },
					el(
						'div',
						{ class: 'row-main' },
						el('span', { class: 'decision-text' }, d.text),
						d.rationale ? el('span', { class: 'muted rationale' }, d.rationale) : null,
						el(
							'div',
							{ class: 'row-meta' },
							el('span', { class: `pill kind-${d.kind}` }, d.kind),
							d.taskId ? taskIdEl(d.taskId) : null,
							timeEl(d.createdAt),
						),
					),
				),
			),
		),
	);
}

/** A session as a two-line entry: status dot and name (a link unless it is this session), then status and `meta`. */
function sessionEntry(s: SessionDto, currentId: string, open: (id: string) => void, keyPrefix: string, meta: readonly Child[]): HTMLElement {
	const name =
		s.id === currentId
			? el('span', { class: 'entry-name is-current' }, s.name, el('span', { class: 'muted' }, ' (this session)'))
			: linkButton(s.name, () => open(s.id), {
					class: 'link entry-name',
					'aria-label': `Open session ${s.name}`,
					'data-focus-key': `${keyPrefix}:${s.id}`,
				});
	return el(
		'div',
		{ class: `entry status-${s.status}` },
		el('span', { class: 'dot', 'aria-hidden': 'true' }),
		el(
			'div',
			{ class: 'entry-main' },
			name,
			el(
				'div',
				{ class: 'row-meta' },
				[statusLabel(s.status), ...meta].flatMap((part, i) => (i > 0 ? [el('span', { 'aria-hidden': 'true' }, '·'), part] : [part])),
			),
		),
	);
}

function forks(tree: ForkNodeDto, currentId: string, open: (id: string) => void): HTMLElement {
	const alone = tree.children.length === 0 && tree.session.id === currentId;
	return card(
		'Fork tree',
		{},
		alone ? empty('No forks: this session has no parent and no workers.') : el('ul', { class: 'tree' }, forkNode(tree, currentId, open)),
	);
}

// Plain nested lists: a role="tree" would promise arrow-key navigation that a short static tree does not need.
function forkNode(node: ForkNodeDto, currentId: string, open: (id: string) => void): HTMLElement {
	return el(
		'li',
		{},
		sessionEntry(node.session, currentId, open, 'fork', [el('span', { class: 'mono' }, node.session.scopeKey)]),
		node.children.length > 0
			? el(
					'ul',
					{},
					node.children.map((c) => forkNode(c, currentId, open)),
				)
			: null,
	);
}

function chainList(details: SessionDetailsDto, open: (id: string) => void): HTMLElement {
	return listCard('Chain', details.chain, 'This session is not in a chain.', () =>
		el(
			'ol',
			{ class: 'chain-list' },
			details.chain.map((s) =>
				el(
					'li',
					{ class: s.id === details.session.id ? 'is-current' : undefined, 'aria-current': s.id === details.session.id ? 'step' : undefined },
					sessionEntry(s, details.session.id, open, 'chain', [el('span', {}, 'started ', timeEl(s.startedAt))]),
				),
			),
		),
	);
}

const trackerNames: Record<string, string> = { github: 'GitHub', linear: 'Linear', beads: 'Beads', webhook: 'Webhook' };

/** Linked tracker issues: label (a link when the tracker gave an address), title, state, and how it was linked. */
function issues(details: SessionDetailsDto, send: Send): HTMLElement {
	const session = details.session;
	const canLink = session.status !== 'archived' && session.status !== 'closed';
	const action = canLink
		? [
				button('Link Issue…', () => send({ type: 'linkIssue', sessionId: session.id }), {
					secondary: true,
					icon: 'link',
					focusKey: 'link-issue',
					title: 'Link this session to a tracker issue',
				}),
			]
		: [];
	return card(
		'Issues',
		{ count: details.linkedIssues.length, actions: action },
		details.linkedIssues.length === 0
			? empty('No linked issues. Name the session after one (#123, ABC-123) or link one.')
			: el('ul', { class: 'rows issues' }, details.linkedIssues.map(issueRow)),
	);
}

function issueRow(link: IssueLinkDto): HTMLElement {
	const label = issueLabel(link);
	const name =
		link.url && /^https:\/\//.test(link.url)
			? el('a', { class: 'issue-id mono', href: link.url, title: `Open ${label} in ${trackerNames[link.tracker] ?? link.tracker}` }, label)
			: el('span', { class: 'issue-id mono' }, label);
	return el(
		'li',
		{ class: 'row' },
		el(
			'div',
			{ class: 'row-main' },
			el('span', { class: 'row-title' }, name, ' ', link.title ? el('span', {}, link.title) : el('span', { class: 'muted' }, 'not synced yet')),
			el(
				'div',
				{ class: 'row-meta' },
				el('span', {}, trackerNames[link.tracker] ?? link.tracker),
				link.state ? el('span', { class: 'pill issue-state' }, link.state) : null,
				el('span', {}, `linked from ${link.source}`),
			),
		),
	);
}
