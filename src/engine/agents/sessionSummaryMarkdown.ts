/**
 * A session's deterministic summary as markdown, from its record (name, state, handoff, decisions)
 * and the transcript digest (sessionDigest.ts): what `Baton: Summarize Session with Language Model`
 * shows, and what a language model may improve. Extractive: every line comes from a record.
 */
import type { StoredHandoff } from '../sessions/sessionQueries';
import type { Decision, Session } from '../storage/model';
import { digestLines } from './sessionSummary';
import type { SessionDigest } from './sessionDigest';

export interface SessionSummaryFacts {
	sessionId: string;
	name: string;
	status: Session['status'];
	agent: string | null;
	hasHandoff: boolean;
	filesChanged: string[];
	decisions: string[];
	turns: number;
	tokens: number;
	costUsd: number;
}

export function summarizeSession(input: { session: Session; handoff: StoredHandoff; decisions: readonly Decision[]; digest: SessionDigest }): { summary: SessionSummaryFacts; markdown: string } {
	const { session, digest } = input;
	const handoff = input.handoff.kind === 'valid' ? input.handoff.data : null;
	const tokens = digest.tokens.input + digest.tokens.output + digest.tokens.cacheRead + digest.tokens.cacheCreation;
	const summary: SessionSummaryFacts = {
		sessionId: session.id,
		name: session.name,
		status: session.status,
		agent: session.agent,
		hasHandoff: input.handoff.kind !== 'none',
		filesChanged: digest.filesTouched,
		decisions: input.decisions.map((d) => d.text),
		turns: digest.userRequests,
		tokens,
		costUsd: digest.costUsd,
	};
	const out: string[] = [`# Session summary: ${oneLine(session.name)}`, ''];
	out.push(`- Session: \`${session.id}\` (${session.status}), scope \`${session.scopeKey}\`${session.agent ? `, agent ${session.agent}` : ''}`);
	out.push(`- Time: ${session.startedAt} → ${session.endedAt ?? session.lastActivity ?? 'now'}`);
	if (digest.transcripts) {
		out.push(`- Transcripts: ${digest.transcripts} · turns: ${digest.userRequests} · tokens: ${tokens.toLocaleString('en-US')} (≈ $${digest.costUsd.toFixed(2)})`);
	}
	out.push('', '## Progress', '');
	const lines = digestLines(digest);
	out.push(...(lines.length ? lines.map((l) => `- ${l}`) : ['- No agent activity recorded for this session.']));
	if (handoff?.tasksCompleted.length) {
		out.push(`- Tasks completed: ${handoff.tasksCompleted.map((t) => `${t.id} ${oneLine(t.title)}`).join(', ')}`);
	}
	if (input.decisions.length) {
		out.push('', '## Decisions', '', ...input.decisions.map((d) => `- ${oneLine(d.text)}${d.rationale ? ` — ${oneLine(d.rationale)}` : ''}`));
	}
	if (digest.filesTouched.length) {
		out.push('', '## Files changed', '', ...digest.filesTouched.slice(0, 50).map((f) => `- \`${f}\``));
		if (digest.filesTouched.length > 50) {
			out.push(`- … and ${digest.filesTouched.length - 50} more`);
		}
	}
	if (handoff) {
		out.push('', '## Handoff', '');
		if (handoff.note) out.push(`- Note: ${oneLine(handoff.note)}`);
		if (handoff.nextAction) out.push(`- Next action: ${oneLine(handoff.nextAction)}`);
		for (const blocker of handoff.openBlockers) out.push(`- Blocker: ${oneLine(blocker)}`);
	}
	const notes = digest.notes.slice(-5);
	if (notes.length) {
		out.push('', '## Notes from the hooks', '', ...notes.map((n) => `- ${n.at.slice(0, 16).replace('T', ' ')} (${n.kind}): ${oneLine(n.text)}`));
	}
	return { summary, markdown: `${out.join('\n')}\n` };
}

function oneLine(text: string): string {
	return text.replace(/\s+/g, ' ').trim();
}
