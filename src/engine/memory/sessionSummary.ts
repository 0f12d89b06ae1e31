/**
 * Summaries of a session's work, built deterministically from Baton's records and the transcript
 * digest — the same input always gives the same summary, no language model involved
 * (docs/architecture.md §1, Memory):
 * - the session summary (tier two): progress, files changed, decisions, failed approaches, blockers,
 *   resume context, turns, tokens and estimated cost. A language model may rewrite it (the editor's
 *   "Summarize Session with Language Model"); this is its input and its fallback. For an ended
 *   session the handoff is the one it wrote; for a live one, the handoff it would write now
 *   (without a note or blockers);
 * - the short notes the hooks write from the digest alone: the handoff note at an agent's session
 *   end, the note before a compaction, and the "so far" lead of the briefing after a resume.
 */
import type { SessionDigest } from '../transcripts/sessionDigest';
import { clip } from '../text/clip';
import { minutesBetween } from '../sessions/briefing';
import type { HandoffData, SessionSummary } from '../storage/jsonShapes';
import type { Decision, Session } from '../storage/model';
import type { ToolFailure } from './toolFailures';

interface SessionSummaryInput {
	session: Session;
	handoff: HandoffData;
	/** True when `handoff` is the one the session wrote (it ended), false when computed now. */
	handoffWritten: boolean;
	decisions: readonly Decision[];
	digest: SessionDigest;
	failures: readonly ToolFailure[];
	nowIso: string;
}

const maxFailedApproaches = 10;
const maxFiles = 8;

export function buildSessionSummary(input: SessionSummaryInput): SessionSummary {
	const { session, handoff, digest } = input;
	const tokens = { ...digest.tokens, total: digest.tokens.input + digest.tokens.output + digest.tokens.cacheRead + digest.tokens.cacheCreation };
	return {
		sessionId: session.id,
		name: session.name,
		status: session.status,
		scope: session.scopeKey,
		agent: session.agent,
		startedAt: session.startedAt,
		endedAt: session.endedAt,
		durationMinutes: minutesBetween(session.startedAt, session.endedAt ?? input.nowIso),
		progress: progressOf(input),
		tasksCompleted: handoff.tasksCompleted,
		tasksCreated: handoff.tasksCreated,
		lastTask: handoff.lastTask,
		filesChanged: digest.filesTouched,
		decisions: input.decisions.map((d) => ({ text: d.text, rationale: d.rationale, kind: d.kind })),
		failedApproaches: failedApproaches(input.failures),
		blockers: handoff.openBlockers,
		resumeContext: resumeContextOf(input),
		turns: digest.userRequests,
		toolCalls: digest.toolCalls,
		errors: digest.errors,
		compactions: digest.compactions,
		tokens,
		estimatedCostUsd: digest.costUsd,
		transcripts: digest.transcripts,
	};
}

function progressOf({ handoff, digest, handoffWritten }: SessionSummaryInput): string {
	const refs = (list: readonly { id: string; title: string }[]): string => list.map((t) => `${t.id} (${clip(t.title, 80)})`).join(', ');
	const parts: string[] = [];
	parts.push(handoff.tasksCompleted.length ? `Completed ${refs(handoff.tasksCompleted)}.` : 'No task completed.');
	if (handoff.tasksCreated.length) {
		parts.push(`Created ${refs(handoff.tasksCreated)}.`);
	}
	if (handoff.lastTask && !handoff.tasksCompleted.some((t) => t.id === handoff.lastTask?.id)) {
		parts.push(`Worked on ${refs([handoff.lastTask])}.`);
	}
	if (digest.filesTouched.length) {
		parts.push(`Changed ${digest.filesTouched.length} file${digest.filesTouched.length === 1 ? '' : 's'}.`);
	}
	if (handoff.decisionsRecorded) {
		parts.push(`Recorded ${handoff.decisionsRecorded} decision${handoff.decisionsRecorded === 1 ? '' : 's'}.`);
	}
	if (handoffWritten && handoff.note) {
		parts.push(`Note: ${clip(handoff.note, 600)}`);
	}
	return parts.join(' ');
}

