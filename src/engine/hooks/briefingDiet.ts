/**
 * The "diet" briefing injected into an agent's context (docs/architecture.md §1): a few items per list, titles
 * truncated, stale suggestions and stale facts marked, all within a character budget. Items are
 * added whole, one at a time, so a small budget drops the least important ones first and never cuts
 * a line in half. The full briefing stays available on request (`baton briefing`).
 *
 * The context budget, spent in this order:
 * 1. the heading, and room for the footer (held back from the start);
 * 2. a resumed session's progress, its own focus, the previous session's handoff, the current task, the handoff's
 *    suggestions and the next tasks. While they are added, room for project memory is held back:
 *    its share (below), or less when memory needs less;
 * 3. project memory, up to `memoryShare` of the budget (stretched to hold its first fact when that
 *    is longer), in the briefing's order (gotchas first). A stale fact carries its mark; a fact the
 *    handoff lines above already said (the previous session's blockers and decisions became facts)
 *    is not repeated. When facts do not fit, or the briefing listed only some, a last line says how
 *    many more there are: the list is never cut tail-first silently;
 * 4. open bugs, blocked tasks, active epics, recent decisions and warnings, with what is left.
 */
import { defaultBriefingBudget } from '../agentConfig/agentSettings';
import { memoryFingerprint } from '../memory/memoryFingerprint';
import { decisionFactText } from '../memory/sessionEndFacts';
import type { Briefing, BriefingMemoryEntry } from '../storage/jsonShapes';
import { clip } from '../text/clip';
import { laterWorkText } from '../interop/markdownViews';

/** The share of the budget project memory may use (and that is held for it while the handoff and tasks are added). */
export const memoryShare = 0.25;
const itemsPerList = 3;
const titleLength = 80;
const textLength = 240;
const factLength = 200;

interface DietExtras {
	/** Lines that go right after the heading (a resumed session's progress so far). */
	lead?: { title: string; lines: string[] };
}

/** The diet briefing of `briefing` within `budget` characters: its sections in the order the file's comment gives. */
export function renderBriefingDiet(briefing: Briefing, budget: number = defaultBriefingBudget, extras: DietExtras = {}): string {
	const footer = briefing.sessionId
		? `(Full briefing: \`baton briefing --session ${briefing.sessionId} --json\`.)`
		: '(Full briefing: `baton briefing --json`.)';
	const diet = new DietLines(Math.max(80, Math.floor(budget)), footer.length + 1);
	const heading = `Baton briefing${briefing.sessionId ? ` for durable session ${briefing.sessionId}` : ''} (scope ${briefing.scope})`;
	diet.push(clip(heading, diet.limit));
	// Room held for project memory while the sections before it are added.
	const memory = memoryPlan(briefing, Math.floor(diet.limit * memoryShare));
	diet.held = memory.held;
	addSessionSections(diet, briefing, extras);
	addNextWorkSections(diet, briefing);
	diet.held = 0;
	addMemory(diet, briefing, memory);
	addProjectSections(diet, briefing);
	if (diet.fits(footer)) {
		diet.push(footer);
	}
	return diet.out.join('\n');
}

/** The briefing's lines so far and the budget they spend: a line is added whole or not at all. */
class DietLines {
	readonly out: string[] = [];
	used = 0;
	/** Room held for project memory while the sections before it are added. */
	held = 0;

	/** `reserve`: room held for the footer from the start. */
	constructor(
		readonly limit: number,
		readonly reserve: number,
	) {}

	fits(line: string, reserve = 0): boolean {
		return this.used + line.length + 1 + reserve <= this.limit;
	}

	push(line: string): void {
		this.out.push(line);
		this.used += line.length + 1;
	}

