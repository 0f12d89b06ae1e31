/**
 * Wire shapes of sessions, tasks, decisions, briefings and issue links. A stored record crosses the
 * wire exactly as the engine reads it, so its shape is the engine's (`engine/storage/records.ts`,
 * inferred from the drizzle schema, and `engine/storage/jsonShapes.ts`), imported as types only:
 * type imports are erased, so no drizzle or sql.js reaches the extension or webview bundles
 * (docs/architecture.md §2). What is declared here is only what the wire adds or leaves out.
 */
import type { Briefing, BriefingMemoryEntry, DebriefData, HandoffData, SessionSummary } from '../engine/storage/jsonShapes';
import type { Decision, IssueLink, Session, SessionStatus, Task } from '../engine/storage/records';

export type SessionStatusDto = SessionStatus;
export type HandoffDto = HandoffData;
export type DebriefDto = DebriefData;
export type SessionDto = Session;
export type BriefingDto = Briefing;
export type BriefingMemoryEntryDto = BriefingMemoryEntry;
/** A session's work summarised deterministically (progress, files, decisions, failures, blockers, cost). */
export type SessionSummaryDto = SessionSummary;
export type DecisionDto = Decision;

/** A task with the ids of the tasks it waits for (the dependency rows, folded in). */
export type TaskDto = Task & { dependsOn: string[] };

export interface ForkNodeDto {
	session: SessionDto;
	children: ForkNodeDto[];
}

/** A session's link to a tracker issue (`baton issue list` prints the same shape): the stored row less its timestamps. */
export type IssueLinkDto = Omit<IssueLink, 'createdAt' | 'updatedAt'>;

/** Everything the session details view shows about one session. */
export interface SessionDetailsDto {
	session: SessionDto;
	handoff: HandoffDto | null;
	/** Why the stored handoff could not be read (then `handoff` is null). */
	handoffProblem: string | null;
	chain: SessionDto[];
	forkTree: ForkNodeDto;
	decisions: DecisionDto[];
	linkedIssues: IssueLinkDto[];
}

/** A tree row: the session fields a row shows; details are fetched on hover or open. */
export type SessionRowDto = Pick<Session, 'id' | 'name' | 'status' | 'scopeKey' | 'agent' | 'previousSessionId' | 'nextSessionId' | 'parentSessionId' | 'startedAt' | 'lastActivity' | 'suspendedAt' | 'endedAt' | 'endNote'>;

/** One scope's chain(s) for the tree: sessions in chain order (roots first, then each next). */
export interface ScopeChainsDto {
	scopeKey: string;
	/** `Epic T1 · Checkout flow`: the scope with its root task's title. */
	label: string;
	sessions: SessionRowDto[];
	/** The newest session's activity: groups sort by it. */
	lastActivity: string;
}
