/**
 * The "diet" briefing injected into an agent's context (DESIGN.md §1): a few items per list, titles
 * truncated, stale suggestions marked, all within a character budget. Sections are added in order
 * of importance and items one at a time, so a small budget drops the least important items first
 * and never cuts a line in half. The full briefing stays available on request (`baton briefing`).
 */
import type { Briefing } from '../storage/jsonShapes';

export const defaultBriefingBudget = 4_000;
const itemsPerList = 3;
const titleLength = 80;
const textLength = 240;

export interface DietExtras {
	/** Lines that go right after the heading (a resumed session's progress so far). */
	lead?: { title: string; lines: string[] };
}

export function renderBriefingDiet(briefing: Briefing, budget: number = defaultBriefingBudget, extras: DietExtras = {}): string {
	const limit = Math.max(80, Math.floor(budget));
	const out: string[] = [];
	let used = 0;
	const fits = (line: string, reserve = 0): boolean => used + line.length + 1 + reserve <= limit;
	const push = (line: string): void => {
		out.push(line);
		used += line.length + 1;
	};
	const footer = briefing.sessionId ? `(Full briefing: \`baton briefing --session ${briefing.sessionId} --json\`.)` : '(Full briefing: `baton briefing --json`.)';
	const reserve = footer.length + 1;

	const heading = `Baton briefing${briefing.sessionId ? ` for durable session ${briefing.sessionId}` : ''} (scope ${briefing.scope})`;
	push(clip(heading, limit));
	const section = (title: string, lines: string[]): void => {
		const items = lines.filter(Boolean);
		if (items.length === 0 || !fits(title, reserve + (items[0]?.length ?? 0) + 1)) {
			return;
		}
		push(title);
		for (const item of items) {
			if (!fits(item, reserve)) {
				break;
			}
			push(item);
		}
	};

	if (extras.lead) {
		section(extras.lead.title, extras.lead.lines.map((l) => `- ${clip(l, textLength)}`));
	}
	const last = briefing.lastSession;
	if (last) {
		const handoff = last.handoff;
		const when = last.endedAt ? `, ended ${last.endedAt.slice(0, 16).replace('T', ' ')}` : '';
		const lines = [`- ${clip(last.name, titleLength)} (${last.id})${when}${last.durationMinutes !== null ? `, ${last.durationMinutes} min` : ''}`];
		if (handoff) {
			if (handoff.note) lines.push(`- Note: ${clip(handoff.note, textLength)}`);
			if (handoff.nextAction) lines.push(`- Next action: ${clip(handoff.nextAction, textLength)}`);
			for (const blocker of handoff.openBlockers.slice(0, itemsPerList)) lines.push(`- Blocker: ${clip(blocker, textLength)}`);
			for (const decision of handoff.decisions.slice(-itemsPerList)) lines.push(`- Decision: ${clip(decision.text, textLength)}`);
		} else {
			lines.push('- (it left no handoff)');
		}
		section('Previous session:', lines);
	}
	if (briefing.currentTask) {
		const t = briefing.currentTask;
		section('Current task:', [`- ${t.id} ${clip(t.title, titleLength)} (${t.status}${t.blockedBy.length ? `; blocked by ${t.blockedBy.slice(0, itemsPerList).join(', ')}` : ''})`]);
	}
	section(
		'Suggested by the previous session:',
		briefing.suggestions.slice(0, itemsPerList).map((s) => `- ${s.id} ${clip(s.title, titleLength)}${s.stale ? ` [stale: ${s.status ?? 'missing'}, skip it]` : ''}`),
	);
	section(
		'Next tasks (most unblocking first):',
		briefing.nextTasks.slice(0, itemsPerList).map((t) => `- ${t.id} ${clip(t.title, titleLength)} [${t.priority}${t.leverage ? `, unblocks ${t.leverage}` : ''}]`),
	);
	section('Open bugs:', briefing.openBugs.slice(0, itemsPerList).map((t) => `- ${t.id} ${clip(t.title, titleLength)} [${t.priority}]`));
	section(
		'Blocked:',
		briefing.blockedTasks.slice(0, itemsPerList).map((t) => `- ${t.id} ${clip(t.title, titleLength)}${t.blockedBy.length ? ` (by ${t.blockedBy.slice(0, itemsPerList).join(', ')})` : ''}`),
	);
	section('Active epics:', briefing.activeEpics.slice(0, itemsPerList).map((e) => `- ${e.id} ${clip(e.title, titleLength)} ${e.completionPercent}% (${e.done}/${e.total})`));
	if (!last?.handoff) {
		section('Recent decisions:', briefing.recentDecisions.slice(0, itemsPerList).map((d) => `- ${clip(d.text, textLength)}`));
	}
	section('Warnings:', briefing.warnings.slice(0, 2).map((w) => `- ${clip(w, textLength)}`));
	if (fits(footer)) {
		push(footer);
	}
	return out.join('\n');
}

/** One line, at most `max` characters, with an ellipsis when cut. */
export function clip(value: string, max: number): string {
	const flat = value.replace(/\s+/g, ' ').trim();
	return flat.length <= max ? flat : `${flat.slice(0, Math.max(0, max - 1)).trimEnd()}…`;
}