	/** A titled list (empty lines dropped): the title only when its first item fits too, then items while they fit. */
	section(title: string, lines: string[]): void {
		const items = lines.filter(Boolean);
		if (items.length === 0 || !this.fits(title, this.reserve + this.held + (items[0]?.length ?? 0) + 1)) {
			return;
		}
		this.push(title);
		for (const item of items) {
			if (!this.fits(item, this.reserve + this.held)) {
				break;
			}
			this.push(item);
		}
	}
}

/** The sessions' own words: a resumed session's progress, its focus, and the previous session with its handoff. */
function addSessionSections(diet: DietLines, briefing: Briefing, extras: DietExtras): void {
	if (extras.lead) {
		diet.section(
			extras.lead.title,
			extras.lead.lines.map((l) => `- ${clip(l, textLength)}`),
		);
	}
	if (briefing.focus) {
		// The session's own words on where it stood (a live CLEO session's focus): first, it is this session's.
		const f = briefing.focus;
		diet.section(f.last ? 'This session’s last focus (from before it stopped):' : 'This session’s focus:', [
			f.note ? `- Working on: ${clip(f.note, textLength)}` : '',
			f.nextAction ? `- Next action: ${clip(f.nextAction, textLength)}` : '',
			f.blockedReason ? `- Blocked: ${clip(f.blockedReason, textLength)}` : '',
		]);
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
		if (last.laterWork) {
			lines.push(`- Resumed after its handoff: ${clip(laterWorkText(last.laterWork), textLength)}`);
		}
		diet.section('Previous session:', lines);
	}
}

/** What to work on: the current task, the previous session's suggestions and the next tasks. */
function addNextWorkSections(diet: DietLines, briefing: Briefing): void {
	if (briefing.currentTask) {
		const t = briefing.currentTask;
		diet.section('Current task:', [
			`- ${t.id} ${clip(t.title, titleLength)} (${t.status}${t.blockedBy.length ? `; blocked by ${t.blockedBy.slice(0, itemsPerList).join(', ')}` : ''})`,
		]);
	}
	diet.section(
		'Suggested by the previous session:',
		briefing.suggestions
			.slice(0, itemsPerList)
			.map((s) => `- ${s.id} ${clip(s.title, titleLength)}${s.stale ? ` [stale: ${s.status ?? 'missing'}, skip it]` : ''}`),
	);
	diet.section(
		'Next tasks (most unblocking first):',
		briefing.nextTasks
			.slice(0, itemsPerList)
			.map((t) => `- ${t.id} ${clip(t.title, titleLength)} [${t.priority}${t.leverage ? `, unblocks ${t.leverage}` : ''}]`),
	);
}

/** Project memory within its allowance (never past the footer's room), with a last line saying how many facts did not fit. */
function addMemory(diet: DietLines, briefing: Briefing, planned: MemoryPlan): void {
	let memory = planned;
	// Facts the handoff lines above already said (its blockers and decisions became facts) are not repeated.
	const said = saidInHandoff(briefing, diet.out);
	if (said.size) {
		memory = memoryPlan(briefing, memory.allowance, said);
	}
	if (memory.total === 0) {
		return;
	}
	// Memory may use its share, never more than what is left before the footer.
	const end = Math.min(diet.used + memory.allowance, diet.limit - diet.reserve);
	const room = (line: string, more: number): boolean => diet.used + line.length + 1 + (more > 0 ? moreLine(more).length + 1 : 0) <= end;
	if (!room(memory.title, memory.total)) {
		return;
	}
	diet.push(memory.title);
	let shown = 0;
	for (const line of memory.lines) {
		if (!room(line, memory.total - shown - 1)) {
			break;
		}
		diet.push(line);
		shown++;
	}
	if (shown < memory.total) {
		diet.push(moreLine(memory.total - shown));
	}
}

