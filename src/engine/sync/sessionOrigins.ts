/** Where sessions ran: the machine, its name and the author of each one's `session.started` event. */
import { and, eq, inArray } from 'drizzle-orm';
import type { BatonDb } from '../storage/journalStore';
import { sharedEvents } from '../storage/schema';
import type { SessionOrigin } from './syncShapes';

export type { SessionOrigin } from './syncShapes';

/** The sessions' origins (a session from before sync has no `session.started` event and is left out). */
export function sessionOrigins(db: BatonDb, sessionIds: readonly string[], own: string): SessionOrigin[] {
	const out: SessionOrigin[] = [];
	for (let i = 0; i < sessionIds.length; i += 500) {
		const rows = db
			.select({
				subject: sharedEvents.subject,
				machine: sharedEvents.machine,
				machineName: sharedEvents.machineName,
				author: sharedEvents.author,
				source: sharedEvents.source,
			})
			.from(sharedEvents)
			.where(and(eq(sharedEvents.kind, 'session.started'), inArray(sharedEvents.subject, sessionIds.slice(i, i + 500))))
			.all();
		for (const r of rows) {
			out.push({
				sessionId: r.subject,
				machine: r.machine,
				machineName: r.machineName,
				author: r.author,
				local: r.machine === own,
				remote: r.source === 'local' ? null : r.source,
			});
		}
	}
	return out;
}
