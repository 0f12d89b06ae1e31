/**
 * The Agents board's shapes (docs/architecture.md §2, "One shape per record"): one row per agent
 * session running now, as `baton agents --json` prints it and the wire carries it.
 */
import type { AgentSignal } from '../storage/records';

/** `working`, `waiting` (for you), `done`, `failed`. */
export type BoardState = AgentSignal['state'];

/** What a waiting session waits on: a permission prompt, a question (or the idle prompt), a checkpoint's approval. */
export type WaitKind = 'permission' | 'question' | 'approval';

export interface BoardEntry {
	/** The durable session's id (`ses_…`). Several agents' conversations may share one session: each is a row. */
	id: string;
	/** The agent's own id for the conversation (`session_id`, Copilot CLI's run); null for a checkpoint's row. */
	agentSessionId: string | null;
	name: string;
	/** The agent kind (`claude-code`, `codex`, …) or whoever the session names. */
	agent: string | null;
	state: BoardState;
	/** Why, in a person's words: "permission to use Bash", "checkpoint #3 “Retries” awaits your approval". */
	reason: string;
	/** When the session entered this state (ISO). */
	since: string;
	/** The session's scope key (`global`, `task:T4`, …). */
	scope: string;
	/** The session's own status (`active`, `ended`, …). */
	status: string;
	/** Set when the state is `waiting`. */
	waitingOn: WaitKind | null;
	/** The checkpoint awaiting approval (`waitingOn` `approval`). */
	checkpoint: { id: string; seq: number; label: string | null } | null;
	/** The hook event that set the state, as the agent named it; null when none did. */
	event: string | null;
	/** Where the state comes from: the agent's hooks, a pending checkpoint, its imported file still growing, or the session alone. */
	source: 'hook' | 'checkpoint' | 'import' | 'session';
	lastActivity: string;
}

export interface BoardReport {
	/** Waiting first (oldest wait first), then failed, working and done (most recent first). */
	entries: BoardEntry[];
	/** How many wait for you. */
	waiting: number;
	/** When the board was read (ISO). */
	at: string;
}
