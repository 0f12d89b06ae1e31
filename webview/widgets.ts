/**
 * The building blocks the views share: cards, pills, task rows, buttons and icons. Icons are
 * inline SVG so the webviews need no icon font (and no font-src exception in the CSP).
 */
import type { ApprovalStatusDto } from '../src/protocol/checkpointDto';
import type { HandoffDto, SessionFocusDto, SessionStatusDto } from '../src/protocol/dto';
import { el, svg, type Child } from './dom';

const iconPaths = {
	play: 'M5 3.5v9l7.5-4.5z',
	pause: 'M4.5 3h2.5v10H4.5zM9 3h2.5v10H9z',
	stop: 'M4 4h8v8H4z',
	refresh: 'M13.5 8a5.5 5.5 0 1 1-1.6-3.9M13 1.8v2.8h-2.8',
	arrowLeft: 'M13 8H3.5M7.5 4 3.5 8l4 4',
	arrowRight: 'M3 8h9.5M8.5 4l4 4-4 4',
	target: 'M8 2.5a5.5 5.5 0 1 0 0 11 5.5 5.5 0 0 0 0-11zM8 6a2 2 0 1 0 0 4 2 2 0 0 0 0-4z',
	warning: 'M8 1.8 15 14H1zM8 6.2v3.8M8 11.4v1.1',
	error: 'M8 1.5a6.5 6.5 0 1 0 0 13 6.5 6.5 0 0 0 0-13zM5.6 5.6l4.8 4.8M10.4 5.6l-4.8 4.8',
	info: 'M8 1.5a6.5 6.5 0 1 0 0 13 6.5 6.5 0 0 0 0-13zM8 7v4.5M8 4.6v1.1',
	check: 'M3 8.5 6.5 12 13 4.5',
	book: 'M2.5 3.5c2-1 4-1 5.5.5v9c-1.5-1.5-3.5-1.5-5.5-.5zM13.5 3.5c-2-1-4-1-5.5.5v9c1.5-1.5 3.5-1.5 5.5-.5z',
	close: 'M4 4l8 8M12 4l-8 8',
	undo: 'M2.5 2.5v4h4M2.9 6.4A5.5 5.5 0 1 1 3.6 11',
	file: 'M4 1.5h5l3.5 3.5v9.5h-8.5zM9 1.5V5h3.5',
	link: 'M6.5 9.5l3-3M7.2 4.8l1.2-1.2a2.6 2.6 0 0 1 3.7 3.7l-1.2 1.2M8.8 11.2l-1.2 1.2a2.6 2.6 0 0 1-3.7-3.7l1.2-1.2',
} as const;
type IconName = keyof typeof iconPaths;

/** A 16×16 stroked icon in the current text colour; decorative unless given a label. */
export function icon(name: IconName, label?: string): SVGSVGElement {
	return svg(
		'svg',
		{
			class: `icon icon-${name}`,
			viewBox: '0 0 16 16',
			width: 16,
			height: 16,
			'aria-hidden': label ? undefined : 'true',
			role: label ? 'img' : undefined,
			'aria-label': label,
		},
		svg('path', { d: iconPaths[name] }),
	);
}

interface CardOptions {
	count?: number;
	/** Extra controls at the right of the card heading. */
	actions?: Child[];
	headingId?: string;
}

let cardSeq = 0;

/** A titled section. The heading labels the region for screen readers; the count sits beside it. */
export function card(title: string, options: CardOptions, ...body: (Child | readonly Child[])[]): HTMLElement {
	const headingId = options.headingId ?? `card-${++cardSeq}`;
	return el(
		'section',
		{ class: 'card', 'aria-labelledby': headingId },
		el(
			'header',
			{ class: 'card-header' },
			el('h2', { id: headingId }, title),
			options.count !== undefined ? el('vscode-badge', { variant: 'counter', 'aria-label': `${options.count} items` }, String(options.count)) : null,
			options.actions?.length ? el('div', { class: 'card-actions' }, options.actions) : null,
		),
		el('div', { class: 'card-body' }, ...body),
	);
}

/** The page heading row (title, pills, and actions at the right) with a muted line under it. */
export function pageHeader(title: readonly Child[], subtitle: readonly Child[], actions: readonly Child[], actionsLabel = 'Actions'): HTMLElement {
	return el(
		'header',
		{ class: 'page-header' },
		el('div', { class: 'title-row' }, title, el('div', { class: 'header-actions', role: 'group', 'aria-label': actionsLabel }, actions)),
		subtitle.length > 0 ? el('p', { class: 'subtitle' }, subtitle) : null,
	);
}

