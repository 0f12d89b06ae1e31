/**
 * Markdown renderings of a handoff and of a briefing (docs/architecture.md §1): one-way views for people. They
 * say so at the end, and nothing in Baton ever parses them: "markdown handoffs lie when agents
 * update them by deletion" (CLEO T1593).
 */
import type { Briefing, HandoffData } from '../storage/jsonShapes';
import type { Decision, Session } from '../storage/model';
import { escapeControls } from '../text/controlChars';
import { pushAll } from '../arrays';
import { clip } from '../text/clip';

const footer =
	'_A view rendered from Baton’s records; editing it changes nothing. The records themselves are in the workspace’s `.baton/` (`baton session show ID --json`)._';

/** Text on one markdown line: whitespace flattened, markdown's own line-start markers neutralised. */
function inline(text: string): string {
	return text
		.replace(/\s+/g, ' ')
		.trim()
		.replace(/^([#>*+-]|\d+\.)(\s)/, '\\$1$2');
}

function block(text: string): string {
	return text
		.trim()
		.split('\n')
		.map((l) => l.replace(/^(#{1,6}\s)/, '\\$1'))
		.join('\n');
}

function section(title: string, lines: string[], empty?: string): string[] {
	if (lines.length === 0 && !empty) return [];
	return [`## ${title}`, '', ...(lines.length ? lines : [`_${empty}_`]), ''];
}

const ref = (t: { id: string; title: string }): string => `- \`${t.id}\` ${inline(t.title)}`;

/** `neighbours`: the names of the sessions before and after it in the chain, shown before their ids. */
export function renderHandoffMarkdown(
	session: Session,
	handoff: HandoffData | null,
	decisions: readonly Decision[],
	problem: string | null = null,
	neighbours: { previous?: string; next?: string } = {},
): string {
	const named = (name: string | undefined, id: string): string => (name ? `${inline(name)} (\`${id}\`)` : `\`${id}\``);
	const facts = [
		`- **Session:** \`${session.id}\` (${session.status}) · scope \`${session.scopeKey}\``,
		session.agent ? `- **Agent:** ${inline(session.agent)}${session.agentIdentifier ? ` (\`${session.agentIdentifier}\`)` : ''}` : '',
		`- **Started:** ${session.startedAt}${session.endedAt ? ` · **ended:** ${session.endedAt}` : ''}`,
		session.previousSessionId ? `- **Continues:** ${named(neighbours.previous, session.previousSessionId)}` : '',
		session.nextSessionId
			? `- **Continued by:** ${named(neighbours.next, session.nextSessionId)}${session.handoffConsumedAt ? ` (handoff read ${session.handoffConsumedAt})` : ''}`
			: '',
		session.endNote ? `- **End note:** ${inline(session.endNote)}` : '',
	].filter(Boolean);
	const out = [`# Handoff: ${inline(session.name)}`, '', ...facts, ''];
	if (!handoff) {
		out.push(
			problem
				? `_The stored handoff is damaged (${inline(problem)}) and cannot be shown._`
				: '_No handoff yet: a session writes its handoff once, when it ends._',
			'',
		);
	} else {
		pushAll(out, [
			...section('Note', handoff.note ? [block(handoff.note)] : []),
			...section('Next action', handoff.nextAction ? [block(handoff.nextAction)] : []),
			...section('Last task', handoff.lastTask ? [ref(handoff.lastTask)] : []),
			...section('Completed', handoff.tasksCompleted.map(ref)),
			...section('Created', handoff.tasksCreated.map(ref)),
			...section('Suggested next', handoff.nextSuggested.map(ref)),
			...section(
				'Open blockers',
				handoff.openBlockers.map((b) => `- ${inline(b)}`),
			),
			...section(
				'Open bugs',
				handoff.openBugs.map((b) => `${ref(b)} (${inline(b.priority)})`),
			),
		]);
	}
	pushAll(out, [
		...section(
			'Decisions',
			decisions.map(
				(d) =>
					`- ${d.kind === 'assumption' ? '_Assumption:_ ' : ''}${inline(d.text)}${d.rationale ? ` — ${inline(d.rationale)}` : ''}${d.taskId ? ` (\`${d.taskId}\`)` : ''}`,
			),
		),
	]);
	out.push('---', '', footer, '');
	return escapeControls(out.join('\n'));
}

/** A resumed session's work after its handoff, in one line (the briefing's `laterWork`). */
export function laterWorkText(work: { requests: number; lastRequest: string | null; files: string[] }): string {
	const parts = [
		...(work.requests
			? [`${work.requests} request${work.requests === 1 ? '' : 's'}${work.lastRequest ? ` (last: "${clip(work.lastRequest, 200)}")` : ''}`]
			: []),
		...(work.files.length
			? [
					`files changed (${work.files.length}): ${work.files.slice(0, 12).join(', ')}${work.files.length > 12 ? ` and ${work.files.length - 12} more` : ''}`,
				]
			: []),
	];
	return parts.join('; ');
}

export function renderBriefingMarkdown(briefing: Briefing, session: Session | null): string {
	const out = [
		`# Briefing${session ? `: ${inline(session.name)}` : ''}`,
		'',
		`- **Scope:** \`${briefing.scope}\`${briefing.sessionId ? ` · session \`${briefing.sessionId}\`` : ''}`,
		`- **Computed:** ${briefing.generatedAt}`,
		'',
	];
	const last = briefing.lastSession;
	const previous = last
		? [
				`- ${inline(last.name)} (\`${last.id}\`)${last.endedAt ? `, ended ${last.endedAt}` : ''}${last.durationMinutes !== null ? `, ${last.durationMinutes} min` : ''}`,
				...(last.handoff?.note ? [`- **Note:** ${inline(last.handoff.note)}`] : []),
				...(last.handoff?.nextAction ? [`- **Next action:** ${inline(last.handoff.nextAction)}`] : []),
				...(last.handoff?.openBlockers ?? []).map((b) => `- **Blocker:** ${inline(b)}`),
				...(last.handoff ? [] : ['- _It left no handoff._']),
				...(last.laterWork ? [`- **Resumed after its handoff:** ${laterWorkText(last.laterWork)}`] : []),
			]
		: [];
	const current = briefing.currentTask;
	const focus = briefing.focus;
	pushAll(out, [
		...section(focus?.last ? 'This session’s last focus' : 'This session’s focus', [
			...(focus?.note ? [`- **Working on:** ${inline(focus.note)}`] : []),
			...(focus?.nextAction ? [`- **Next action:** ${inline(focus.nextAction)}`] : []),
			...(focus?.blockedReason ? [`- **Blocked:** ${inline(focus.blockedReason)}`] : []),
		]),
		...section('Previous session', previous, 'None: this is the first session of its chain.'),
		...section(
			'Current task',
			current
				? [
						`- \`${current.id}\` ${inline(current.title)} (${current.status}${current.blockedBy.length ? `; blocked by ${current.blockedBy.join(', ')}` : ''})`,
					]
				: [],
		),
		...section(
			'Suggested by the previous session',
			briefing.suggestions.map((s) => `- \`${s.id}\` ${inline(s.title)}${s.stale ? ` — _stale (${s.status ?? 'missing'})_` : ''}`),
		),
		...section(
			'Next tasks',
			briefing.nextTasks.map((t) => `- \`${t.id}\` ${inline(t.title)} — ${t.priority}${t.leverage ? `, unblocks ${t.leverage}` : ''}`),
			'No open task.',
		),
		...section(
			'Open bugs',
			briefing.openBugs.map((b) => `- \`${b.id}\` ${inline(b.title)} (${b.priority})`),
		),
		...section(
			'Blocked',
			briefing.blockedTasks.map((t) => `- \`${t.id}\` ${inline(t.title)} — by ${t.blockedBy.join(', ')}`),
		),
		...section(
			'Active epics',
			briefing.activeEpics.map((e) => `- \`${e.id}\` ${inline(e.title)} — ${e.completionPercent}% (${e.done}/${e.total})`),
		),
		...section(
			'Recent decisions',
			briefing.recentDecisions.map((d) => `- ${inline(d.text)}`),
		),
		...section(
			'Warnings',
			briefing.warnings.map((w) => `- ${inline(w)}`),
		),
		'---',
		'',
		footer,
		'',
	]);
	return escapeControls(out.join('\n'));
}
