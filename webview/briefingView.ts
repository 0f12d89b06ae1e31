import type { BriefingDto, SessionDto } from '../src/protocol/dto';
import type { WebviewToHost } from '../src/protocol/webview';
import { el, formatDuration, plural, timeEl, type Child } from './dom';
import { memoryCard } from './memoryCard';
import {
	button,
	callout,
	card,
	chip,
	columns,
	empty,
	focusCard,
	handoffBody,
	icon,
	linkButton,
	list,
	pageHeader,
	priorityPill,
	statusPill,
	taskIdEl,
	taskRow,
	listCard,
} from './widgets';

interface BriefingData {
	briefing: BriefingDto;
	session: SessionDto | null;
}

/**
 * The briefing: what a session starting (or running) in a scope needs to know. Sections are always
 * shown, and say so when they are empty, so "no open bugs" reads as a fact rather than a missing part.
 */
export function briefingView({ briefing, session }: BriefingData, send: (message: WebviewToHost) => void): HTMLElement {
	const focus = (taskId: string): void => send({ type: 'focusTask', taskId });
	const titles = taskTitles(briefing);
	return el(
		'div',
		{ class: 'view briefing' },
		header(briefing, session, send),
		briefing.warnings.length > 0
			? callout(
					'warning',
					briefing.warnings.length === 1 ? 'Warning' : `${briefing.warnings.length} warnings`,
					el(
						'ul',
						{ class: 'bullets' },
						briefing.warnings.map((w) => el('li', {}, w)),
					),
				)
			: null,
		briefing.sessionId === null
			? callout(
					'info',
					'No session in this scope',
					el('p', {}, 'Start one to pick up the chain: it receives this briefing and the previous handoff.'),
					button('Start session in this scope', () => send({ type: 'startSession', scope: briefing.scope }), { icon: 'play', focusKey: 'start' }),
				)
			: null,
		columns(
			[
				briefing.focus ? focusCard(briefing.focus, briefing.focus.last, session ? `“${session.name}”` : 'this session') : null,
				previousSession(briefing, send, focus),
				suggestions(briefing, focus),
				listCard('Next tasks', briefing.nextTasks, 'Nothing actionable in this scope.', () =>
					list(
						briefing.nextTasks.map((t) =>
							taskRow({
								id: t.id,
								title: t.title,
								leading: [priorityPill(t.priority)],
								meta: [
									el('span', {}, t.type),
									t.leverage > 0
										? chip(`unblocks ${Math.round(t.leverage)}`, {
												title: `Finishing it unblocks ${plural(Math.round(t.leverage), 'task')}`,
											})
										: null,
								],
								onFocus: focus,
								className: 'next',
							}),
						),
						'rows',
						true,
					),
				),
				memoryCard(briefing.memory, send),
			],
			[
				currentTask(briefing, titles),
				listCard('Open bugs', briefing.openBugs, 'No open bugs.', () =>
					list(
						briefing.openBugs.map((b) =>
							taskRow({ id: b.id, title: b.title, leading: [priorityPill(b.priority)], onFocus: focus, className: 'bug' }),
						),
					),
				),
				listCard('Blocked tasks', briefing.blockedTasks, 'Nothing is blocked.', () =>
					list(briefing.blockedTasks.map((t) => taskRow({ id: t.id, title: t.title, meta: [waitingOn(t.blockedBy, titles)], className: 'blocked' }))),
				),
				epics(briefing),
				listCard('Recent decisions', briefing.recentDecisions, 'No decisions recorded in the previous session.', () =>
					el(
						'ul',
						{ class: 'bullets decisions' },
						briefing.recentDecisions.map((d) => el('li', {}, d.text)),
					),
				),
			],
		),
	);
}

function header(briefing: BriefingDto, session: SessionDto | null, send: (message: WebviewToHost) => void): HTMLElement {
	const subtitle: Child[] = [];
	if (session) {
		subtitle.push(
			'For ',
			linkButton(session.name, () => send({ type: 'openSession', sessionId: session.id }), {
				'aria-label': `Open session ${session.name}`,
				'data-focus-key': 'session',
			}),
			statusPill(session.status),
			el('span', { 'aria-hidden': 'true' }, '·'),
		);
	}
	subtitle.push('generated', timeEl(briefing.generatedAt));
	return pageHeader([el('h1', {}, 'Briefing'), chip(briefing.scope, { class: 'chip scope', title: 'Scope' })], subtitle, [
		button('Refresh', () => send({ type: 'refresh' }), { secondary: true, icon: 'refresh', focusKey: 'refresh' }),
	]);
}

function previousSession(briefing: BriefingDto, send: (message: WebviewToHost) => void, focus: (id: string) => void): HTMLElement {
	const last = briefing.lastSession;
	if (!last) {
		return card('Previous session', {}, empty('This is the first session in this scope: there is no handoff to pick up.'));
	}
	const ended = last.endedAt ? ['ended ', timeEl(last.endedAt)] : ['not ended'];
	return card(
		'Previous session',
		{},
		el(
			'p',
			{ class: 'session-line' },
			linkButton(last.name, () => send({ type: 'openSession', sessionId: last.id }), {
				'aria-label': `Open previous session ${last.name}`,
				'data-focus-key': 'previous',
			}),
			el('span', { class: 'muted' }, ' · ', ...ended, last.durationMinutes !== null ? ` · ran ${formatDuration(last.durationMinutes)}` : ''),
		),
		last.handoff ? handoffBody(last.handoff, focus) : empty('The previous session ended without a handoff.'),
		last.laterWork ? laterWork(last.laterWork) : null,
	);
}

