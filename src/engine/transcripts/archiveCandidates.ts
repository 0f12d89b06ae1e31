/**
 * Which transcripts one archive sync looks at (transcriptArchive.ts): for Claude Code its project
 * folder's, the ones the index knows and the ones the hook named; for the other agents the ones the
 * index knows, the one the hook named and the ones the agent-history discovery found. Also the name
 * a transcript's excerpts are archived under.
 */
import path from 'node:path';
import type { AgentKind } from '../agentKinds';
import { discoverClaudeTranscripts, subagentTranscripts, type DiscoveredTranscript } from './claudeProjects';
import type { TranscriptEntry, TranscriptIndex } from './transcriptIndex';

export const safeName = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

interface CandidateInput {
	agentSessionIds?: readonly string[] | undefined;
	sources?: readonly string[] | undefined;
	discovered?: readonly DiscoveredTranscript[] | undefined;
}

/** The project folder's transcripts, the ones the index knows, and the ones the agent named. */
export function claudeCandidates(index: TranscriptIndex, input: CandidateInput, claudeHome: string, workspaceRoot: string): DiscoveredTranscript[] {
	const wanted = input.agentSessionIds ? new Set(input.agentSessionIds) : undefined;
	const byId = new Map<string, DiscoveredTranscript>();
	const add = (t: DiscoveredTranscript): void => {
		if (!wanted || wanted.has(t.parentAgentSessionId ?? t.agentSessionId)) {
			byId.set(t.id, t);
		}
	};
	for (const entry of Object.values(index.transcripts)) {
		if (entry.agent === 'claude-code') {
			add({ ...entry });
		}
	}
	for (const source of input.sources ?? []) {
		if (source.endsWith('.jsonl')) {
			const id = path.basename(source, '.jsonl');
			add({ id, agentSessionId: id, parentAgentSessionId: null, sourcePath: source, agentType: null, description: null });
			subagentTranscripts(source.slice(0, -'.jsonl'.length), id).forEach(add);
		}
	}
	discoverClaudeTranscripts(claudeHome, workspaceRoot).forEach(add);
	input.discovered?.forEach(add);
	return [...byId.values()];
}

/** An agent's transcripts other than Claude Code's: the ones the index knows, and the ones the hook named. */
export function namedCandidates(index: TranscriptIndex, input: CandidateInput, agent: AgentKind): DiscoveredTranscript[] {
	const wanted = input.agentSessionIds ? new Set(input.agentSessionIds) : undefined;
	const byId = new Map<string, DiscoveredTranscript>();
	for (const entry of Object.values(index.transcripts)) {
		if (entry.agent === agent && (!wanted || wanted.has(entry.agentSessionId))) {
			byId.set(entry.id, { ...entry });
		}
	}
	const id = input.agentSessionIds?.[0];
	for (const source of id && safeName.test(id) ? (input.sources ?? []) : []) {
		if (source.endsWith('.jsonl')) {
			byId.set(id as string, {
				id: id as string,
				agentSessionId: id as string,
				parentAgentSessionId: null,
				sourcePath: source,
				agentType: null,
				description: null,
			});
		}
	}
	for (const found of input.discovered ?? []) {
		byId.set(found.id, found);
	}
	return [...byId.values()];
}

/** `<durable session>/<agent session>.jsonl` (a subagent's: `<parent>.<agent id>.jsonl`), or null for an id Baton does not use as a file name. */
export function archiveNameOf(entry: Pick<TranscriptEntry, 'sessionId' | 'agentSessionId' | 'parentAgentSessionId'>): string | null {
	const parts = entry.parentAgentSessionId ? [entry.parentAgentSessionId, entry.agentSessionId] : [entry.agentSessionId];
	if (!entry.sessionId || !safeName.test(entry.sessionId) || !parts.every((p) => safeName.test(p))) {
		return null;
	}
	return `${entry.sessionId}/${parts.join('.')}.jsonl`;
}
