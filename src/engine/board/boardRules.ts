/**
 * The Agents board's rules, in one place (issue 26, item 4): which state a hook event puts its
 * session in, and which state a session shows once its pending checkpoints, its imported file and
 * its own status are taken into account. Pure: the CLI (`baton agents`), the backend (the Agents view,
 * the status bar) and the hooks ask these functions and nothing else decides.
 */
import type { HookEvent } from '../hookEvent';
import type { BoardEntry, BoardState, WaitKind } from './boardShapes';

/** What a hook event says about its session: a state, why, and the event as the agent named it. */
export interface Signal {
	state: BoardState;
	reason: string;
	event: string;
}

/** The signal last recorded for a session (the `agent_signals` row). */
export interface StoredSignal extends Signal {
	since: string;
}

type SignalInput = Pick<HookEvent, 'kind' | 'eventName' | 'tool' | 'reason' | 'notice' | 'error'>;

/** How long a session that stopped stays on the board, and how recently an imported file must have changed to count as running. */
export const boardWindows = { recentMs: 30 * 60_000, growingMs: 2 * 60_000 };

const reasonMax = 200;

/** One line, at most `reasonMax` characters. */
function line(text: string): string {
	const flat = text.replace(/\s+/g, ' ').trim();
	return flat.length > reasonMax ? `${flat.slice(0, reasonMax - 1)}…` : flat;
}

const key = (text: string | null | undefined): string => (text ?? '').toLowerCase().replace(/[-_\s]/g, '');

/** A notification's kind as the agents name it: Claude Code's `notification_type`, Gemini CLI's (`ToolPermission`). */
function noticeSignal(event: SignalInput): Signal | null {
	const type = key(event.notice?.type);
	const message = event.notice?.message ? line(event.notice.message) : null;
	const name = `${event.eventName}${event.notice?.type ? `/${event.notice.type}` : ''}`;
	if (type === 'permissionprompt' || type === 'toolpermission') {
		return { state: 'waiting', reason: message ?? 'asks your permission', event: name };
	}
	if (type === 'idleprompt') {
		return { state: 'waiting', reason: message ?? 'waiting for your input', event: name };
	}
	if (type === 'elicitationdialog') {
		return { state: 'waiting', reason: message ?? 'asks you a question', event: name };
	}
	if (type.endsWith('response') || type.endsWith('complete')) {
		return { state: 'working', reason: 'working', event: name };
	}
	// auth_success and the kinds no agent has sent yet: they say nothing about needing you.
	return null;
}

/** The state a hook event puts its session in; null when it changes nothing (an unknown event, a notification of no consequence). */
export function signalOf(event: SignalInput): Signal | null {
	const name = event.eventName;
	switch (event.kind) {
		case 'notification':
			return noticeSignal(event);
		case 'permissionRequest':
			return { state: 'waiting', reason: event.tool ? `asks permission to use ${event.tool.name}` : 'asks your permission', event: name };
		case 'stopFailure':
			return { state: 'failed', reason: line(`stopped by an error${event.error ? `: ${event.error}` : ''}`), event: name };
		case 'error':
			return { state: 'failed', reason: line(event.error ? `error: ${event.error}` : 'the agent reported an error'), event: name };
		case 'stop':
			return { state: 'done', reason: 'finished its turn', event: name };
		case 'sessionEnd':
			return { state: 'done', reason: event.reason ? line(`session ended (${event.reason})`) : 'session ended', event: name };
		case 'postToolUse':
			return event.tool?.failed
				? { state: 'working', reason: line(`${event.tool.name} failed; the agent carries on`), event: name }
				: { state: 'working', reason: 'working', event: name };
		case 'sessionStart':
		case 'resume':
		case 'clear':
		case 'compact':
		case 'preCompact':
		case 'preToolUse':
		case 'userPrompt':
		case 'subagentStop':
			return { state: 'working', reason: 'working', event: name };
		case 'unknown':
			return null;
	}
}

/** Whether recording `next` changes what was recorded; `since` stays when only the reason changed within one state. */
export function nextSignal(previous: StoredSignal | null, next: Signal, now: string): StoredSignal | null {
	if (previous && previous.state === next.state && previous.reason === next.reason && previous.event === next.event) {
		return null;
	}
	if (previous && previous.state === next.state && next.state === 'working') {
		// A working session's reasons come and go with each tool; its time in the state does not restart.
		return previous.reason === next.reason ? null : { ...next, since: previous.since };
	}
	return { ...next, since: previous && previous.state === next.state ? previous.since : now };
}