/** Two stacks of cards, main and side, that become one column in a narrow panel. */
export function columns(main: readonly Child[], side: readonly Child[]): HTMLElement {
	return el('div', { class: 'columns' }, el('div', { class: 'column main' }, main), el('div', { class: 'column side' }, side));
}

export function empty(text: string): HTMLElement {
	return el('p', { class: 'empty' }, text);
}

/** A card counting `items` and rendering them, or saying `emptyText` when there are none. */
export function listCard<T>(title: string, items: readonly T[], emptyText: string, render: () => Child | readonly Child[]): HTMLElement {
	return card(title, { count: items.length }, items.length === 0 ? empty(emptyText) : render());
}

const statusLabels: Record<SessionStatusDto, string> = {
	active: 'Active',
	suspended: 'Suspended',
	ended: 'Ended',
	orphaned: 'Orphaned',
	archived: 'Archived',
	closed: 'Closed',
};

export function statusLabel(status: SessionStatusDto): string {
	return statusLabels[status];
}

/** Status as text plus a coloured dot: the colour is never the only cue. */
export function statusPill(status: SessionStatusDto): HTMLElement {
	return el('span', { class: `pill status status-${status}` }, el('span', { class: 'dot', 'aria-hidden': 'true' }), statusLabel(status));
}

const approvalLabels: Record<ApprovalStatusDto, string> = {
	pending: 'Pending review',
	approved: 'Approved',
	rejected: 'Rejected',
	auto_approved: 'Auto-approved',
};

export function approvalLabel(status: ApprovalStatusDto): string {
	return approvalLabels[status];
}

/** A checkpoint's approval as text plus a coloured dot, like the session status pill. */
export function approvalPill(status: ApprovalStatusDto): HTMLElement {
	return el('span', { class: `pill approval approval-${status}` }, el('span', { class: 'dot', 'aria-hidden': 'true' }), approvalLabel(status));
}

/** Text only screen readers get (a symbol's meaning, a table's caption). */
export function srOnly(text: string): HTMLElement {
	return el('span', { class: 'visually-hidden' }, text);
}

export function priorityPill(priority: string): HTMLElement {
	return el('span', { class: `pill priority priority-${priority}`, title: `Priority: ${priority}` }, priority);
}

export function chip(text: string, attrs: Record<string, string> = {}): HTMLElement {
	return el('span', { class: 'chip', ...attrs }, text);
}

export function taskIdEl(id: string): HTMLElement {
	return el('code', { class: 'task-id' }, id);
}

interface ButtonOptions {
	secondary?: boolean;
	icon?: IconName;
	ariaLabel?: string;
	focusKey?: string;
	title?: string;
}

export function button(label: string, onClick: () => void, options: ButtonOptions = {}): HTMLElement {
	return el(
		'vscode-button',
		{
			secondary: options.secondary ?? false,
			'aria-label': options.ariaLabel,
			title: options.title,
			'data-focus-key': options.focusKey,
			onClick,
		},
		options.icon ? el('span', { slot: 'content-before', class: 'button-icon' }, icon(options.icon)) : null,
		label,
	);
}

/** A real <button> that looks like a link: for navigation inside the panels (keyboard and AT get a button). */
export function linkButton(content: Child | readonly Child[], onClick: () => void, attrs: Record<string, string | undefined> = {}): HTMLButtonElement {
	return el('button', { type: 'button', class: 'link', ...attrs, onClick }, content);
}

interface TaskRowOptions {
	id: string;
	title: string;
	leading?: Child[];
	meta?: Child[];
	/** Shows a Focus button that makes this the session's current task. */
	onFocus?: (id: string) => void;
	className?: string;
}

export function taskRow(options: TaskRowOptions): HTMLLIElement {
	const meta = [taskIdEl(options.id), ...(options.meta ?? [])];
	return el(
		'li',
		{ class: `row ${options.className ?? ''}`.trim() },
		options.leading?.length ? el('div', { class: 'row-leading' }, options.leading) : null,
		el('div', { class: 'row-main' }, el('span', { class: 'row-title', title: options.title }, options.title), el('div', { class: 'row-meta' }, meta)),
		options.onFocus
			? el(
					'div',
					{ class: 'row-actions' },
					button('Focus', () => options.onFocus?.(options.id), {
						secondary: true,
						icon: 'target',
						ariaLabel: `Focus task ${options.id}: ${options.title}`,
						focusKey: `focus:${options.id}:${options.className ?? ''}`,
						title: 'Make this the current task of the active session',
					}),
				)
			: null,
	);
}