/** The rest, with what is left: open bugs, blocked tasks, active epics, recent decisions (when no handoff gave them) and warnings. */
function addProjectSections(diet: DietLines, briefing: Briefing): void {
	diet.section(
		'Open bugs:',
		briefing.openBugs.slice(0, itemsPerList).map((t) => `- ${t.id} ${clip(t.title, titleLength)} [${t.priority}]`),
	);
	diet.section(
		'Blocked:',
		briefing.blockedTasks
			.slice(0, itemsPerList)
			.map((t) => `- ${t.id} ${clip(t.title, titleLength)}${t.blockedBy.length ? ` (by ${t.blockedBy.slice(0, itemsPerList).join(', ')})` : ''}`),
	);
	diet.section(
		'Active epics:',
		briefing.activeEpics.slice(0, itemsPerList).map((e) => `- ${e.id} ${clip(e.title, titleLength)} ${e.completionPercent}% (${e.done}/${e.total})`),
	);
	if (!briefing.lastSession?.handoff) {
		diet.section(
			'Recent decisions:',
			briefing.recentDecisions.slice(0, itemsPerList).map((d) => `- ${clip(d.text, textLength)}`),
		);
	}
	diet.section(
		'Warnings:',
		briefing.warnings.slice(0, 2).map((w) => `- ${clip(w, textLength)}`),
	);
}

interface MemoryPlan {
	title: string;
	lines: string[];
	/** Live facts in all (the briefing may list fewer). */
	total: number;
	/** Characters memory may use. */
	allowance: number;
	/** Characters held back for it while the sections before it are added. */
	held: number;
}

/** `skip`: fingerprints of facts shown elsewhere already (they are neither listed nor counted). */
function memoryPlan(briefing: Briefing, allowance: number, skip: ReadonlySet<string> = new Set()): MemoryPlan {
	const title = 'Project memory (gotchas first):';
	const entries = briefing.memory.entries.filter((e) => !skip.has(memoryFingerprint(e.text)));
	const lines = entries.map(factLine);
	const total = Math.max(briefing.memory.total - (briefing.memory.entries.length - entries.length), lines.length);
	if (total === 0) {
		return { title, lines, total, allowance, held: 0 };
	}
	const needed = [title, ...lines].reduce((n, l) => n + l.length + 1, 0) + (total > lines.length ? moreLine(total - lines.length).length + 1 : 0);
	// The share may stretch to hold the first fact (the top gotcha), so it never shows only a count.
	const first = lines[0] ? title.length + lines[0].length + 2 + (total > 1 ? moreLine(total - 1).length + 1 : 0) : 0;
	const stretched = Math.max(allowance, first);
	return { title, lines, total, allowance: stretched, held: Math.min(stretched, needed) };
}

/** Fingerprints of the previous handoff's blockers and decisions whose lines `shown` holds. */
function saidInHandoff(briefing: Briefing, shown: readonly string[]): Set<string> {
	const said = new Set<string>();
	const handoff = briefing.lastSession?.handoff;
	for (const b of handoff?.openBlockers ?? []) {
		if (shown.includes(`- Blocker: ${clip(b, textLength)}`)) {
			said.add(memoryFingerprint(b));
		}
	}
	for (const d of handoff?.decisions ?? []) {
		if (shown.includes(`- Decision: ${clip(d.text, textLength)}`)) {
			said.add(memoryFingerprint(decisionFactText(d.text, d.rationale)));
		}
	}
	return said;
}

/** `- Gotcha: text (files) [stale: why]`: the files only when the text does not name them already. */
function factLine(e: BriefingMemoryEntry): string {
	const files = e.files.filter((f) => !e.text.includes(f));
	const about = files.length ? ` (${files.slice(0, 2).join(', ')}${files.length > 2 ? ` +${files.length - 2}` : ''})` : '';
	const stale = e.staleSince ? ` [stale: ${clip(e.staleReason ?? 'needs checking', 100)}]` : '';
	return `- ${e.kind === 'gotcha' ? 'Gotcha' : 'Fact'}: ${clip(e.text, factLength)}${about}${stale}`;
}

function moreLine(count: number): string {
	return `- … and ${count} more (\`baton memory list\`)`;
}
