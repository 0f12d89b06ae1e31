/**
 * The hook's part in the Agents board (src/engine/board): after an event is handled, what it says
 * about its session (working, waiting for you, done, failed) is recorded when it changed. The events
 * only the board needs (Notification, PermissionRequest, StopFailure, errorOccurred) are handled here:
 * they find their session by the agent's id and change nothing else. Best effort, like every step
 * after the session is known: a failure is logged and the hook still answers.
 */
import type { BoardService } from '../board/boardService';
import { signalOf } from '../board/boardRules';
import type { HookEvent } from '../hookEvent';
import type { Logger } from '../ports';
import type { HookEngine } from './hookEngine';

/** The session of an event only the board listens to: its alias, else the earlier id the payload names. */
export async function signalSession(engine: HookEngine, event: HookEvent): Promise<string | null> {
	const own = await engine.briefings.byAlias(event.agent, event.agentSessionId);
	if (own) {
		return own.id;
	}
	const previous = event.previousAgentSessionId ? await engine.briefings.byAlias(event.agent, event.previousAgentSessionId) : undefined;
	return previous?.id ?? null;
}

export async function recordBoardSignal(board: BoardService | undefined, event: HookEvent, sessionId: string | null, log: Logger): Promise<void> {
	const signal = signalOf(event);
	if (!board || !sessionId || !signal || !event.agentSessionId) {
		return;
	}
	try {
		await board.record({ agent: event.agent, alias: event.agentSessionId, sessionId }, signal);
	} catch (error) {
		log.warn(`board: could not record ${event.eventName} for ${sessionId}: ${(error as Error).message}`);
	}
}