export function list(items: readonly HTMLLIElement[], className = 'rows', ordered = false): HTMLElement {
	return el(ordered ? 'ol' : 'ul', { class: className }, items);
}

/** A definition list of label/value pairs (`null` values are skipped). */
export function facts(pairs: readonly [label: string, value: Child | readonly Child[]][]): HTMLElement {
	return el(
		'dl',
		{ class: 'facts' },
		pairs.filter(([, value]) => value !== null).flatMap(([label, value]) => [el('dt', {}, label), el('dd', {}, value)]),
	);
}

export function callout(kind: 'warning' | 'error' | 'info', title: string | null, ...body: (Child | readonly Child[])[]): HTMLElement {
	const iconName: IconName = kind;
	return el(
		'div',
		{ class: `callout callout-${kind}`, role: kind === 'error' ? 'alert' : undefined },
		icon(iconName),
		el('div', { class: 'callout-body' }, title ? el('strong', {}, title) : null, ...body),
	);
}

/** The contents of a handoff, shared by the briefing (previous session) and the details view. */
/**
 * A session's focus: where a live session stands in its own words (a CLEO session's focus note, next
 * action and blocker). Titled "Last focus" once the session is not active: it is from before it stopped.
 */
export function focusCard(focus: SessionFocusDto, last: boolean, subject: string): HTMLElement {
	return card(
		last ? 'Last focus' : 'Focus',
		{},
		el('p', { class: 'muted' }, last ? `Where ${subject} stood before it stopped.` : `Where ${subject} stands now.`),
		focus.note ? el('blockquote', { class: 'note focus-note' }, focus.note) : null,
		focus.nextAction ? el('p', { class: 'next-action' }, icon('arrowRight'), el('span', {}, el('strong', {}, 'Next action: '), focus.nextAction)) : null,
		focus.blockedReason ? el('p', { class: 'focus-blocked' }, icon('warning'), el('span', {}, el('strong', {}, 'Blocked: '), focus.blockedReason)) : null,
	);
}

export function handoffBody(handoff: HandoffDto, onFocus?: (id: string) => void): HTMLElement {
	const parts: Child[] = [];
	if (handoff.note) {
		parts.push(el('blockquote', { class: 'note' }, handoff.note));
	}
	if (handoff.nextAction) {
		parts.push(el('p', { class: 'next-action' }, icon('arrowRight'), el('span', {}, el('strong', {}, 'Next action: '), handoff.nextAction)));
	}
	if (handoff.lastTask) {
		parts.push(el('p', { class: 'last-task' }, el('span', { class: 'muted' }, 'Last task: '), taskIdEl(handoff.lastTask.id), ' ', handoff.lastTask.title));
	}
	if (handoff.openBlockers.length > 0) {
		parts.push(
			el('h3', {}, 'Open blockers'),
			el(
				'ul',
				{ class: 'bullets blockers' },
				handoff.openBlockers.map((b) => el('li', {}, icon('warning'), el('span', {}, b))),
			),
		);
	}
	if (handoff.decisions.length > 0) {
		parts.push(
			el('h3', {}, 'Decisions'),
			el(
				'ul',
				{ class: 'bullets' },
				handoff.decisions.map((d) =>
					el('li', {}, el('span', {}, d.text, d.rationale ? el('span', { class: 'muted rationale' }, ` — ${d.rationale}`) : null)),
				),
			),
		);
	}
	parts.push(
		el(
			'div',
			{ class: 'split' },
			taskColumn('Completed', handoff.tasksCompleted, 'No tasks completed.'),
			taskColumn('Created', handoff.tasksCreated, 'No tasks created.'),
		),
	);
	if (handoff.openBugs.length > 0) {
		parts.push(
			el('h3', {}, 'Open bugs at handoff'),
			list(handoff.openBugs.map((b) => taskRow({ id: b.id, title: b.title, leading: [priorityPill(b.priority)], onFocus, className: 'handoff-bug' }))),
		);
	}
	return el('div', { class: 'handoff' }, parts);
}

function taskColumn(title: string, tasks: readonly { id: string; title: string }[], none: string): HTMLElement {
	return el(
		'div',
		{},
		el('h3', {}, `${title} (${tasks.length})`),
		tasks.length === 0
			? empty(none)
			: el(
					'ul',
					{ class: 'compact' },
					tasks.map((t) => el('li', {}, taskIdEl(t.id), ' ', el('span', { title: t.title }, t.title))),
				),
	);
}