function resumeContextOf({ session, handoff, digest }: SessionSummaryInput): string {
	const parts: string[] = [];
	if (handoff.nextAction) {
		parts.push(`Next action: ${clip(handoff.nextAction, 400)}.`);
	}
	if (session.currentTask && handoff.lastTask) {
		parts.push(`Current task: ${handoff.lastTask.id} (${clip(handoff.lastTask.title, 80)}).`);
	}
	if (digest.lastUserText) {
		parts.push(`Last request: "${clip(digest.lastUserText, 300)}".`);
	}
	if (digest.lastAssistantText) {
		parts.push(`Agent's last words: "${clip(digest.lastAssistantText, 300)}".`);
	}
	if (handoff.nextSuggested.length && !handoff.nextAction) {
		parts.push(`Suggested next: ${handoff.nextSuggested.map((t) => t.id).join(', ')}.`);
	}
	return parts.join(' ') || 'Nothing recorded to resume from.';
}

/** Failed calls about the project (not agent mechanics), de-duplicated, the latest ten, oldest first. */
function failedApproaches(failures: readonly ToolFailure[]): SessionSummary['failedApproaches'] {
	const seen = new Set<string>();
	const out: SessionSummary['failedApproaches'] = [];
	for (const f of [...failures].reverse()) {
		if (f.mechanics || !f.reason) {
			continue;
		}
		const subject = f.files.length ? f.files.slice(0, 2).join(', ') : (f.detail ?? '');
		const description = `${f.tool}${subject ? ` ${clip(subject, 200)}` : ''}${f.retriedOk ? ' (a retry worked)' : ''}`;
		const key = `${description}\n${f.reason}`;
		if (!seen.has(key)) {
			seen.add(key);
			out.push({ description, reason: f.reason, at: f.at });
		}
		if (out.length >= maxFailedApproaches) {
			break;
		}
	}
	return out.reverse();
}

/** The facts of a digest as short lines, most useful first. */
export function digestLines(digest: SessionDigest): string[] {
	const lines: string[] = [];
	if (digest.lastUserText) {
		lines.push(`Last request: "${clip(digest.lastUserText, 200)}"`);
	}
	if (digest.filesTouched.length) {
		const shown = digest.filesTouched.slice(-maxFiles);
		const more = digest.filesTouched.length - shown.length;
		lines.push(`Files changed (${digest.filesTouched.length}): ${shown.join(', ')}${more > 0 ? ` and ${more} more` : ''}`);
	}
	if (digest.lastAssistantText) {
		lines.push(`Agent's last words: "${clip(digest.lastAssistantText, 200)}"`);
	}
	const activity = [
		digest.userRequests ? `${digest.userRequests} request${digest.userRequests === 1 ? '' : 's'}` : '',
		digest.toolCalls ? `${digest.toolCalls} tool call${digest.toolCalls === 1 ? '' : 's'}` : '',
		digest.errors ? `${digest.errors} tool error${digest.errors === 1 ? '' : 's'}` : '',
		digest.compactions ? `${digest.compactions} compaction${digest.compactions === 1 ? '' : 's'}` : '',
	].filter(Boolean);
	const tokens = digest.tokens.input + digest.tokens.cacheRead + digest.tokens.cacheCreation + digest.tokens.output;
	if (tokens) {
		activity.push(`${formatTokens(tokens)} tokens (≈ $${digest.costUsd.toFixed(2)})`);
	}
	if (activity.length) {
		lines.push(`Activity: ${activity.join(', ')}`);
	}
	return lines;
}

/** The handoff note of a session an agent ended: what happened, in a few sentences. */
export function sessionEndNote(input: { agentLabel: string; reason: string | null; digest: SessionDigest }): string {
	const head = `${input.agentLabel} session ended${input.reason ? ` (${input.reason})` : ''}.`;
	const lines = digestLines(input.digest);
	return clip([head, ...lines].join(' '), 2_000);
}

/** The note written before a compaction: where the conversation stood when the agent's context was cut. */
export function preCompactNote(input: { trigger: string | null; digest: SessionDigest }): string {
	const head = `Before ${input.trigger ?? 'a'} compaction.`;
	return clip([head, ...digestLines(input.digest)].join(' '), 2_000);
}

function formatTokens(n: number): string {
	return n >= 1_000_000 ? `${(n / 1_000_000).toFixed(1)}M` : n >= 1_000 ? `${Math.round(n / 1_000)}k` : String(n);
}
