/**
 * Derived state of a handoff's consumption (docs/records.md): when sessions on two machines both took
 * the same handoff, the `handoff.consumed` event with the smallest id wins on every machine, and the
 * other session is told in its briefing.
 */
import { and, asc, eq } from 'drizzle-orm';
import type { BatonDb } from '../storage/journalStore';
import { sessions, sharedEvents } from '../storage/schema';

/** The briefing warning for a session that consumed a handoff another session had consumed first. */
export function handoffConflictWarning(db: BatonDb, sessionId: string, previousSessionId: string | null): string | null {
	if (!previousSessionId) {
		return null;
	}
	const consumed = db
		.select()
		.from(sharedEvents)
		.where(and(eq(sharedEvents.kind, 'handoff.consumed'), eq(sharedEvents.subject, previousSessionId)))
		.orderBy(asc(sharedEvents.id))
		.all();
	const winner = consumed[0];
	if (!winner || consumed.length < 2 || winner.body['bySessionId'] === sessionId || !consumed.some((e) => e.body['bySessionId'] === sessionId)) {
		return null;
	}
	const where = winner.machineName ?? winner.machine;
	const by = String(winner.body['bySessionId']);
	// Sessions by the names people know; the winner's id too, to find it with the CLI.
	const nameOf = (id: string): string | undefined => db.select({ name: sessions.name }).from(sessions).where(eq(sessions.id, id)).get()?.name;
	const previous = nameOf(previousSessionId);
	const winnerName = nameOf(by);
	return `the handoff of ${previous ? `“${previous}”` : previousSessionId} was also taken by ${winnerName ? `“${winnerName}” (${by})` : by} on ${where}${winner.author ? ` (${winner.author})` : ''}, first; the chain continues there — reconcile with that session's work`;
}
