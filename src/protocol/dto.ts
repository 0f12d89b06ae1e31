/**
 * Wire shapes of sessions, tasks, decisions, briefings and issue links. A stored record crosses the
 * wire exactly as the engine reads it, so its shape is the engine's (`engine/storage/records.ts`,
 * inferred from the drizzle schema, and `engine/storage/jsonShapes.ts`), imported as types only:
 * type imports are erased, so no drizzle or sql.js reaches the extension or webview bundles
 * (docs/architecture.md §2). What is declared here is only what the wire adds or leaves out.
 */
import type { ForkNode, ScopeChains, SessionRow } from '../engine/sessions/sessionShapes';
import type { Briefing, BriefingMemoryEntry, DebriefData, HandoffData, SessionFocus, SessionSummary } from '../engine/storage/jsonShapes';
import type { Decision, IssueLink, Session, SessionStatus } from '../engine/storage/records';
import type { TaskWithDependencies } from '../engine/tasks/taskShapes';

export type SessionStatusDto = SessionStatus;
export type HandoffDto = HandoffData;
export type DebriefDto = DebriefData;
/** Where a live session stands in its own words (a CLEO session's focus note, next action, blocker). */
export type SessionFocusDto = SessionFocus;
export type SessionDto = Session;
export type BriefingDto = Briefing;
export type BriefingMemoryEntryDto = BriefingMemoryEntry;
/** A session's work summarised deterministically (progress, files, decisions, failures, blockers, cost). */
export type SessionSummaryDto = SessionSummary;
export type DecisionDto = Decision;

export type TaskDto = TaskWithDependencies;
export type ForkNodeDto = ForkNode;

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
export type SessionRowDto = SessionRow;
export type ScopeChainsDto = ScopeChains;