/** What the previous session did after its handoff (it was resumed), computed from its timeline. */
function laterWork(work: NonNullable<NonNullable<BriefingDto['lastSession']>['laterWork']>): HTMLElement {
	return el(
		'div',
		{ class: 'later-work' },
		el('h3', {}, 'Resumed after its handoff'),
		el(
			'p',
			{ class: 'muted' },
			`${plural(work.requests, 'request')}${work.lastRequest ? ` · last: “${work.lastRequest.length > 200 ? `${work.lastRequest.slice(0, 199)}…` : work.lastRequest}”` : ''}`,
		),
		work.files.length ? list(work.files.map((f) => el('li', {}, el('code', {}, f)))) : null,
	);
}

function suggestions(briefing: BriefingDto, focus: (id: string) => void): HTMLElement {
	const stale = briefing.suggestions.filter((s) => s.stale).length;
	return listCard('Suggested by the handoff', briefing.suggestions, 'The previous handoff suggested nothing.', () => [
		stale > 0 ? el('p', { class: 'hint' }, `${plural(stale, 'suggestion')} went stale since the handoff was written.`) : null,
		list(
			briefing.suggestions.map((s) =>
				taskRow({
					id: s.id,
					title: s.title,
					meta: [
						s.stale
							? el('span', { class: 'pill stale', title: 'This suggestion no longer applies' }, `stale: ${s.status ?? 'missing'}`)
							: s.status
								? el('span', {}, s.status)
								: null,
					],
					onFocus: s.stale ? undefined : focus,
					className: s.stale ? 'suggestion is-stale' : 'suggestion',
				}),
			),
		),
	]);
}

function currentTask(briefing: BriefingDto, titles: ReadonlyMap<string, string>): HTMLElement {
	const task = briefing.currentTask;
	if (!task) {
		return card('Current task', {}, empty('No current task. Focus one of the next tasks to start on it.'));
	}
	return card(
		'Current task',
		{},
		el(
			'div',
			{ class: 'current-task' },
			el('p', { class: 'current-title' }, task.title),
			el('p', { class: 'row-meta' }, taskIdEl(task.id), el('span', { class: `pill task-status task-${task.status}` }, task.status)),
			task.blockedBy.length > 0 ? el('p', { class: 'waiting' }, icon('warning'), waitingOn(task.blockedBy, titles)) : null,
		),
	);
}

function epics(briefing: BriefingDto): HTMLElement {
	return listCard('Active epics', briefing.activeEpics, 'No epic in progress.', () =>
		el(
			'ul',
			{ class: 'rows epics' },
			briefing.activeEpics.map((e) => {
				const percent = Math.max(0, Math.min(100, Math.round(e.completionPercent)));
				const bar = el(
					'div',
					{
						class: 'progress',
						role: 'progressbar',
						'aria-valuemin': 0,
						'aria-valuemax': 100,
						'aria-valuenow': percent,
						'aria-label': `${e.title}: ${percent}% complete`,
					},
					el('div', { class: 'progress-fill' }),
				);
				// CSSOM, not a style attribute: the CSP has no 'unsafe-inline' for styles.
				(bar.firstElementChild as HTMLElement).style.width = `${percent}%`;
				return el(
					'li',
					{ class: 'row epic' },
					el(
						'div',
						{ class: 'row-main' },
						el(
							'div',
							{ class: 'epic-head' },
							el('span', { class: 'row-title', title: e.title }, e.title),
							el('span', { class: 'percent' }, `${percent}%`),
						),
						bar,
						el('div', { class: 'row-meta' }, taskIdEl(e.id), el('span', {}, `${e.done} of ${e.total} done`)),
					),
				);
			}),
		),
	);
}

function waitingOn(ids: readonly string[], titles: ReadonlyMap<string, string>): HTMLElement {
	return el(
		'span',
		{ class: 'waiting-on' },
		el('span', { class: 'muted' }, 'waiting on '),
		ids.flatMap((id, i) => [i > 0 ? ', ' : null, taskIdEl(id), titles.has(id) ? el('span', { class: 'muted' }, ` ${titles.get(id) ?? ''}`) : null]),
	);
}

/** Titles of every task the briefing mentions, to name the ids a blocked task waits on. */
function taskTitles(briefing: BriefingDto): Map<string, string> {
	const titles = new Map<string, string>();
	for (const t of [...briefing.nextTasks, ...briefing.openBugs, ...briefing.blockedTasks, ...briefing.activeEpics, ...briefing.suggestions]) {
		titles.set(t.id, t.title);
	}
	if (briefing.currentTask) {
		titles.set(briefing.currentTask.id, briefing.currentTask.title);
	}
	return titles;
}
