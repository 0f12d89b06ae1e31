/**
 * Deterministic, extractive summaries of an agent's work in a durable session (docs/architecture.md §1,
 * Memory): built from the transcript digest (requests, files changed, errors, tokens) and the
 * hooks' records, never from a language model. Used as the handoff note at session end, as the
 * note before a compaction, and as the "so far" lead of the briefing after a resume or compaction.
 */
import { clip } from '../hooks/briefingDiet';
import type { SessionDigest } from '../transcripts/sessionDigest';

const maxFiles = 8;

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
