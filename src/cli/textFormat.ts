/**
 * Plain-text renderings for people at a terminal. Agents and tools use --json instead.
 */
import type { Briefing, HandoffData, SessionFocus } from '../engine/storage/jsonShapes';
import type { Session } from '../engine/storage/model';
import { pushAll } from '../engine/arrays';

export function sessionLine(s: Session): string {
	return `${s.id}  ${s.status.padEnd(9)}  ${s.scopeKey.padEnd(14)}  ${s.name}`;
}

/** The active sessions, for an error that asks "which one": id, name, scope and agent of each. */
export function activeSessionsList(active: readonly Session[]): string {
	return ['active sessions:', ...active.map((s) => `  ${s.id}  ${s.name}  (scope ${s.scopeKey}${s.agent ? `, agent ${s.agent}` : ''})`)].join('\n');
}

export function sessionDetails(s: Session): string {
	const lines = [
		`${s.name} (${s.id})`,
		`  status     ${s.status}${s.endNote ? ` — ${s.endNote}` : ''}`,
		`  scope      ${s.scopeKey}`,
		`  started    ${s.startedAt}`,
		`  activity   ${s.lastActivity}`,
	];
	if (s.endedAt) lines.push(`  ended      ${s.endedAt}`);
	if (s.agent || s.agentIdentifier) lines.push(`  agent      ${[s.agent, s.agentIdentifier].filter(Boolean).join(' ')}`);
	if (s.currentTask) lines.push(`  task       ${s.currentTask}`);
	if (s.focus) pushAll(lines, focusText(s.focus, s.status === 'active' ? '  focus' : '  last focus (from before the session stopped)', '    '));
	if (s.previousSessionId) lines.push(`  previous   ${s.previousSessionId}`);
	if (s.nextSessionId) lines.push(`  next       ${s.nextSessionId}`);
	if (s.parentSessionId) lines.push(`  parent     ${s.parentSessionId}`);
	if (s.handoffConsumedAt) lines.push(`  handoff    read by ${s.handoffConsumedBy ?? '?'} at ${s.handoffConsumedAt}`);
	if (s.resumeCount) lines.push(`  resumed    ${s.resumeCount}×`);
	return lines.join('\n');
}

/** A session's focus (a live CLEO session's note, next action and blocker), under a heading, each line indented. */
function focusText(f: SessionFocus, heading: string, indent: string): string[] {
	const lines = [heading];
	if (f.note) lines.push(`${indent}note: ${f.note}`);
	if (f.nextAction) lines.push(`${indent}next action: ${f.nextAction}`);
	if (f.blockedReason) lines.push(`${indent}blocked: ${f.blockedReason}`);
	return lines;
}

export function handoffText(h: HandoffData): string {
	const lines: string[] = [];
	if (h.note) lines.push(`  note: ${h.note}`);
	if (h.nextAction) lines.push(`  next action: ${h.nextAction}`);
	if (h.lastTask) lines.push(`  last task: ${h.lastTask.id} ${h.lastTask.title}`);
	if (h.tasksCompleted.length) lines.push(`  completed: ${h.tasksCompleted.map((t) => t.id).join(', ')}`);
	if (h.tasksCreated.length) lines.push(`  created: ${h.tasksCreated.map((t) => t.id).join(', ')}`);
	if (h.openBlockers.length) pushAll(lines, [...h.openBlockers.map((b) => `  blocker: ${b}`)]);
	if (h.decisions.length) pushAll(lines, [...h.decisions.map((d) => `  decision: ${d.text}`)]);
	if (h.nextSuggested.length) lines.push(`  suggested: ${h.nextSuggested.map((t) => `${t.id} ${t.title}`).join('; ')}`);
	return lines.length ? lines.join('\n') : '  (empty handoff)';
}

export function briefingText(b: Briefing): string {
	const out: string[] = [`Briefing for ${b.sessionId ?? 'a new session'} (scope ${b.scope})`];
	if (b.lastSession) {
		out.push(`Previous session: ${b.lastSession.name} (${b.lastSession.id})${b.lastSession.endedAt ? `, ended ${b.lastSession.endedAt}` : ''}`);
		out.push(b.lastSession.handoff ? handoffText(b.lastSession.handoff) : '  (no handoff)');
	}
	if (b.focus) {
		pushAll(out, focusText(b.focus, b.focus.last ? 'This session’s last focus (from before it stopped):' : 'This session’s focus:', '  '));
	}
	if (b.suggestions.length) {
		out.push('Suggested by the previous session:');
		pushAll(out, [...b.suggestions.map((s) => `  ${s.id} ${s.title}${s.stale ? ` [stale: ${s.status ?? 'missing'}]` : ''}`)]);
	}
	if (b.currentTask) out.push(`Current task: ${b.currentTask.id} ${b.currentTask.title} (${b.currentTask.status})`);
	if (b.nextTasks.length) {
		out.push('Next tasks:');
		pushAll(out, [...b.nextTasks.map((t) => `  ${t.id} ${t.title} [${t.priority}, unblocks ${t.leverage}]`)]);
	}
	if (b.openBugs.length) {
		out.push('Open bugs:');
		pushAll(out, [...b.openBugs.map((t) => `  ${t.id} ${t.title} [${t.priority}]`)]);
	}
	if (b.blockedTasks.length) {
		out.push('Blocked:');
		pushAll(out, [...b.blockedTasks.map((t) => `  ${t.id} ${t.title} (waits on ${t.blockedBy.join(', ') || 'status'})`)]);
	}
	if (b.activeEpics.length) {
		out.push('Active epics:');
		pushAll(out, [...b.activeEpics.map((e) => `  ${e.id} ${e.title} ${e.completionPercent}% (${e.done}/${e.total})`)]);
	}
	if (b.memory.entries.length) {
		out.push('Project memory:');
		pushAll(out, [
			...b.memory.entries.map(
				(e) => `  ${e.kind === 'gotcha' ? 'gotcha' : 'fact  '}  ${e.text}${e.staleSince ? ` [stale: ${e.staleReason ?? '?'}]` : ''}`,
			),
		]);
		if (b.memory.total > b.memory.entries.length) {
			out.push(`  … and ${b.memory.total - b.memory.entries.length} more (baton memory list)`);
		}
	}
	pushAll(out, [...b.warnings.map((w) => `warning: ${w}`)]);
	return out.join('\n');
}
