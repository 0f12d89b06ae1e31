/**
 * The text limits the CLI and the MCP server put on the same fields, applied to imported records:
 * an import is one more way in, and a 20 MB session name read from a file would slow every list
 * that shows it. A field over its limit is malformed; the import is refused, naming record and field.
 */
import type { ImportBatch, ImportIssue } from './importTypes';

export const textLimits = {
	sessionName: 200,
	agent: 100,
	taskTitle: 500,
	note: 5_000,
	nextAction: 1_000,
	blocker: 1_000,
	decisionText: 5_000,
} as const;

export function checkTextLimits(batch: ImportBatch, errors: ImportIssue[]): void {
	const over = (record: string, field: string, value: string | null | undefined, limit: number): void => {
		if (typeof value === 'string' && value.length > limit) {
			errors.push({ record, field, message: `${value.length} characters; at most ${limit} (the same limit as the CLI and MCP)` });
		}
	};
	for (const t of batch.tasks) over(t.record, 'title', t.title, textLimits.taskTitle);
	for (const s of batch.sessions) {
		over(s.record, 'name', s.session.name, textLimits.sessionName);
		over(s.record, 'agent', s.session.agent, textLimits.agent);
		const h = s.handoff?.data;
		if (h) {
			over(s.record, 'handoff.note', h.note, textLimits.note);
			over(s.record, 'handoff.nextAction', h.nextAction, textLimits.nextAction);
			h.openBlockers.forEach((b, i) => over(s.record, `handoff.openBlockers[${i}]`, b, textLimits.blocker));
		}
		const f = s.session.focus;
		if (f) {
			over(s.record, 'focus.sessionNote', f.note, textLimits.note);
			over(s.record, 'focus.nextAction', f.nextAction, textLimits.nextAction);
			over(s.record, 'focus.blockedReason', f.blockedReason, textLimits.blocker);
		}
		for (const d of s.decisions) {
			over(d.record, 'text', d.text, textLimits.decisionText);
			over(d.record, 'rationale', d.rationale, textLimits.decisionText);
		}
	}
}
