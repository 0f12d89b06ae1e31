/**
 * Read views of sessions that reach the CLI's JSON and the wire: the fork tree and the tree view's
 * scope chains. A leaf on purpose (types from other shape files only), so the protocol can name them
 * without pulling the engine in (docs/architecture.md §2).
 */
import type { Session } from '../storage/records';

export interface ForkNode {
	session: Session;
	children: ForkNode[];
}

/** What a row of the tree needs; the rest is fetched on hover or open. */
export type SessionRow = Pick<
	Session,
	| 'id'
	| 'name'
	| 'status'
	| 'scopeKey'
	| 'agent'
	| 'previousSessionId'
	| 'nextSessionId'
	| 'parentSessionId'
	| 'startedAt'
	| 'lastActivity'
	| 'suspendedAt'
	| 'endedAt'
	| 'endNote'
>;

/** One scope's chain(s): sessions in chain order (roots first, then each next). */
export interface ScopeChains {
	scopeKey: string;
	/** `Epic T1 · Checkout flow`: the scope with its root task's title. */
	label: string;
	sessions: SessionRow[];
	/** The newest session's activity: groups sort by it. */
	lastActivity: string;
}
