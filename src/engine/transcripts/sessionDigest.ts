/**
 * One durable session's agent work as the transcript index records it: requests, tool calls,
 * errors, tokens and their estimated cost, files changed (from transcripts and from tool hooks),
 * the last request and the agent's last words. The raw material of summaries and handoff notes.
 */
import { ownMap } from '../storage/ownRecord';
import { addTokens, emptyTokens, estimateCostUsd, type TokenCounts } from './costEstimate';
import { addFiles, type SessionNote, type TranscriptEntry, type TranscriptIndex } from './transcriptIndex';

export interface SessionDigest {
	sessionId: string;
	transcripts: number;
	userRequests: number;
	toolCalls: number;
	errors: number;
	compactions: number;
	tokens: TokenCounts;
	costUsd: number;
	filesTouched: string[];
	lastUserText: string | null;
	lastAssistantText: string | null;
	firstAt: string | null;
	lastAt: string | null;
	notes: SessionNote[];
	agentSessionIds: string[];
}

/** `sessionFiles`: the files the session's sidecar names (sessionFiles.ts), beside any the index names. */
export function digestSession(index: TranscriptIndex, sessionId: string, sessionFiles: readonly string[] = []): SessionDigest {
	const entries = Object.values(index.transcripts)
		.filter((e) => e.sessionId === sessionId)
		.sort((a, b) => (a.lastAt ?? '').localeCompare(b.lastAt ?? ''));
	const session = index.sessions[sessionId];
	const tokens = emptyTokens();
	// Without a prototype: model names come from transcripts (storage/ownRecord.ts).
	const byModel = ownMap<TokenCounts>();
	const files: string[] = [];
	for (const entry of entries) {
		for (const [model, counts] of Object.entries(entry.tokens)) {
			addTokens(tokens, counts);
			addTokens((byModel[model] ??= emptyTokens()), counts);
		}
		addFiles(files, entry.filesTouched);
	}
	addFiles(files, sessionFiles);
	addFiles(files, session?.filesTouched ?? []);
	// Subagents' prompts come from the main agent, not from the person: only main transcripts speak for them.
	const main = entries.filter((e) => !e.parentAgentSessionId);
	const latest = (pick: (e: TranscriptEntry) => string | null): string | null => {
		for (let i = main.length - 1; i >= 0; i--) {
			const value = pick(main[i] as TranscriptEntry);
			if (value) {
				return value;
			}
		}
		return null;
	};
	const sum = (pick: (e: TranscriptEntry) => number): number => entries.reduce((n, e) => n + pick(e), 0);
	const times = (pick: (e: TranscriptEntry) => string | null): string[] =>
		entries
			.map(pick)
			.filter((v): v is string => !!v)
			.sort();
	return {
		sessionId,
		transcripts: entries.length,
		userRequests: main.reduce((n, e) => n + e.userRequests, 0),
		toolCalls: sum((e) => e.toolCalls),
		errors: sum((e) => e.errors),
		compactions: sum((e) => e.compactions),
		tokens,
		costUsd: estimateCostUsd(byModel),
		filesTouched: files,
		lastUserText: latest((e) => e.lastUserText),
		lastAssistantText: latest((e) => e.lastAssistantText),
		firstAt: times((e) => e.firstAt)[0] ?? null,
		lastAt: times((e) => e.lastAt).at(-1) ?? null,
		notes: session?.notes ?? [],
		agentSessionIds: main.map((e) => e.agentSessionId),
	};
}