/** What a waiting signal waits on, from the event that set it. */
export function waitKindOf(signal: Signal): WaitKind | null {
	if (signal.state !== 'waiting') {
		return null;
	}
	const event = key(signal.event);
	return event.startsWith('permissionrequest') || event.includes('permission') ? 'permission' : 'question';
}

export interface BoardInput {
	session: { status: string; lastActivity: string; endedAt: string | null; imported: boolean };
	signal: StoredSignal | null;
	/** The session's oldest checkpoint awaiting approval. */
	approval: { id: string; seq: number; label: string | null; createdAt: string } | null;
	/** The modification time of an imported session's file in the agent's own history (ISO), when known. */
	fileModifiedAt: string | null;
	now: number;
}

export type BoardVerdict = Pick<BoardEntry, 'state' | 'reason' | 'since' | 'waitingOn' | 'checkpoint' | 'event' | 'source'>;

/**
 * A session's place on the board, or null when it is not running now. A checkpoint awaiting your
 * approval comes first (the agent may work on, but you are needed); an imported session is running
 * while its file still grows; an active session shows what its hooks said last (working when they
 * said nothing); a session that stopped within `recentMs` shows as done, or failed when its last word
 * was an error or it was orphaned.
 */
export function boardVerdict(input: BoardInput): BoardVerdict | null {
	const { session, signal, approval, now } = input;
	const event = signal?.event ?? null;
	if (approval) {
		const label = approval.label ? ` “${line(approval.label)}”` : '';
		return {
			state: 'waiting',
			reason: `checkpoint #${approval.seq}${label} awaits your approval`,
			since: approval.createdAt,
			waitingOn: 'approval',
			checkpoint: { id: approval.id, seq: approval.seq, label: approval.label },
			event,
			source: 'checkpoint',
		};
	}
	if (session.imported) {
		const at = input.fileModifiedAt;
		return at && Date.parse(at) >= now - boardWindows.growingMs
			? {
					state: 'working',
					reason: 'its own history file is still growing',
					since: session.lastActivity,
					waitingOn: null,
					checkpoint: null,
					event,
					source: 'import',
				}
			: null;
	}
	if (session.status === 'active') {
		return signal
			? { state: signal.state, reason: signal.reason, since: signal.since, waitingOn: waitKindOf(signal), checkpoint: null, event, source: 'hook' }
			: { state: 'working', reason: 'active', since: session.lastActivity, waitingOn: null, checkpoint: null, event, source: 'session' };
	}
	const stoppedAt = session.endedAt ?? session.lastActivity;
	if (session.status === 'suspended' || Date.parse(stoppedAt) < now - boardWindows.recentMs) {
		return null;
	}
	if (signal?.state === 'failed') {
		return { state: 'failed', reason: signal.reason, since: signal.since, waitingOn: null, checkpoint: null, event, source: 'hook' };
	}
	if (session.status === 'orphaned') {
		return { state: 'failed', reason: 'abandoned without a handoff', since: stoppedAt, waitingOn: null, checkpoint: null, event, source: 'session' };
	}
	const reason = signal?.state === 'done' ? signal.reason : `session ${session.status}`;
	return { state: 'done', reason, since: stoppedAt, waitingOn: null, checkpoint: null, event, source: signal ? 'hook' : 'session' };
}

const stateOrder: Record<BoardState, number> = { waiting: 0, failed: 1, working: 2, done: 3 };

/** Waiting first, the longest wait first; then failed, working and done, the most recent first. */
export function compareEntries(
	a: Pick<BoardEntry, 'state' | 'since' | 'id'> & { agentSessionId?: string | null },
	b: Pick<BoardEntry, 'state' | 'since' | 'id'> & { agentSessionId?: string | null },
): number {
	const byState = stateOrder[a.state] - stateOrder[b.state];
	if (byState !== 0) {
		return byState;
	}
	const bySince = a.state === 'waiting' ? a.since.localeCompare(b.since) : b.since.localeCompare(a.since);
	return bySince !== 0 ? bySince : a.id.localeCompare(b.id) || (a.agentSessionId ?? '').localeCompare(b.agentSessionId ?? '');
}
